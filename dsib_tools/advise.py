"""``python -m dsib_tools advise PATH`` (``make advise FILE=PATH``): which format for a table like yours,
answered in about two minutes with quick measures, not asv's recorded run.

The file (CSV, Parquet, Feather / Arrow IPC, JSON Lines) is ingested as ``data_prep add`` does, into a
temporary store; then each format of ``dsib.formats.FORMATS`` runs in a process of its own (this
interpreter, ``--worker``), which builds the frame from the store, writes it a few times (each write
timed alone), reads the file back a few times (each read timed alone) and checks the first read
against the frame with the suite's own check (``dsib.fidelity``): what the round trip lost, or why the
format cannot hold the table. Peak memory is the worker's peak RSS during its first write and its
first read (the interpreter, its libraries and the frame included, as asv's peakmem is).

A worker stops taking samples of an operation once they have taken ``BUDGET`` seconds, so a slow
format gets fewer samples, never none. The figures are medians with their interquartile range and
sample count, labelled as quick measures: ``make bench DATASET=NAME`` measures the same table in asv's
whole grid (more samples, interleaved rounds, cold reads, fsync'd writes, every release) and records
it."""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

NAME = "advised"
SAMPLES = 3
BUDGET = 3.0  # seconds of samples an operation, after its first
# The goals a pick is made for: (key, heading, what the figure is).
GOALS = (
    ("read", "fastest read", "median read time"),
    ("write", "fastest write", "median write time"),
    ("size", "smallest file", "file size"),
    ("peak", "least memory", "peak RSS of read and write"),
)
WORKER_TIMEOUT = 600


def add_arguments(p):
    p.add_argument("path", help="a CSV, Parquet, Feather / Arrow IPC or JSON Lines file")
    p.add_argument(
        "--format",
        dest="input_format",
        default=None,
        help="the file's format, where its name does not say (csv, parquet, feather, jsonl)",
    )
    p.add_argument(
        "--variant",
        default=None,
        help="plain (numbers only), str (text as str: the default where "
        "the table has text) or cat (text as categoricals)",
    )
    p.add_argument("--samples", type=int, default=SAMPLES, help="samples of each read and write (default %d)" % SAMPLES)
    p.add_argument("--only", default=None, help="comma-separated formats to measure (default: every format)")
    p.add_argument("--html", default=None, help="the page to write (default: build/advise/<file name>.html)")
    p.add_argument("--json", default=None, help="also write the figures as JSON here")
    # A worker's own arguments: one format, in a process advise started.
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--data-dir", default=None, help=argparse.SUPPRESS)
    p.add_argument("--keep", default=None, help=argparse.SUPPRESS)
    p.add_argument("--given", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=main)


# The worker: one format, in its own process ------------------------------------------------------


def _frame(data_dir, variant):
    from data_prep.own import open_table
    from dsib.roundtrip import concat_batches

    spec, store = open_table(NAME, data_dir)
    frame = concat_batches(spec.frame(store, p, variant) for p in spec.partitions)
    return frame, spec.read_hints(variant)


def _samples(operation, wanted):
    """Times of ``operation()``, each call timed alone; the first call's result and its peak RSS."""
    from dsib.procmem import PeakDuring

    times, first, peak = [], None, None
    while len(times) < wanted and (len(times) < 2 or sum(times[1:]) < BUDGET):
        if times:
            start = time.perf_counter()
            operation()
            times.append(time.perf_counter() - start)
        else:
            with PeakDuring(os.getpid()) as measured:
                start = time.perf_counter()
                first = operation()
                times.append(time.perf_counter() - start)
            peak = measured.bytes
        if len(times) == 1 and times[0] > BUDGET:
            break  # one sample of a slow operation, not three
    return times, first, peak


