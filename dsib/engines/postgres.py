"""PostgreSQL: pandas through SQLAlchemy (psycopg's row-wise inserts), pandas with psycopg's
``COPY`` both ways (pandas' documented ``to_sql`` insertion method, and CSV out), and ADBC's
Arrow-native driver (the binary COPY protocol).

Where a server is held for the run (``dsib.servers.held``: ``make run``), a session is a schema of
its own on it (its ``search_path``), named in the session's directory; else a cluster of its own
(``dsib.postgres_server.Postgres``), started in the directory on a free port of 127.0.0.1 when the session
opens and stopped by its PID when it closes (the tests' and the cells' checks outside a run);
starting and stopping are never timed. The server's clock is UTC: zoned timestamps come back in
UTC, as they went in.
"""

import io

from .. import postgres_server, servers
from ..formats import _io
from ..registry import Loss, Needs
from . import _adbc
from ._engine import Engine, dbapi_close, dbapi_drop

PANDAS = Needs("pandas")
# The psycopg (3) dialect arrived in SQLAlchemy 2.0.
SQLALCHEMY = Needs("sqlalchemy", "2.0", why="SQLAlchemy {have} has no dialect for psycopg 3 (2.0 has)")
PSYCOPG = Needs("psycopg")
ADBC = Needs("adbc_driver_postgresql", modules=("adbc_driver_postgresql.dbapi",))
PYARROW = Needs("pyarrow")
# PostgreSQL's timestamps are microseconds: nanoseconds come back at microseconds, every instant the
# same. A table has no row order: SELECT * returns the heap's, where a row of text that did not fit a
# page leaves room that a later, shorter row fills (seen on TSBS with text at 100,000 rows).
LOSSES = (Loss("datetime_unit"), Loss("row_order"))


class Session(object):
    """A schema of ``directory``'s own on the run's held server, or a cluster kept in
    ``directory``, running; and a connection to it made by ``connect(url)``. ``server_pid``: the
    server's process (its backends are its children)."""

    def __init__(self, directory, connect):
        held = servers.held("postgres")
        self.own = held is None
        self.server = postgres_server.postgres(directory) if self.own else held
        try:
            url = (
                self.server.url
                if self.own
                else held.url_of(servers.session_name(directory, "postgres", held.create_schema))
            )
            self.connection = connect(url)
        except BaseException:
            if self.own:
                self.server.stop()
            raise

    @property
    def server_pid(self):
        return self.server.pid

    @staticmethod
    def opener(connect):
        return lambda directory: Session(directory, connect)

    @staticmethod
    def closer(close):
        def close_session(session):
            try:
                close(session.connection)
            finally:
                if session.own:
                    session.server.stop()

        return close_session


def _sqlalchemy_engine(url):
    import sqlalchemy

    return sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def _sqlalchemy_drop(session, table):
    with session.connection.begin() as connection:
        connection.exec_driver_sql('DROP TABLE IF EXISTS "%s"' % table)


def _to_sql(session, frame, table):
    frame.to_sql(table, session.connection, index=False)


def _read_sql(session, table, datetimes=(), categoricals=(), texts=()):
    import pandas as pd

    frame = pd.read_sql_query('SELECT * FROM "%s"' % table, session.connection, parse_dates=list(datetimes) or None)
    return _io.categorize(frame, categoricals)


def _copy_rows(pandas_table, connection, keys, data_iter):
    """pandas' ``to_sql`` insertion method for PostgreSQL's COPY, as pandas documents it: the rows
    as CSV, sent with one COPY ... FROM STDIN."""
    import csv

    buffer = io.StringIO()
    csv.writer(buffer).writerows(data_iter)
    name = (
        '"%s"' % pandas_table.name
        if pandas_table.schema is None
        else '"%s"."%s"' % (pandas_table.schema, pandas_table.name)
    )
    columns = ", ".join('"%s"' % k for k in keys)
    with connection.connection.cursor() as cursor:
        with cursor.copy("COPY %s (%s) FROM STDIN WITH (FORMAT csv)" % (name, columns)) as copy:
            copy.write(buffer.getvalue())


def _copy_in(session, frame, table):
    frame.to_sql(table, session.connection, index=False, method=_copy_rows)


def _copy_out(session, table, datetimes=(), categoricals=(), texts=()):
    """COPY ... TO STDOUT as CSV, read by pandas' CSV reader told what the CSV format's reader is
    told, and how PostgreSQL writes booleans (t, f)."""
    import pandas as pd

    raw = session.connection.raw_connection()
    try:
        buffer = io.BytesIO()
        with raw.driver_connection.cursor() as cursor:
            with cursor.copy('COPY (SELECT * FROM "%s") TO STDOUT WITH (FORMAT csv, HEADER)' % table) as copy:
                for block in copy:
                    buffer.write(block)
    finally:
        raw.close()
    buffer.seek(0)
    kwargs = {"dtype": _io.text_dtypes(categoricals, texts)} if categoricals or texts else {}
    frame = pd.read_csv(buffer, parse_dates=list(datetimes), true_values=["t"], false_values=["f"], **kwargs)
    return _io.categorize(frame, categoricals)


def _adbc_connect(url):
    import adbc_driver_postgresql.dbapi

    return adbc_driver_postgresql.dbapi.connect(url)


def _adbc_ingest(session, frame, table):
    # PostgreSQL has no dictionary type: categoricals go in as their text.
    _adbc.ingest(session.connection, frame, table, dictionaries=False)


def _adbc_query(session, table, datetimes=(), categoricals=(), texts=()):
    return _adbc.query(session.connection, table, datetimes, categoricals, texts)


def _on_connection(call):
    return lambda session, *args: call(session.connection, *args)


_sqlalchemy_close = Session.closer(lambda engine: engine.dispose())
ENGINES = [
    Engine(
        "postgres-sqlalchemy",
        "PostgreSQL (SQLAlchemy)",
        "postgres",
        Session.opener(_sqlalchemy_engine),
        _to_sql,
        _read_sql,
        _sqlalchemy_drop,
        _sqlalchemy_close,
        needs=(PANDAS, SQLALCHEMY, PSYCOPG),
        server=servers.POSTGRES,
        losses=LOSSES,
        description="DataFrame.to_sql / read_sql_query through a SQLAlchemy engine on psycopg",
    ),
    Engine(
        "postgres-copy",
        "PostgreSQL (psycopg COPY)",
        "postgres",
        Session.opener(_sqlalchemy_engine),
        _copy_in,
        _copy_out,
        _sqlalchemy_drop,
        _sqlalchemy_close,
        needs=(PANDAS, SQLALCHEMY, PSYCOPG),
        server=servers.POSTGRES,
        losses=LOSSES,
        description="DataFrame.to_sql(method=COPY ... FROM STDIN as CSV), as pandas documents it; "
        "COPY ... TO STDOUT as CSV into read_csv",
    ),
    Engine(
        "postgres-adbc",
        "PostgreSQL (ADBC)",
        "postgres",
        Session.opener(_adbc_connect),
        _adbc_ingest,
        _adbc_query,
        _on_connection(dbapi_drop),
        Session.closer(dbapi_close),
        needs=(PANDAS, PYARROW, ADBC),
        server=servers.POSTGRES,
        losses=LOSSES,
        description="adbc_driver_postgresql: cursor.adbc_ingest of an Arrow table, fetch_arrow_table().to_pandas()",
    ),
]
