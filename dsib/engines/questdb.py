"""QuestDB, as the TSBS ingestion study measured it: the QuestDB client's InfluxDB line protocol
(ILP), a Python loop of ``Sender.row`` calls against the client's native ``Sender.dataframe()``,
over ILP/HTTP and ILP/TCP, on TSBS "cpu".

A session's sender connects when the session opens (``Sender.establish``), and stays open for its
ingests. An ingest is timed from the first row handed to the sender to the end of its last
``flush``. QuestDB applies what it received to the table asynchronously: the wait until ``SELECT
count()`` equals the frame's rows (``visible``) is timed apart from the send, and made after every
ingest, so every ingest's row count is verified. The wait asks on one
kept-alive HTTP connection, at first at once, then after pauses that double from 1 ms to at most
``POLL_MAX`` (10 ms), so that on 2 cores it does not compete with the server it waits for; its own
CPU time is kept on the session (``waits``). The table comes back
through QuestDB's HTTP CSV export into ``read_csv``, told the hints a CSV reader is told; it is
the same for every ingest path, so it is timed once (``questdb-dataframe``'s).

Where a server is held for the run (``dsib.servers.held``: ``make run``), a session's tables are
those of a name prefix of its own on it, named in the session's directory; else the session is a
server of its own (``dsib.questdb_server.QuestDB``), started in the directory on free ports of 127.0.0.1
and stopped by its PID. The serialisation alone, into the
client's in-memory buffer with no server, is ``serialize_rows`` / ``serialize_dataframe``
(``benchmarks.engines.SerializeForQuestDB``).
"""

import json
import time
from collections import namedtuple

from .. import questdb_server, server_process, servers
from ..formats import _io
from ..registry import Loss, Needs
from ._engine import Engine

PANDAS = Needs("pandas")
# questdb 4.0 made ILP's protocol version 2 (binary doubles, arrays) the client's; Sender.new_buffer
# and from_conf's protocol_version are the calls here.
QUESTDB = Needs("questdb", "4.0", why="questdb {have} predates the client's protocol_version and new_buffer")
PYARROW = Needs("pyarrow")  # Sender.dataframe reads the frame through Arrow
SOURCES = ("tsbs_cpu",)
VISIBLE_TIMEOUT = 300
POLL_FIRST, POLL_MAX = 0.001, 0.010  # the wait's pauses: doubling from the first to at most the max

# One wait for rows to show: its polls, its wall time and its own CPU time (this thread's), seconds.
Wait = namedtuple("Wait", ["polls", "seconds", "cpu_seconds"])


class Session(object):
    """The run's held QuestDB, with a table prefix of ``directory``'s own, or a server kept in
    ``directory``, running; and a sender connected over the ILP transport ``transport``.
    ``server_pid``: the server's process; ``waits``: each ``wait_visible`` of the session (``Wait``)."""

    def __init__(self, directory, transport):
        held = servers.held("questdb")
        self.own = held is None
        self.server = questdb_server.questdb(directory) if self.own else held
        self.prefix = "" if self.own else servers.session_name(directory, "questdb", lambda name: None) + "_"
        port = self.server.http_port if transport == "http" else self.server.ilp_port
        self.conf = "%s::addr=%s:%d;" % (transport, server_process.LOOPBACK, port)
        self.connection = None
        self.waits = []
        self.sender = _sender(self.conf)

    @property
    def server_pid(self):
        return self.server.pid

    def table(self, name):
        """The server's name of the session's table ``name``."""
        return self.prefix + name

    def count(self, table):
        """The rows QuestDB shows in ``table`` (the server's name; 0 while it does not exist yet),
        asked on the session's one HTTP connection."""
        import http.client
        from urllib.parse import urlencode

        path = "/exec?" + urlencode({"query": 'SELECT count() FROM "%s"' % table})
        for attempt in (1, 2):  # a kept-alive connection the server has closed since: once more, anew
            if self.connection is None:
                self.connection = http.client.HTTPConnection(server_process.LOOPBACK, self.server.http_port, timeout=60)
            try:
                self.connection.request("GET", path)
                response = self.connection.getresponse()
                body = response.read()
                break
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise
        if response.status != 200:  # 400 while the table does not exist yet
            return 0
        answer = json.loads(body.decode("utf-8"))
        return answer["dataset"][0][0] if answer.get("dataset") else 0

    def wait_visible(self, table, rows):
        started, cpu, polls = time.monotonic(), time.thread_time(), 0
        deadline, pause = started + VISIBLE_TIMEOUT, POLL_FIRST
        while True:
            shown = self.count(table)
            polls += 1
            if shown == rows:
                self.waits.append(Wait(polls, time.monotonic() - started, time.thread_time() - cpu))
                return
            if shown > rows:
                raise AssertionError("QuestDB shows %d rows in %s, %d were sent" % (shown, table, rows))
            if time.monotonic() > deadline:
                raise AssertionError(
                    "QuestDB shows %d of the %d rows sent to %s after %d s" % (shown, rows, table, VISIBLE_TIMEOUT)
                )
            time.sleep(pause)
            pause = min(pause * 2, POLL_MAX)

    def close(self):
        self.sender.close()
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        if self.own:
            self.server.stop()


