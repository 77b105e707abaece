"""The servers the engines need (``dsib.engines``), started by the suite and stopped by their PID.

A server is a child process of the case (or test) that needs it, listening on a free port of
127.0.0.1 and nowhere else, with its files in a directory the case gave it. It is stopped by
its PID, whichever way its case ends:

- ``Server.stop()``: an engine's ``close``; a signal that asks the server to finish cleanly,
  then SIGKILL if it has not within ``STOP_TIMEOUT``;
- at interpreter exit (``atexit``), any server of this process still running;
- when the process that started it dies without either (asv's forkserver ends each case with
  ``os._exit``, kills a case past its timeout, Ctrl-C, SIGKILL): the kernel sends the server its
  stop signal (Linux's parent-death signal, ``PR_SET_PDEATHSIG``).

A server runs in a session of its own, so a Ctrl-C at the terminal reaches the case, which stops
its servers in that order: the client first, then the server.

PostgreSQL refuses to run as root. Run as root, the suite runs servers as an unprivileged user
(``postgres`` where it exists, else ``nobody``), who owns the server's directory.

Servers held for a run: ``python -m dsib_tools hold-servers -- asv run ...`` (``make run``) starts
one PostgreSQL and one QuestDB before asv's first case and stops them by their PID when the run
ends, however it ends; it tells the run where they listen in ``$DSIB_SERVERS`` (``hold`` makes it,
``held`` reads it). An engine's session on a held server is a schema of its own (PostgreSQL) or a
table prefix of its own (QuestDB), named in its directory's ``held.json`` so that a copy of the
directory reaches the same tables.
"""

import atexit
import json
import ctypes
import ctypes.util
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections import namedtuple

LOOPBACK = "127.0.0.1"
START_TIMEOUT = 120
STOP_TIMEOUT = 30
_PR_SET_PDEATHSIG = 1
_RUNNING = {}  # pid: Server, this process's servers not yet stopped


class ServerError(RuntimeError):
    pass


def free_port():
    """A port of 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def port_open(port):
    """Whether something accepts connections on 127.0.0.1:``port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((LOOPBACK, port)) == 0


