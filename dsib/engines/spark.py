"""Spark, as SPARK-23030 measured it: a frame into Spark (``spark.createDataFrame``, materialised
by a write to Spark's no-op sink) and a cached Spark DataFrame back into pandas (``toPandas``),
with Arrow off and on (``spark.sql.execution.arrow.pyspark.enabled``).

A session is a local Spark (``local[2]``) of its own: its JVM is a child of the case's process,
every port on 127.0.0.1 (no web UI), its clock in UTC. Its start (seconds) and the first job are
never timed: the case's session is warmed up before its samples. Arrow's silent fallback to the
row path is off: a frame Arrow cannot take fails the case instead of timing the other path under
this one's name. A table is kept for a later session as Spark's Parquet files (``keep``), read
back, cached and counted (``_read_kept``), so that ``toPandas`` alone is timed. ``keep`` reads the
table back the same way at once: the query that the cell's check makes is ``toPandas`` of the
same cached Parquet scan that a query case times, not of the in-session ``createDataFrame``.

One JVM per session, so one per case's process, not one per run: a JVM keeps the heap it has
grown and the code it has compiled, so a JVM shared by a run would give each case a peak memory
and a warmth that depend on the cases before it. Its peak RSS during a query is counted beside
the case's own (``process``: the JVM's PID, ``dsib.procmem``). The driver's peak memory of
``createDataFrame`` is not measured (``unmeasured``): SPARK-23030's memory figure is ``toPandas``'s.

The JVM ends when its stdin closes (PySpark's gateway watches it): ``close`` stops the session,
closes that pipe and waits for the JVM by its PID, SIGKILL after ``servers.STOP_TIMEOUT``; when
the case's process dies, the pipe closes with it.
"""

import os
import shutil
import subprocess
import time

from .. import servers
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
CONF = {
    "spark.ui.enabled": "false",
    "spark.driver.bindAddress": servers.LOOPBACK,
    "spark.driver.host": servers.LOOPBACK,
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


def spark_unavailable():
    return servers.java_unavailable("Spark")


def spark_identity():
    return "Java %s" % servers.java_version()


SPARK = servers.Kind("Spark", spark_unavailable, spark_identity)


class Session(object):
    """A local Spark with Arrow ``arrow``; the tables kept in ``directory`` loaded, cached and counted."""

    def __init__(self, directory, arrow):
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        # The process's zone is the one Spark's row path converts naive timestamps in.
        os.environ["TZ"] = "UTC"
        time.tzset()
        os.environ["SPARK_LOCAL_IP"] = servers.LOOPBACK
        builder = SparkSession.builder.master("local[2]").appName("dsib")
        for key, value in dict(CONF, **{"spark.sql.execution.arrow.pyspark.enabled": str(arrow).lower()}).items():
            builder = builder.config(key, value)
        self.spark = builder.getOrCreate()
        self.spark.sparkContext.setLogLevel("ERROR")
        self.jvm = SparkContext._gateway.proc  # the java process (the launch scripts exec it)
        self.directory = directory
        self.tables = {}
        try:
            for name in sorted(os.listdir(directory)):
                if os.path.isfile(os.path.join(directory, name, "_SUCCESS")):
                    self.tables[name] = _read_kept(self.spark, os.path.join(directory, name))
        except BaseException:
            _close(self)
            raise


def _read_kept(spark, path):
    """A kept table as every query finds it: its Parquet files read, cached and counted, so that
    the read and the cache are never in a query's time."""
    frame = spark.read.parquet(path).cache()
    frame.count()
    return frame


def _connect(arrow):
    return lambda directory: Session(directory, arrow)


def _close(session):
    """Stop the session, then its JVM by its PID, and forget the gateway, so that the next session
    of this process starts a JVM of its own."""
    from pyspark import SparkContext

    try:
        session.spark.stop()
    finally:
        jvm = session.jvm
        try:
            SparkContext._gateway.shutdown()
        except Exception:  # the JVM may be gone already
            pass
        if jvm.stdin:
            jvm.stdin.close()
        try:
            jvm.wait(servers.STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            jvm.kill()
            jvm.wait()
        SparkContext._gateway = SparkContext._jvm = None


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


def _process(session):
    return session.jvm.pid


def _query(session, table, datetimes=(), categoricals=(), texts=()):
    return _io.categorize(session.tables[table].toPandas(), categoricals)


def _drop(session, table):
    data = session.tables.pop(table, None)
    if data is not None:
        data.unpersist()
    shutil.rmtree(os.path.join(session.directory, table), ignore_errors=True)


UNMEASURED = {
    "peakmem_ingest": "createDataFrame's peak memory in the driver is not measured: SPARK-23030's memory figure is "
    "toPandas's (the query's), which is measured with the JVM's beside it",
}
_common = dict(
    needs=(PANDAS, PYARROW, PYSPARK),
    server=SPARK,
    sources=SOURCES,
    losses=LOSSES,
    keep=_keep,
    process=_process,
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
