"""Servers held for a run (dsib_tools servers hold, make run): one PostgreSQL, one QuestDB and the
object store that every case of the run reaches, stopped by their PID however the run ends."""

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from dsib import environment, object_store, postgres_server, questdb_server, server_process, servers
from dsib.engines import get_engine

from .conftest import ROOT
from .test_servers import needs_postgres

needs_held = pytest.mark.skipif(
    postgres_server.postgres_unavailable() is not None
    or questdb_server.questdb_unavailable() is not None
    or object_store.object_store_unavailable() is not None,
    reason="PostgreSQL, QuestDB or the object store cannot be had here",
)


@pytest.fixture(scope="module")
def held_servers(run_servers):
    """One PostgreSQL and one QuestDB held as a run holds them, and what $DSIB_SERVERS says of them."""
    started, value, missing = run_servers
    assert "postgres" not in missing and "questdb" not in missing, missing
    return started, value


@pytest.fixture
def held(held_servers, monkeypatch):
    """The held servers, told to this process for one test."""
    started, value = held_servers
    monkeypatch.setenv(environment.HELD_SERVERS, value)
    return started


def _session_dir():
    from .conftest import server_dir

    return server_dir("dsib-session-")


@pytest.mark.server
@needs_postgres
@pytest.mark.parametrize("name", ["postgres-adbc", "postgres-copy"])
def test_a_servers_memory_is_what_each_call_added_to_it_and_grows_with_the_frame(
    tiny_data_dir, run_servers, monkeypatch, name
):
    """track_server_added_*: what an ingest or a query adds to the PSS of the held server's process
    tree (PostgreSQL's backends included, shared buffers counted once), over its level before the
    call, and the server's resting memory is not in it: a call that does nothing adds next to
    nothing to a tree that holds megabytes. Through ADBC a frame eight times larger adds
    more to the server. psycopg's COPY sends its CSV rows in chunks the server takes one at a time,
    so what the server holds at its peak hardly depends on the frame: at `tiny`, 7-14 MiB for the
    small frame and 9-12 MiB for the large one, and either can be the larger; its client's grows."""
    import pandas as pd

    from benchmarks.engines import client_added, server_added
    from data_prep import load_frame, read_hints
    from dsib import procmem

    started, value, _ = run_servers
    monkeypatch.setenv(environment.HELD_SERVERS, value)
    engine = get_engine(name)
    small = load_frame("tiny", "plain", data_dir=tiny_data_dir, dataset="tsbs_cpu")
    large = pd.concat([small] * 8, ignore_index=True)
    session = engine.connect(_session_dir())
    added = {}
    try:
        assert session.server_pid == started["PostgreSQL"].pid
        tree = procmem.tree(session.server_pid)
        assert tree[0] == session.server_pid and len(tree) > 1, "the backends are children"
        resting = procmem.pss_bytes(tree)
        nothing = server_added(session, lambda: None)
        for size, frame in (("small", small), ("large", large)):
            added[size, "ingest"] = server_added(session, engine.ingest_visible, session, frame, size)
            query = lambda: engine.query(session, size, **read_hints("plain", "tsbs_cpu"))  # noqa: E731
            added[size, "query"] = server_added(session, query)
            added[size, "client"] = client_added(query)
    finally:
        engine.close(session)
    assert added["small", "ingest"] > 0 and added["large", "ingest"] > 0, added
    if name == "postgres-adbc":
        assert added["large", "ingest"] > added["small", "ingest"], added
    assert added["large", "client"] > added["small", "client"] > 0, added
    assert resting > 0 and abs(nothing) < resting / 4, ("not the server's whole memory", nothing, resting)
    assert psutil.pid_exists(session.server_pid), "a held server stays when its session closes"


@pytest.mark.server
@pytest.mark.slow  # asv's launcher twice a case, in processes of their own
@needs_postgres
def test_a_case_run_by_asvs_launcher_gives_what_it_added_to_the_held_server(tiny_data_dir, run_servers, monkeypatch):
    """track_server_added_ingest as asv runs it, each case in a process of its own after its untimed
    first call, on the run's PostgreSQL: what the ingest added to the server's process tree, more
    than nothing and less than the tree held at rest (not the server's whole memory). That a larger
    frame adds more is the in-process test's (eight times the frame): at `tiny` the taxi frame with
    text (2.2 MB) and TSBS without (0.9 MB) added 3.0-3.4 and 1.3-1.5 MiB in two runs, to a server
    that held 13 MiB at rest; another test's server started or stopped meanwhile moves nothing
    (``procmem``: the tree's memory, not the pages of the binary both map)."""
    import tempfile

    from dsib import procmem

    from .conftest import server_dir
    from .test_first_call import run_as_asv

    monkeypatch.setenv(environment.HELD_SERVERS, run_servers[1])
    resting = procmem.pss_bytes(procmem.tree(run_servers[0]["PostgreSQL"].pid))
    cache, added = server_dir("dsib-cache-"), {}
    for cell in (("tsbs_cpu", "postgres-adbc", "plain"), ("nyc_taxi", "postgres-adbc", "str")):
        work = tempfile.mkdtemp(dir=cache)
        added[cell[0]], output = run_as_asv(
            "engines.IngestIntoEngine.track_server_added_ingest",
            cell,
            tiny_data_dir,
            cache,
            os.path.join(work, "run"),
            os.path.join(work, "trace.jsonl"),
        )
    for dataset, value in added.items():
        assert 0 < value < resting, (dataset, value, resting)