def measure(name, data_dir, variant, samples, work, keep=None, given=None):
    """One format's figures on the table of ``data_dir``, as JSON-able data. ``keep``: where to leave
    the file written (for a format that reads it with another reader); ``given``: the file of the
    format whose writer this one uses, written by that format's worker (else written here)."""
    import gc

    from dsib.fidelity import FrameMismatch, assert_same_frame
    from dsib.formats import FORMATS
    from dsib.roundtrip import write_atomic

    fmt = FORMATS[name]
    out = {
        "format": name,
        "label": fmt.label,
        "skip": None,
        "error": None,
        "losses": [],
        "bytes": None,
        "write": [],
        "read": [],
        "write_peak": None,
        "read_peak": None,
        "times_write": fmt.writes,
    }
    try:
        fmt.check_available()
        fmt.check_variant(variant)
    except NotImplementedError as exc:
        out["skip"] = str(exc)
        return out
    frame, hints = _frame(data_dir, variant)
    path = keep or os.path.join(work, "file" + fmt.suffix)
    try:
        fmt.warm_up()
        if fmt.writes:
            out["write"], payload, out["write_peak"] = _samples(lambda: fmt.write(frame), samples)
        elif given and os.path.exists(given):
            path, payload = given, None  # another format's writer, whose worker wrote this file
        else:
            payload = fmt.write(frame)  # another format's writer: its file, not its time
        out["bytes"] = os.path.getsize(path) if payload is None else write_atomic(path, payload)
        del payload
    except NotImplementedError as exc:
        out["skip"] = str(exc)
        return out
    except Exception as exc:
        out["error"] = "could not write: %s: %s" % (type(exc).__name__, exc)
        return out
    gc.collect()
    try:
        out["read"], result, out["read_peak"] = _samples(lambda: fmt.read(path, **hints), samples)
        out["losses"] = sorted(
            set(assert_same_frame(frame, fmt.frame_of(result, hints), fmt.losses(), context="%s, read back" % name))
        )
    except FrameMismatch as exc:
        out["error"] = str(exc)
        out["differs"] = _problems(str(exc))
    except NotImplementedError as exc:
        out["skip"] = str(exc)
    except Exception as exc:
        out["error"] = "could not read back its file: %s: %s" % (type(exc).__name__, exc)
    return out


def _problems(message):
    """The mismatch's problems (a column's dtype or values), without its heading."""
    lines = [line.strip(" -") for line in message.splitlines()[1:] if line.strip(" -")]
    return lines or [message.strip()]


