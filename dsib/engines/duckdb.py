"""DuckDB: a frame registered and copied into a table, read back with ``.df()``; the same through
Arrow (an Arrow table in, an Arrow table out); through ADBC (the driver duckdb ships,
``adbc_driver_duckdb``); and DuckDB writing and reading Parquet files itself."""

import os

from ..formats import _io
from ..registry import Loss, Needs
from . import _adbc
from ._engine import Engine, dbapi_close, dbapi_drop

PANDAS = Needs("pandas")
DUCKDB = Needs("duckdb", "0.9", why="duckdb {have} predates the relational API the suite calls (con.sql: 0.9 has it)")
PYARROW = Needs("pyarrow")
INPUT = "dsib_input"
# DuckDB's timestamps are microseconds: nanoseconds come back at microseconds, every instant the same.
LOSSES = (Loss("datetime_unit"),)


class Session(object):
    """A DuckDB database file and its directory (where the Parquet path keeps its files)."""

    def __init__(self, directory):
        import duckdb

        self.directory = directory
        self.connection = duckdb.connect(os.path.join(directory, "dsib.duckdb"))
        # Zoned timestamps come back in the session's zone, by default the machine's (Etc/UTC
        # here): the data's zone is UTC.
        self.connection.execute("SET TimeZone = 'UTC'")

    def parquet(self, table):
        return os.path.join(self.directory, table + ".parquet")


def _close(session):
    session.connection.close()


def _drop(session, table):
    session.connection.execute('DROP TABLE IF EXISTS "%s"' % table)
    if os.path.exists(session.parquet(table)):
        os.remove(session.parquet(table))


def _copy_in(session, source, table, statement='CREATE TABLE "{table}" AS SELECT * FROM {input}'):
    """``source`` (a frame or an Arrow table) registered as a view and copied by ``statement``."""
    session.connection.register(INPUT, source)
    try:
        session.connection.execute(
            statement.format(table=table, input=INPUT, path=session.parquet(table).replace("'", "''"))
        )
    finally:
        session.connection.unregister(INPUT)


def _ingest(session, frame, table):
    _copy_in(session, frame, table)


def _categorize(frame, categoricals):
    """DuckDB reads a registered categorical in as an ENUM and gives an ENUM back as an ordered
    categorical: unordered again, as the frame was, and as a user asking for categoricals wants."""
    frame = _io.categorize(frame, categoricals)
    for name in categoricals:
        if frame[name].cat.ordered:
            frame[name] = frame[name].cat.as_unordered()
    return frame


def _query(session, table, datetimes=(), categoricals=(), texts=()):
    frame = session.connection.sql('SELECT * FROM "%s"' % table).df()
    return _categorize(frame, categoricals)


def _arrow_ingest(session, frame, table):
    _copy_in(session, _io.arrow_table(frame), table)


def _arrow_query(session, table, datetimes=(), categoricals=(), texts=()):
    result = session.connection.sql('SELECT * FROM "%s"' % table)
    # duckdb 1.4 named it arrow(); 2.0 to_arrow_table().
    table = (getattr(result, "to_arrow_table", None) or result.arrow)()
    return _categorize(_io.arrow_to_pandas(table, categoricals), categoricals)


def _parquet_ingest(session, frame, table):
    _copy_in(session, frame, table, "COPY (SELECT * FROM {input}) TO '{path}' (FORMAT parquet)")


def _parquet_query(session, table, datetimes=(), categoricals=(), texts=()):
    path = session.parquet(table).replace("'", "''")
    frame = session.connection.sql("SELECT * FROM read_parquet('%s')" % path).df()
    return _categorize(frame, categoricals)


def _adbc_connect(directory):
    import adbc_driver_duckdb.dbapi

    connection = adbc_driver_duckdb.dbapi.connect(os.path.join(directory, "dsib.duckdb"))
    cursor = connection.cursor()
    cursor.execute("SET TimeZone = 'UTC'")  # as the native session (Session) does
    cursor.close()
    return connection


def _adbc_query(connection, table, datetimes=(), categoricals=(), texts=()):
    return _categorize(_adbc.query(connection, table, datetimes, categoricals, texts), categoricals)


ENGINES = [
    Engine(
        "duckdb",
        "DuckDB",
        "duckdb",
        Session,
        _ingest,
        _query,
        _drop,
        _close,
        needs=(PANDAS, DUCKDB),
        losses=LOSSES,
        description="register the frame, CREATE TABLE AS SELECT; SELECT * ... .df()",
    ),
    Engine(
        "duckdb-arrow",
        "DuckDB (Arrow)",
        "duckdb",
        Session,
        _arrow_ingest,
        _arrow_query,
        _drop,
        _close,
        # Through Arrow, an ENUM's dictionary comes back with its values in another order.
        needs=(PANDAS, PYARROW, DUCKDB),
        losses=LOSSES + (Loss("category_order"),),
        description="register pa.Table.from_pandas(frame), CREATE TABLE AS SELECT; to_arrow_table().to_pandas()",
    ),
    Engine(
        "duckdb-adbc",
        "DuckDB (ADBC)",
        "duckdb",
        _adbc_connect,
        _adbc.ingest,
        _adbc_query,
        dbapi_drop,
        dbapi_close,
        needs=(
            PANDAS,
            PYARROW,
            Needs("duckdb", "0.9", modules=("adbc_driver_duckdb.dbapi",)),
            Needs("adbc_driver_manager"),
        ),
        losses=LOSSES,
        description="adbc_driver_duckdb (shipped with duckdb): cursor.adbc_ingest of an Arrow table, "
        "fetch_arrow_table().to_pandas()",
    ),
    Engine(
        "duckdb-parquet",
        "DuckDB (its Parquet files)",
        "duckdb",
        Session,
        _parquet_ingest,
        _parquet_query,
        _drop,
        _close,
        needs=(PANDAS, DUCKDB),
        losses=LOSSES,
        description="COPY (SELECT * FROM the frame) TO a Parquet file; SELECT * FROM read_parquet(...).df()",
    ),
]
