"""The engines' cases as asv runs them, one case in a process of its own: every engine's session is
warmed up by a tiny ingest and query before the first timed call, its connection open; Spark's
checked query is its timed one, and its JVM's peak memory is counted beside the case's."""

import json
import os
import re
import subprocess
import sys

import pytest

from dsib.engines import ENGINES, TABLE, get_engine

from .conftest import ROOT

IN_PROCESS = [e.name for e in ENGINES.values() if e.family in ("duckdb", "sqlite")]

# One case, as asv's runner does it in the case's process: setup, then the timed call. What the
# process saw just before the timed call is printed as JSON on the last line.
CASE = r"""
import json, sys
from benchmarks import engines as suite

cls, method, source, engine, variant = sys.argv[1:]
case = getattr(suite, cls)()
params = (source, engine, variant)
case.setup(*params)
seen = {"warmed": id(case.session) in case.engine.warmed, "connects": None}
if engine == "sqlite-sqlalchemy":
    import sqlalchemy
    seen["pooled"] = case.session.pool.checkedin()
    connects = []
    sqlalchemy.event.listen(case.session, "connect", lambda *args: connects.append(1))
if engine.startswith("spark") and cls == "QueryFromEngine":
    table = case.session.tables[suite.TABLE]
    seen["plan"] = table._jdf.queryExecution().optimizedPlan().toString()
    seen["directory"] = case.session.directory
    seen["jvm"] = case.session.server_pid
result = getattr(case, method)(*params)
if engine == "sqlite-sqlalchemy":
    seen["connects"] = len(connects)
seen["result"] = result
if hasattr(case, "teardown"):
    case.teardown(*params)
print(json.dumps(seen))
"""


def run_case(data_dir, cls, method, engine, source="tsbs_cpu", variant="str"):
    env = dict(os.environ, DSIB_PROFILE="tiny", DSIB_DATA_DIR=data_dir, PYTHONPATH=ROOT)
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", CASE, cls, method, source, engine, variant],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("cls,method", [("IngestIntoEngine", "time_ingest"), ("QueryFromEngine", "time_query")])
@pytest.mark.parametrize("name", IN_PROCESS)
def test_an_in_process_engines_case_warms_its_own_session_up_before_its_first_timed_call(
    tiny_data_dir, name, cls, method
):
    seen = run_case(tiny_data_dir, cls, method, name)
    assert seen["warmed"], "the session the case times made a tiny ingest and query first"
    if name == "sqlite-sqlalchemy":
        assert seen["pooled"] >= 1, "a connection is open in the pool before the timed call"
        assert seen["connects"] == 0, "the timed call opened no connection"


@pytest.fixture
def held_spark(run_servers, monkeypatch):
    """Spark's JVM held as a run holds it (asked for by a case, started by the holder)."""
    from dsib import environment

    started, value, missing = run_servers
    if "Spark" not in started:
        pytest.skip("no Spark's JVM here: %s" % missing.get("spark"))
    monkeypatch.setenv(environment.HELD_SERVERS, value)
    return started["Spark"]


@pytest.mark.server
def test_a_spark_query_case_warms_up_reads_the_kept_table_and_counts_its_held_jvms_memory(tiny_data_dir, held_spark):
    seen = run_case(tiny_data_dir, "QueryFromEngine", "track_server_added_query", "spark-arrow")
    assert seen["warmed"]
    # toPandas of the cached Parquet scan of the session's copy of the checked table, as the check's.
    assert re.match(
        r"^InMemoryRelation .*FileScan parquet .*Location: InMemoryFileIndex\(1 paths\)\[file:", seen["plan"], re.S
    ), seen["plan"]
    assert ("file:" + seen["directory"])[:60] in seen["plan"], "(Spark's plan shortens the path)"
    # The run's held JVM, not one of the case's own; what the query added to it, not its heap.
    assert seen["jvm"] in [gateway.pid for gateway in held_spark.started], (seen, held_spark)
    assert isinstance(seen["result"], int) and abs(seen["result"]) < 64 << 20, seen


@pytest.mark.server
def test_a_spark_ingest_case_warms_its_session_up(tiny_data_dir, held_spark):
    assert run_case(tiny_data_dir, "IngestIntoEngine", "time_ingest", "spark-arrow")["warmed"]


