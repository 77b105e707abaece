"""The 2019 post's comparison table and the every-format report, read from asv results.

Uses asv's own results API (it runs in the tool environment, where asv is
installed); values are asv's medians in seconds.
"""

import itertools
import math
import os

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


class NoResults(Exception):
    pass


def _asv_results():
    from asv import results

    return results


def find_results(results_dir, machine=None, env=None, commit=None):
    """The newest asv Results matching machine / environment substring / commit prefix: the newest
    commit, and at one commit (a release matrix) the environment of the newest pyarrow and pandas."""
    from dsib.compat import version_tuple

    results = _asv_results()
    if not os.path.isdir(results_dir):
        raise NoResults("no results directory %s: run the suite first (make bench)" % results_dir)
    machines = (
        [machine]
        if machine
        else sorted(d for d in os.listdir(results_dir) if os.path.isdir(os.path.join(results_dir, d)))
    )
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
        raise NoResults(
            "no results in %s for machine=%s env=%s commit=%s"
            % (results_dir, machine or "any", env or "any", commit or "any")
        )
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


def _case(res, names, benchmark, fmt, extra):
    """(value, stats) of one case: value None if the case failed or was not run, NaN if it was
    skipped; stats asv's (q_25, q_75, repeat: the samples), or None."""
    return _cell(res, names, benchmark, dict(extra, format=fmt))


def _cell(res, names, benchmark, wanted):
    """``_case`` of the cell whose parameters include ``wanted`` ({name: value})."""
    if benchmark not in res.get_all_result_keys():
        return None, None
    params = res.get_result_params(benchmark)
    values = res.get_result_value(benchmark, params)
    stats = res.get_result_stats(benchmark, params) or [None] * len(values)
    names = names.get(benchmark, [])
    for combo, value, stat in zip(itertools.product(*params), values, stats):
        given = dict(zip(names, [_param_value(c) for c in combo]))
        if all(given.get(k) == v for k, v in wanted.items()):
            return value, stat
    return None, None


def _param_values(res, names, benchmark, param):
    """The values of ``param`` in the results of ``benchmark``."""
    axes = dict(zip(names.get(benchmark, []), res.get_result_params(benchmark)))
    return [_param_value(v) for v in axes.get(param, [])]


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
        return "%dmin %4.1fs" % (minutes, seconds)
    if value >= 1:
        return "%.2fs" % value
    if value >= 0.001:
        return "%.0fms" % (value * 1000)
    return "%.0fµs" % (value * 1e6)


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


def _under_load(res, key, load):
    """ " (under load)" when ``load`` (a ``load.Machine``) says other work ran beside ``key``."""
    from .machine_load import busy

    return " (under load)" if load is not None and busy(load.of(res, key)) else ""


