"""Asv's results, read: finding a run's results, a cell's value and spread, their text, and why a
cell skipped; the report modules build their tables of these.

The results are read through ``dsib_tools.asv_results``; values are asv's medians in seconds.
"""

import math

from .asv_results import NoResults, cells, machines, runs


def find_results(results_dir, machine=None, env=None, commit=None):
    """The newest asv Results matching machine / environment substring / commit prefix: the newest
    commit, and at one commit (a release matrix) the environment of the newest pyarrow and pandas."""
    from dsib.compat import version_tuple

    found, names = [], machines(results_dir)  # NoResults where there is no results directory
    for name in [machine] if machine else names:
        for res in runs(results_dir, name, commit, env):
            releases = tuple(version_tuple(res.params.get(lib) or "0") for lib in ("pyarrow", "pandas"))
            found.append((res.date or 0, releases, max(res.started_at.values() or [0]), name, res))
    if not found:
        raise NoResults(
            "no results in %s for machine=%s env=%s commit=%s"
            % (results_dir, machine or "any", env or "any", commit or "any")
        )
    found.sort(key=lambda item: item[:3])
    return found[-1][3], found[-1][4]


def _param_value(text):
    return text.strip("'\"")


def _case(res, names, benchmark, fmt, extra):
    """(value, stats) of one case: value None if the case failed or was not run, NaN if it was
    skipped; stats asv's (q_25, q_75, repeat: the samples), or None."""
    return _cell(res, names, benchmark, dict(extra, format=fmt))


def _cell(res, names, benchmark, wanted):
    """``_case`` of the cell whose parameters include ``wanted`` ({name: value})."""
    names = names.get(benchmark, [])
    for cell in cells(res, only=benchmark):
        given = dict(zip(names, [_param_value(c) for c in cell["params"]]))
        if all(given.get(k) == v for k, v in wanted.items()):
            return cell["value"], cell["stats"]
    return None, None


def _param_values(res, names, benchmark, param):
    """The values of ``param`` in the results of ``benchmark``."""
    axes = dict(zip(names.get(benchmark, []), res.get_result_params(benchmark)))
    return [_param_value(v) for v in axes.get(param, [])]


def sources_measured(res, names):
    """Every source a run's results hold a cell of, in the order first met: the built-in ones it
    ran, and a table a user brought."""
    found = []
    for benchmark in sorted(res.get_all_result_keys()):
        found += [s for s in _param_values(res, names, benchmark, "source") if s not in found]
    return found


def case_value(res, names, benchmark, fmt, extra):
    """The value of one case; None if the case failed or was not run, NaN if it was skipped."""
    return _case(res, names, benchmark, fmt, extra)[0]


def format_seconds(value):
    if value is None:
        return "failed"
    if isinstance(value, float) and math.isnan(value):
        return "skipped"
    if value >= 60:
        minutes, seconds = divmod(value, 60)
        return "%dmin %.1fs" % (minutes, seconds)
    if value >= 1:
        return "%.2fs" % value
    if value >= 0.001:
        return "%.0fms" % (value * 1000)
    return "%.0fµs" % (value * 1e6)


def format_signed(value):
    """A difference of seconds with its sign: ``+12ms``, ``-3ms``."""
    return ("-" if value < 0 else "+") + format_seconds(abs(value))


def format_difference(value, stats):
    """A grid cell's difference, with its spread: ``+12ms (IQR -3ms..+20ms, n=10)``."""
    if not stats or stats.get("q_25") is None or stats.get("q_75") is None:
        return format_signed(value) + _relative_spread(value, stats)
    return "%s (IQR %s..%s, n=%d)" % (
        format_signed(value),
        format_signed(stats["q_25"]),
        format_signed(stats["q_75"]),
        stats["repeat"],
    )


def format_with_spread(value, stats):
    """A median with its spread and sample count: ``89ms (IQR 87ms–96ms, n=10)``; a figure of one
    sample says so, and one whose run kept no statistics says that."""
    text = format_seconds(value)
    if value is None or math.isnan(value):
        return text
    if not stats or stats.get("repeat") is None:
        return "%s (no spread recorded)" % text
    if stats["repeat"] == 1:
        return "%s (one sample)" % text
    if stats.get("q_25") is None or stats.get("q_75") is None:
        return "%s (n=%d, no spread recorded)" % (text, stats["repeat"])
    return "%s (IQR %s–%s, n=%d)" % (
        text,
        format_seconds(stats["q_25"]),
        format_seconds(stats["q_75"]),
        stats["repeat"],
    )


def _speedup(a, b):
    if a is None or b is None or math.isnan(a) or math.isnan(b) or a <= 0:
        return "n/a"
    return "%.0fx" % (b / a) if b / a >= 10 else "%.1fx" % (b / a)


def _under_load(res, key, load):
    """ " (under load)" when ``load`` (a ``load.Machine``) says other work ran beside ``key``."""
    from .machine_load import busy

    return " (under load)" if load is not None and busy(load.of(res, key)) else ""


MIB = float(1 << 20)


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def profile_of(res):
    return (getattr(res, "env_vars", {}) or {}).get("DSIB_PROFILE", "default")


def skip_reason(res, operation, given):
    """Why a skipped cell of ``res`` ({parameter: value}: a format's or an engine's) skipped, asked
    of the suite's rules with that environment's pins; the rules cannot say why a cell skipped on
    its machine alone (a file that could not be evicted), and then asv's output of that run can."""
    from dsib.catalog import catalog_of

    versions = dict((k, v) for k, v in (res.params or {}).items() if v)
    return (
        catalog_of([given["source"]]).cell_skip_reason(operation, given, profile_of(res), versions)
        or "skipped at run time on its machine (asv's output of that run says why)"
    )


def _relative_spread(value, stats):
    """A grid cell's spread, compact: the IQR as a share of the median, and the samples."""
    if not stats or stats.get("repeat") is None:
        return " (no spread recorded)"
    if stats["repeat"] == 1:
        return " (1 sample)"
    if stats.get("q_25") is None or stats.get("q_75") is None or value <= 0:
        return " (n=%d)" % stats["repeat"]
    return " (±%.0f%%, n=%d)" % (50.0 * (stats["q_75"] - stats["q_25"]) / value, stats["repeat"])


# The throughput's numerator (data_prep.store.data_bytes), not the frame's memory_usage, which
# moves with the pandas release (Python-object text against Arrow-backed): Sizes' method.
DATA_BYTES = "track_data_bytes"
