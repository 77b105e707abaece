"""The databases-and-engines report: each engine's ingest, query and peak memory, the comparisons
of two paths into one engine, and the studies' figures beside this suite's."""

import re

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
    "counted once, highest during the call over its level before it) = the two together; in "
    "brackets, the case's process's whole peak RSS (asv's peakmem: interpreter, libraries and "
    "input included). "
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
    if given["engine"] in serves:
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
    # Memory: what a call added, the case's process's and the other process's where the engine
    # works in one, and the case's process's whole peak.
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
    blocks = [ENGINES_LEGEND + (LEGACY_LEGEND if legacy else "")]
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
                                _memory_cell(res, names, cls, benchmarks, given, reasons)
                                for _, cls, benchmarks in memory
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
