"""The 2019 post's comparison table, read from asv results.

Uses asv's own results API (it runs in the tool environment, where asv is
installed); values are asv's medians in seconds.
"""
import itertools
import math
import os

# The post's Parquet and CSV timings in seconds (i5-8259U, pyarrow 0.11.1, pandas 0.23.4,
# the real January 2016 file: 10.9 M rows; the profile `full` has that size).
POST_2019 = {
    "1a": (1.08, 41.0), "1b": (3.68, 52.2), "1c": (1.45, 44.1), "2": (7.10, 255.0),
    "3a": (5.66, 184.0), "3b": (10.10, 199.0), "3c": (6.56, 192.0),
}

# (label, key in POST_2019, benchmark, parameters besides the format)
CASES = [
    ("1a READ", "1a", "file_formats.Read.time_read", {"variant": "plain"}),
    ("1b READ with str", "1b", "file_formats.Read.time_read", {"variant": "str"}),
    ("1c READ with cat", "1c", "file_formats.Read.time_read", {"variant": "cat"}),
    ("2 cont. READ", "2", "file_formats.ContinuousRead.time_continuous_read", {}),
    ("3a WRITE", "3a", "file_formats.Write.time_write", {"variant": "plain"}),
    ("3b WRITE with str", "3b", "file_formats.Write.time_write", {"variant": "str"}),
    ("3c WRITE with cat", "3c", "file_formats.Write.time_write", {"variant": "cat"}),
]


class NoResults(Exception):
    pass


def _asv_results():
    from asv import results

    return results


def find_results(results_dir, machine=None, env=None, commit=None):
    """The newest asv Results matching machine / environment substring / commit prefix: the newest
    commit, and at one commit (a release matrix) the environment of the newest pyarrow and pandas."""
    from .compat import version_tuple

    results = _asv_results()
    if not os.path.isdir(results_dir):
        raise NoResults("no results directory %s: run the suite first (make bench)" % results_dir)
    machines = [machine] if machine else sorted(
        d for d in os.listdir(results_dir) if os.path.isdir(os.path.join(results_dir, d)))
    found = []
    for name in machines:
        for res in results.iter_results_for_machine(results_dir, name):
            if env and env not in res.env_name:
                continue
            if commit and not res.commit_hash.startswith(commit):
                continue
            releases = tuple(version_tuple(res.params.get(lib) or "0") for lib in ("pyarrow", "pandas"))
            found.append((res.date or 0, releases, max(res.started_at.values() or [0]), name, res))
    if not found:
        raise NoResults("no results in %s for machine=%s env=%s commit=%s"
                        % (results_dir, machine or "any", env or "any", commit or "any"))
    found.sort(key=lambda item: item[:3])
    return found[-1][3], found[-1][4]


def _param_value(text):
    return text.strip("'\"")


def param_names(results_dir):
    """``{benchmark: param_names}`` from the benchmarks.json asv writes beside the results."""
    import json

    path = os.path.join(results_dir, "benchmarks.json")
    if not os.path.exists(path):
        raise NoResults("%s is missing: it is written by `asv run`" % path)
    with open(path) as f:
        listing = json.load(f)
    return dict((name, b.get("param_names", [])) for name, b in listing.items() if isinstance(b, dict))


def case_value(res, names, benchmark, fmt, extra):
    """The value of one case; None if the case failed or was not run, NaN if it was skipped."""
    wanted = dict(extra, format=fmt)
    if benchmark not in res.get_all_result_keys():
        return None
    params = res.get_result_params(benchmark)
    values = res.get_result_value(benchmark, params)
    names = names.get(benchmark, [])
    for combo, value in zip(itertools.product(*params), values):
        given = dict(zip(names, [_param_value(c) for c in combo]))
        if all(given.get(k) == v for k, v in wanted.items()):
            return value
    return None


