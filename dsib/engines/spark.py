"""Spark, as SPARK-23030 measured it: a frame into Spark (``spark.createDataFrame``, materialised
by a write to Spark's no-op sink) and a cached Spark DataFrame back into pandas (``toPandas``),
with Arrow off and on (``spark.sql.execution.arrow.pyspark.enabled``).

A session is a session of Spark's JVM held for the run (``dsib.spark_server``: PySpark's gateway,
``local[2]``, every port on 127.0.0.1, no web UI, its clock in UTC), reached through PySpark's
``PYSPARK_GATEWAY_PORT``: the run's first Spark case makes the JVM's SparkContext, every later
case makes a new SparkSession of it (its own SQL settings: Arrow on or off), so that a case meets
a warm JVM, as a production user's session is; the JVM's cache is emptied when a session opens.
Outside a run (the tests, the cells' checks), a session starts a local Spark of its own, its JVM a
child of the process, ended when the pipe of its stdin closes (``close`` closes it and waits for
the JVM by its PID, SIGKILL after ``servers.STOP_TIMEOUT``; a process that dies closes it too).

The session's start and first job are never timed: the case's session is warmed up before its
samples. Arrow's silent fallback to the row path is off: a frame Arrow cannot take fails the case
instead of timing the other path under this one's name. A table is kept for a later session as
Spark's Parquet files (``keep``), read back, cached and counted (``_read_kept``), so that
``toPandas`` alone is timed. ``keep`` reads the table back the same way at once: the query that
the cell's check makes is ``toPandas`` of the same cached Parquet scan that a query case times,
not of the in-session ``createDataFrame``.

What a query adds to the JVM's memory (``server_pid``: the JVM, its Python workers its children)
is counted beside the case's own. ``createDataFrame``'s memory is not measured (``unmeasured``):
SPARK-23030's memory figure is ``toPandas``'s.
"""

import os
import shutil
import subprocess
import sys
import time

from .. import questdb_server, server_process, servers, spark_server
from ..formats import _io
from ..registry import Loss, Needs
from ._engine import Engine

PANDAS = Needs("pandas")
PYSPARK = Needs("pyspark", "3.0", why="pyspark {have} has no noop sink, which materialises a DataFrame (Spark 3.0 has)")
PYARROW = Needs("pyarrow")
SOURCES = ("tsbs_cpu",)
# Spark's timestamps are microseconds in the session's zone: a zoned column comes back naive (UTC
# clock time) at microseconds, every instant the same.
LOSSES = (Loss("timezone"), Loss("datetime_unit"))


def spark_unavailable():
    return questdb_server.java_unavailable("Spark")


def spark_identity():
    return "Java %s" % questdb_server.java_version()


SPARK = servers.Kind("Spark", spark_unavailable, spark_identity)


class Session(object):
    """A Spark session with Arrow ``arrow``, the tables kept in ``directory`` loaded, cached and
    counted. Where the run holds Spark's JVM (``dsib.servers.held("spark")``), a new session of
    the held JVM's SparkContext, its cache emptied of earlier cases' tables; else a local Spark
    of its own, its JVM a child of this process (the tests', and the cells' checks outside a run).
    ``server_pid``: the JVM's PID (its Python workers are its children)."""

    def __init__(self, directory, arrow):
        # The process's zone is the one Spark's row path converts naive timestamps in.
        os.environ["TZ"] = "UTC"
        time.tzset()
        os.environ["SPARK_LOCAL_IP"] = server_process.LOOPBACK
        held = servers.held("spark")
        self.own = held is None
        self.spark, self.server_pid = _own_spark() if self.own else _held_spark(held)
        self.spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", str(arrow).lower())
        self.directory = directory
        self.tables = {}
        try:
            for name in sorted(os.listdir(directory)):
                if os.path.isfile(os.path.join(directory, name, "_SUCCESS")):
                    self.tables[name] = _read_kept(self.spark, os.path.join(directory, name))
        except BaseException:
            _close(self)
            raise


