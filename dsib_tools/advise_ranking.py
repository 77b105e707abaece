"""``advise``'s answer from the workers' outcomes: the figures, the ranking for each goal, the
Markdown table and the page with its charts."""

import math
import os
import shutil
import statistics

# The goals a pick is made for: (key, heading, what the figure is).
GOALS = (
    ("read", "fastest read", "median read time"),
    ("write", "fastest write", "median write time"),
    ("size", "smallest file", "file size"),
    ("peak", "least memory", "peak RSS of read and write"),
)


def median(values):
    return statistics.median(values) if values else None


def quartiles(values):
    import numpy as np

    if len(values) < 2:
        return None, None
    return float(np.percentile(values, 25)), float(np.percentile(values, 75))


def stats(values):
    lo, hi = quartiles(values)
    return {"q_25": lo, "q_75": hi, "repeat": len(values)}


def writer_of(fmt, formats):
    """The format whose writer ``fmt`` (a reader of another format's file) uses, or None."""
    writers = [g for g in formats if g.writes]
    same = [g for g in writers if g.write is fmt.write] or [
        g
        for g in writers
        if g.suffix == fmt.suffix
        and getattr(g.write, "__code__", None) is not None
        and getattr(g.write, "__code__", None) is getattr(fmt.write, "__code__", None)
    ]
    return same[0].name if same else None


def lend_writes(outcomes):
    """A format that writes with another's writer gets that format's write samples (and says whose)."""
    by_name = dict((o["format"], o) for o in outcomes)
    for o in outcomes:
        lender = by_name.get(o.get("writer"))
        if not o.get("times_write", True) and lender and lender.get("write"):
            o["write"], o["write_peak"] = lender["write"], lender["write_peak"]
    return outcomes


def figures(outcome):
    """{goal: figure} of a measured format: seconds, bytes; None where not measured."""
    peaks = [p for p in (outcome["read_peak"], outcome["write_peak"]) if p]
    return {
        "read": median(outcome["read"]),
        "write": median(outcome["write"]),
        "size": outcome["bytes"],
        "peak": max(peaks) if peaks else None,
    }


def held(outcome):
    """Whether the format held the table: written, read back, and the same frame but for its losses."""
    return not outcome["skip"] and not outcome["error"] and bool(outcome["read"])


def differs(outcome):
    """Whether the format wrote and read the table, but gave back another frame (measured, not picked)."""
    return bool(outcome.get("differs")) and bool(outcome["read"])


def reason(outcome):
    if differs(outcome):
        return "changed: " + "; ".join(outcome["differs"])
    return (outcome["skip"] or outcome["error"] or "no read measured").strip().splitlines()[0]


def score(figs, best):
    """The balanced score: the mean over the goals of log2(figure / the best figure), 0 for a format
    best at everything (a goal with no figure, which a format held the table without, counts 0)."""
    terms = [math.log(figs[g] / best[g], 2) if figs[g] and best[g] else 0.0 for g, _, _ in GOALS]
    return sum(terms) / len(terms)


def rank(outcomes):
    """(the formats that held the table, ranked by balanced score: [(outcome, figures, score)],
    {goal: the best one's format}, the others)."""
    kept = [(o, figures(o)) for o in outcomes if held(o)]
    best = {}
    for goal, _, _ in GOALS:
        values = [f[goal] for _, f in kept if f[goal]]
        best[goal] = min(values) if values else None
    ranked = sorted(((o, f, score(f, best)) for o, f in kept), key=lambda item: (item[2], item[0]["format"]))
    picks = {}
    for goal, _, _ in GOALS:
        candidates = [(f[goal], o["format"]) for o, f, _ in ranked if f[goal]]
        picks[goal] = min(candidates)[1] if candidates else None
    others = [o for o in outcomes if not held(o)]
    return ranked, picks, others


def _figure(value):
    """Four significant digits (whole numbers from 1000 on, never an exponent), so that a reader can
    redo the ranking."""
    if value >= 1000:
        return "%.0f" % value
    return "%.4g" % value if value >= 1e-4 else "%.8f" % value  # %g writes an exponent below 1e-4


def _ms(seconds):
    return _figure(seconds * 1000.0)


def _mib(value):
    return _figure(value / float(1 << 20))


