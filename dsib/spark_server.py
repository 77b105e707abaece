"""Spark's JVM held for a run: PySpark's gateway (``spark-submit pyspark-shell``, the JVM that a
local PySpark session starts), started by the run's holder and reached by every Spark case of the
run, as a production user's session is kept warm.

A JVM must be of the case's own PySpark (its jars and its Python side speak one version), and a
run's environments each have their own: so the holder starts one when a case first asks for it,
one per PySpark installation (``SPARK_HOME``), and keeps it until the run ends. A case asks by
writing ``<key>.request`` into the run's Spark directory (named in ``$DSIB_SERVERS``) and waits
for ``<key>.json``: the gateway's PID, port and secret, which PySpark connects to
(``PYSPARK_GATEWAY_PORT``, ``PYSPARK_GATEWAY_SECRET``). The JVM listens on 127.0.0.1 only, is the
holder's child with a parent-death signal, ends when the pipe of its stdin (the holder's) closes,
and is stopped by its PID (``dsib.server_process``).
"""

import hashlib
import json
import os
import signal
import struct
import time

from .server_process import LOOPBACK, START_TIMEOUT, Server, ServerError

# Every Spark JVM's settings: ports on 127.0.0.1 (no web UI; PySpark's default binds the machine's
# address and the UI on every interface), its clock in UTC, two local cores, no silent fallback of
# Arrow to the row path.
CONF = {
    "spark.master": "local[2]",
    "spark.app.name": "dsib",
    "spark.ui.enabled": "false",
    "spark.driver.bindAddress": LOOPBACK,
    "spark.driver.host": LOOPBACK,
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}
CONN_INFO = "conn-info"


def request_key(spark_home):
    return hashlib.sha1(os.path.realpath(spark_home).encode("utf-8")).hexdigest()[:16]


class SparkGateway(Server):
    """PySpark's gateway JVM of the PySpark at ``spark_home``, in ``directory``: ``port`` and
    ``secret`` once started."""

    def __init__(self, directory, spark_home):
        argv = [os.path.join(spark_home, "bin", "spark-submit")]
        # Its scratch space in its directory, which its command line therefore names.
        for key, value in sorted(dict(CONF, **{"spark.local.dir": os.path.join(directory, "local")}).items()):
            argv += ["--conf", "%s=%s" % (key, value)]
        self.conn_info = os.path.join(directory, CONN_INFO)
        env = dict(
            os.environ,
            SPARK_HOME=spark_home,
            SPARK_LOCAL_IP=LOOPBACK,
            SPARK_CONNECT_MODE="0",
            TZ="UTC",
            _PYSPARK_DRIVER_CONN_INFO_PATH=self.conn_info,
        )
        super(SparkGateway, self).__init__(
            "Spark", argv + ["pyspark-shell"], directory, None, signal.SIGTERM, env=env, stdin_pipe=True
        )
        self.secret = None

    def start(self, timeout=START_TIMEOUT):
        super(SparkGateway, self).start(lambda: os.path.isfile(self.conn_info), timeout)
        with open(self.conn_info, "rb") as f:  # PySpark's format: the port, the secret's length, the secret
            self.port, length = struct.unpack(">ii", f.read(8))
            self.secret = f.read(length).decode("utf-8")
        return self


class HeldSpark(object):
    """The holder's side: the Spark JVMs of a run, started in ``directory`` as cases ask (``serve``,
    called by the holder's loop) and stopped by their PID (``stop``)."""

    name = "Spark"
    pid = None

    def __init__(self, directory):
        self.directory = directory
        self.started = []

    def start(self):
        return self  # nothing until a case asks

    def describe(self):
        return {"requests": self.directory}

    def serve(self):
        """Answer every request not answered yet: a gateway started, or why it could not be."""
        for name in sorted(os.listdir(self.directory)):
            key, ext = os.path.splitext(name)
            answer = os.path.join(self.directory, key + ".json")
            if ext != ".request" or os.path.exists(answer):
                continue
            with open(os.path.join(self.directory, name)) as f:
                spark_home = json.load(f)["spark_home"]
            where = os.path.join(self.directory, key)
            os.makedirs(where, exist_ok=True)
            try:
                gateway = SparkGateway(where, spark_home).start()
                self.started.append(gateway)
                told = {"pid": gateway.pid, "port": gateway.port, "secret": gateway.secret}
            except (ServerError, OSError) as exc:
                told = {"error": str(exc)}
            _write_atomically(answer, told)

    def stop(self):
        for gateway in self.started:
            gateway.stop()

    def __str__(self):
        return "Spark's JVMs %s" % (", ".join("pid %d" % g.pid for g in self.started) or "(none asked for)")


def _write_atomically(path, value):
    with open(path + ".partial", "w") as f:
        json.dump(value, f)
    os.rename(path + ".partial", path)


def ask_held(requests, spark_home, timeout=START_TIMEOUT + 30):
    """The case's side: the held gateway of ``spark_home`` ({"pid", "port", "secret"}), asked of
    the run's holder through ``requests`` and started by it if it is not yet."""
    key = request_key(spark_home)
    answer = os.path.join(requests, key + ".json")
    if not os.path.exists(answer) and not os.path.exists(os.path.join(requests, key + ".request")):
        _write_atomically(os.path.join(requests, key + ".request"), {"spark_home": spark_home})
    deadline = time.monotonic() + timeout
    while not os.path.exists(answer):
        if time.monotonic() > deadline:
            raise ServerError("the run's holder started no Spark JVM within %d s (%s)" % (timeout, requests))
        time.sleep(0.1)
    with open(answer) as f:
        told = json.load(f)
    if "error" in told:
        raise ServerError("the run's holder could not start Spark's JVM: %s" % told["error"])
    return told
