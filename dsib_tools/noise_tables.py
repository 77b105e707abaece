"""The README's noise tables, every figure recomputed from a noise record's raw samples: per case
(spread, A/A ratio, flags, replayed slowdowns caught), the injected slowdowns found and missed, and
the spreads of the published results."""

import re
import statistics

from . import bounds, compare
from .markdown import table
from .noise_record import _loads, detects, replay, rule_of, touches

_VARIANT = re.compile(r", '(plain|str|cat)'\)$")


def case_of(cell):
    """A cell without its string variant: one row per benchmark and format."""
    return _VARIANT.sub(")", cell)


def replays(record, rule=compare.RULE):
    """Each run of ``record`` replayed from its raw data and judged by ``rule``: (before, after, verdict)."""
    return [replay(run, record["factor"], rule) for run in record["runs"]]


def smallest_flagged(before, after, verdict, factor):
    """Each timed cell the ``verdict`` compared: its smallest slowdown the gate would flag, given
    these samples (``bounds``), cell -> [head slower, base slower]."""
    timed = [name for name in verdict["compared"] if compare.sampled(name)]
    return dict(
        (
            name,
            [
                bounds.smallest_flagged(one[name][1][1], other[name][1][1], factor, len(timed))
                for one, other in ((before, after), (after, before))
            ],
        )
        for name in timed
    )


def per_case(record, runs, smallest):
    """Timed cases: (case, cells, median spread, worst spread, A/A ratio furthest from 1, flagged,
    median smallest slowdown flagged, share of replayed slowdowns flagged) rows, every figure from
    the record's raw samples (``runs``: ``replays``; ``smallest``: each run's ``smallest_flagged``),
    judged by the gate's rule."""
    rows = {}
    for (before, after, verdict), least in zip(runs, smallest):
        flagged = set(verdict["worse"]) | set(verdict["better"])
        ratios = compare.ratios_of(before, after)
        spreads = [compare.spreads_of(cells) for cells in (before, after)]
        caught = detects(before, after, record["slowdown"])
        for cell in verdict["compared"]:
            if not compare.sampled(cell):
                continue
            row = rows.setdefault(
                case_of(cell),
                {"cells": set(), "spreads": [], "ratios": [], "flagged": 0, "caught": 0, "tries": 0, "smallest": []},
            )
            row["cells"].add(cell)
            row["caught"] += caught.get(cell, 0)
            row["tries"] += 2
            row["spreads"] += [spreads[0][cell], spreads[1][cell]]
            row["ratios"].append(ratios[cell])
            row["flagged"] += cell in flagged
            row["smallest"] += least[cell]
    return [
        (
            name,
            len(r["cells"]),
            statistics.median(r["spreads"]),
            max(r["spreads"]),
            _furthest(r["ratios"]),
            r["flagged"],
            statistics.median(r["smallest"]),
            r["caught"] / r["tries"],
        )
        for name, r in sorted(rows.items())
    ]


def _furthest(ratios):
    return max(ratios, key=lambda x: max(x, 1 / x))


def unsampled_rows(record):
    """Peak memory and file sizes: (benchmark, cells, threshold, A/A ratio furthest from 1 and its
    cell, flagged) rows, from the record's raw values."""
    rows = {}
    for before, after, verdict in replays(record):
        flagged = set(verdict["worse"]) | set(verdict["better"])
        ratios = compare.ratios_of(before, after)
        for cell in verdict["compared"]:
            if compare.sampled(cell):
                continue
            row = rows.setdefault(cell.split("(", 1)[0], {"cells": set(), "ratios": [], "flagged": 0})
            row["cells"].add(cell)
            row["ratios"].append((ratios[cell], cell))
            row["flagged"] += cell in flagged
    return [
        (
            name,
            len(r["cells"]),
            compare.threshold(name, record["factor"]),
            max(r["ratios"], key=lambda rc: max(rc[0], 1 / rc[0])),
            r["flagged"],
        )
        for name, r in sorted(rows.items())
    ]


