"""Every registered engine x variant ingests and queries back the same frame at `tiny`, against a
real database in a directory of the test's own, and the check that says so can fail."""

import os

import pytest

from data_prep import VARIANTS, load_frame, read_hints
from dsib import catalog
from dsib.engines import ENGINES, TABLE, UnknownEngineError, get_engine
from dsib.engines._engine import Engine
from dsib.roundtrip import ingest_and_check

from .conftest import served, server_dir


def _needs(engine):
    """An engine that starts a server (PostgreSQL, QuestDB, Spark's JVM) is of the server tier."""
    return [pytest.mark.server] if engine.server is not None else []


ROUND_TRIPS = [
    pytest.param(s, e.name, v, marks=_needs(e))
    for e in ENGINES.values()
    for v in VARIANTS
    for s in catalog.ENGINE_SOURCES
    if v in e.variants and (e.sources is None or s in e.sources)
]


# The Spark round trip that starts a JVM of its own, as a cell's check outside a run does; the
# other Spark round trips take a new session of one JVM held for the module, as a run's cases do.
OWN_SPARK = ("tsbs_cpu", "spark", "plain")


@pytest.fixture(scope="module")
def held_spark():
    """``$DSIB_SERVERS`` naming a holder of Spark's JVMs (``dsib.spark_server.HeldSpark``), served
    by a thread here as ``hold-servers`` serves a run; its JVMs stopped by their PID after the module."""
    import json

    from dsib.spark_server import HeldSpark

    holder = HeldSpark(server_dir("dsib-spark-")).start()
    with served([holder]):
        yield json.dumps({"run": "test-engines", "missing": {}, "spark": holder.describe()})


def _session_of_held_spark(request, monkeypatch):
    """This test's Spark session: a new one of the module's held JVM; the gateway's address that
    PySpark keeps in the environment, and the session it keeps in its class, are this test's alone
    (a case's process makes one session; this one makes the next test's own Spark anew)."""
    from pyspark.sql import SparkSession

    from dsib import environment

    monkeypatch.setenv(environment.HELD_SERVERS, request.getfixturevalue("held_spark"))
    monkeypatch.setattr(SparkSession, "_instantiatedSession", None)
    monkeypatch.setattr(SparkSession, "_activeSession", None)
    for key in ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET", "PYSPARK_PYTHON"):
        monkeypatch.setenv(key, os.environ.get(key, ""))
        monkeypatch.delenv(key)  # restored (or removed) after the test


@pytest.mark.parametrize("dataset,name,variant", ROUND_TRIPS)
def test_round_trip(tiny_data_dir, server_tmp_path, dataset, name, variant, request, monkeypatch):
    tmp_path = server_tmp_path
    engine = get_engine(name)
    if engine.family == "spark" and (dataset, name, variant) != OWN_SPARK:
        _session_of_held_spark(request, monkeypatch)
    hints = read_hints(variant, dataset)
    frame = load_frame("tiny", variant, data_dir=tiny_data_dir, dataset=dataset)
    outcome = ingest_and_check(engine, frame, hints, str(tmp_path / "db"), TABLE)
    assert outcome["skip"] is None and outcome["error"] is None, outcome
    # Losses are only those the engine declares, each named by a column of the frame.
    assert all(any(loss.startswith(c) for c in list(frame.columns) + ["row_order"]) for loss in outcome["losses"])
    if not engine.losses():
        assert outcome["losses"] == []
    assert os.listdir(str(tmp_path / "db")), "the database is kept in the directory it was given"


def _dropping_a_row(engine):
    """The engine with a query that loses the last row: a fast wrong answer."""

    def query(session, table, **hints):
        return engine.query(session, table, **hints).iloc[:-1]

    return Engine(
        engine.name,
        engine.label,
        engine.family,
        engine.connect,
        engine.ingest,
        query,
        engine.drop,
        engine.close,
        engine.needs,
        engine.declared_losses,
        engine.variants,
    )


@pytest.mark.parametrize("name", ["sqlite-sqlalchemy", "duckdb"])
def test_a_query_that_returns_another_frame_is_an_error_not_a_figure(tiny_data_dir, tmp_path, name):
    frame = load_frame("tiny", "cat", data_dir=tiny_data_dir, dataset="nyc_taxi")
    outcome = ingest_and_check(
        _dropping_a_row(get_engine(name)), frame, read_hints("cat", "nyc_taxi"), str(tmp_path / "db"), TABLE
    )
    assert outcome["error"] and "rows" in outcome["error"], outcome


