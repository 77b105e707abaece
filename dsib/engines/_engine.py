"""What an engine is to the suite, as data (the registry's shared fields, and its calls)."""

from data_prep.datasets import VARIANTS

from ..formats import _io
from ..registry import Registered


class Engine(Registered):
    """A database or engine as the suite sees it (``dsib.engines``): ``connect``, the timed
    ``ingest`` and ``query``, ``drop`` and ``close``; ``server``: the kind of server it needs
    (``dsib.servers.Kind``), which ``connect`` starts and ``close`` stops; ``sources``: the
    sources it is measured on (None: every engine source); ``queried_as``: another engine whose
    query is the same as this one's, and is timed there; ``keep(session, table)``: for an engine
    whose ingested table lives in its session alone (Spark's), what stores it in the session's
    directory for a later session, never timed. ``zoned_needs``: what a frame with a zoned timestamp
    column needs besides ``needs`` (pandas' ``to_sql`` before 0.24 cannot write one).
    ``visible(session, table, rows)``: for an engine whose ingest returns before the engine shows
    its rows (QuestDB applies what it received asynchronously), the wait until ``table`` shows
    ``rows``, which the suite times apart from the ingest; None where the ingest's return is the
    end of it. A session of an engine with a ``server`` has a ``server_pid``: the process (with
    its children) outside the case's that does the session's work, whose memory is counted
    beside the case's. ``unmeasured``: {a case's method: why it is not measured for this engine}."""

    def __init__(
        self,
        name,
        label,
        family,
        connect,
        ingest,
        query,
        drop,
        close,
        needs=(),
        losses=(),
        variants=VARIANTS,
        description="",
        server=None,
        sources=None,
        queried_as=None,
        keep=None,
        zoned_needs=(),
        visible=None,
        unmeasured=None,
    ):
        super(Engine, self).__init__(name, label, family, needs, losses, variants, description)
        self.connect = connect
        self.ingest = ingest
        self.read_table = query
        self.drop = drop
        self.close = close
        self.server = server
        self.sources = None if sources is None else tuple(sources)
        self.queried_as = queried_as
        self.keep = keep
        self.zoned_needs = tuple(zoned_needs)
        self.visible = visible
        self.unmeasured = dict(unmeasured or {})
        # The sessions of this process that warm_up_session has warmed up (by id): what a test asks.
        self.warmed = set()

    @property
    def packages(self):
        return tuple(n.package for n in self.needs + self.zoned_needs)

    def unavailable_for_zoned(self, versions):
        """Why a frame with a zoned timestamp column cannot go in with ``versions``, or None."""
        return self.unavailable(versions, self.zoned_needs)

    def check_available(self):
        """As a format's, and the server: one that cannot be started here skips with the reason."""
        versions = super(Engine, self).check_available()
        reason = self.server and self.server.unavailable()
        if reason:
            raise NotImplementedError("%s: %s" % (self.label, reason))
        return versions

    def identity(self):
        """What a database it stored depends on besides the libraries: its server's version."""
        if self.server is None or self.server.unavailable():
            return None
        return self.server.identity()

    def query(self, session, table, dtypes=(), **hints):
        """The timed query: the engine's path out, told the datetimes, categoricals and texts; a
        table you brought made what its ``dtypes`` tell (``_io.told_frame``), as its user would."""
        frame = self.read_table(session, table, **hints)
        return _io.told_frame(frame, dtypes) if dtypes else frame

    def ingest_visible(self, session, frame, table):
        """``ingest``, then, for an engine that shows its rows later, the wait until it does."""
        self.ingest(session, frame, table)
        self.wait_visible(session, frame, table)

    def wait_visible(self, session, frame, table):
        if self.visible is not None:
            self.visible(session, table, len(frame))

    def warm_up(self, directory):
        """``warm_up_session`` in a session of its own on ``directory``."""
        session = self.connect(directory)
        try:
            self.warm_up_session(session)
        finally:
            self.close(session)

    def warm_up_session(self, session):
        """One tiny round trip in ``session``, the one a case then times, never timed: the imports,
        the connection and every lazy initialisation of the engine's paths in (the ingest, kept
        where the engine keeps tables) and out (the query) are done before the first sample, the
        same for every engine."""
        import pandas as pd

        # "timestamp": the name QuestDB gives the designated timestamp of a table that ILP makes.
        tiny = pd.DataFrame({"i": [1, 2], "timestamp": pd.to_datetime(["2016-01-01", "2016-01-02"])})
        self.ingest_visible(session, tiny, "warm_up")
        if self.keep:
            self.keep(session, "warm_up")
        self.query(session, "warm_up", datetimes=("timestamp",))
        self.drop(session, "warm_up")
        self.warmed.add(id(session))


def dbapi_drop(connection, table):
    """``drop`` for a DB-API connection (sqlite3's, ADBC's)."""
    cursor = connection.cursor()
    try:
        cursor.execute('DROP TABLE IF EXISTS "%s"' % table)
    finally:
        cursor.close()
    connection.commit()


def dbapi_close(connection):
    connection.close()
