"""The servers the engines start (dsib.servers): real PostgreSQL clusters on 127.0.0.1, stopped by
their PID however the process that started them ends."""

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from dsib import postgres_server, questdb_server, server_process
from dsib.engines import get_engine
from dsib.registry import installed_versions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_postgres = pytest.mark.skipif(
    postgres_server.postgres_unavailable() is not None, reason=str(postgres_server.postgres_unavailable())
)
KINDS = [
    pytest.param("postgres", marks=needs_postgres),
    pytest.param(
        "questdb",
        marks=pytest.mark.skipif(
            questdb_server.questdb_unavailable() is not None, reason=str(questdb_server.questdb_unavailable())
        ),
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
            if not server_process.port_open(port):
                return True
        time.sleep(0.1)
    return False


@pytest.mark.server
@pytest.mark.parametrize("kind", KINDS)
def test_a_server_listens_on_loopback_alone_and_stops_by_its_pid(server_tmp_path, kind):
    server = {"postgres": postgres_server.postgres, "questdb": questdb_server.questdb}[kind](str(server_tmp_path))
    try:
        process = psutil.Process(server.pid)
        if kind == "postgres" and os.geteuid() == 0:
            assert process.username() == server_process.server_user().pw_name, "PostgreSQL refuses root"
        backends = process.children(recursive=True)
        listening = [
            c.laddr
            for c in psutil.net_connections("inet")
            if c.status == psutil.CONN_LISTEN and c.pid in [server.pid] + [b.pid for b in backends]
        ]
        assert listening and all(address.ip == server_process.LOOPBACK for address in listening), listening
        assert server_process.port_open(server.port)
        assert server in server_process.running()
    finally:
        code = server.stop()
    # PostgreSQL's fast shutdown exits 0; the JVM ends on SIGTERM with 128 + 15.
    assert code == {"postgres": 0, "questdb": 143}[kind], server.log_tail()
    assert _gone(server.pid, server.port)
    assert not any(b.is_running() and b.status() != psutil.STATUS_ZOMBIE for b in backends)
    assert server not in server_process.running()


HOLDER = """
import sys, time
from dsib.engines import get_engine
session = get_engine(sys.argv[2]).connect(sys.argv[1])
server = getattr(session, "server", None)
print(server.pid if server else session.server_pid, server.port if server else 0, flush=True)
time.sleep(600)
"""
ENGINE_OF = {"postgres": "postgres-adbc", "questdb": "questdb-dataframe", "spark": "spark-arrow"}


@pytest.mark.server
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
        assert psutil.pid_exists(pid) and (port == 0 or server_process.port_open(port))  # 0: Spark's JVM
        holder.send_signal(how)
        # A server's clean stop may take long on a busy machine: up to its timeout, then SIGKILL.
        holder.wait(server_process.STOP_TIMEOUT + 60)
        assert _gone(pid, port), "the server %d outlived its starter (%s)" % (pid, how.name)
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


@pytest.mark.server
@needs_postgres
def test_a_server_that_cannot_start_says_why_and_leaves_nothing(server_tmp_path):
    directory = str(server_tmp_path)
    postgres_server.postgres(directory).stop()
    with open(os.path.join(directory, "pgdata", "PG_VERSION"), "w") as f:
        f.write("7\n")  # a cluster of another major version
    before = set(p.pid for p in psutil.process_iter())
    with pytest.raises(server_process.ServerError) as info:
        postgres_server.postgres(directory)
    assert "exited (code 1) before it was ready" in str(info.value), info.value
    assert "database files are incompatible with server" in str(info.value), "the error quotes the server's log"
    assert not server_process.running()
    # Only this directory's: another pytest-xdist worker may start a server of its own meanwhile.
    born = [
        p
        for p in psutil.process_iter(["name", "cmdline"])
        if p.pid not in before and p.info["name"] == "postgres" and directory in " ".join(p.info["cmdline"] or ())
    ]
    assert not born, born


@pytest.mark.skipif(os.geteuid() != 0, reason="servers run as this user unless it is root")
def test_a_directory_the_server_user_cannot_enter_is_named(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    with pytest.raises(server_process.ServerError) as info:
        server_process.check_reachable(str(private / "db"), server_process.server_user())
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


@pytest.mark.server
@needs_postgres
def test_the_test_run_fails_naming_a_server_left_behind(tmp_path, server_tmp_path):
    """The check at the end of every test run (conftest.pytest_sessionfinish) catches a leak."""
    (tmp_path / "test_leak.py").write_text(LEAKING_TEST % {"root": ROOT})
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_sessionfinish as pytest_sessionfinish\n")
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
