"""The servers the engines start (dsib.servers): real PostgreSQL clusters on 127.0.0.1, stopped by
their PID however the process that started them ends."""

import itertools
import os
import re
import signal
import subprocess
import sys
import time

import psutil
import pytest

from dsib import postgres_server, servers
from dsib.engines import get_engine
from dsib.registry import installed_versions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_postgres = pytest.mark.skipif(
    servers.postgres_unavailable() is not None, reason=str(servers.postgres_unavailable())
)
KINDS = [
    pytest.param("postgres", marks=needs_postgres),
    pytest.param(
        "questdb",
        marks=pytest.mark.skipif(servers.questdb_unavailable() is not None, reason=str(servers.questdb_unavailable())),
    ),
]
# Spark's JVM is no server of dsib.servers, yet it must not outlive its case either.
STARTERS = KINDS + [
    pytest.param(
        "spark",
        marks=pytest.mark.skipif(
            get_engine("spark-arrow").unavailable(installed_versions(get_engine("spark-arrow").packages)) is not None
            or get_engine("spark-arrow").server.unavailable() is not None,
            reason="Spark cannot run here",
        ),
    )
]


def _gone(pid, port, within=15.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            if not servers.port_open(port):
                return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_listens_on_loopback_alone_and_stops_by_its_pid(server_tmp_path, kind):
    server = getattr(servers, kind)(str(server_tmp_path))
    try:
        process = psutil.Process(server.pid)
        if kind == "postgres" and os.geteuid() == 0:
            assert process.username() == servers.server_user().pw_name, "PostgreSQL refuses root"
        backends = process.children(recursive=True)
        listening = [
            c.laddr
            for c in psutil.net_connections("inet")
            if c.status == psutil.CONN_LISTEN and c.pid in [server.pid] + [b.pid for b in backends]
        ]
        assert listening and all(address.ip == servers.LOOPBACK for address in listening), listening
        assert servers.port_open(server.port)
        assert server in servers.running()
    finally:
        code = server.stop()
    # PostgreSQL's fast shutdown exits 0; the JVM ends on SIGTERM with 128 + 15.
    assert code == {"postgres": 0, "questdb": 143}[kind], server.log_tail()
    assert _gone(server.pid, server.port)
    assert not any(b.is_running() and b.status() != psutil.STATUS_ZOMBIE for b in backends)
    assert server not in servers.running()


HOLDER = """
import sys, time
from dsib.engines import get_engine
session = get_engine(sys.argv[2]).connect(sys.argv[1])
server = getattr(session, "server", None)
print(server.pid if server else session.jvm.pid, server.port if server else 0, flush=True)
time.sleep(600)
"""
ENGINE_OF = {"postgres": "postgres-adbc", "questdb": "questdb-dataframe", "spark": "spark-arrow"}


@pytest.mark.parametrize(
    "kind,how",
    [
        pytest.param(kind.values[0], how, marks=kind.marks, id="%s-%s" % (kind.values[0], how.name))
        for kind in STARTERS
        for how in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)
        if kind.values[0] == "postgres" or how == signal.SIGKILL
    ],
)
def test_no_server_outlives_the_process_that_started_it(server_tmp_path, kind, how):
    """SIGKILL and SIGTERM leave Python no chance to clean up (as asv's os._exit and its timeout
    kill); SIGINT is a Ctrl-C. The kernel's parent-death signal stops a server in every case;
    Spark's JVM ends when the pipe of its stdin closes with the process."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(server_tmp_path), ENGINE_OF[kind]],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    )
    try:
        pid, port = map(int, holder.stdout.readline().split())
        assert psutil.pid_exists(pid) and (port == 0 or servers.port_open(port))  # 0: Spark's JVM
        holder.send_signal(how)
        # A server's clean stop may take long on a busy machine: up to its timeout, then SIGKILL.
        holder.wait(servers.STOP_TIMEOUT + 60)
        assert _gone(pid, port), "the server %d outlived its starter (%s)" % (pid, how.name)
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


@needs_postgres
def test_a_server_that_cannot_start_says_why_and_leaves_nothing(server_tmp_path):
    directory = str(server_tmp_path)
    servers.postgres(directory).stop()
    with open(os.path.join(directory, "pgdata", "PG_VERSION"), "w") as f:
        f.write("7\n")  # a cluster of another major version
    before = set(p.pid for p in psutil.process_iter())
    with pytest.raises(servers.ServerError) as info:
        servers.postgres(directory)
    assert "exited (code 1) before it was ready" in str(info.value), info.value
    assert "database files are incompatible with server" in str(info.value), "the error quotes the server's log"
    assert not servers.running()
    born = [p for p in psutil.process_iter(["name"]) if p.pid not in before and p.info["name"] == "postgres"]
    assert not born, born


@pytest.mark.skipif(os.geteuid() != 0, reason="servers run as this user unless it is root")
def test_a_directory_the_server_user_cannot_enter_is_named(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    with pytest.raises(servers.ServerError) as info:
        servers.check_reachable(str(private / "db"), servers.server_user())
    assert str(private) in str(info.value) and "cannot enter" in str(info.value)


def test_an_engine_whose_server_cannot_be_had_skips_with_the_reason(monkeypatch):
    monkeypatch.setattr(postgres_server, "postgres_bindir", lambda: None)
    with pytest.raises(NotImplementedError) as info:
        get_engine("postgres-adbc").check_available()
    assert "PostgreSQL (ADBC): the PostgreSQL server is not installed" in str(info.value)
    assert get_engine("postgres-adbc").identity() is None


LEAKING_TEST = """
import subprocess, sys
sys.path.insert(0, %(root)r)
from dsib import postgres_server, servers
from tests.conftest import server_dir