def _sender(conf):
    from questdb import Sender

    sender = Sender.from_conf(conf)
    sender.establish()
    return sender


def _connect(transport):
    return lambda directory: Session(directory, transport)


def _close(session):
    session.close()


def _drop(session, table):
    session.server.sql('DROP TABLE IF EXISTS "%s"' % session.table(table))


def designated_timestamp(frame):
    """The frame's first datetime column: QuestDB's designated timestamp (``at``). A table that ILP
    makes names it ``timestamp``, whatever the frame called it: TSBS's is so named."""
    for name in frame.columns:
        if frame[name].dtype.kind == "M":
            return name
    raise ValueError("QuestDB needs a datetime column for its designated timestamp; the frame has none")


def _add_rows(target, frame, table):
    """What a user writes without ``dataframe()``: one ``row`` call a row, the categoricals as
    symbols (as ``dataframe()`` sends them), every other column as a column."""
    from questdb import TimestampNanos

    at = designated_timestamp(frame)
    symbols = [c for c in frame.columns if getattr(frame[c].dtype, "name", "") == "category"]
    columns = [c for c in frame.columns if c != at and c not in symbols]
    for row in frame.itertuples(index=False):
        values = row._asdict()
        target.row(
            table,
            symbols=dict((c, values[c]) for c in symbols),
            columns=dict((c, values[c]) for c in columns),
            at=TimestampNanos(values[at].value),
        )


def _add_dataframe(target, frame, table):
    target.dataframe(frame, table_name=table, at=designated_timestamp(frame))


def _ingest_with(add):
    def ingest(session, frame, table):
        add(session.sender, frame, session.table(table))
        session.sender.flush()

    return ingest


def _visible(session, table, rows):
    session.wait_visible(session.table(table), rows)


def _query(session, table, datetimes=(), categoricals=(), texts=()):
    import pandas as pd

    payload = session.server.sql('SELECT * FROM "%s"' % session.table(table), endpoint="exp")
    kwargs = {"dtype": _io.text_dtypes(categoricals, texts)} if categoricals or texts else {}
    with _io.buffer(payload) as f:
        frame = pd.read_csv(f, parse_dates=list(datetimes), **kwargs)
    return _io.categorize(frame, categoricals)


# Serialisation alone: the client's buffer, no server. The buffer's protocol is the one the
# client speaks to this server over HTTP (version 2: doubles in binary), given, not negotiated.
BUFFER_CONF = "http::addr=%s:1;protocol_version=2;" % server_process.LOOPBACK


def new_buffer():
    from questdb import Sender

    sender = Sender.from_conf(BUFFER_CONF)
    sender.establish()  # for HTTP, the connection pool only: nothing is sent
    return sender.new_buffer()


def serialize_rows(buffer, frame, table):
    _add_rows(buffer, frame, table)


def serialize_dataframe(buffer, frame, table):
    _add_dataframe(buffer, frame, table)


SERIALIZERS = {"rows": serialize_rows, "dataframe": serialize_dataframe}

_common = dict(needs=(PANDAS, PYARROW, QUESTDB), server=servers.QUESTDB, sources=SOURCES, visible=_visible)
ENGINES = [
    Engine(
        "questdb-rows",
        "QuestDB (ILP/HTTP, a row loop)",
        "questdb",
        _connect("http"),
        _ingest_with(_add_rows),
        _query,
        _drop,
        _close,
        queried_as="questdb-dataframe",
        description="Sender.row per row over ILP/HTTP and flush on a connected sender "
        "(the wait until SELECT count() shows every row timed apart); "
        "HTTP CSV export into read_csv",
        **_common,
    ),
    Engine(
        "questdb-dataframe",
        "QuestDB (ILP/HTTP, dataframe)",
        "questdb",
        _connect("http"),
        _ingest_with(_add_dataframe),
        _query,
        _drop,
        _close,
        description="Sender.dataframe over ILP/HTTP and flush on a connected sender "
        "(the wait until SELECT count() shows every row timed apart); "
        "HTTP CSV export into read_csv",
        **_common,
    ),
    Engine(
        "questdb-dataframe-tcp",
        "QuestDB (ILP/TCP, dataframe)",
        "questdb",
        _connect("tcp"),
        _ingest_with(_add_dataframe),
        _query,
        _drop,
        _close,
        queried_as="questdb-dataframe",
        # ILP/TCP speaks protocol version 1 unless told otherwise: the table QuestDB makes from it
        # keeps its timestamp in microseconds (over HTTP the client negotiates 2: nanoseconds).
        losses=(Loss("datetime_unit"),),
        description="Sender.dataframe over ILP/TCP and flush on a connected sender "
        "(the wait until SELECT count() shows every row timed apart); "
        "HTTP CSV export into read_csv",
        **_common,
    ),
]