def _own_spark():
    """A local Spark of this process's own, and its JVM's PID (the launch scripts exec it)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    for key, value in spark_server.CONF.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark, SparkContext._gateway.proc.pid


def _held_spark(held):
    """A new session of the held JVM's SparkContext (made by the run's first Spark case, kept by
    the JVM for the later ones), and the JVM's PID. The JVM's cache starts empty: a case that
    was killed leaves no cached table for the next."""
    import pyspark
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    gateway = held.gateway(os.path.dirname(os.path.abspath(pyspark.__file__)))
    os.environ["PYSPARK_GATEWAY_PORT"], os.environ["PYSPARK_GATEWAY_SECRET"] = str(gateway["port"]), gateway["secret"]
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the case's own Python for the JVM's Python workers
    SparkContext._ensure_initialized()
    conf = SparkConf()
    for key, value in spark_server.CONF.items():
        conf.set(key, value)
    jvm = SparkContext._jvm
    context = SparkContext(
        conf=conf, jsc=jvm.JavaSparkContext(jvm.org.apache.spark.SparkContext.getOrCreate(conf._jconf))
    )
    context.setLogLevel("ERROR")
    spark = SparkSession(context).newSession()
    for key, value in spark_server.CONF.items():
        if key.startswith("spark.sql."):
            spark.conf.set(key, value)
    spark.catalog.clearCache()
    return spark, gateway["pid"]


def _read_kept(spark, path):
    """A kept table as every query finds it: its Parquet files read, cached and counted, so that
    the read and the cache are never in a query's time."""
    frame = spark.read.parquet(path).cache()
    frame.count()
    return frame


def _connect(arrow):
    return lambda directory: Session(directory, arrow)


def _close(session):
    """The session's tables dropped from the JVM's cache (their kept files stay); a session of a JVM
    of its own stopped, then its JVM by its PID; the gateway forgotten, so that a next session of
    this process connects anew."""
    from pyspark import SparkContext

    own_jvm = SparkContext._gateway.proc if session.own else None
    try:
        for data in session.tables.values():
            data.unpersist()
        if session.own:
            session.spark.stop()
    finally:
        try:
            if session.own:
                SparkContext._gateway.shutdown()
            else:
                SparkContext._active_spark_context._accumulatorServer.shutdown()
                SparkContext._gateway.close()
        except Exception:  # the JVM may be gone already
            pass
        if own_jvm is not None:
            _stop_own_jvm(own_jvm)
        SparkContext._gateway = SparkContext._jvm = SparkContext._active_spark_context = None


def _stop_own_jvm(jvm):
    if jvm.stdin:
        jvm.stdin.close()
    try:
        jvm.wait(server_process.STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        jvm.kill()
        jvm.wait()


def _ingest(session, frame, table):
    data = session.spark.createDataFrame(frame)
    data.write.format("noop").mode("overwrite").save()
    session.tables[table] = data


def _keep(session, table):
    """The table written as Parquet files, and from now on the table read back from them, as a
    later session finds it (``Session``)."""
    path = os.path.join(session.directory, table)
    session.tables[table].write.parquet(path)
    session.tables[table] = _read_kept(session.spark, path)


def _query(session, table, datetimes=(), categoricals=(), texts=()):
    return _io.categorize(session.tables[table].toPandas(), categoricals)


def _drop(session, table):
    data = session.tables.pop(table, None)
    if data is not None:
        data.unpersist()
    shutil.rmtree(os.path.join(session.directory, table), ignore_errors=True)


# SPARK-23030's memory figure is toPandas's (the query's), measured in the driver and the JVM.
WHY_UNMEASURED = (
    "createDataFrame's memory is not measured: SPARK-23030's memory figure is toPandas's (the query's), "
    "which is measured in the driver and in the JVM"
)
UNMEASURED = dict(
    (method, WHY_UNMEASURED) for method in ("peakmem_ingest", "track_client_added_ingest", "track_server_added_ingest")
)
_common = dict(
    needs=(PANDAS, PYARROW, PYSPARK),
    server=SPARK,
    sources=SOURCES,
    losses=LOSSES,
    keep=_keep,
    unmeasured=UNMEASURED,
)
ENGINES = [
    Engine(
        "spark",
        "Spark (Arrow off)",
        "spark",
        _connect(False),
        _ingest,
        _query,
        _drop,
        _close,
        description="spark.createDataFrame(frame), written to the noop sink; a cached DataFrame's toPandas(); "
        "Arrow off",
        **_common,
    ),
    Engine(
        "spark-arrow",
        "Spark (Arrow)",
        "spark",
        _connect(True),
        _ingest,
        _query,
        _drop,
        _close,
        description="the same with spark.sql.execution.arrow.pyspark.enabled (no fallback)",
        **_common,
    ),
]