def format_seconds(value):
    if value is None:
        return "failed"
    if isinstance(value, float) and math.isnan(value):
        return "skipped"
    if value >= 60:
        minutes, seconds = divmod(value, 60)
        return "%dmin %4.1fs" % (minutes, seconds)
    if value >= 1:
        return "%.2fs" % value
    if value >= 0.001:
        return "%.0fms" % (value * 1000)
    return "%.0fµs" % (value * 1e6)


def _speedup(a, b):
    if a is None or b is None or math.isnan(a) or math.isnan(b) or a <= 0:
        return "n/a"
    return "%.0fx" % (b / a) if b / a >= 10 else "%.1fx" % (b / a)


def comparison_rows(res, names, formats=("parquet", "csv")):
    rows = []
    for label, key, benchmark, extra in CASES:
        a, b = (case_value(res, names, benchmark, f, extra) for f in formats)
        rows.append((label, key, a, b))
    return rows


def markdown_table(res, names, with_2019=False, formats=("parquet", "csv"), labels=("Parquet", "CSV")):
    head = ["Benchmark", labels[0], labels[1], "%s speedup" % labels[0]]
    if with_2019:
        head += ["%s 2019 (10.9 M rows)" % labels[0], "%s 2019" % labels[1], "speedup 2019"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for label, key, a, b in comparison_rows(res, names, formats):
        cells = [label, format_seconds(a), format_seconds(b), _speedup(a, b)]
        if with_2019:
            pa, pb = POST_2019[key]
            cells += [format_seconds(pa), format_seconds(pb), _speedup(pa, pb)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def describe(machine, res):
    from data_prep.profiles import PROFILES

    env_vars = getattr(res, "env_vars", {}) or {}
    profile = env_vars.get("DSIB_PROFILE", "default")
    rows = PROFILES[profile].rows_per_month if profile in PROFILES else None
    return "machine `%s`, environment `%s`, commit `%s`, profile `%s` (%s rows per month)" % (
        machine, res.env_name, res.commit_hash[:8], profile, "{:,}".format(rows) if rows else "?")


# --- the every-format grid -------------------------------------------------------------

MIB = float(1 << 20)
# (row label, benchmark, kind): kind says how to show the value.
GRID_ROWS = [
    ("read, warm", "grid.Read.time_read", "time"),
    ("read, warm MiB/s", "grid.Read.time_read", "throughput"),
    ("read, cold", "grid.ColdRead.time_cold_read", "time"),
    ("read, peak MiB", "grid.ReadPeakMemory.peakmem_read", "mib"),
    ("write, memory", "grid.Write.time_write", "time"),
    ("write, memory MiB/s", "grid.Write.time_write", "throughput"),
    ("write, disk + fsync", "grid.Write.time_write_to_disk", "time"),
    ("write, peak MiB", "grid.Write.peakmem_write", "mib"),
    ("file MiB", "grid.Sizes.track_file_size", "mib"),
]


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def grid_cell(res, names, benchmark, kind, fmt, given):
    value = case_value(res, names, benchmark, fmt, given)
    if _missing(value):
        return "·" if value is not None else "failed"
    if kind == "time":
        return format_seconds(value)
    if kind == "mib":
        return "%.0f" % (value / MIB) if value >= MIB else "%.2f" % (value / MIB)
    frame = case_value(res, names, "grid.Sizes.track_frame_size", fmt, given)
    return "n/a" if _missing(frame) or value <= 0 else "%.0f" % (frame / MIB / value)


def grid_table(res, names, dataset, variant, formats):
    """Markdown: rows are cases, columns are formats. ``·`` marks a case that cannot make sense."""
    given = {"dataset": dataset, "variant": variant}
    lines = ["| %s / %s | %s |" % (dataset, variant, " | ".join(formats)),
             "|---|" + "|".join("---:" for _ in formats) + "|"]
    for label, benchmark, kind in GRID_ROWS:
        cells = [grid_cell(res, names, benchmark, kind, f, given) for f in formats]
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    return "\n".join(lines)


def grid_report(res, names, datasets, variants, formats):
    blocks = []
    for dataset in datasets:
        for variant in variants:
            blocks.append(grid_table(res, names, dataset, variant, formats))
    return "\n\n".join(blocks)