def _injected(record):
    return dict(((name, side), factor) for name, side, factor in record.get("injected") or [])


def markdown(record):
    """The README's table of a record: per case for A/A, per slowed cell for a slowdown."""
    return slowdown_markdown(record) if _injected(record) else aa_markdown(record)


def _minutes(record):
    return "/".join("%.1f" % (r["seconds"] / 60) for r in record["runs"])


def slowdown_markdown(record):
    runs, slowdown = replays(record), _injected(record)
    cells = sorted(set(c for _, _, v in runs for c in v["compared"] if touches(c, slowdown)))
    caught = [sum(c in v["worse"] for c in cells) for _, _, v in runs]
    stray = [len([c for c in v["worse"] + v["better"] if not touches(c, slowdown)]) for _, _, v in runs]
    lines = [
        "Slowdown at factor %.2f, profile `%s`, machine `%s` (%s), commit `%s`: %s. In %d runs the %d cases that "
        "call them were flagged slower %s times; other cases flagged: %s; a run took %s min; other processes "
        "and steal during each run: %s."
        % (
            record["factor"],
            record["profile"],
            record["machine"],
            record["date"],
            record["commit"][:8],
            ", ".join(
                "%s %ss %d %% slower" % (name, side, round(100 * (f - 1)))
                for (name, side), f in sorted(slowdown.items())
            ),
            len(runs),
            len(cells),
            " + ".join("%d/%d" % (c, len(cells)) for c in caught),
            " + ".join(map(str, stray)),
            _minutes(record),
            _loads(record),
        ),
        "",
    ]
    ratios = [compare.ratios_of(before, after) for before, after, _ in runs]
    rows = [
        ["`%s`" % cell]
        + [
            "%.3f%s" % (r[cell], "" if cell in v["worse"] else " (missed)") if cell in r else "n/a"
            for r, (_, _, v) in zip(ratios, runs)
        ]
        + ["%d of %d" % (sum(cell in v["worse"] for _, _, v in runs), len(runs))]
        for cell in cells
    ]
    headers = ["slowed case"] + ["run %d: ratio" % (i + 1) for i in range(len(runs))] + ["flagged"]
    return "\n".join(lines + [table(headers, rows, "l" + "r" * (len(runs) + 1))])


RULES = {
    "bounds": "the lower bound of the ratio clears the factor, Holm over the comparison",
    "asv": "asv's: the median moved by more than the factor and Mann-Whitney's p < 0.002, cell by cell",
}


def _flag_counts(runs):
    return " + ".join(str(len(v["worse"]) + len(v["better"])) for _, _, v in runs)


def _aa_headline(record, runs, timed, least):
    """The sentence above a record's A/A table: what was compared, how, under what load, and what
    the samples let the rule flag (``least``: each run's ``smallest_flagged``)."""
    caught = sum(row[-1] * 2 * row[1] for row in timed) / sum(2 * row[1] for row in timed)
    smallest = statistics.median([x for run in least for pair in run.values() for x in pair])
    taken = rule_of(record)
    return (
        "A/A at factor %.2f (peak memory %.2f, file sizes %.2f), profile `%s`, machine `%s` (%s), base `%s`: "
        "%s cells flagged in %d runs of %s cells compared, times judged by the gate's rule (%s)%s; a run took "
        "%s min; other processes and steal during each run: %s%s. Timed cells: %d samples a commit, "
        "one call each (`number` %s), one process each. The smallest slowdown the rule would flag, given "
        "these samples: %.2fx at the median over cells and directions. The same samples with one side made "
        "%d %% slower: flagged in %d %% of cells and directions."
        % (
            record["factor"],
            record["thresholds"]["memory"],
            record["thresholds"]["size"],
            record["profile"],
            record["machine"],
            record["date"],
            record["commit"][:8],
            _flag_counts(runs),
            len(runs),
            "/".join(str(len(v["compared"])) for _, _, v in runs),
            RULES[compare.RULE],
            ""
            if taken == compare.RULE
            else "; the gate of this record judged by %s and flagged %s"
            % (RULES[taken], _flag_counts(replays(record, taken))),
            _minutes(record),
            _loads(record),
            " (%d spinning processes among them)" % record["busy_processes"] if record.get("busy_processes") else "",
            record["sampling"]["rounds"],
            "/".join(
                sorted(
                    set(str(n) for r in record["runs"] for side in ("base", "head") for n in r[side]["number"].values())
                )
            ),
            smallest,
            round(100 * (record["slowdown"] - 1)),
            round(100 * caught),
        )
    )