def server_user():
    """The ``pwd`` entry to run servers as: None (this process's own user) unless it is root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            pass
    raise ServerError("running as root, and neither a 'postgres' nor a 'nobody' user exists to run servers as")


def give_to(path, user):
    """``path`` and everything under it owned by ``user`` (None: left as it is)."""
    if user is None:
        return
    os.chown(path, user.pw_uid, user.pw_gid)
    for directory, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(directory, name), user.pw_uid, user.pw_gid, follow_symlinks=False)


def check_reachable(path, user):
    """Raise where ``user`` cannot reach ``path`` (a parent directory it may not enter)."""
    if user is None:
        return
    parent = os.path.dirname(os.path.abspath(path))
    while True:
        st = os.stat(parent)
        if not (
            st.st_mode & 0o001
            or (st.st_uid == user.pw_uid and st.st_mode & 0o100)
            or (st.st_gid == user.pw_gid and st.st_mode & 0o010)
        ):
            raise ServerError(
                "servers run as %r here (root may not run them), and %r cannot enter %s: "
                "keep the data directory (DSIB_DATA_DIR, DSIB_CACHE_DIR) where it can"
                % (user.pw_name, user.pw_name, parent)
            )
        if parent == os.path.dirname(parent):
            return
        parent = os.path.dirname(parent)


_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _in_child(parent_pid, user, stop_signal):
    """Between fork and exec: a session of its own, the server's user, and the signal the kernel
    sends when the process that started it dies (set after the user: a change of user clears it)."""

    def preexec():
        os.setsid()
        if user is not None:
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
        _libc.prctl(_PR_SET_PDEATHSIG, int(stop_signal), 0, 0, 0)
        if os.getppid() != parent_pid:  # the parent died before the signal was set
            os._exit(1)

    return preexec


class Server(object):
    """One server process: ``argv`` run in ``directory`` as ``user``, its output in ``log``."""

    def __init__(self, name, argv, directory, port, stop_signal=signal.SIGTERM, user=None, env=None):
        self.name, self.argv, self.directory, self.port = name, list(argv), directory, port
        self.stop_signal, self.user, self.env = stop_signal, user, env
        self.log = os.path.join(directory, "server.log")
        self.process = None

    @property
    def pid(self):
        return self.process.pid if self.process else None

    def start(self, ready, timeout=START_TIMEOUT):
        """Start it and wait until ``ready()``; a server that exits or is not ready in ``timeout``
        seconds is stopped, and the error quotes its log."""
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.argv,
                cwd=self.directory,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env,
                close_fds=True,
                preexec_fn=_in_child(os.getpid(), self.user, self.stop_signal),
            )
        _RUNNING[self.process.pid] = self
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                self.stop()
                raise ServerError(
                    "%s exited (code %s) before it was ready: %s"
                    % (self.name, self.process.returncode, self.log_tail())
                )
            try:
                if ready():
                    return self
            except Exception:  # not listening yet
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise ServerError("%s was not ready within %d s: %s" % (self.name, timeout, self.log_tail()))
            time.sleep(0.05)

    def stop(self, timeout=STOP_TIMEOUT):
        """Stop it by its PID: the stop signal, then SIGKILL after ``timeout`` seconds. Returns the
        exit code."""
        process = self.process
        if process is None:
            return None
        try:
            if process.poll() is None:
                process.send_signal(self.stop_signal)
                try:
                    process.wait(timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        finally:
            _RUNNING.pop(process.pid, None)
        return process.returncode

    def log_tail(self, lines=20):
        try:
            with open(self.log, errors="replace") as f:
                return "".join(f.readlines()[-lines:]).strip() or "(its log is empty)"
        except OSError:
            return "(no log)"

    def __repr__(self):
        return "<%s pid=%s port=%s>" % (self.name, self.pid, self.port)


@atexit.register
def stop_all():
    """Every server this process started and has not stopped."""
    for server in list(_RUNNING.values()):
        server.stop()


def running():
    """This process's servers not yet stopped."""
    return list(_RUNNING.values())


def _template_root():
    return os.path.join(os.environ.get("DSIB_CACHE_DIR") or tempfile.gettempdir(), "dsib-servers-%d" % os.geteuid())


# The majors of the servers that the machine supplies (Debian's PostgreSQL, the JDK on PATH),
# which the engines' series are measured on. Named here, where the series lock (dsib_tools.lock)
# sees them; an engine case on a machine with another major skips, saying so. Measuring another
# is a decision: change the constant, then record each engine series as new or continuing.
POSTGRES_MAJOR = 15
JAVA_MAJOR = 17


def not_the_series_major(server, major, constant):
    """Why ``server`` at this machine's ``major`` is not measured here (it is not the series'
    major, ``constant`` in this module), or None."""
    expected = globals()[constant]
    if major == expected:
        return None
    if major is None:
        return "this machine's %s names no major version, and the engines' series are of %s %d (dsib.servers.%s)" % (
            server,
            server,
            expected,
            constant,
        )
    return (
        "this machine's %s is %d, and the engines' series are of %s %d (dsib.servers.%s): to measure it, "
        "set %s = %d and record each engine series as new or continuing (python -m dsib_tools lock)"
        % (server, major, server, expected, constant, constant, major)
    )


# PostgreSQL ------------------------------------------------------------------------------------


def postgres_bindir():
    """The directory of PostgreSQL's server binaries (``$DSIB_POSTGRES_BIN``, ``pg_config
    --bindir``, Debian's /usr/lib/postgresql/N/bin, ``POSTGRES_MAJOR`` first, then the newest),
    or None."""
    candidates = [os.environ.get("DSIB_POSTGRES_BIN")]
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            candidates.append(subprocess.check_output([pg_config, "--bindir"], universal_newlines=True).strip())
        except (OSError, subprocess.CalledProcessError):
            pass
    debian = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += sorted(
        debian,
        key=lambda p: (
            p.split("/")[-2] == str(POSTGRES_MAJOR),
            int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0,
        ),
        reverse=True,
    )
    for bindir in candidates:
        if bindir and all(os.access(os.path.join(bindir, b), os.X_OK) for b in ("postgres", "initdb", "pg_isready")):
            return bindir
    return None


