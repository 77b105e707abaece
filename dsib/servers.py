"""The servers the engines need (``dsib.engines``): the kinds an engine declares, and the servers
held for a run. The servers themselves: ``dsib.server_process`` (a server's process, started by
the suite and stopped by its PID), ``dsib.postgres_server``, ``dsib.questdb_server`` and
``dsib.spark_server``; their names are all importable from here, where the engines and the tools
find them.

Servers held for a run: ``python -m dsib_tools servers hold -- asv run ...`` (``make run``) starts
one PostgreSQL, one QuestDB and the object store (``dsib.object_store``: s3proxy behind its counting
proxies) before asv's first case, and Spark's JVM when a Spark case first asks for it (one per
PySpark installation, ``dsib.spark_server``), and stops them by their PID when
the run ends, however it ends; it tells the run where they listen in ``$DSIB_SERVERS`` (``hold``
makes it, ``held`` reads it). An engine's session on a held server is a schema of its own (PostgreSQL) or a
table prefix of its own (QuestDB), named in its directory's ``held.json`` so that a copy of the
directory reaches the same tables.
"""

import json
import os
from collections import namedtuple

from .postgres_server import Postgres, PostgresAddress, postgres_unavailable, postgres_version
from .questdb_server import QuestDB, QuestDBAddress, java_unavailable, questdb_unavailable, questdb_version
from . import environment, object_store
from .object_store import object_store_unavailable
from .spark_server import HeldSpark, ask_held
from .server_process import ServerError


class Kind(namedtuple("Kind", ["name", "unavailable", "identity"])):
    """A kind of server, as an engine declares it needs one: ``unavailable()``, why it cannot be
    started on this machine (None: it can); ``identity()``, what its stored files depend on
    (its version), part of the key a cell's database is kept under."""


POSTGRES = Kind("PostgreSQL", postgres_unavailable, lambda: _held_identity("postgres", postgres_version()))

QUESTDB = Kind("QuestDB", questdb_unavailable, lambda: _held_identity("questdb", questdb_version()))

# Servers held for a run --------------------------------------------------------------------------

SESSION_FILE = "held.json"  # in a session's directory: its schema or prefix on the held server


def held_servers():
    """The servers held for this run, as ``hold`` told it in ``$DSIB_SERVERS``: {"run": its id,
    kind: what a client needs of it}; {} where no server is held."""
    text = environment.held_servers()
    return json.loads(text) if text else {}


class HeldPostgres(PostgresAddress):
    def __init__(self, described):
        self.pid, self.port, self.bindir = described["pid"], described["port"], described["bindir"]


class HeldQuestDB(QuestDBAddress):
    def __init__(self, described):
        self.pid, self.http_port, self.ilp_port = described["pid"], described["http_port"], described["ilp_port"]


class HeldSparkRequests(object):
    """Where a Spark case asks the run's holder for its JVM (``dsib.spark_server.ask_held``)."""

    def __init__(self, described):
        self.requests = described["requests"]

    def gateway(self, spark_home):
        return ask_held(self.requests, spark_home)


_HELD = {
    "postgres": HeldPostgres,
    "questdb": HeldQuestDB,
    "spark": HeldSparkRequests,
    "s3": object_store.ObjectStoreAddress,
}
LABELS = {"postgres": "PostgreSQL", "questdb": "QuestDB", "spark": "Spark", "s3": "object store"}


def held(kind):
    """The server of ``kind`` ("postgres", "questdb", "spark", "s3") held for this run, or None."""
    described = held_servers().get(kind)
    return _HELD[kind](described) if described else None


def not_held(kind):
    """Why a case cannot time the engines of ``kind``'s server in this process: none is held for
    the run (None where one is)."""
    if held(kind) is not None:
        return None
    label = LABELS[kind]
    why = held_servers().get("missing", {}).get(kind)
    if why:
        return "the run could not hold a %s server: %s" % (label, why)
    return (
        "no %s server is held for this run: its cases time a server that runs for the whole run, "
        "which `make run` starts (python -m dsib_tools servers hold -- python -m asv run ...)" % label
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


def _postgres(where):
    server = Postgres(where).start()
    return [server], {
        "pid": server.pid,
        "port": server.port,
        "bindir": server.bindir,
        "version": postgres_version(server.bindir),
    }


def _questdb(where):
    server = QuestDB(where).start()
    return [server], {
        "pid": server.pid,
        "http_port": server.http_port,
        "ilp_port": server.ilp_port,
        "pg_port": server.pg_port,
        "version": questdb_version(),
    }


def _spark(where):
    server = HeldSpark(where).start()
    return [server], server.describe()


# What a run holds, in the order they start: (kind, why it cannot be had here, its start in a
# directory -> (its processes, in the order to stop them, what a client needs of it)).
HELD_KINDS = (
    ("postgres", postgres_unavailable, _postgres),
    ("questdb", questdb_unavailable, _questdb),
    ("spark", lambda: java_unavailable("Spark"), _spark),
    ("s3", object_store_unavailable, object_store.start),
)


# Why a kind of ``HELD_KINDS`` the run was not asked to hold is missing (``hold``'s ``kinds``).
NOT_ASKED = "no case this run selects works in it"


def hold(directory, kinds=None):
    """The servers of ``HELD_KINDS`` started in ``directory`` (each where it can be had here:
    PostgreSQL, QuestDB, the holder of Spark's JVMs, started as cases ask, and the object store
    with its counting proxies), and what ``$DSIB_SERVERS`` tells a run of them; ``kinds``: those to
    hold (None: every kind), the others missing for ``NOT_ASKED``. Returns (servers started, in
    the order to stop them, the variable's value, {kind: why it could not be started}, which the
    variable holds too: its cases skip saying so)."""
    import uuid

    started, missing = [], {}
    described = {"run": uuid.uuid4().hex[:12], "missing": missing}
    try:
        for kind, unavailable, start in HELD_KINDS:
            reason = NOT_ASKED if kinds is not None and kind not in kinds else unavailable()
            if reason:
                missing[kind] = reason
                continue
            where = os.path.join(directory, kind)
            os.makedirs(where)
            os.chmod(where, 0o711)  # enterable (not listable) by PostgreSQL's own user where this is root
            try:
                servers, described[kind] = start(where)
            except (ServerError, OSError) as exc:  # its cases skip, saying why; the others run
                missing[kind] = str(exc)
                continue
            started.extend(servers)
    except BaseException:
        for server in started:
            server.stop()
        raise
    return started, json.dumps(described, sort_keys=True), missing