def _time_cell(values):
    if not values:
        return "-"
    lo, hi = quartiles(values)
    spread = "n=1" if lo is None else "IQR %s–%s, n=%d" % (_ms(lo), _ms(hi), len(values))
    return "%s (%s)" % (_ms(median(values)), spread)


def _row(rank_text, o, f, s, fidelity):
    write = "-"
    if o["write"]:
        write = _time_cell(o["write"]) + ("" if o["times_write"] else " (%s's writer)" % o.get("writer"))
    return (
        rank_text,
        o["format"],
        _time_cell(o["read"]),
        write,
        _mib(f["size"]),
        _mib(f["peak"]) if f["peak"] else "-",
        "-" if s is None else "%.3f" % s,
        fidelity,
    )


def table(ranked, picks, others, rows, variant):
    from .markdown import table as markdown_table

    body = [
        _row(str(i + 1), o, f, s, "lost: " + ", ".join(o["losses"]) if o["losses"] else "preserved")
        for i, (o, f, s) in enumerate(ranked)
    ]
    # measured, but not the frame that was written: never picked
    body += [_row("-", o, figures(o), None, reason(o)) for o in others if differs(o)]
    headers = ["rank", "format", "read ms", "write ms", "file MiB", "peak MiB", "score", "fidelity"]
    lines = [
        "Quick measures of %s rows (variant %s): medians of a few samples each, in one process a format; "
        "read from the page cache, write into memory. Not asv's figures: `make bench DATASET=` gives the full, "
        "recorded run." % ("{:,}".format(rows), variant),
        "",
        markdown_table(headers, body, "rlrrrrrl"),
        "",
        "score: the mean over read, write, size and peak memory of log2(figure / the best figure); "
        "0 is best at everything, 1 twice the best on average.",
        "",
    ]
    for goal, heading, what in GOALS:
        lines.append("- %s: %s (%s)" % (heading, picks[goal] or "none", what))
    if ranked:
        lines.append("- balanced pick: %s (lowest score)" % ranked[0][0]["format"])
    cannot = [o for o in others if not differs(o)]
    if len(cannot) < len(others):
        lines += [
            "",
            'A row ranked "-": measured, but the frame read back is another (what changed is '
            "named), so it is never picked.",
        ]
    if cannot:
        lines += ["", "Formats that cannot hold this table:"]
        lines += ["- %s: %s" % (o["format"], reason(o)) for o in cannot]
    return "\n".join(lines)


# The page ----------------------------------------------------------------------------------------


def page(path, ranked, others, rows, variant, text):
    """A page beside its own copy of the chart library: the chart of item 1 and the printed table."""
    from markupsafe import Markup

    from . import templates
    from .charts import chart_html, point, script_tags
    from .report_cells import format_with_spread
    from .site import _MARKDOWN, WWW
    from .vendor_js import directory, PINS

    out_dir = os.path.dirname(os.path.abspath(path))
    for name in PINS:
        target = os.path.join(out_dir, "vendor", directory(name))
        if not os.path.isdir(target):
            shutil.copytree(os.path.join(WWW, "vendor", directory(name)), target)
    shutil.copy(os.path.join(WWW, "charts.js"), os.path.join(out_dir, "charts.js"))
    points = [
        point(
            o["format"],
            format_with_spread,
            figures(o)["read"],
            stats(o["read"]),
            figures(o)["write"],
            stats(o["write"]),
            o["bytes"],
            o["read_peak"],
            o["write_peak"],
        )
        for o, _, _ in ranked
    ]
    skipped = [(o["format"], reason(o)) for o in others]
    title = "advise: %s (%s rows, %s)" % (os.path.basename(path)[: -len(".html")], "{:,}".format(rows), variant)
    chart = chart_html(
        "chart-advise",
        points,
        title,
        skipped,
        note="Quick measures (a few samples a format), not asv's recorded figures.",
    )
    written = templates.render(
        "advise.html",
        title=title,
        icon="data:,",
        chart=Markup(chart),
        text=Markup(_MARKDOWN.render(text)),
        scripts=Markup(script_tags(vendor_prefix="vendor/", own="charts.js")),
    )
    with open(path, "w") as f:
        f.write(written)
    return path
