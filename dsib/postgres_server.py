"""PostgreSQL's server: its binaries (the machine's, of the series' major), an empty cluster made
once and copied, and the flags it runs with (``dsib.server_process`` starts and stops it).
"""

import glob
import os
import shutil
import signal
import subprocess
import tempfile

from . import environment
from .server_process import (
    LOOPBACK,
    START_TIMEOUT,
    Server,
    ServerError,
    _in_child,
    check_reachable,
    free_port,
    give_to,
    not_the_series_major,
    server_user,
)

# The major of the PostgreSQL that the machine supplies (Debian's), which the engines' series are
# measured on. Named here, where the series lock (dsib_tools.lock) sees it; an engine case on a
# machine with another major skips, saying so. Measuring another is a decision: change the
# constant, then record each engine series as new or continuing.
POSTGRES_MAJOR = 15


def _template_root():
    return environment.template_dir()


def postgres_bindir():
    """The directory of PostgreSQL's server binaries (``$DSIB_POSTGRES_BIN``, ``pg_config
    --bindir``, Debian's /usr/lib/postgresql/N/bin, ``POSTGRES_MAJOR`` first, then the newest),
    or None."""
    candidates = [environment.postgres_bin()]
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
    return not_the_series_major(
        "PostgreSQL", postgres_major(bindir), POSTGRES_MAJOR, "dsib.postgres_server.POSTGRES_MAJOR"
    )


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
