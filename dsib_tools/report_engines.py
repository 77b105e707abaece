"""The databases-and-engines report: each engine's ingest, query and peak memory, the comparisons
of two paths into one engine, and the studies' figures beside this suite's."""

import re

from . import markdown
from .report_cells import MIB, _cell, _missing, _relative_spread, _speedup, _under_load, format_seconds, skip_reason


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
    "the samples (n). Memory, in MiB, one measurement each: what one more call added, the client's "
    "(the case's process's peak RSS during the call over its RSS before it, so not the frame that "
    "setup loaded) and, where the engine works in another process (a server held for the run, "
    "Spark's JVM), + that process tree's (its PSS summed over its processes, each shared page "
    "counted once, highest during the call over its level before it; in its series 4 the PSS of "
    "every page it maps, from series 5 that of its memory alone, not of the files it maps) = the "
    "two together; in "
    "brackets, the case's process's whole peak RSS (asv's peakmem: interpreter, libraries and "
    'input included); "not recorded": the run\'s figure was left out when it was recorded (its '
    "measured code was not the one its series names). "
    "Paths compared: the baseline's median time over the path's, above 1 where the path is faster."
)
# Results from before the memory a call adds was measured: the client's whole peak, and the
# server's summed peak RSS (VmHWM) where it was measured.
LEGACY_LEGEND = (
    " In results from before that, memory is the case's process's peak RSS, + the server's peak "
    "RSS during one more call (a sum of each process's peak, an upper bound where they share pages)."
)


def _engine_cell(res, names, cls, benchmark, given, reasons, kind="time", load=None, why=None):
    """``why``: the cell to ask the skip reason of, where it is not ``given`` (QuestDB's
    serialisation skips where ``questdb-dataframe``'s ingest does)."""
    from dsib.engines import ENGINES

    value, stats = _cell(res, names, benchmark, given)
    if benchmark not in res.get_all_result_keys():
        return "not run"
    engine = ENGINES[given["engine"]] if given.get("engine") in ENGINES else None
    # A case an engine does not measure, by the suite's choice (Spark's createDataFrame memory): a
    # skip, whether its cell was skipped or is not among the benchmark's parameters at all.
    unmeasured = engine and engine.unmeasured.get(benchmark.rsplit(".", 1)[-1])
    if value is None and not unmeasured:
        return "failed"
    if value is None or _missing(value):
        reason = unmeasured or skip_reason(res, cls.operation, why or given)
        if reason not in reasons:
            reasons.append(reason)
        return "skip %d" % (reasons.index(reason) + 1)
    if kind == "mib":
        return "%.0f" % (value / MIB)
    return format_seconds(value) + _relative_spread(value, stats) + _under_load(res, benchmark, load)


def _mib(res, names, benchmark, given):
    value = _cell(res, names, benchmark, given)[0]
    return None if value is None or _missing(value) else value / MIB


def _memory_cell(res, names, cls, memory, given, reasons):
    """What one more call added, the client's, and + the other process's = both for an engine
    that works in one (``memory``: the benchmarks' names and the engines the server's measures);
    the client's whole peak in brackets. Results without the added memory: ``_legacy_memory_cell``."""
    peak, client, server, serves, legacy = memory
    if client not in res.get_all_result_keys():
        return _legacy_memory_cell(res, names, cls, peak, legacy, given["engine"] in serves, given, reasons)
    shown = _engine_cell(res, names, cls, client, given, reasons, "mib")
    if not re.match(r"^-?\d+$", shown):
        return shown
    added = [_mib(res, names, client, given)]
    if given["engine"] in serves and server not in res.get_all_result_keys():
        shown += " + not recorded"  # left out when the run was recorded (make record LEAVE_OUT=)
    elif given["engine"] in serves:
        other = _engine_cell(res, names, cls, server, given, reasons, "mib")
        added.append(_mib(res, names, server, given))
        shown = "%s + %s" % (shown, other) + ("" if added[1] is None else " = %.0f" % sum(added))
    whole = _mib(res, names, peak, given)
    return shown + ("" if whole is None else " (peak %.0f)" % whole)


def _legacy_memory_cell(res, names, cls, client, server, serves, given, reasons):
    """The client's peak MiB (asv's ``peakmem_``); for an engine of a server, "client + server = both",
    the server's summed peak RSS from ``server`` (``track_server_peakmem_``, since replaced)."""
    shown = _engine_cell(res, names, cls, client, given, reasons, "mib")
    if not serves or not shown.isdigit():
        return shown
    if server not in res.get_all_result_keys():
        return shown + " + not measured"
    value = _cell(res, names, server, given)[0]
    if value is None or _missing(value):
        return shown + " + " + _engine_cell(res, names, cls, server, given, reasons, "mib")
    both = _cell(res, names, client, given)[0] + value
    return "%s + %.0f = %.0f" % (shown, value / MIB, both / MIB)