def test_leaks():
    directory = server_dir()
    server = servers.Postgres(directory)
    # Started as a server, then forgotten: out of the suite's hands (no parent-death signal).
    argv, user = server.argv, server.user
    def as_server_user():
        import os
        os.setsid()
        if user is not None:
            os.setgroups([]); os.setgid(user.pw_gid); os.setuid(user.pw_uid)
    subprocess.Popen(argv, cwd=directory, preexec_fn=as_server_user, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
"""


@needs_postgres
def test_the_test_run_fails_naming_a_server_left_behind(tmp_path, server_tmp_path):
    """The check at the end of every test run (conftest.pytest_sessionfinish) catches a leak."""
    (tmp_path / "test_leak.py").write_text(LEAKING_TEST % {"root": ROOT})
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_sessionfinish  # noqa: F401\n")
    # The inner run's files inside this test's: its leaked server is found and stopped here.
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "--basetemp",
            str(tmp_path / "inner"),
            str(tmp_path / "test_leak.py"),
        ],
        cwd=str(tmp_path),
        env=dict(os.environ, PYTHONPATH=ROOT, DSIB_TEST_TMP=str(server_tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        timeout=120,
    )
    try:
        assert "1 passed" in run.stdout, run.stdout
        assert run.returncode == 1, run.stdout
        assert "servers left running by the tests:" in run.stdout and "postgres -D" in run.stdout, run.stdout
    finally:
        for process in psutil.process_iter(["name", "cmdline"]):
            if process.info["name"] == "postgres" and str(server_tmp_path) in " ".join(process.info["cmdline"] or ()):
                process.send_signal(signal.SIGINT)


# Servers held for a run (dsib_tools hold-servers, make run) ------------------------------------

needs_both = pytest.mark.skipif(
    servers.postgres_unavailable() is not None or servers.questdb_unavailable() is not None,
    reason="PostgreSQL or QuestDB cannot be had here",
)


@pytest.fixture(scope="module")
def held_servers():
    """One PostgreSQL and one QuestDB held as a run holds them, and what $DSIB_SERVERS says of them."""
    from .conftest import server_dir

    started, value, missing = servers.hold(server_dir("dsib-held-"))
    try:
        assert not missing, missing
        yield dict((s.name, s) for s in started), value
    finally:
        for server in started:
            server.stop()


@pytest.fixture
def held(held_servers, monkeypatch):
    """The held servers, told to this process for one test."""
    started, value = held_servers
    monkeypatch.setenv(servers.HELD_ENV, value)
    return started


def _session_dir():
    from .conftest import server_dir

    return server_dir("dsib-session-")


@needs_both
@pytest.mark.parametrize("name", ["postgres-adbc", "questdb-dataframe"])
def test_a_server_engines_peak_memory_includes_the_servers_process(tiny_data_dir, held, name):
    """track_server_peakmem_*: the peak RSS of the held server's process tree while a real frame
    goes in and comes back, the server's own process counted (and PostgreSQL's backend, its child)."""
    from benchmarks.engines import server_peak
    from data_prep import load_frame, read_hints
    from dsib import procmem

    engine = get_engine(name)
    frame = load_frame("tiny", "plain", data_dir=tiny_data_dir, dataset="tsbs_cpu")
    session = engine.connect(_session_dir())
    try:
        server = psutil.Process(session.server_pid)
        assert session.server_pid == held[engine.server.name].pid
        tree = procmem.tree(session.server_pid)
        assert tree[0] == server.pid and (name != "postgres-adbc" or len(tree) > 1), "the backends are children"
        own = server.memory_info().rss
        ingest = server_peak(engine, session, engine.ingest, session, frame, "t")
        query = server_peak(engine, session, engine.query, session, "t", **read_hints("plain", "tsbs_cpu"))
        client = psutil.Process().memory_info().rss
    finally:
        engine.close(session)
    for peak in (ingest, query):
        # The server's process alone holds ``own`` bytes resident; a peak that left it out would be
        # its backends' (PostgreSQL) or nothing (QuestDB, one process).
        assert peak >= own, (peak, own)
    if name == "questdb-dataframe":
        assert ingest > client / 2, "a JVM's resident memory, not a Python client's share of it: %d, %d" % (
            ingest,
            client,
        )
    assert psutil.pid_exists(session.server_pid), "a held server stays when its session closes"


@needs_both
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
        engine.ingest(first, frame.iloc[:10], "t")
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


@needs_both
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
            engine.ingest(session, frame, table)
    finally:
        engine.close(session)
    http_port = held["QuestDB"].http_port
    assert len(session.waits) == 2 and all(w.polls >= 1 and w.cpu_seconds >= 0 for w in session.waits)
    assert connects.count(http_port) == 1, "every poll of both waits on one connection: %s" % connects


def test_a_server_engines_case_skips_saying_why_where_no_server_is_held(monkeypatch):
    from benchmarks import engines as engine_cases

    monkeypatch.delenv(servers.HELD_ENV, raising=False)
    with pytest.raises(NotImplementedError) as info:
        engine_cases.require_held_server(get_engine("postgres-copy"))
    assert "no PostgreSQL server is held for this run" in str(info.value) and "make run" in str(info.value)
    engine_cases.require_held_server(get_engine("duckdb"))  # no server: nothing to hold


def test_make_run_and_run_matrix_hold_the_servers_around_asv():
    for target in ("run", "run-matrix"):
        dry = subprocess.run(
            ["make", "-n", target, "PROFILE=tiny"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        (line,) = [line for line in dry.stdout.splitlines() if " asv run " in line]
        assert "dsib_tools hold-servers -- .venv/bin/python -m asv run" in line, line


def _held_pids(data_dir):
    """{pid: ports} of the held servers' main processes (a postmaster, a JVM) under ``data_dir``."""
    found = {}
    for process in psutil.process_iter(["name", "cmdline", "status"]):
        cmdline = process.info["cmdline"] or []
        if process.info["status"] == psutil.STATUS_ZOMBIE or not any(data_dir in part for part in cmdline):
            continue
        if process.info["name"] == "postgres" and "-D" in cmdline:
            found[process.pid] = ("postgres", int(cmdline[cmdline.index("-p") + 1]))
        elif process.info["name"] == "java" and "io.questdb/io.questdb.ServerMain" in cmdline:
            found[process.pid] = ("questdb", None)
    return found