def markdown_table(res, names, with_2019=False, formats=("parquet", "csv"), labels=("Parquet", "CSV"), load=None):
    """The post's cases: each median with its spread (IQR) and sample count; the speedup is of
    the medians. The 2019 columns are the post's own published figures. With ``load`` (a
    ``load.Machine``), a figure taken while other work ran says so."""
    from .suite import POST_2019 as CASES

    head = ["Benchmark", labels[0], labels[1], "%s speedup" % labels[0]]
    if with_2019:
        head += ["%s 2019 (10.9 M rows)" % labels[0], "%s 2019" % labels[1], "speedup 2019"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
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
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def speedup_table(before, after, names, columns, formats=("parquet", "csv"), labels=("Parquet", "CSV")):
    """The post's cases in two environments (asv Results), headed ``columns``: each median with
    its spread and sample count, and the speedup of the medians (before over after: above 1,
    ``after`` is faster)."""
    from .suite import POST_2019 as CASES

    head = ["Case"] + list(columns) + ["speedup"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for fmt, label in zip(formats, labels):
        for case in CASES:
            (a, a_stats), (b, b_stats) = [post_case(res, names, case, fmt) for res in (before, after)]
            lines.append(
                "| %s %s | %s | %s | %s |"
                % (label, case.label, format_with_spread(a, a_stats), format_with_spread(b, b_stats), _speedup(b, a))
            )
    return "\n".join(lines)


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


# --- the every-format grid -------------------------------------------------------------

MIB = float(1 << 20)


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def profile_of(res):
    return (getattr(res, "env_vars", {}) or {}).get("DSIB_PROFILE", "default")


def skip_reason(res, operation, given):
    """Why a skipped cell of ``res`` ({parameter: value}: a format's or an engine's) skipped, asked
    of the suite's rules with that environment's pins; the rules cannot say why a cell skipped on
    its machine alone (a file that could not be evicted), and then asv's output of that run can."""
    from dsib.cases import cell_skip_reason

    versions = dict((k, v) for k, v in (res.params or {}).items() if v)
    return (
        cell_skip_reason(operation, given, profile_of(res), versions)
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

GRID_LEGEND = (
    "Times are asv's medians, with half the interquartile range as a share of the median "
    "(±) and the number of samples (n). Peak memory and sizes are one measurement each; "
    "MiB/s is the data's logical bytes over the median time: numbers at their width, timestamps 8 bytes, "
    "text its UTF-8 bytes, categoricals their codes and categories, counted from the store "
    "(sizes.Sizes.track_data_bytes), so the same in every release whatever pandas makes of the text; n/a "
    'in runs that did not record them. "not run": the run has no such case (results '
    'of the first suite, whose cases had other names, or a run of some cases only). "under load": other '
    "processes used a quarter of a core or more, or the hypervisor took 5 % or more (steal), while "
    "the case ran (dsib_tools/machine_load.py)."
)


def grid_cell(res, names, row, fmt, given, reasons, load=None):
    """One cell's text; a skip is a footnote mark whose reason ``reasons`` collects."""
    from dsib.formats import FORMATS

    from .suite import name

    benchmark = name(row.cls, row.method)
    if benchmark not in res.get_all_result_keys():
        return "not run"  # results of another suite, or a run of some cases only (-b)
    value, stats = _case(res, names, benchmark, fmt, given)
    if value is None and fmt not in _param_values(res, names, benchmark, "format"):
        value = float("nan")  # not a parameter: a format without the reader the case times
    if value is None:
        return "failed"
    if _missing(value):
        reason = skip_reason(res, row.cls.operation, dict(given, format=fmt))
        if reason not in reasons:
            reasons.append(reason)
        return "skip %d" % (reasons.index(reason) + 1)
    if row.kind == "time":
        return format_seconds(value) + _relative_spread(value, stats) + _under_load(res, benchmark, load)
    if row.kind == "mib":
        return "%.0f" % (value / MIB) if value >= MIB else "%.2f" % (value / MIB)
    if not FORMATS[fmt].builds_frame:
        return "no frame"
    from benchmarks import sizes

    data = case_value(res, names, name(sizes.Sizes, DATA_BYTES), fmt, given)
    return "n/a" if _missing(data) or value <= 0 else "%.0f" % (data / MIB / value)


def measured_on(rows, source):
    """The rows whose operation measures ``source`` (the reads real work needs: the first taxi grid
    and a table you brought)."""
    from dsib.cases import get_operation

    return [row for row in rows if source in get_operation(row.cls.operation).sources]


def grid_table(res, names, source, variant, formats, load=None, labels=None):
    """Markdown: rows are cases (those ``labels`` name, else all), columns are formats; a skipped
    cell names its reason below."""
    from .suite import GRID

    given = {"source": source, "variant": variant}
    reasons = []
    lines = [
        "| %s / %s | %s |" % (source, variant, " | ".join(formats)),
        "|---|" + "|".join("---:" for _ in formats) + "|",
    ]
    for row in measured_on([r for r in GRID if labels is None or r.label in labels], source):
        cells = [grid_cell(res, names, row, f, given, reasons, load) for f in formats]
        lines.append("| %s | %s |" % (row.label, " | ".join(cells)))
    if reasons:
        lines += [""] + ["skip %d: %s" % (i + 1, reason) for i, reason in enumerate(reasons)]
    return "\n".join(lines)


def grid_report(res, names, sources, variants, formats, load=None, labels=None):
    from .suite import GRID

    blocks = [GRID_LEGEND]
    for source in sources:
        if labels is not None and not measured_on([r for r in GRID if r.label in labels], source):
            continue
        for variant in variants:
            blocks.append(grid_table(res, names, source, variant, formats, load, labels))
    return "\n\n".join(blocks)


def grid_chart(res, names, source, variant, formats):
    """The chart of one dataset and variant (dsib_tools/charts.py): each format's page-cache read,
    in-memory write, file size and their peaks; a format with no read or no size is listed with its
    reason instead."""
    from .charts import chart_html, point
    from .suite import GRID, name

    given = {"source": source, "variant": variant}
    rows = dict((row.label, row) for row in GRID)
    points, skipped = [], []
    for fmt in formats:
        figures = {}
        for key, label in (
            ("read", "read, page cache"),
            ("write", "write, memory"),
            ("size", "file MiB"),
            ("read_peak", "read, peak MiB"),
            ("write_peak", "write, peak MiB"),
        ):
            row = rows[label]
            figures[key] = _case(res, names, name(row.cls, row.method), fmt, given)
        read, size = figures["read"][0], figures["size"][0]
        if _missing(read) or _missing(size):
            row, value = (rows["read, page cache"], read) if _missing(read) else (rows["file MiB"], size)
            if value is None:
                why = "not run or failed in this run"
            else:
                why = skip_reason(res, row.cls.operation, dict(given, format=fmt))
            skipped.append((fmt, why))
        elif _missing(figures["write"][0]):
            row = rows["write, memory"]
            why = (
                "not run or failed in this run"
                if figures["write"][0] is None
                else skip_reason(res, row.cls.operation, dict(given, format=fmt))
            )
            skipped.append((fmt, "no write (right panel): " + why))
        points.append(
            point(
                fmt,
                format_with_spread,
                read,
                figures["read"][1],
                figures["write"][0],
                figures["write"][1],
                size,
                figures["read_peak"][0],
                figures["write_peak"][0],
            )
        )
    if not any(p["read"] is not None and p["size_mib"] is not None for p in points):
        return None  # nothing measured (a run of other cases, or of the first suite's names)
    return chart_html("chart-%s-%s" % (source, variant), points, "%s / %s" % (source, variant), skipped)


def grid_charts(res, names, sources, variants, formats):
    """{the grid table's name ("source / variant"): its chart's HTML} for the sources whose reads the
    grid measures."""
    from .suite import GRID

    reads = [row for row in GRID if row.label == "read, page cache"]
    charts = {}
    for source in sources:
        for variant in variants if measured_on(reads, source) else ():
            chart = grid_chart(res, names, source, variant, formats)
            if chart is not None:
                charts["%s / %s" % (source, variant)] = chart
    return charts


# The studies' comparisons of two paths into and out of one engine: (label, path, baseline).
ENGINE_COMPARISONS = (
    ("SQLite: ADBC against SQLAlchemy", "sqlite-adbc", "sqlite-sqlalchemy"),
    ("SQLite: the sqlite3 driver's executemany against SQLAlchemy", "sqlite-sqlite3", "sqlite-sqlalchemy"),
    ("DuckDB: through Arrow against .df()", "duckdb-arrow", "duckdb"),
    ("DuckDB: ADBC against .df()", "duckdb-adbc", "duckdb"),
    ("DuckDB: its own Parquet file against its table", "duckdb-parquet", "duckdb"),
    ("PostgreSQL: ADBC against SQLAlchemy", "postgres-adbc", "postgres-sqlalchemy"),
    ("PostgreSQL: psycopg's COPY against SQLAlchemy", "postgres-copy", "postgres-sqlalchemy"),
    ("QuestDB: dataframe() against the row loop, with the insert (ILP/HTTP)", "questdb-dataframe", "questdb-rows"),
    ("Spark: Arrow on against off", "spark-arrow", "spark"),
)
# The studies' own figures beside this suite's (``../shared/seeds``): (label, study, the study's
# figure, what this suite compares: "serialize" or a comparison above and its column, the variant).
# QuestDB's study holds its ten tags as symbols (`cat`); SPARK-23030 times random doubles (`plain`).
QUESTDB_STUDY = "QuestDB's TSBS ingestion study (py-tsbs-benchmark)"
SPARK_STUDY = "SPARK-23030 (Arrow's stream format, Spark 2.4)"
STUDY_COMPARISONS = (
    (
        "QuestDB: dataframe() against the row loop, serialisation alone",
        QUESTDB_STUDY,
        "~58x single-threaded (1 M rows by the loop, 10 M by dataframe(), MiB/s)",
        ("serialize", 0),
        "cat",
    ),
    (
        "QuestDB: dataframe() against the row loop, with the insert (ILP/HTTP)",
        QUESTDB_STUDY,
        "~28x single-threaded, including the database insert",
        ("QuestDB: dataframe() against the row loop, with the insert (ILP/HTTP)", 0),
        "cat",
    ),
    (
        "Spark: Arrow on against off, createDataFrame",
        SPARK_STUDY,
        "none for on against off: Arrow's stream format against its file format, 1.18x (10 M rows, a 32-core cluster)",
        ("Spark: Arrow on against off", 0),
        "plain",
    ),
    (
        "Spark: Arrow on against off, toPandas",
        SPARK_STUDY,
        "none for on against off: Arrow's stream format against its file format, 1.08x (33.5 M rows)",
        ("Spark: Arrow on against off", 1),
        "plain",
    ),
)
ENGINES_LEGEND = (
    "Databases and engines: the frame into a new table (ingest) and the whole table back into a "
    "frame (query), asv's medians with half the interquartile range as a share of the median (±) and "
    "the samples (n); peak memory is the case's process's peak RSS in MiB, one measurement, and "
    "where the engine works in a server held for the run (PostgreSQL, QuestDB), + the server's peak "
    "RSS during one more call (its process tree's, PostgreSQL's backends included: a sum of each "
    "process's peak, an upper bound where they share pages) = the two together. "
    "Paths compared: the baseline's median time over the path's, above 1 where the path is faster."
)


def _engine_cell(res, names, cls, benchmark, given, reasons, kind="time", load=None, why=None):
    """``why``: the cell to ask the skip reason of, where it is not ``given`` (QuestDB's
    serialisation skips where ``questdb-dataframe``'s ingest does)."""
    value, stats = _cell(res, names, benchmark, given)
    if benchmark not in res.get_all_result_keys():
        return "not run"
    if value is None:
        return "failed"
    if _missing(value):
        from dsib.engines import ENGINES

        engine = ENGINES[given["engine"]] if given.get("engine") in ENGINES else None
        # A case an engine does not measure, by the suite's choice (Spark's createDataFrame memory).
        reason = (engine and engine.unmeasured.get(benchmark.rsplit(".", 1)[-1])) or skip_reason(
            res, cls.operation, why or given
        )
        if reason not in reasons:
            reasons.append(reason)
        return "skip %d" % (reasons.index(reason) + 1)
    if kind == "mib":
        return "%.0f" % (value / MIB)
    return format_seconds(value) + _relative_spread(value, stats) + _under_load(res, benchmark, load)


def _memory_cell(res, names, cls, client, server, serves, given, reasons):
    """The client's peak MiB (``client``, asv's ``peakmem_``); for an engine of ``serves`` (a
    server's), "client + server = both", the server's peak from ``server`` (``track_server_peakmem_``)."""
    shown = _engine_cell(res, names, cls, client, given, reasons, "mib")
    if given["engine"] not in serves or not shown.isdigit():
        return shown
    if server not in res.get_all_result_keys():
        return shown + " + not measured"
    value = _cell(res, names, server, given)[0]
    if value is None or _missing(value):
        return shown + " + " + _engine_cell(res, names, cls, server, given, reasons, "mib")
    both = _cell(res, names, client, given)[0] + value
    return "%s + %.0f = %.0f" % (shown, value / MIB, both / MIB)


def _measured_on(engine, source):
    return engine.sources is None or source in engine.sources


def engines_report(res, names, sources, variants, load=None):
    """Markdown: per source and variant, each engine measured on it with its ingest and query and
    their peak memory; QuestDB's serialisation alone; the comparisons of two paths, and the
    studies' figures beside this suite's."""
    from benchmarks.engines import IngestIntoEngine, QueryFromEngine, SerializeForQuestDB
    from dsib.engines import ENGINES

    from .suite import name

    columns = [
        (label, cls, name(cls, method), kind)
        for label, cls, method, kind in (
            ("ingest", IngestIntoEngine, "time_ingest", "time"),
            ("query", QueryFromEngine, "time_query", "time"),
        )
    ]
    # Peak memory: the case's process, and the server's where the engine works in one.
    memory = [
        (label, cls, name(cls, client), name(cls, server), set(getattr(cls, server).params[1]))
        for label, cls, client, server in (
            ("ingest peak MiB (client + server)", IngestIntoEngine, "peakmem_ingest", "track_server_peakmem_ingest"),
            ("query peak MiB (client + server)", QueryFromEngine, "peakmem_query", "track_server_peakmem_query"),
        )
    ]
    blocks = [ENGINES_LEGEND]
    for source in sources:
        for variant in variants:
            reasons = []
            lines = [
                "| %s / %s | %s |" % (source, variant, " | ".join(c[0] for c in columns + memory)),
                "|---|" + "|".join("---:" for _ in columns + memory) + "|",
            ]
            for engine in (e for e in ENGINES.values() if _measured_on(e, source)):
                given = {"source": source, "engine": engine.name, "variant": variant}
                lines.append(
                    "| %s | %s |"
                    % (
                        engine.label,
                        " | ".join(
                            [
                                _engine_cell(res, names, cls, benchmark, given, reasons, kind, load)
                                for _, cls, benchmark, kind in columns
                            ]
                            + [
                                _memory_cell(res, names, cls, client, server, serves, given, reasons)
                                for _, cls, client, server, serves in memory
                            ]
                        ),
                    )
                )
            if reasons:
                lines += [""] + ["skip %d: %s" % (i + 1, reason) for i, reason in enumerate(reasons)]
            blocks.append("\n".join(lines))
    serialize = [
        (path, name(SerializeForQuestDB, method)) for path in ("rows", "dataframe") for method in ("time_serialize",)
    ]
    serialized = {}
    for source in (s for s in sources if s in SerializeForQuestDB.params[0]):
        reasons = []
        lines = [
            "| QuestDB's serialisation alone, no server / %s | %s |" % (source, " | ".join(variants)),
            "|---|" + "|".join("---:" for _ in variants) + "|",
        ]
        for path, benchmark in serialize:
            cells = []
            for variant in variants:
                given = {"source": source, "path": path, "variant": variant}
                serialized[source, path, variant] = _cell(res, names, benchmark, given)[0]
                cells.append(
                    _engine_cell(
                        res,
                        names,
                        IngestIntoEngine,
                        benchmark,
                        given,
                        reasons,
                        "time",
                        load,
                        why=dict(given, engine="questdb-dataframe"),
                    )
                )
            lines.append(
                "| %s | %s |"
                % ({"rows": "the row loop (Buffer.row)", "dataframe": "Buffer.dataframe()"}[path], " | ".join(cells))
            )
        lines.append(
            "| dataframe() against the row loop | %s |"
            % " | ".join(_speedup(serialized[source, "dataframe", v], serialized[source, "rows", v]) for v in variants)
        )
        if reasons:
            lines += [""] + ["skip %d: %s" % (i + 1, reason) for i, reason in enumerate(reasons)]
        blocks.append("\n".join(lines))
    lines = [
        "| paths compared | source / variant | ingest: baseline / path | query: baseline / path |",
        "|---|---|---:|---:|",
    ]
    ratios_of = {}
    for label, path, baseline in ENGINE_COMPARISONS:
        for source in (s for s in sources if _measured_on(ENGINES[path], s) and _measured_on(ENGINES[baseline], s)):
            for variant in variants:
                ratios = []
                for _, _, benchmark, _ in columns[:2]:
                    fast = _cell(res, names, benchmark, {"source": source, "engine": path, "variant": variant})[0]
                    slow = _cell(res, names, benchmark, {"source": source, "engine": baseline, "variant": variant})[0]
                    ratios.append(_speedup(fast, slow))
                ratios_of[label, source, variant] = ratios
                lines.append("| %s | %s / %s | %s |" % (label, source, variant, " | ".join(ratios)))
    blocks.append("\n".join(lines))
    if "tsbs_cpu" in sources:
        lines = ["| beside the studies | study | the study's figure | this suite (tsbs_cpu) |", "|---|---|---|---:|"]
        for label, study, figure, (comparison, column), variant in STUDY_COMPARISONS:
            if comparison == "serialize":
                ours = _speedup(
                    serialized.get(("tsbs_cpu", "dataframe", variant)), serialized.get(("tsbs_cpu", "rows", variant))
                )
            else:
                ours = ratios_of.get((comparison, "tsbs_cpu", variant), ["n/a", "n/a"])[column]
            lines.append("| %s | %s | %s | %s: %s |" % (label, study, figure, variant, ours))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


BATCHES_LEGEND = (
    "A continuous read in batches: every partition of the source, each file a tenth at a time, every "
    "numeric column of each batch summed and nothing kept (benchmarks/batches.py). Target: its peak "
    "memory above the process (the format's ProcessBaseline) within the budget, where the frames of "
    "the partitions are at least twice it (the six months at default). Times are asv's medians (± half the IQR "
    "as a share, n samples); memory is one measurement each, in MiB."
)


def batches_report(res, names, sources, load=None):
    """Markdown: the continuous read in batches of each source, against its memory budget."""
    from benchmarks.batches import MEMORY_BUDGET
    from dsib import cases
    from dsib.cases import get_operation

    from .suite import name
    from benchmarks import batches, reads, sizes

    operation = get_operation(batches.ContinuousReadInBatches.operation)
    timed = name(batches.ContinuousReadInBatches, "time_read")
    if timed not in res.get_all_result_keys():
        return ""
    lines = [
        BATCHES_LEGEND,
        "",
        "| source | format | pass | peak | process | above the process | budget | "
        "data: frames of the partitions | the first partition read whole, peak |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for source in [s for s in sources if s in operation.sources]:
        whole = reads.ContinuousReadMonths if source == "nyc_taxi_month" else reads.ContinuousRead
        for fmt in _param_values(res, names, timed, "format"):
            given = {"source": source}
            value, stats = _cell(res, names, timed, dict(given, format=fmt))
            if _missing(value):
                continue
            peak = _cell(res, names, name(batches.ContinuousReadInBatches, "peakmem_read"), dict(given, format=fmt))[0]
            base = _cell(res, names, name(reads.ProcessBaseline, "peakmem_baseline"), {"format": fmt})[0]
            frame = _cell(res, names, name(sizes.Sizes, "track_frame_size"), dict(given, format=fmt, variant="plain"))[
                0
            ]
            first = _cell(res, names, name(whole, "peakmem_first_partition"), dict(given, format=fmt))[0]
            partitions = len(cases.SOURCES[source].partitions)
            cells = [format_seconds(value) + _relative_spread(value, stats) + _under_load(res, timed, load)]
            cells += ["n/a" if _missing(v) else "%.0f" % (v / MIB) for v in (peak, base)]
            cells.append("n/a" if _missing(peak) or _missing(base) else "%.0f" % ((peak - base) / MIB))
            cells.append("%.0f" % (MEMORY_BUDGET / MIB))
            cells.append(
                "n/a" if _missing(frame) else "%.0f (%d x %.0f)" % (partitions * frame / MIB, partitions, frame / MIB)
            )
            cells.append("n/a" if _missing(first) else "%.0f" % (first / MIB))
            lines.append("| %s | %s | %s |" % (source, fmt, " | ".join(cells)))
    return "\n".join(lines)