def test_an_engine_missing_from_an_environment_skips_with_the_reason():
    versions = {"pandas": "0.23.4", "pyarrow": "0.11.1"}
    assert (
        catalog.BUILT_IN.engine_skip_reason("ingest", "nyc_taxi", "duckdb", "plain", "tiny", versions)
        == "DuckDB: duckdb is not installed in this environment"
    )
    assert "sqlalchemy is not installed" in catalog.BUILT_IN.engine_skip_reason(
        "query", "tsbs_cpu", "sqlite-sqlalchemy", "str", "tiny", versions
    )
    assert (
        catalog.BUILT_IN.engine_skip_reason("ingest", "nyc_taxi", "sqlite-sqlite3", "plain", "tiny", versions) is None
    )
    assert (
        catalog.BUILT_IN.engine_skip_reason("query", "rocklin", "duckdb", "plain", "tiny", catalog.ANY_VERSIONS)
        == "query is not measured on rocklin"
    )


def test_a_zoned_timestamp_skips_where_pandas_to_sql_cannot_write_it():
    """pandas 0.23's to_sql fails on a zoned column (TSBS's timestamp), 0.24 writes it: the TSBS
    cells of the to_sql engines skip there, saying so, and the taxi's (naive) run."""
    old, newer = {"pandas": "0.23.4", "sqlalchemy": "1.4.54"}, {"pandas": "0.24.2", "sqlalchemy": "1.4.54"}
    zoned = dict(
        (s, any(catalog.BUILT_IN.sources[s].dataset.zoned(v) for v in VARIANTS)) for s in catalog.ENGINE_SOURCES
    )
    assert zoned == {"nyc_taxi": False, "tsbs_cpu": True}
    for name in ("sqlite-sqlite3", "sqlite-sqlalchemy"):
        for operation in ("ingest", "query"):
            assert "to_sql cannot write a zoned timestamp column" in catalog.BUILT_IN.engine_skip_reason(
                operation, "tsbs_cpu", name, "str", "tiny", old
            )
            assert catalog.BUILT_IN.engine_skip_reason(operation, "nyc_taxi", name, "str", "tiny", old) is None
            assert catalog.BUILT_IN.engine_skip_reason(operation, "tsbs_cpu", name, "str", "tiny", newer) is None
    assert "pandas" in get_engine("sqlite-sqlite3").packages, "the environment is asked for pandas' version"


def test_an_unknown_engine_is_named_with_the_registered_ones():
    with pytest.raises(UnknownEngineError) as info:
        get_engine("oracle")
    assert "unknown engine 'oracle'" in str(info.value) and "duckdb" in str(info.value)


def test_an_engine_module_holds_one_family_and_every_engine_is_registered_once():
    from dsib import engines

    for family in engines.FAMILIES:
        assert len(set(e.family for e in family.ENGINES)) == 1, family.__name__
    assert len(ENGINES.names()) == len(set(ENGINES.names())) == sum(len(m.ENGINES) for m in engines.FAMILIES)


@pytest.mark.parametrize("name", [pytest.param(e.name, marks=_needs(e)) for e in ENGINES.values()])
def test_every_engine_warms_up_before_its_cases_are_timed(server_tmp_path, name):
    """The tiny round trip that a case's setup does first, in a session of its own."""
    directory = server_tmp_path / "db"
    directory.mkdir()
    get_engine(name).warm_up(str(directory))


def test_questdb_serialisations_are_checked_once_outside_the_cases(tiny_data_dir, tmp_path, monkeypatch):
    """The row loop and dataframe() must serialise a cell alike; the check runs once, in the
    cache (setup_cache's process), and a case whose paths differ fails instead of timing them."""
    pytest.importorskip("questdb")
    from benchmarks import engines as cases_of_engines
    from dsib.cells import Cells
    from dsib.engines import questdb
    from dsib.fidelity import FrameMismatch

    cells = Cells("tiny", tiny_data_dir, str(tmp_path / "cache"))
    frame = cells.frame("tsbs_cpu", "cat")
    assert cases_of_engines.serialized_alike(frame) is None
    calls = []

    def counted(frame):
        calls.append(len(frame))
        return cases_of_engines.serialized_alike(frame)

    cells.checked_once("tsbs_cpu", "cat", "serializers", counted)
    cells.checked_once("tsbs_cpu", "cat", "serializers", counted)
    assert calls == [len(frame)], "kept, not made again by the next case's process"

    loop = questdb.serialize_rows
    monkeypatch.setattr(questdb, "serialize_rows", lambda buffer, frame, table: loop(buffer, frame.iloc[:-1], table))
    assert "differently" in cases_of_engines.serialized_alike(frame)
    with pytest.raises(FrameMismatch, match="differently"):
        cells.checked_once("tsbs_cpu", "plain", "serializers", cases_of_engines.serialized_alike)