def postgres_unavailable():
    """Why no PostgreSQL server can be started here, or None."""
    bindir = postgres_bindir()
    if bindir is None:
        return (
            "the PostgreSQL server is not installed (no postgres, initdb and pg_isready found; "
            "`make servers` installs it, or set DSIB_POSTGRES_BIN)"
        )
    return not_the_series_major("PostgreSQL", postgres_major(bindir), "POSTGRES_MAJOR")


def postgres_major(bindir=None):
    """``postgres --version``'s major: "postgres (PostgreSQL) 15.18 (Debian ...)" is 15."""
    import re

    found = re.search(r"\) (\d+)", postgres_version(bindir))
    return int(found.group(1)) if found else None


def postgres_version(bindir=None):
    bindir = bindir or postgres_bindir()
    return subprocess.check_output([os.path.join(bindir, "postgres"), "--version"], universal_newlines=True).strip()


POSTGRES_USER = "dsib"
POSTGRES_DATABASE = "postgres"


def _postgres_template(bindir, user):
    """An empty cluster made by ``initdb`` once per server version and user, and copied for
    every new one (copying takes a tenth of initdb's time)."""
    import fcntl
    import hashlib

    key = hashlib.sha256((postgres_version(bindir) + repr(user and user.pw_uid)).encode("utf-8")).hexdigest()[:16]
    root = _template_root()
    template = os.path.join(root, "postgres-" + key)
    if os.path.isfile(os.path.join(template, "PG_VERSION")):
        return template
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isfile(os.path.join(template, "PG_VERSION")):
            return template
        work = tempfile.mkdtemp(prefix="initdb-", dir=root)
        try:
            give_to(work, user)
            check_reachable(work, user)
            pgdata = os.path.join(work, "pgdata")
            # The owner's own umask: a cluster's directory must be 0700 or 0750.
            result = subprocess.run(
                [
                    os.path.join(bindir, "initdb"),
                    "-D",
                    pgdata,
                    "-U",
                    POSTGRES_USER,
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                universal_newlines=True,
                preexec_fn=_in_child(os.getpid(), user, signal.SIGKILL),
            )
            if result.returncode:
                raise ServerError("initdb failed: %s" % result.stdout[-2000:])
            shutil.rmtree(template, ignore_errors=True)
            os.rename(pgdata, template)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return template


class PostgresAddress(object):
    """What a client needs of a PostgreSQL server on 127.0.0.1: ``port`` and ``bindir``."""

    def url_of(self, schema=None):
        """The URL of the server's database; with ``schema``, of a session whose tables are that
        schema's (its ``search_path``)."""
        url = "postgresql://%s@%s:%d/%s" % (POSTGRES_USER, LOOPBACK, self.port, POSTGRES_DATABASE)
        return url + ("?options=-csearch_path%%3D%s" % schema if schema else "")

    @property
    def url(self):
        return self.url_of()

    def is_ready(self):
        return (
            subprocess.call(
                [
                    os.path.join(self.bindir, "pg_isready"),
                    "-q",
                    "-h",
                    LOOPBACK,
                    "-p",
                    str(self.port),
                    "-U",
                    POSTGRES_USER,
                    "-d",
                    POSTGRES_DATABASE,
                    "-t",
                    "1",
                ]
            )
            == 0
        )

    def create_schema(self, name):
        # A schema, not a database: CREATE DATABASE copies a template through the WAL (PostgreSQL
        # 15), megabytes a session, whose checkpoint could land in a later case's timing.
        subprocess.check_call(
            [
                os.path.join(self.bindir, "psql"),
                "-q",
                "-h",
                LOOPBACK,
                "-p",
                str(self.port),
                "-U",
                POSTGRES_USER,
                "-d",
                POSTGRES_DATABASE,
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                'CREATE SCHEMA "%s"' % name,
            ],
            stdout=subprocess.DEVNULL,
        )


class Postgres(PostgresAddress, Server):
    """A PostgreSQL cluster in ``directory/pgdata`` (made from the template where there is none),
    on a free port of 127.0.0.1, no Unix socket, its clock in UTC."""

    def __init__(self, directory):
        bindir = postgres_bindir()
        if bindir is None:
            raise NotImplementedError(postgres_unavailable())
        user = server_user()
        check_reachable(directory, user)
        pgdata = os.path.join(directory, "pgdata")
        if not os.path.isdir(pgdata):
            shutil.copytree(_postgres_template(bindir, user), pgdata)
            os.chmod(pgdata, 0o700)
        give_to(directory, user)
        self.bindir = bindir
        port = free_port()
        # SIGINT is PostgreSQL's fast shutdown: sessions end, a checkpoint, exit.
        super(Postgres, self).__init__(
            "PostgreSQL",
            [
                os.path.join(bindir, "postgres"),
                "-D",
                pgdata,
                "-p",
                str(port),
                "-c",
                "listen_addresses=" + LOOPBACK,
                "-c",
                "unix_socket_directories=",
                "-c",
                "timezone=UTC",
                "-c",
                "log_timezone=UTC",
            ],
            directory,
            port,
            stop_signal=signal.SIGINT,
            user=user,
        )

    def start(self, timeout=START_TIMEOUT):
        return super(Postgres, self).start(self.is_ready, timeout)


def postgres(directory):
    """A running PostgreSQL cluster kept in ``directory``."""
    return Postgres(directory).start()


class Kind(namedtuple("Kind", ["name", "unavailable", "identity"])):
    """A kind of server, as an engine declares it needs one: ``unavailable()``, why it cannot be
    started on this machine (None: it can); ``identity()``, what its stored files depend on
    (its version), part of the key a cell's database is kept under."""


POSTGRES = Kind("PostgreSQL", postgres_unavailable, lambda: _held_identity("postgres", postgres_version()))


# QuestDB ---------------------------------------------------------------------------------------

# The server is one jar from Maven Central, pinned with its checksum there (`make servers` fetches it).
QUESTDB_VERSION = "9.3.4"
QUESTDB_SHA1 = "4576dfb8e7f62a01a8e816d3bdf02ea4d39e3e7a"
QUESTDB_URL = "https://repo1.maven.org/maven2/org/questdb/questdb/{v}/questdb-{v}.jar".format(v=QUESTDB_VERSION)
JAVA_MINIMUM = 17  # the jar's classes are Java 17's (class file version 61)


def downloads_dir():
    """Where ``make servers`` keeps what it fetches: ``$DSIB_SERVERS_DIR``, else the user's cache."""
    return os.environ.get("DSIB_SERVERS_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "dsib"
    )


def questdb_jar():
    return os.environ.get("DSIB_QUESTDB_JAR") or os.path.join(downloads_dir(), "questdb-%s.jar" % QUESTDB_VERSION)


def sha1_of(path):
    import hashlib

    digest = hashlib.sha1()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def java_version():
    """The major version of the ``java`` on PATH, or None."""
    import re

    java = shutil.which("java")
    if java is None:
        return None
    try:
        out = subprocess.run(
            [java, "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not found:
        return None
    major = int(found.group(1))
    return int(found.group(2)) if major == 1 else major  # "1.8.0" is Java 8


_verified_jars = {}


def java_unavailable(needed_by):
    """Why ``needed_by`` cannot run on this machine's Java, or None."""
    java = java_version()
    if java is None or java < JAVA_MINIMUM:
        return "%s needs Java %d or later, and this machine has %s (`make servers` installs it)" % (
            needed_by,
            JAVA_MINIMUM,
            "Java %d" % java if java else "none",
        )
    return not_the_series_major("Java", java, "JAVA_MAJOR")


def questdb_unavailable():
    """Why no QuestDB server can be started here, or None."""
    reason = java_unavailable("QuestDB %s" % QUESTDB_VERSION)
    if reason:
        return reason
    jar = questdb_jar()
    if not os.path.isfile(jar):
        return "the QuestDB %s jar is not at %s (`make servers` fetches it from Maven Central)" % (QUESTDB_VERSION, jar)
    stamp = (jar, os.path.getsize(jar), os.path.getmtime(jar))
    if stamp not in _verified_jars:
        _verified_jars[stamp] = sha1_of(jar)
    if _verified_jars[stamp] != QUESTDB_SHA1 and not os.environ.get("DSIB_QUESTDB_JAR"):
        return "%s is not QuestDB %s's jar (sha1 %s, Maven Central's is %s): remove it and run `make servers`" % (
            jar,
            QUESTDB_VERSION,
            _verified_jars[stamp],
            QUESTDB_SHA1,
        )
    return None


def questdb_version():
    return "QuestDB %s, Java %s" % (QUESTDB_VERSION, java_version())


class QuestDBAddress(object):
    """What a client needs of a QuestDB server on 127.0.0.1: ``http_port`` (ILP/HTTP, SQL) and
    ``ilp_port`` (ILP/TCP)."""

    def exec_url(self, endpoint="exec"):
        return "http://%s:%d/%s" % (LOOPBACK, self.http_port, endpoint)

    def sql(self, query, endpoint="exec", timeout=60):
        """The body of ``endpoint`` (exec: JSON; exp: CSV) for ``query``."""
        from urllib.parse import urlencode
        from urllib.request import urlopen

        with urlopen("%s?%s" % (self.exec_url(endpoint), urlencode({"query": query})), timeout=timeout) as r:
            return r.read()

    def is_ready(self):
        return port_open(self.ilp_port) and b'"dataset"' in self.sql("SELECT 1", timeout=5)


class QuestDB(QuestDBAddress, Server):
    """A QuestDB server with its root in ``directory/questdb``: its HTTP endpoint (ILP/HTTP, SQL),
    PostgreSQL wire and ILP/TCP on free ports of 127.0.0.1; no UDP, no telemetry, no health port."""

    def __init__(self, directory):
        reason = questdb_unavailable()
        if reason:
            raise NotImplementedError(reason)
        root = os.path.join(directory, "questdb")
        os.makedirs(os.path.join(root, "conf"), exist_ok=True)
        self.http_port, self.pg_port, self.ilp_port = free_port(), free_port(), free_port()
        with open(os.path.join(root, "conf", "server.conf"), "w") as f:
            f.write(
                "\n".join(
                    [
                        "http.net.bind.to=%s:%d" % (LOOPBACK, self.http_port),
                        "pg.net.bind.to=%s:%d" % (LOOPBACK, self.pg_port),
                        "line.tcp.net.bind.to=%s:%d" % (LOOPBACK, self.ilp_port),
                        "http.min.enabled=false",
                        "line.udp.enabled=false",
                        "telemetry.enabled=false",
                    ]
                )
                + "\n"
            )
        java = shutil.which("java")
        # SIGTERM: the JVM's shutdown hooks close QuestDB (exit code 143).
        super(QuestDB, self).__init__(
            "QuestDB",
            [java, "-p", questdb_jar(), "-m", "io.questdb/io.questdb.ServerMain", "-d", root],
            directory,
            self.http_port,
            stop_signal=signal.SIGTERM,
        )

    def start(self, timeout=START_TIMEOUT):
        return super(QuestDB, self).start(self.is_ready, timeout)


def questdb(directory):
    """A running QuestDB server with its root in ``directory``."""
    return QuestDB(directory).start()


QUESTDB = Kind("QuestDB", questdb_unavailable, lambda: _held_identity("questdb", questdb_version()))


# Servers held for a run --------------------------------------------------------------------------

HELD_ENV = "DSIB_SERVERS"
SESSION_FILE = "held.json"  # in a session's directory: its schema or prefix on the held server


def held_servers():
    """The servers held for this run, as ``hold`` told it in ``$DSIB_SERVERS``: {"run": its id,
    kind: what a client needs of it}; {} where no server is held."""
    text = os.environ.get(HELD_ENV)
    return json.loads(text) if text else {}


class HeldPostgres(PostgresAddress):
    def __init__(self, described):
        self.pid, self.port, self.bindir = described["pid"], described["port"], described["bindir"]


class HeldQuestDB(QuestDBAddress):
    def __init__(self, described):
        self.pid, self.http_port, self.ilp_port = described["pid"], described["http_port"], described["ilp_port"]


_HELD = {"postgres": HeldPostgres, "questdb": HeldQuestDB}


def held(kind):
    """The server of ``kind`` ("postgres", "questdb") held for this run, or None."""
    described = held_servers().get(kind)
    return _HELD[kind](described) if described else None


def not_held(kind):
    """Why a case cannot time the engines of ``kind``'s server in this process: none is held for
    the run (None where one is)."""
    if held(kind) is not None:
        return None
    label = {"postgres": "PostgreSQL", "questdb": "QuestDB"}[kind]
    why = held_servers().get("missing", {}).get(kind)
    if why:
        return "the run could not hold a %s server: %s" % (label, why)
    return (
        "no %s server is held for this run: its cases time a server that runs for the whole run, "
        "which `make run` starts (python -m dsib_tools hold-servers -- python -m asv run ...)" % label
    )


def _held_identity(kind, version):
    """A kind's identity: its version, and the run that holds the server where one is held (a cell
    loaded into a held server lives as long as its run)."""
    found = held_servers()
    return "%s, held by run %s" % (version, found["run"]) if kind in found else version


def session_name(directory, kind, make):
    """The name of ``directory``'s own schema (PostgreSQL) or table prefix (QuestDB) on the held
    server of ``kind``: the one its ``held.json`` names, or a new one, made by ``make(name)``."""
    import uuid

    run = held_servers()["run"]
    path = os.path.join(directory, SESSION_FILE)
    if os.path.exists(path):
        with open(path) as f:
            found = json.load(f)
        if found["run"] != run or found["kind"] != kind:
            raise ServerError(
                "%s names a %s of run %s, not of this run (%s): its server is gone"
                % (path, found["kind"], found["run"], run)
            )
        return found["name"]
    name = "d" + uuid.uuid4().hex[:20]
    make(name)
    with open(path + ".partial", "w") as f:
        json.dump({"run": run, "kind": kind, "name": name}, f)
    os.rename(path + ".partial", path)
    return name


def hold(directory):
    """One PostgreSQL and one QuestDB started in ``directory`` (each where it can be had here), and
    what ``$DSIB_SERVERS`` tells a run of them. Returns (servers started, the variable's value,
    {kind: why it could not be started}, which the variable holds too: its cases skip saying so)."""
    import uuid

    started, missing = [], {}
    described = {"run": uuid.uuid4().hex[:12], "missing": missing}
    try:
        for kind, unavailable, make in (
            ("postgres", postgres_unavailable, Postgres),
            ("questdb", questdb_unavailable, QuestDB),
        ):
            reason = unavailable()
            if reason:
                missing[kind] = reason
                continue
            where = os.path.join(directory, kind)
            os.makedirs(where)
            os.chmod(where, 0o711)  # enterable by PostgreSQL's own user where this is root
            try:
                server = make(where).start()
            except ServerError as exc:  # its cases skip, saying why; the other server's run
                missing[kind] = str(exc)
                continue
            started.append(server)
            if kind == "postgres":
                described[kind] = {
                    "pid": server.pid,
                    "port": server.port,
                    "bindir": server.bindir,
                    "version": postgres_version(server.bindir),
                }
            else:
                described[kind] = {
                    "pid": server.pid,
                    "http_port": server.http_port,
                    "ilp_port": server.ilp_port,
                    "pg_port": server.pg_port,
                    "version": questdb_version(),
                }
    except BaseException:
        for server in started:
            server.stop()
        raise
    return started, json.dumps(described, sort_keys=True), missing