@pytest.mark.server
@needs_held
def test_a_held_session_is_a_database_of_its_own_that_a_copy_of_its_directory_reaches(tiny_data_dir, held):
    """A cell is loaded once a run: its directory names its database (PostgreSQL) or table prefix
    (QuestDB) on the held server, and the query case's copy of the directory reaches the same table."""
    import shutil

    from data_prep import load_frame

    frame = load_frame("tiny", "plain", data_dir=tiny_data_dir, dataset="tsbs_cpu")
    for name in ("postgres-adbc", "questdb-dataframe"):
        engine = get_engine(name)
        one, other = _session_dir(), _session_dir()
        first = engine.connect(one)
        engine.ingest_visible(first, frame.iloc[:10], "t")
        engine.close(first)
        copy = os.path.join(_session_dir(), "copy")
        shutil.copytree(one, copy)
        again, elsewhere = engine.connect(copy), engine.connect(other)
        try:
            assert len(engine.query(again, "t", datetimes=("timestamp",))) == 10, name
            with pytest.raises(Exception):
                engine.query(elsewhere, "t", datetimes=("timestamp",))  # another session's table is not its own
        finally:
            engine.close(again)
            engine.close(elsewhere)


@pytest.mark.server
@needs_held
def test_questdbs_wait_asks_on_one_connection_and_keeps_its_own_cpu_time(tiny_data_dir, held, monkeypatch):
    import http.client

    from data_prep import load_frame

    connects = []
    real_connect = http.client.HTTPConnection.connect

    def counted(self):
        connects.append(self.port)
        return real_connect(self)

    monkeypatch.setattr(http.client.HTTPConnection, "connect", counted)
    engine = get_engine("questdb-dataframe")
    frame = load_frame("tiny", "plain", data_dir=tiny_data_dir, dataset="tsbs_cpu")
    session = engine.connect(_session_dir())
    try:
        for table in ("a", "b"):
            engine.ingest_visible(session, frame, table)
    finally:
        engine.close(session)
    http_port = held["QuestDB"].http_port
    assert len(session.waits) == 2 and all(w.polls >= 1 and w.cpu_seconds >= 0 for w in session.waits)
    assert connects.count(http_port) == 1, "every poll of both waits on one connection: %s" % connects


def test_a_server_engines_case_skips_saying_why_where_no_server_is_held(monkeypatch):
    from benchmarks import engines as engine_cases

    monkeypatch.delenv(environment.HELD_SERVERS, raising=False)
    with pytest.raises(NotImplementedError) as info:
        engine_cases.require_held_server(get_engine("postgres-copy"))
    assert "no PostgreSQL server is held for this run" in str(info.value) and "make run" in str(info.value)
    engine_cases.require_held_server(get_engine("duckdb"))  # no server: nothing to hold