def _rows(head, align, rows, reasons=()):
    """A Markdown table: its head, its alignment (``align``: "l" or "r" a column), its rows (cells),
    and the skip reasons its "skip N" cells refer to, below it."""
    lines = [markdown.table(head, rows, align)]
    if reasons:
        lines += [""] + ["skip %d: %s" % (i + 1, reason) for i, reason in enumerate(reasons)]
    return "\n".join(lines)


def _columns(res):
    """The engines' tables' columns: (label, class, benchmark, kind) of the ingest and the query
    times; (label, class, memory benchmarks) of what an ingest and a query added (the case's
    process's, and the other process's where the engine works in one) and the process's whole
    peak; and whether ``res`` is from before the added memory was measured."""
    from benchmarks.engines import IngestIntoEngine, QueryFromEngine

    from .suite import name

    times = [
        ("ingest", IngestIntoEngine, name(IngestIntoEngine, "time_ingest"), "time"),
        ("query", QueryFromEngine, name(QueryFromEngine, "time_query"), "time"),
    ]
    legacy = name(IngestIntoEngine, "track_client_added_ingest") not in res.get_all_result_keys()
    memory = [
        (
            ("%s peak MiB (client + server)" if legacy else "%s MiB added (client + server)") % operation,
            cls,
            (
                name(cls, "peakmem_" + operation),
                name(cls, "track_client_added_" + operation),
                name(cls, "track_server_added_" + operation),
                set(getattr(cls, "track_server_added_" + operation).params[1]),
                "engines.%s.track_server_peakmem_%s" % (cls.__name__, operation),
            ),
        )
        for operation, cls in (("ingest", IngestIntoEngine), ("query", QueryFromEngine))
    ]
    return times, memory, legacy


def _engine_table(res, names, source, variant, times, memory, load):
    """Each engine measured on ``source``, with ``variant``: its times and the memory its calls added."""
    from dsib.catalog import catalog_of
    from dsib.engines import ENGINES

    reasons, rows = [], []
    for engine in (e for e in ENGINES.values() if catalog_of([source]).engine_measures(e, source)):
        given = {"source": source, "engine": engine.name, "variant": variant}
        rows.append(
            [engine.label]
            + [_engine_cell(res, names, cls, bench, given, reasons, kind, load) for _, cls, bench, kind in times]
            + [_memory_cell(res, names, cls, benchmarks, given, reasons) for _, cls, benchmarks in memory]
        )
    head = ["%s / %s" % (source, variant)] + [c[0] for c in times + memory]
    return _rows(head, "l" + "r" * len(times + memory), rows, reasons)


def _serialisation_table(res, names, source, variants, serialized, load):
    """QuestDB's two paths of serialisation, no server, on ``source``, and their ratio; each
    median kept in ``serialized`` for the studies' table."""
    from benchmarks.engines import IngestIntoEngine, SerializeForQuestDB

    from .suite import name

    benchmark = name(SerializeForQuestDB, "time_serialize")
    reasons, rows = [], []
    for path, label in (("rows", "the row loop (Buffer.row)"), ("dataframe", "Buffer.dataframe()")):
        cells = []
        for variant in variants:
            given = {"source": source, "path": path, "variant": variant}
            serialized[source, path, variant] = _cell(res, names, benchmark, given)[0]
            why = dict(given, engine="questdb-dataframe")
            cells.append(_engine_cell(res, names, IngestIntoEngine, benchmark, given, reasons, "time", load, why=why))
        rows.append([label] + cells)
    rows.append(
        ["dataframe() against the row loop"]
        + [_speedup(serialized[source, "dataframe", v], serialized[source, "rows", v]) for v in variants]
    )
    head = ["QuestDB's serialisation alone, no server / %s" % source] + list(variants)
    return _rows(head, "l" + "r" * len(variants), rows, reasons)


def _comparisons_table(res, names, sources, variants, times, ratios_of):
    """The comparisons of two paths into one engine: the baseline's median over the path's, of the
    ingest and of the query; each kept in ``ratios_of`` for the studies' table."""
    from dsib.catalog import catalog_of
    from dsib.engines import ENGINES

    rows = []
    for label, path, baseline in ENGINE_COMPARISONS:
        both = (ENGINES[path], ENGINES[baseline])
        for source in (s for s in sources if all(catalog_of([s]).engine_measures(e, s) for e in both)):
            for variant in variants:
                ratios = []
                for _, _, benchmark, _ in times:
                    fast = _cell(res, names, benchmark, {"source": source, "engine": path, "variant": variant})[0]
                    slow = _cell(res, names, benchmark, {"source": source, "engine": baseline, "variant": variant})[0]
                    ratios.append(_speedup(fast, slow))
                ratios_of[label, source, variant] = ratios
                rows.append([label, "%s / %s" % (source, variant)] + ratios)
    head = ["paths compared", "source / variant", "ingest: baseline / path", "query: baseline / path"]
    return _rows(head, "llrr", rows)