def test_a_spark_case_skips_saying_why_where_no_jvm_is_held(monkeypatch):
    from benchmarks import engines as suite
    from dsib import environment

    monkeypatch.delenv(environment.HELD_SERVERS, raising=False)
    with pytest.raises(NotImplementedError) as info:
        suite.require_held_server(get_engine("spark"))
    assert "no Spark server is held for this run" in str(info.value), info.value


def _plan(frame):
    """A DataFrame's optimised plan (a cached one names what it caches), its attributes' ids (a
    counter of the session) left out."""
    return re.sub(r"#\d+L?", "#", frame._jdf.queryExecution().optimizedPlan().toString())


@pytest.mark.server
def test_sparks_checked_query_is_the_call_a_query_case_times(tiny_data_dir, tmp_path):
    """The check (ingest, keep, query: ``roundtrip.ingest_and_check``) queries the table that a
    later session finds: the same cached Parquet scan of the same files, the same frame out."""
    from data_prep import load_frame, read_hints
    from dsib.fidelity import assert_same_frame

    engine = get_engine("spark-arrow")
    frame = load_frame("tiny", "str", data_dir=tiny_data_dir, dataset="tsbs_cpu")
    hints = read_hints("str", "tsbs_cpu")
    directory = str(tmp_path / "db")
    os.makedirs(directory)
    session = engine.connect(directory)
    try:
        engine.ingest(session, frame, TABLE)
        in_session = _plan(session.tables[TABLE])
        engine.keep(session, TABLE)
        checked = session.tables[TABLE]
        checked_plan = _plan(checked)
        assert checked_plan.startswith("InMemoryRelation") and "FileScan parquet" in checked_plan, checked_plan
        assert in_session not in checked_plan, "not createDataFrame's frame"
        checked_frame = engine.query(session, TABLE, **hints)
    finally:
        engine.close(session)
    session = engine.connect(directory)
    try:
        timed = session.tables[TABLE]
        assert _plan(timed) == checked_plan
        timed_frame = engine.query(session, TABLE, **hints)
    finally:
        engine.close(session)
    assert_same_frame(checked_frame, timed_frame, ())
    assert_same_frame(frame, checked_frame, engine.losses())


def test_sparks_driver_memory_of_create_dataframe_is_not_measured_and_says_why():
    from benchmarks import engines as suite

    skipped = suite.IngestIntoEngine.peakmem_ingest.skip_params
    assert skipped and set(given[1] for given in skipped) == {"spark", "spark-arrow"}
    assert all("toPandas" in ENGINES[given[1]].unmeasured["peakmem_ingest"] for given in skipped)
    # The query's driver memory stays, and the JVM's is counted beside it, as the held servers' are;
    # Spark's ingest counts neither.
    assert not getattr(suite.QueryFromEngine.peakmem_query, "skip_params", [])
    spark = {"spark", "spark-arrow"}
    for method in ("track_client_added_query", "track_server_added_query"):
        assert spark <= set(getattr(suite.QueryFromEngine, method).params[1])
    for method in ("track_client_added_ingest", "track_server_added_ingest"):
        assert not spark & set(getattr(suite.IngestIntoEngine, method).params[1])
    assert {"postgres-adbc", "questdb-dataframe"} <= set(suite.IngestIntoEngine.track_server_added_ingest.params[1])
    assert set(suite.IngestIntoEngine.track_visible_ingest.params[1]) == {
        "questdb-rows",
        "questdb-dataframe",
        "questdb-dataframe-tcp",
    }


def test_a_child_that_has_ended_but_is_not_yet_reaped_holds_no_memory():
    """A JVM starts short-lived helpers (Hadoop's local file system does): one that has ended and
    is not yet reaped has no RSS in /proc, and counts as none instead of failing the case."""
    from dsib.procmem import PeakDuring, peak_bytes, rss_bytes

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        with open("/proc/%d/status" % child.pid) as f:
            while "\nState:\tZ" not in f.read():
                f.seek(0)
        assert peak_bytes([child.pid]) == rss_bytes([child.pid]) == 0
        with PeakDuring(os.getpid()) as peak:
            bytearray(1 << 20)
        assert peak.bytes >= rss_bytes([os.getpid()])
    finally:
        child.wait()
