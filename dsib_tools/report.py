"""The 2019 post's comparison table, two environments' speedups, and the line saying where results
come from, read from asv results. The grid and batches reports are in report_grid, the engines
report in report_engines, the reading of asv's results and cells in report_cells.
"""

from .markdown import table
from .report_cells import _case, _speedup, _under_load, format_seconds, format_with_spread

# The post's Parquet and CSV timings in seconds (i5-8259U, pyarrow 0.11.1, pandas 0.23.4,
# the real January 2016 file: 10.9 M rows; the profile `full` has that size).
POST_2019 = {
    "1a": (1.08, 41.0),
    "1b": (3.68, 52.2),
    "1c": (1.45, 44.1),
    "2": (7.10, 255.0),
    "3a": (5.66, 184.0),
    "3b": (10.10, 199.0),
    "3c": (6.56, 192.0),
}


def _post_key(res, case):
    """A post case's benchmark in ``res``, and its parameters: under its name, or under its first
    suite's name in results taken before the suite was reorganised."""
    from .suite import name

    current = name(case.cls, case.method)
    if current in res.get_all_result_keys() or case.legacy[0] not in res.get_all_result_keys():
        return current, case.given
    return case.legacy


def post_case(res, names, case, fmt):
    """A post case's (value, stats) in ``res``."""
    key, given = _post_key(res, case)
    return _case(res, names, key, fmt, given)


def markdown_table(res, names, with_2019=False, formats=("parquet", "csv"), labels=("Parquet", "CSV"), load=None):
    """The post's cases: each median with its spread (IQR) and sample count; the speedup is of
    the medians. The 2019 columns are the post's own published figures. With ``load`` (a
    ``load.Machine``), a figure taken while other work ran says so."""
    from .suite import POST_2019 as CASES

    head = ["Benchmark", labels[0], labels[1], "%s speedup" % labels[0]]
    if with_2019:
        head += ["%s 2019 (10.9 M rows)" % labels[0], "%s 2019" % labels[1], "speedup 2019"]
    rows = []
    for case in CASES:
        (a, a_stats), (b, b_stats) = [post_case(res, names, case, f) for f in formats]
        mark = _under_load(res, _post_key(res, case)[0], load)
        cells = [
            case.label,
            format_with_spread(a, a_stats) + mark,
            format_with_spread(b, b_stats) + mark,
            _speedup(a, b),
        ]
        if with_2019:
            pa, pb = POST_2019[case.key]
            cells += [format_seconds(pa), format_seconds(pb), _speedup(pa, pb)]
        rows.append(cells)
    return table(head, rows)


def speedup_table(before, after, names, columns, formats=("parquet", "csv"), labels=("Parquet", "CSV")):
    """The post's cases in two environments (asv Results), headed ``columns``: each median with
    its spread and sample count, and the speedup of the medians (before over after: above 1,
    ``after`` is faster)."""
    from .suite import POST_2019 as CASES

    rows = []
    for fmt, label in zip(formats, labels):
        for case in CASES:
            (a, a_stats), (b, b_stats) = [post_case(res, names, case, fmt) for res in (before, after)]
            rows.append(
                (
                    "%s %s" % (label, case.label),
                    format_with_spread(a, a_stats),
                    format_with_spread(b, b_stats),
                    _speedup(b, a),
                )
            )
    return table(["Case"] + list(columns) + ["speedup"], rows)


def _ingested_rows(profile):
    """The largest month of the TLC files ingested as ``profile`` here (None: none are)."""
    from data_prep.profiles import ingested_profile

    found = ingested_profile(profile)
    return found.rows["nyc_taxi"] if found else None


def describe(machine, res, load=None):
    """One line on where ``res`` comes from; with ``load`` (a ``load.Machine``), what else the
    machine was doing while it ran."""
    from data_prep.profiles import PROFILES

    from .machine_load import describe_load

    env_vars = getattr(res, "env_vars", {}) or {}
    profile = env_vars.get("DSIB_PROFILE", "default")
    rows = PROFILES[profile].rows_per_month if profile in PROFILES else _ingested_rows(profile)
    text = "machine `%s`, environment `%s`, commit `%s`, profile `%s` (%s rows per month)" % (
        machine,
        res.env_name,
        res.commit_hash[:8],
        profile,
        "{:,}".format(rows) if rows else "?",
    )
    if load is None:
        return text
    busy = load.busy_keys(res)
    return "%s; machine load during the run: %s%s" % (
        text,
        describe_load(load.run(res)),
        '; %d benchmarks ran under load, their figures marked "under load"' % len(busy) if busy else "",
    )