def _worker(args):
    work = tempfile.mkdtemp(prefix="dsib-advise-%s-" % args.worker)
    try:
        print(json.dumps(measure(args.worker, args.data_dir, args.variant, args.samples, work, args.keep, args.given)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


# The ranking -------------------------------------------------------------------------------------


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
    return "| %s | %s | %s | %s | %s | %s | %s | %s |" % (
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
    lines = [
        "Quick measures of %s rows (variant %s): medians of a few samples each, in one process a format; "
        "read from the page cache, write into memory. Not asv's figures: `make bench DATASET=` gives the full, "
        "recorded run." % ("{:,}".format(rows), variant),
        "",
        "| rank | format | read ms | write ms | file MiB | peak MiB | score | fidelity |",
        "|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for i, (o, f, s) in enumerate(ranked):
        lines.append(_row(str(i + 1), o, f, s, "lost: " + ", ".join(o["losses"]) if o["losses"] else "preserved"))
    for o in others:
        if differs(o):  # measured, but not the frame that was written: never picked
            lines.append(_row("-", o, figures(o), None, reason(o)))
    lines += [
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
    import html

    from .charts import chart_html, point, script_tags
    from .report import format_with_spread
    from .site import _MARKDOWN, STYLE, WWW
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
    body = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title><style>%s</style>"
        "<link rel='icon' href='data:,'></head><body>" % (html.escape(title), STYLE),
        "<h1>%s</h1>" % html.escape(title),
        chart,
        _MARKDOWN.render(text),
        script_tags(vendor_prefix="vendor/", own="charts.js"),
        "</body></html>",
    ]
    with open(path, "w") as f:
        f.write("\n".join(body))
    return path


# The command -------------------------------------------------------------------------------------


def run_worker(name, data_dir, variant, samples, keep=None, given=None):
    command = [
        sys.executable,
        "-m",
        "dsib_tools",
        "advise",
        "-",
        "--worker",
        name,
        "--data-dir",
        data_dir,
        "--variant",
        variant,
        "--samples",
        str(samples),
    ]
    command += ["--keep", keep] if keep else []
    command += ["--given", given] if given else []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        done = subprocess.run(
            command,
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            universal_newlines=True,
            timeout=WORKER_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return {"format": name, "skip": None, "error": "took more than %d s" % WORKER_TIMEOUT, "read": []}
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = (done.stderr.strip().splitlines() or ["exit status %d" % done.returncode])[-1]
        return {"format": name, "skip": None, "error": "its process failed: %s" % tail, "read": []}
    return json.loads(lines[-1])


def main(args):
    if args.worker:
        return _worker(args)
    from data_prep.own import TableError, add_table, open_table
    from dsib.formats import FORMATS

    started = time.time()
    data_dir = tempfile.mkdtemp(prefix="dsib-advise-")
    try:
        try:
            added = add_table(NAME, args.path, data_dir=data_dir, fmt=args.input_format, progress=False)
        except TableError as exc:
            print("error: %s" % exc, file=sys.stderr)
            return 2
        spec, _ = open_table(NAME, data_dir)
        variant = args.variant or ("str" if "str" in spec.variants else "plain")
        if variant not in spec.variants:
            print(
                "error: this table has no variant %s (it has %s)" % (variant, ", ".join(spec.variants)), file=sys.stderr
            )
            return 2
        asked = [n.strip() for n in (args.only or ",".join(FORMATS)).split(",") if n.strip()]
        unknown = [n for n in asked if n not in FORMATS]
        if unknown:
            print("error: no format %s (formats: %s)" % (", ".join(unknown), ", ".join(FORMATS)), file=sys.stderr)
            return 2
        names = [n for n in FORMATS if n in asked]  # a writer's worker before its file's other readers
        print(
            "%s: %s rows, %d columns%s; measuring %d formats, one process each"
            % (
                args.path,
                "{:,}".format(added["rows"]),
                len(added["columns"]),
                " (left out: %s)" % ", ".join("%s %s" % c for c in added["left_out"]) if added["left_out"] else "",
                len(names),
            ),
            file=sys.stderr,
        )
        # A reader of another format's file reads the file that format's worker left (a 1,000,000-row
        # CSV takes seconds to write again).
        writers = dict((n, writer_of(FORMATS[n], FORMATS.values())) for n in names if not FORMATS[n].writes)
        files = os.path.join(data_dir, "files")
        os.makedirs(files)
        kept = dict((n, os.path.join(files, n + FORMATS[n].suffix)) for n in set(writers.values()) if n)
        outcomes = []
        for name in names:
            outcome = run_worker(name, data_dir, variant, args.samples, kept.get(name), kept.get(writers.get(name)))
            outcome["writer"] = writers.get(name)
            outcomes.append(outcome)
            print("  %-20s %s" % (name, "measured" if held(outcome) else reason(outcome)[:100]), file=sys.stderr)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    ranked, picks, others = rank(lend_writes(outcomes))
    text = table(ranked, picks, others, added["rows"], variant)
    print(text)
    base = os.path.splitext(os.path.basename(args.path))[0]
    html_path = args.html or os.path.join("build", "advise", base + ".html")
    os.makedirs(os.path.dirname(os.path.abspath(html_path)), exist_ok=True)
    page(html_path, ranked, others, added["rows"], variant, text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": added["rows"], "variant": variant, "outcomes": outcomes}, f, indent=1)
    print("\nThe page with its charts: %s (%.0f s in all)" % (html_path, time.time() - started))
    return 0