def test_make_run_and_run_matrix_hold_the_servers_around_asv(monkeypatch):
    from dsib_tools import machine_load, run

    for target in ("run", "run-matrix"):
        dry = subprocess.run(
            ["make", "-n", target, "PROFILE=tiny"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        (line,) = [line for line in dry.stdout.splitlines() if " -m dsib_tools run " in line]
        assert "--profile tiny" in line, line
    watched = []
    monkeypatch.setattr(machine_load, "main", lambda results_dir, machine, command: watched.append(command) or 0)
    monkeypatch.delenv("DSIB_SELECT", raising=False)
    command = run.asv_command("c.json", "m", "tiny", "HEAD")
    assert run.run(command, "build/results", "m") == 0
    assert watched == [[sys.executable, "-m", "dsib_tools", "servers", "hold", "--"] + command]
    assert command[1:4] == ["-m", "asv", "run"] and command[-1] == "HEAD^!"


@pytest.mark.parametrize(
    "selection, kinds",
    [
        (dict(release=True), ""),  # the release matrix: files only
        (dict(fmt="msgpack"), ""),
        (dict(fmt="csv"), "s3"),
        (dict(fmt="parquet"), "s3"),  # its object-store reads
        (dict(engine="all"), "postgres,questdb,spark"),
        (dict(engine="duckdb"), ""),  # in the case's own process
        (dict(engine="postgres-adbc"), "postgres"),
        (dict(bench="objectstore"), "s3"),
    ],
)
def test_a_run_holds_the_servers_its_selected_cells_work_in_and_no_other(selection, kinds, monkeypatch):
    from dsib_tools import machine_load, run

    watched = []
    monkeypatch.setattr(machine_load, "main", lambda results_dir, machine, command: watched.append(command) or 0)
    monkeypatch.delenv("DSIB_SELECT", raising=False)
    selected = run.selection(**selection)
    command = run.asv_command("c.json", "m", "default", "HEAD", selected, matrix=True)
    assert run.run(command, "build/results", "m", selected) == 0
    assert watched == [[sys.executable, "-m", "dsib_tools", "servers", "hold", "--kinds", kinds, "--"] + command]
    assert os.environ["DSIB_SELECT"] == selected


def test_holding_no_server_tells_the_command_why_each_kind_is_missing(tmp_path):
    tell = [sys.executable, "-c", "import os; print(os.environ['DSIB_SERVERS'])"]
    told = subprocess.run(
        HOLD[:-1] + ["--kinds", ""] + HOLD[-1:] + tell,
        cwd=ROOT,
        env=dict(os.environ, DSIB_DATA_DIR=str(tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert told.returncode == 0, told.stderr
    import json

    missing = json.loads(told.stdout)["missing"]
    assert missing == dict((kind, servers.NOT_ASKED) for kind, _, _ in servers.HELD_KINDS)
    assert "dsib: servers held for this run: none" in told.stderr
    assert "dsib: no questdb held for this run: %s" % servers.NOT_ASKED in told.stderr
    assert not _held_pids(str(tmp_path))


def test_holding_a_kind_that_does_not_exist_is_a_one_line_error(tmp_path):
    said = subprocess.run(
        HOLD[:-1] + ["--kinds", "postgres,mysql"] + HOLD[-1:] + ["true"],
        cwd=ROOT,
        env=dict(os.environ, DSIB_DATA_DIR=str(tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert said.returncode == 2
    assert said.stderr.splitlines()[-1] == "error: --kinds: no such kind of server: mysql", said.stderr
    assert not _held_pids(str(tmp_path))


def _held_pids(data_dir):
    """{pid: (kind, port)} of the held servers' main processes under ``data_dir``: a postmaster, a
    JVM (QuestDB's, Spark's, the object store's), a counting proxy of the object store's."""
    found = {}
    for process in psutil.process_iter(["name", "cmdline", "status", "ppid", "cwd"]):
        cmdline = process.info["cmdline"] or []
        if process.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if "dsib.s3_proxy" in cmdline and (process.info["cwd"] or "").startswith(data_dir):
            found[process.pid] = ("s3-proxy", int(cmdline[cmdline.index("dsib.s3_proxy") + 1]))
            continue
        if not any(data_dir in part for part in cmdline):
            continue
        if process.info["name"] == "postgres" and "-D" in cmdline:
            if _is_postgres(process.info["ppid"]):
                continue  # a backend just forked: it shows the postmaster's command line until it sets its title
            found[process.pid] = ("postgres", int(cmdline[cmdline.index("-p") + 1]))
        elif process.info["name"] == "java" and "io.questdb/io.questdb.ServerMain" in cmdline:
            found[process.pid] = ("questdb", None)
        elif process.info["name"] == "java" and "org.apache.spark.deploy.SparkSubmit" in cmdline:
            found[process.pid] = ("spark", None)
        elif process.info["name"] == "java" and any("s3proxy" in part for part in cmdline):
            found[process.pid] = ("s3", None)
    return found


def _is_postgres(pid):
    try:
        return psutil.Process(pid).name() == "postgres"
    except psutil.Error:
        return False


def _all_gone(pids, ports, within=45.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        bound = [p for p in ports if server_process.port_open(p)]
        if not alive and not bound:
            return True
        time.sleep(0.2)
    return False


HOLD = [sys.executable, "-m", "dsib_tools", "servers", "hold", "--"]
# The command tells what the holder told it, having asked for Spark's JVM (started by the holder).
TELL = (
    "import json, os, sys, time, pyspark; from dsib import servers; "
    "told = json.loads(os.environ['DSIB_SERVERS']); "
    "told['spark'] = servers.held('spark').gateway(os.path.dirname(pyspark.__file__)); "
    "print(json.dumps(told), flush=True); sys.stdin.readline(); %s"
)


@pytest.mark.server
@needs_held
@pytest.mark.parametrize("how", ["exit", "SIGINT-group", "SIGINT-group-watched", "SIGTERM", "SIGKILL"])
def test_held_servers_stop_by_their_pid_however_the_run_ends(how, tmp_path):
    """The run ends by itself; a Ctrl-C at the terminal (SIGINT to the run's whole process group),
    also under the load watcher as make run has it; SIGTERM to the holder alone; the holder killed
    (the servers' parent-death signal). Spark's JVM, started when the run asks for it, too."""
    import json

    from .conftest import server_dir

    data_dir = server_dir("dsib-hold-")
    command = HOLD + [sys.executable, "-c", TELL % ("sys.exit(3)" if how == "exit" else "time.sleep(600)")]
    if how.endswith("-watched"):
        command = [
            sys.executable,
            "-m",
            "dsib_tools",
            "study",
            "load",
            "--results-dir",
            str(tmp_path),
            "--machine",
            "dsib-test",
            "--",
        ] + command
    run = subprocess.Popen(
        command,
        cwd=ROOT,
        env=dict(os.environ, DSIB_DATA_DIR=data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        universal_newlines=True,
        start_new_session=True,
    )
    try:
        told = json.loads(run.stdout.readline())
        pids = [told["postgres"]["pid"], told["questdb"]["pid"], told["spark"]["pid"], told["s3"]["pid"]]
        ports = [
            told["postgres"]["port"],
            told["questdb"]["http_port"],
            told["questdb"]["ilp_port"],
            told["questdb"]["pg_port"],
            told["s3"]["port"],
        ] + list(told["s3"]["proxies"].values())
        found = _held_pids(data_dir)
        proxies = dict((pid, port) for pid, (kind, port) in found.items() if kind == "s3-proxy")
        assert sorted(proxies.values()) == sorted(told["s3"]["proxies"].values()), found
        pids += list(proxies)
        assert sorted(found) == sorted(pids) and all(server_process.port_open(p) for p in ports)
        if how == "exit":
            run.stdin.write("\n")
            run.stdin.flush()
        elif how.startswith("SIGINT-group"):
            os.killpg(run.pid, signal.SIGINT)
        else:
            run.send_signal(getattr(signal, how))
        status = run.wait(server_process.STOP_TIMEOUT + 60)
        assert (
            status == {"exit": 3, "SIGINT-group": 130, "SIGINT-group-watched": 130, "SIGTERM": 143, "SIGKILL": -9}[how]
        )
        assert _all_gone(pids, ports), "servers or ports left after %s: %s" % (how, _held_pids(data_dir))
        runs = os.path.join(data_dir, ".cache", "_servers")
        assert how == "SIGKILL" or os.listdir(runs) == [], "the run's server directory goes with it"
    finally:
        try:  # the command too, which a killed holder leaves behind
            os.killpg(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        run.wait()
        run.stdout.close()
        run.stdin.close()


@pytest.mark.server
@needs_postgres
def test_a_run_asked_for_postgres_alone_holds_it_and_the_others_cases_skip_saying_why(monkeypatch):
    from benchmarks import engines as engine_cases

    from .conftest import server_dir

    started, value, missing = servers.hold(server_dir("dsib-hold-"), ["postgres"])
    try:
        assert [s.name for s in started] == ["PostgreSQL"]
        assert missing == {"questdb": servers.NOT_ASKED, "spark": servers.NOT_ASKED, "s3": servers.NOT_ASKED}
        monkeypatch.setenv(environment.HELD_SERVERS, value)
        engine_cases.require_held_server(get_engine("postgres-adbc"))
        with pytest.raises(NotImplementedError) as info:
            engine_cases.require_held_server(get_engine("questdb-dataframe"))
        assert servers.NOT_ASKED in str(info.value)
    finally:
        for server in started:
            server.stop()


@pytest.mark.server
@needs_postgres
def test_a_server_the_run_cannot_hold_skips_its_cases_with_the_reason_and_the_other_is_held(monkeypatch):
    from benchmarks import engines as engine_cases

    from .conftest import server_dir

    monkeypatch.setattr(
        servers,
        "HELD_KINDS",
        tuple(
            (kind, (lambda: "no Java here (made so by the test)") if kind == "questdb" else unavailable, start)
            for kind, unavailable, start in servers.HELD_KINDS
        ),
    )
    started, value, missing = servers.hold(server_dir("dsib-hold-"))
    try:
        assert [s.name for s in started if s.name in ("PostgreSQL", "QuestDB")] == ["PostgreSQL"]
        assert list(missing) == ["questdb"]
        monkeypatch.setenv(environment.HELD_SERVERS, value)
        engine_cases.require_held_server(get_engine("postgres-adbc"))
        with pytest.raises(NotImplementedError) as info:
            engine_cases.require_held_server(get_engine("questdb-dataframe"))
        assert "could not hold a QuestDB server: no Java here (made so by the test)" in str(info.value)
    finally:
        for server in started:
            server.stop()