def _beside_the_studies(serialized, ratios_of):
    """The studies' own figures beside this suite's on ``tsbs_cpu``."""
    rows = []
    for label, study, figure, (comparison, column), variant in STUDY_COMPARISONS:
        if comparison == "serialize":
            ours = _speedup(
                serialized.get(("tsbs_cpu", "dataframe", variant)), serialized.get(("tsbs_cpu", "rows", variant))
            )
        else:
            ours = ratios_of.get((comparison, "tsbs_cpu", variant), ["n/a", "n/a"])[column]
        rows.append([label, study, figure, "%s: %s" % (variant, ours)])
    head = ["beside the studies", "study", "the study's figure", "this suite (tsbs_cpu)"]
    return _rows(head, "lllr", rows)


def engines_report(res, names, sources, variants, load=None):
    """Markdown: per source and variant, each engine measured on it with its ingest and query and
    the memory they added; QuestDB's serialisation alone; the comparisons of two paths, and the
    studies' figures beside this suite's."""
    from benchmarks.engines import SerializeForQuestDB

    times, memory, legacy = _columns(res)
    blocks = [ENGINES_LEGEND + (LEGACY_LEGEND if legacy else "")]
    blocks += [_engine_table(res, names, s, v, times, memory, load) for s in sources for v in variants]
    serialized, ratios_of = {}, {}
    blocks += [
        _serialisation_table(res, names, s, variants, serialized, load)
        for s in sources
        if s in SerializeForQuestDB.params[0]
    ]
    blocks.append(_comparisons_table(res, names, sources, variants, times, ratios_of))
    if "tsbs_cpu" in sources:
        blocks.append(_beside_the_studies(serialized, ratios_of))
    return "\n\n".join(blocks)


# The README's engines beside the studies: (what is compared, the operation's benchmark
# method, path, baseline, variant); a row the studies made gives their figure (STUDY_COMPARISONS,
# by its label). QuestDB's serialisation alone is its own benchmark (SerializeForQuestDB, the "path"
# parameter); every other row is an engine's case.
STUDY_ROWS = (
    ("QuestDB: dataframe() against the row loop, serialisation alone", "serialize", "dataframe", "rows", "cat"),
    (
        "QuestDB: dataframe() against the row loop, with the insert (ILP/HTTP)",
        "ingest",
        "questdb-dataframe",
        "questdb-rows",
        "cat",
    ),
    ("Spark: Arrow on against off, createDataFrame", "ingest", "spark-arrow", "spark", "plain"),
    ("Spark: Arrow on against off, toPandas", "query", "spark-arrow", "spark", "plain"),
    ("SQLite: ADBC against SQLAlchemy, ingest", "ingest", "sqlite-adbc", "sqlite-sqlalchemy", "plain"),
    ("SQLite: ADBC against SQLAlchemy, query", "query", "sqlite-adbc", "sqlite-sqlalchemy", "plain"),
    ("PostgreSQL: ADBC against SQLAlchemy, ingest", "ingest", "postgres-adbc", "postgres-sqlalchemy", "plain"),
    ("PostgreSQL: ADBC against SQLAlchemy, query", "query", "postgres-adbc", "postgres-sqlalchemy", "plain"),
    ("DuckDB: ADBC against .df(), ingest", "ingest", "duckdb-adbc", "duckdb", "plain"),
    ("DuckDB: ADBC against .df(), query", "query", "duckdb-adbc", "duckdb", "plain"),
)
STUDY_FIGURES = dict((label, figure) for label, _, figure, _, _ in STUDY_COMPARISONS)


def studies_report(res, names, source="tsbs_cpu", load=None):
    """Markdown: each comparison of two paths that the studies made (and ADBC against each database's
    usual driver), on ``source``: both medians with their spread and samples, their ratio, and the
    study's own figure where it gave one."""
    from benchmarks.engines import IngestIntoEngine, QueryFromEngine, SerializeForQuestDB

    from .report_cells import format_with_spread
    from .suite import name

    benchmarks = {
        "ingest": name(IngestIntoEngine, "time_ingest"),
        "query": name(QueryFromEngine, "time_query"),
        "serialize": name(SerializeForQuestDB, "time_serialize"),
    }
    lines = [
        "| compared (%s) | variant | baseline | path | baseline / path | the study's figure |" % source,
        "|---|---|---:|---:|---:|---|",
    ]
    for label, operation, path, baseline, variant in STUDY_ROWS:
        key = "path" if operation == "serialize" else "engine"
        benchmark = benchmarks[operation]
        (fast, fast_stats), (slow, slow_stats) = [
            _cell(res, names, benchmark, {"source": source, key: which, "variant": variant})
            for which in (path, baseline)
        ]
        mark = _under_load(res, benchmark, load)
        lines.append(
            "| %s | %s | %s | %s | %s | %s |"
            % (
                label,
                variant,
                format_with_spread(slow, slow_stats) + mark,
                format_with_spread(fast, fast_stats) + mark,
                _speedup(fast, slow),
                STUDY_FIGURES.get(label, "-"),
            )
        )
    return "\n".join(lines)
