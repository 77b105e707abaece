"""SQLite: pandas through SQLAlchemy, pandas on the sqlite3 driver itself (its executemany), and
ADBC's Arrow-native driver.

SQLite has no time zone, no categorical and no timestamp type of its own: what comes back is
told apart by the reader's hints, as a user would (``parse_dates``, then ``astype``), and that
is part of each query's time.
"""

import os

from ..formats import _io
from ..registry import Loss, Needs
from . import _adbc
from ._engine import Engine, dbapi_close, dbapi_drop

PANDAS = Needs("pandas")
SQLALCHEMY = Needs("sqlalchemy", "1.4", why="pandas' SQL layer needs SQLAlchemy 1.4 or later, this is {have}")
ADBC = Needs("adbc_driver_sqlite", modules=("adbc_driver_sqlite.dbapi",))
PYARROW = Needs("pyarrow")
# SQLite has no timestamp and no boolean type: timestamps are stored as text without their zone and
# come back at microseconds (a UTC column naive), booleans as 0 and 1; every value the same.
LOSSES = (Loss("timezone"), Loss("datetime_unit"), Loss("boolean"))
# pandas 0.23's to_sql fails on a zoned column (TypeError: Cannot cast DatetimeIndex to dtype
# datetime64[us]); 0.24 writes it without its zone.
TO_SQL_ZONED = Needs("pandas", "0.24", why="pandas {have}'s to_sql cannot write a zoned timestamp column (0.24 can)")


def _path(directory):
    return os.path.join(directory, "dsib.sqlite")


# pandas through SQLAlchemy: what `to_sql` / `read_sql` documentation shows first.
def _sqlalchemy_connect(directory):
    """An engine holding one open connection: the timed calls take it from the pool, none opens
    one. SQLAlchemy 2 pools a file database's connections (QueuePool); 1.4 closed each after use
    (NullPool), so that every call opened the file again: the pool is named for both."""
    import sqlalchemy
    from sqlalchemy.pool import QueuePool

    engine = sqlalchemy.create_engine("sqlite:///" + _path(directory), poolclass=QueuePool)
    engine.connect().close()  # opened now, in setup, and kept by the pool
    return engine


def _sqlalchemy_drop(engine, table):
    with engine.begin() as connection:
        connection.exec_driver_sql('DROP TABLE IF EXISTS "%s"' % table)


def _to_sql(session, frame, table):
    frame.to_sql(table, session, index=False)


def _read_sql(session, table, datetimes=(), categoricals=(), texts=()):
    import pandas as pd

    frame = pd.read_sql_query('SELECT * FROM "%s"' % table, session, parse_dates=list(datetimes) or None)
    return _io.categorize(frame, categoricals)


# pandas on the driver's own connection: pandas inserts with the driver's executemany and reads
# with its cursor, no SQLAlchemy between.
def _sqlite3_connect(directory):
    import sqlite3

    return sqlite3.connect(_path(directory))


# ADBC: the frame goes in as an Arrow table and comes out as one (dsib.engines._adbc).
def _adbc_connect(directory):
    import adbc_driver_sqlite.dbapi

    return adbc_driver_sqlite.dbapi.connect(_path(directory))


def _adbc_ingest(connection, frame, table):
    # SQLite's ADBC driver takes no dictionary columns: categoricals go in as their text.
    _adbc.ingest(connection, frame, table, dictionaries=False)


ENGINES = [
    Engine(
        "sqlite-sqlalchemy",
        "SQLite (SQLAlchemy)",
        "sqlite",
        _sqlalchemy_connect,
        _to_sql,
        _read_sql,
        _sqlalchemy_drop,
        lambda engine: engine.dispose(),
        needs=(PANDAS, SQLALCHEMY),
        losses=LOSSES,
        zoned_needs=(TO_SQL_ZONED,),
        description="DataFrame.to_sql / read_sql_query through a SQLAlchemy engine",
    ),
    Engine(
        "sqlite-sqlite3",
        "SQLite (sqlite3, executemany)",
        "sqlite",
        _sqlite3_connect,
        _to_sql,
        _read_sql,
        dbapi_drop,
        dbapi_close,
        needs=(PANDAS,),
        losses=LOSSES,
        zoned_needs=(TO_SQL_ZONED,),
        description="DataFrame.to_sql / read_sql_query on a sqlite3 connection: the driver's executemany",
    ),
    Engine(
        "sqlite-adbc",
        "SQLite (ADBC)",
        "sqlite",
        _adbc_connect,
        _adbc_ingest,
        _adbc.query,
        dbapi_drop,
        dbapi_close,
        needs=(PANDAS, PYARROW, ADBC),
        losses=LOSSES,
        description="adbc_driver_sqlite: cursor.adbc_ingest of an Arrow table, fetch_arrow_table().to_pandas()",
    ),
]