def aa_markdown(record):
    runs = replays(record)
    smallest = [smallest_flagged(before, after, verdict, record["factor"]) for before, after, verdict in runs]
    timed = per_case(record, runs, smallest)
    timed_rows = [
        (
            "`%s`" % name,
            cells,
            "%.1f%%" % (100 * median),
            "%.1f%%" % (100 * worst),
            "%.3f" % ratio,
            flags,
            "%.2fx" % least,
            "%d%%" % round(100 * share),
        )
        for name, cells, median, worst, ratio, flags, least, share in timed
    ]
    timed_headers = [
        "timed case (variants: plain, str, cat)",
        "cells",
        "spread, median",
        "spread, worst",
        "A/A ratio, furthest from 1",
        "flagged",
        "smallest slowdown flagged, median",
        "%d %% slower, flagged" % round(100 * (record["slowdown"] - 1)),
    ]
    once_rows = [
        ("`%s`" % name, cells, "%.2f" % limit, "%.4f (`%s`)" % (ratio, cell[len(name) :]), flags)
        for name, cells, limit, (ratio, cell), flags in unsampled_rows(record)
    ]
    once_headers = ["measured once a commit", "cells", "threshold", "A/A ratio, furthest from 1 (cell)", "flagged"]
    return "\n".join(
        [
            _aa_headline(record, runs, timed, smallest),
            "",
            table(timed_headers, timed_rows, "lrrrrrrr"),
            "",
            table(once_headers, once_rows, "lrrlr"),
        ]
    )


def published_spreads(results_dir, machine=None):
    """The spread of the published ``default`` run (the newest commit, newest pyarrow and pandas),
    per time benchmark: (machine, Results, [(benchmark, cells, samples a cell, median, worst)])."""
    from . import asv_results
    from .report_cells import find_results

    machine, res = find_results(results_dir, machine, "DSIB_PROFILEdefault")
    rows = {}
    for cell in asv_results.cells(res):
        key, value, stats = cell["benchmark"], cell["value"], cell["stats"]
        if ".time_" not in key:
            continue
        if value is None or value != value or value <= 0 or not stats or (stats.get("repeat") or 1) < 2:
            continue  # failed, skipped, or one sample: no spread to speak of
        row = rows.setdefault(key, {"spreads": [], "samples": set()})
        row["spreads"].append((stats["q_75"] - stats["q_25"]) / value)
        row["samples"].add(stats["repeat"])
    return (
        machine,
        res,
        [
            (key, len(r["spreads"]), _span(r["samples"]), statistics.median(r["spreads"]), max(r["spreads"]))
            for key, r in sorted(rows.items())
        ],
    )


def _span(numbers):
    low, high = min(numbers), max(numbers)
    return str(low) if low == high else "%d–%d" % (low, high)


def published_markdown(results_dir, machine=None):
    machine, res, rows = published_spreads(results_dir, machine)
    body = [
        ("`%s`" % key, cells, samples, "%.1f%%" % (100 * median), "%.1f%%" % (100 * worst))
        for key, cells, samples, median, worst in rows
    ]
    return "\n".join(
        [
            "The published `default` run (machine `%s`, commit %s, %s): spread of each case's samples."
            % (machine, res.commit_hash[:8], res.env_name),
            "",
            table(["benchmark", "cells", "samples a cell", "spread, median", "spread, worst"], body, "lrrrr"),
        ]
    )