def _all_gone(pids, ports, within=45.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        bound = [p for p in ports if servers.port_open(p)]
        if not alive and not bound:
            return True
        time.sleep(0.2)
    return False


HOLD = [sys.executable, "-m", "dsib_tools", "hold-servers", "--"]
TELL = "import os, sys, time; print(os.environ['DSIB_SERVERS'], flush=True); sys.stdin.readline(); %s"


@needs_both
@pytest.mark.parametrize("how", ["exit", "SIGINT-group", "SIGINT-group-watched", "SIGTERM", "SIGKILL"])
def test_held_servers_stop_by_their_pid_however_the_run_ends(how, tmp_path):
    """The run ends by itself; a Ctrl-C at the terminal (SIGINT to the run's whole process group),
    also under the load watcher as make run has it; SIGTERM to the holder alone; the holder killed
    (the servers' parent-death signal)."""
    import json

    from .conftest import server_dir

    data_dir = server_dir("dsib-hold-")
    command = HOLD + [sys.executable, "-c", TELL % ("sys.exit(3)" if how == "exit" else "time.sleep(600)")]
    if how.endswith("-watched"):
        command = [
            sys.executable,
            "-m",
            "dsib_tools",
            "watch-load",
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
        pids = [told["postgres"]["pid"], told["questdb"]["pid"]]
        ports = [
            told["postgres"]["port"],
            told["questdb"]["http_port"],
            told["questdb"]["ilp_port"],
            told["questdb"]["pg_port"],
        ]
        assert sorted(_held_pids(data_dir)) == sorted(pids) and all(servers.port_open(p) for p in ports)
        if how == "exit":
            run.stdin.write("\n")
            run.stdin.flush()
        elif how.startswith("SIGINT-group"):
            os.killpg(run.pid, signal.SIGINT)
        else:
            run.send_signal(getattr(signal, how))
        status = run.wait(servers.STOP_TIMEOUT + 60)
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


# A whole asv run at tiny, its servers held by the holder: the engines' cases of one PostgreSQL and
# one QuestDB engine (every method: time, peakmem, and the server's peak memory).
SELECTION = (
    r"engines\.(IngestIntoEngine|QueryFromEngine)\.\w+\('tsbs_cpu', '(postgres-adbc|questdb-dataframe)', 'plain'\)"
)
MACHINE = "dsib-test"


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    from .conftest import snapshot_working_tree

    repo = str(tmp_path_factory.mktemp("held-run") / "repo")
    snapshot_working_tree(repo)
    return repo


def _start_run(repo, data_dir, build, log):
    """The holder around ``asv run`` of SELECTION, as ``make run ENGINE=...`` runs it, in a session
    of its own (a terminal's Ctrl-C reaches its whole group)."""
    import glob

    from .conftest import ENV_DIR

    pyenv = glob.glob(os.path.join(os.path.expanduser("~"), ".pyenv", "versions", "*", "bin"))
    env = dict(
        os.environ,
        DSIB_DATA_DIR=data_dir,
        DSIB_SELECT=SELECTION,
        PATH=os.pathsep.join([os.path.dirname(sys.executable)] + pyenv + [os.environ["PATH"]]),
    )
    config, results = ".asv-tiny.conf.json", os.path.join(build, "results")
    for tool in (
        [
            "config",
            "--profile",
            "tiny",
            "--envs",
            "newest",
            "--results-dir",
            results,
            "--html-dir",
            os.path.join(build, "html"),
            "--env-dir",
            ENV_DIR,
            "-o",
            config,
        ],
        ["machine", MACHINE, "--results-dir", results],
    ):
        subprocess.run(
            [sys.executable, "-m", "dsib_tools"] + tool, cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL
        )
    return subprocess.Popen(
        HOLD
        + [
            sys.executable,
            "-m",
            "asv",
            "run",
            "--config",
            config,
            "--machine",
            MACHINE,
            "--show-stderr",
            "--record-samples",
            "-b",
            SELECTION,
            "HEAD^!",
        ],
        cwd=repo,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    ), results


def _read(path):
    with open(path, errors="replace") as f:
        return f.read()


def _watch(data_dir, run, seen):
    """Every server process seen under ``data_dir`` while ``run`` runs, into ``seen`` {pid: (kind, port)}."""
    while run.poll() is None:
        seen.update(_held_pids(data_dir))
        time.sleep(0.1)


@needs_both
@pytest.mark.parametrize("interrupted", [False, True], ids=["whole", "ctrl-c"])
def test_a_tiny_run_holds_one_postgres_and_one_questdb_and_leaves_no_server_and_no_port(
    snapshot, tiny_data_dir, tmp_path, interrupted
):
    """One PostgreSQL and one QuestDB for the whole run, whatever its cases; none, and no bound
    port, after it, whether it ended by itself or by a Ctrl-C (SIGINT to its whole process group)
    while its engine cases ran."""
    import math
    import threading

    from asv.results import iter_results_for_machine

    build = str(tmp_path / "build")
    log_path = str(tmp_path / "run.log")
    with open(log_path, "w") as log:
        run, results = _start_run(snapshot, tiny_data_dir, build, log)
    seen = {}
    watcher = threading.Thread(target=_watch, args=(tiny_data_dir, run, seen), daemon=True)
    watcher.start()
    try:
        if interrupted:
            deadline = time.monotonic() + 900
            while run.poll() is None and time.monotonic() < deadline and "IngestIntoEngine" not in _read(log_path):
                time.sleep(0.2)
            time.sleep(3)  # inside the engine cases
            assert run.poll() is None, _read(log_path)[-3000:]
            os.killpg(run.pid, signal.SIGINT)
        status = run.wait(1800)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    watcher.join()
    output = _read(log_path)
    kinds = sorted(kind for kind, port in seen.values())
    assert kinds == ["postgres", "questdb"], "one of each for the whole run: %s\n%s" % (seen, output[-3000:])
    ports = [port for kind, port in seen.values() if port] + [
        int(p) for p in re.findall(r"on 127\.0\.0\.1:(\d+)", output)
    ]
    assert _all_gone(list(seen), ports), "left: %s" % _held_pids(tiny_data_dir)
    assert not [p for p in psutil.process_iter(["cmdline"]) if snapshot in " ".join(p.info["cmdline"] or [])], (
        "the run itself ended"
    )
    assert os.listdir(os.path.join(tiny_data_dir, ".cache", "_servers")) == [], "its servers' directory went too"
    if interrupted:
        assert status != 0
        return
    assert status == 0, output[-6000:]
    (res,) = list(iter_results_for_machine(results, MACHINE))
    measured = {}
    for key in res.get_all_result_keys():
        if not key.startswith("engines."):
            continue
        params = res.get_result_params(key)
        for combo, value in zip(itertools.product(*params), res.get_result_value(key, params)):
            if (
                combo[0] == "'tsbs_cpu'"
                and combo[2] == "'plain'"
                and combo[1] in ("'postgres-adbc'", "'questdb-dataframe'")
            ):
                measured[(key.split(".", 1)[1], combo[1].strip("'"))] = value
    assert len(measured) == 12, sorted(measured)
    assert all(value is not None and not math.isnan(value) and value > 0 for value in measured.values()), measured
    # The report's engine tables: the client's peak, the server's, and the two together.
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "report",
            "--engines",
            "--results-dir",
            results,
            "--machine",
            MACHINE,
            "--source",
            "tsbs_cpu",
            "--variant",
            "plain",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert report.returncode == 0, report.stdout
    for label, engine in (
        ("PostgreSQL (ADBC)", "postgres-adbc"),
        ("QuestDB (ILP/HTTP, dataframe)", "questdb-dataframe"),
    ):
        (row,) = [line for line in report.stdout.splitlines() if line.startswith("| %s |" % label)]
        memory = row.strip("| ").split(" | ")[3:5]
        for cell, (client, server) in zip(
            memory,
            [
                ("IngestIntoEngine.peakmem_ingest", "IngestIntoEngine.track_server_peakmem_ingest"),
                ("QueryFromEngine.peakmem_query", "QueryFromEngine.track_server_peakmem_query"),
            ],
        ):
            mib = [measured[client, engine] / 2**20, measured[server, engine] / 2**20]
            assert cell == "%.0f + %.0f = %.0f" % (mib[0], mib[1], sum(mib)), (row, mib)


@needs_postgres
def test_a_server_the_run_cannot_hold_skips_its_cases_with_the_reason_and_the_other_is_held(monkeypatch):
    from benchmarks import engines as engine_cases

    from .conftest import server_dir

    monkeypatch.setattr(servers, "questdb_unavailable", lambda: "no Java here (made so by the test)")
    started, value, missing = servers.hold(server_dir("dsib-hold-"))
    try:
        assert [s.name for s in started] == ["PostgreSQL"] and list(missing) == ["questdb"]
        monkeypatch.setenv(servers.HELD_ENV, value)
        engine_cases.require_held_server(get_engine("postgres-adbc"))
        with pytest.raises(NotImplementedError) as info:
            engine_cases.require_held_server(get_engine("questdb-dataframe"))
        assert "could not hold a QuestDB server: no Java here (made so by the test)" in str(info.value)
    finally:
        for server in started:
            server.stop()
