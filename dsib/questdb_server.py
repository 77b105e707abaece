"""QuestDB's server: the jar pinned from Maven Central, the Java it runs on (of the series' major),
its ``server.conf`` and version (``dsib.server_process`` starts and stops it).
"""

import os
import shutil
import signal
import subprocess

from . import environment
from .server_process import LOOPBACK, START_TIMEOUT, Server, free_port, not_the_series_major, port_open

# The major of the Java that the machine supplies (the JDK on PATH), which the engines' series are
# measured on. Named here, where the series lock (dsib_tools.lock) sees it; an engine case on a
# machine with another major skips, saying so. Measuring another is a decision: change the
# constant, then record each engine series as new or continuing.
JAVA_MAJOR = 17


# The server is one jar from Maven Central, pinned with its checksum there (`make servers` fetches it).
QUESTDB_VERSION = "9.3.4"
QUESTDB_SHA1 = "4576dfb8e7f62a01a8e816d3bdf02ea4d39e3e7a"
QUESTDB_URL = "https://repo1.maven.org/maven2/org/questdb/questdb/{v}/questdb-{v}.jar".format(v=QUESTDB_VERSION)
JAVA_MINIMUM = 17  # the jar's classes are Java 17's (class file version 61)


def downloads_dir():
    """Where ``make servers`` keeps what it fetches: ``$DSIB_SERVERS_DIR``, else the user's cache."""
    return environment.servers_dir()


def questdb_jar():
    return environment.questdb_jar() or os.path.join(downloads_dir(), "questdb-%s.jar" % QUESTDB_VERSION)


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
    return not_the_series_major("Java", java, JAVA_MAJOR, "dsib.questdb_server.JAVA_MAJOR")


def jar_unavailable(label, jar, sha1, overridden=False):
    """Why the server ``label`` (name and version) cannot run from ``jar`` here: no Java of the
    series' major, no jar, or a jar that is not the pinned one (unless ``overridden``: a jar the
    user named); None where it can."""
    reason = java_unavailable(label)
    if reason:
        return reason
    if not os.path.isfile(jar):
        return "the %s jar is not at %s (`make servers` fetches it from Maven Central)" % (label, jar)
    stamp = (jar, os.path.getsize(jar), os.path.getmtime(jar))
    if stamp not in _verified_jars:
        _verified_jars[stamp] = sha1_of(jar)
    if _verified_jars[stamp] != sha1 and not overridden:
        return "%s is not %s's jar (sha1 %s, Maven Central's is %s): remove it and run `make servers`" % (
            jar,
            label,
            _verified_jars[stamp],
            sha1,
        )
    return None


def questdb_unavailable():
    """Why no QuestDB server can be started here, or None."""
    return jar_unavailable(
        "QuestDB %s" % QUESTDB_VERSION, questdb_jar(), QUESTDB_SHA1, overridden=bool(environment.questdb_jar())
    )


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
