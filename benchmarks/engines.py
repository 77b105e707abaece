"""Databases and engines (``dsib.engines``): a frame into a new table, and a whole table into a frame.

Every engine's cell is built once, as a file is (``dsib.cells``): the engine ingests the cell's
frame into a new database and queries it back against that frame, before any case times it. A
case whose check failed fails; an engine missing from the environment skips.
"""

import gc
import itertools
import os
import shutil
import time

from data_prep import VARIANTS
from dsib import procmem, servers
from dsib.engines import ENGINES, TABLE, questdb, spark
from dsib.registry import installed_versions

from . import CATALOG, CELLS, PROFILE, SAMPLES, Case, build_every_cell, hints, loads_once, series, untimed_call
from .reads import trace

ENGINE_PARAM_NAMES = ["source", "engine", "variant"]
MEASURES = Case.measures + ("dsib.engines", "dsib.servers", "dsib.procmem")
# Three samples a case (SAMPLES), after one untimed full call in the case's process (``first_call``).
# The kind of held server (dsib.servers.held) each server engine's cases need.
HELD_KIND = {servers.POSTGRES: "postgres", servers.QUESTDB: "questdb", spark.SPARK: "spark"}
FIRST = TABLE + "_first"  # the table of an ingest case's untimed full call, dropped after it


def held_kind(engine):
    """The kind of the run's held server (or Spark's JVM) that ``engine`` works in, or None (an
    engine in the case's own process)."""
    return HELD_KIND.get(engine.server)


def held_kinds_of(cls, given):
    """``Case.held_kinds`` of an engine's case: the held server its engine works in, if any."""
    kind = held_kind(ENGINES[dict(zip(cls.param_names, given))["engine"]])
    return (kind,) if kind else ()


def measured_params(operation, method, where=lambda engine: True):
    """``engine_params`` of the engines ``where`` selects, less those that say why they do not
    measure ``method`` (``Engine.unmeasured``)."""
    sources, engines, variants = CATALOG.engine_params(operation)
    return [sources, [e for e in engines if where(ENGINES[e]) and method not in ENGINES[e].unmeasured], variants]


def engine_ready(operation, source, engine, variant):
    """In ``setup``: the engine of a cell that runs, its round trip checked; asv's skip
    (``NotImplementedError``) with the reason for a cell that cannot. The engine's libraries are
    imported by the case's session (``open_session``, which warms it up), in the case's process,
    not by the suite's import in asv's forkserver: every other case's peak memory stays without them."""
    found = ENGINES[engine]
    reason = CATALOG.engine_skip_reason(operation, source, engine, variant, PROFILE, installed_versions(found.packages))
    if reason:
        raise NotImplementedError(reason)
    require_held_server(found)
    return found, CELLS.checked_table(source, found, variant)


def unmeasured(cls, method):
    """asv's ``skip_params`` of ``cls.method``: the cells of the engines that say why they do
    not measure it (``Engine.unmeasured``), skipped before their ``setup`` starts anything."""
    return [given for given in itertools.product(*cls.params) if method in ENGINES[given[1]].unmeasured]


def require_held_server(engine):
    """asv's skip, saying why, of a server engine's case where no server is held for the run (asv
    run directly, not through ``make run``): its figures are those of a server that runs for the
    whole run, warm, as a production user's is, and a server of the case's own would be another
    measurement under the same name."""
    kind = held_kind(engine)
    reason = kind and servers.not_held(kind)
    if reason:
        raise NotImplementedError("%s: %s" % (engine.label, reason))


def build_table(operation):
    """``build_every_cell``'s ``build`` of an engine case: the cell's checked database (a server
    engine's: its table loaded into the run's held server, once a run)."""

    def build(source, engine, variant):
        found = ENGINES[engine]
        if not CATALOG.engine_skip_reason(
            operation, source, engine, variant, PROFILE, installed_versions(found.packages)
        ) and not (held_kind(found) and servers.not_held(held_kind(found))):
            CELLS.checked_table(source, found, variant)

    return build


def open_session(engine, directory):
    """A session on ``directory``, warmed up in itself (``Engine.warm_up_session``), so that every
    engine's first timed call finds its connection open and its paths in and out initialised: where
    the engine works in a server, a database or table prefix of its own on the run's held server
    (Spark: a session of the run's held JVM)."""
    session = engine.connect(directory)
    engine.warm_up_session(session)
    return session


def server_added(session, call, *args, **kwargs):
    """``call(*args, **kwargs)``, and what it added to the memory of the process tree outside the
    case's that does the session's work (a held server with its backends, Spark's JVM with its
    Python workers): the highest PSS of its memory (not of the files it maps) summed over the tree
    while it ran, less that before (``procmem.Added``), bytes."""
    with procmem.Added(session.server_pid) as added:
        call(*args, **kwargs)
    return added.bytes


def client_added(call, *args, **kwargs):
    """``call(*args, **kwargs)``, and the case's process's peak RSS while it ran less its RSS before
    (``procmem.ClientAdded``): what the call added, without what ``setup`` loaded, bytes."""
    with procmem.ClientAdded() as added:
        call(*args, **kwargs)
    return added.bytes


def seconds_of(call, *args):
    started = time.perf_counter()
    call(*args)
    return time.perf_counter() - started


def memory_methods(cls, operation, call, server_series):
    """``cls``'s ``track_client_added_<operation>`` and ``track_server_added_<operation>`` (the
    latter for the engines that work in another process), each one untimed ``call(case)`` measured.
    The server's is a series of its own, ``server_series`` (the lock records it beside the class's):
    its sampling is ``procmem.Added``'s, apart from the rest of the class."""

    def client(self, source, engine, variant):
        return client_added(call, self)

    def server(self, source, engine, variant):
        return server_added(self.session, call, self)

    for kind, method, where in (("client", client, lambda e: True), ("server", server, held_kind)):
        name = "track_%s_added_%s" % (kind, operation)
        method.__name__, method.unit = name, "bytes"
        method.params = measured_params(operation, name, where)
        setattr(cls, name, method)
    server.version = series(server_series)
    return cls


class IngestIntoEngine(Case):
    """The frame into a new table of a new database, committed: the engine's own path in
    (``to_sql``, ``executemany``, ``adbc_ingest``, a registered frame copied into a table, a
    Parquet file written by the engine, ILP sent and flushed). Each sample starts from an empty
    database; where the engine works in a server (held for the whole run) or Spark's JVM (held
    too), each sample goes into a new table of the case's own database there, dropped after the
    sample. Before the first sample, one untimed full ingest (``first_call``).

    ``track_client_added_ingest``: what one ingest adds to the case's process's peak RSS, over its
    level after ``setup`` (which holds the frame); ``track_server_added_ingest``: what it adds to
    the held server's or JVM's PSS (bytes). ``track_visible_ingest``: for an engine that shows its
    rows after the ingest returns (QuestDB), the wait until it does (seconds), apart from the
    timed send."""

    version = series(3)
    measures = MEASURES
    operation = "ingest"
    params, param_names = CATALOG.engine_params(operation), ENGINE_PARAM_NAMES
    rounds = 1
    repeat = SAMPLES
    held_kinds = classmethod(held_kinds_of)

    def setup_cache(self):
        build_every_cell(type(self), build_table(self.operation))

    engine = session = directory = None
    samples = 0
    first_called = False

    @loads_once
    def _load(self, source, engine, variant):
        self._close()  # another cell's session, where one process runs several
        self.engine, _ = engine_ready(self.operation, source, engine, variant)
        self.frame = CELLS.frame(source, variant)
        self.first_called = False

    def _open(self):
        self.directory = CELLS.scratch("ingest-")
        self.session = open_session(self.engine, self.directory)

    def _close(self):
        if self.session is not None:
            self.engine.close(self.session)
            shutil.rmtree(self.directory, ignore_errors=True)
            self.session = self.directory = None

    def _first_call(self, cell):
        """One full ingest, untimed, into a table of its own, then dropped; an engine in the case's
        process made it in a database that is then closed and removed, so that every sample, the
        first too, starts from a new, empty one."""
        self.engine.ingest_visible(self.session, self.frame, FIRST)
        trace(self, "first call", cell, engine=self.engine.name, rows=len(self.frame), table=FIRST)
        self.engine.drop(self.session, FIRST)
        if not self.engine.server:
            self._close()
            self._open()
        self.first_called = True

    def setup(self, source, engine, variant):
        self._load(source, engine, variant)
        if self.session is None:
            self._open()
        if not self.first_called:
            self._first_call((source, engine, variant))
        self.table = TABLE
        if self.engine.server:  # the session stays for the process's samples: a new table each
            self.samples += 1
            self.table = "%s_%d" % (TABLE, self.samples)

    def teardown(self, source, engine, variant):
        # asv runs teardown after every sample: each sample's database goes with it; in a server
        # or Spark's JVM, each sample's table, once the engine shows its rows (QuestDB). The held
        # server or JVM stays for the run (dsib.servers).
        if self.session is None:  # asv tears down a skipped case too
            return
        if self.engine.server:
            self.engine.wait_visible(self.session, self.frame, self.table)
            self.engine.drop(self.session, self.table)
        else:
            self._close()

    def ingest(self):
        self.engine.ingest(self.session, self.frame, self.table)

    def time_ingest(self, source, engine, variant):
        self.engine.ingest(self.session, self.frame, self.table)

    def peakmem_ingest(self, source, engine, variant):
        self.engine.ingest(self.session, self.frame, self.table)

    def track_visible_ingest(self, source, engine, variant):
        self.ingest()
        return seconds_of(self.engine.wait_visible, self.session, self.frame, self.table)

    track_visible_ingest.params = measured_params(operation, "track_visible_ingest", lambda e: e.visible)
    track_visible_ingest.unit = "seconds"


memory_methods(IngestIntoEngine, "ingest", IngestIntoEngine.ingest, server_series=5)
IngestIntoEngine.peakmem_ingest.skip_params = unmeasured(IngestIntoEngine, "peakmem_ingest")


class QueryFromEngine(Case):
    """The whole table into a frame: the engine's own path out (``read_sql``, the driver's
    cursor, ``fetch_arrow_table().to_pandas()``, ``.df()``, a Parquet file read by the engine),
    the reader told the datetimes and categoricals as a file reader is. The table was loaded
    once (a server engine's: into the run's held server) and checked against the frame. Before
    the first sample, one untimed full query (``first_call``).

    ``track_client_added_query``: what one query adds to the case's process's peak RSS, over its
    level after ``setup``; ``track_server_added_query``: what it adds to the held server's or
    Spark's JVM's PSS (bytes)."""

    version = series(3)
    measures = MEASURES
    operation = "query"
    params, param_names = CATALOG.engine_params(operation), ENGINE_PARAM_NAMES
    rounds = 1
    repeat = SAMPLES
    held_kinds = classmethod(held_kinds_of)

    def setup_cache(self):
        build_every_cell(type(self), build_table(self.operation))

    @loads_once
    def setup(self, source, engine, variant):
        self.engine, checked = engine_ready(self.operation, source, engine, variant)
        self.hints = hints(source, variant)
        # The case's own copy: the cached database stays as it was built and checked (a held
        # server's: the name of its database or prefix there, which the copy names too).
        copy = os.path.join(CELLS.scratch("query-"), "db")
        shutil.copytree(checked["path"], copy, symlinks=True)
        self.session = open_session(self.engine, copy)
        gc.collect()  # before the untimed query, not after it: see untimed_call
        result = self.query()
        trace(self, "first call", (source, engine, variant), engine=engine, rows=len(result), table=TABLE)
        del result

    def query(self):
        return self.engine.query(self.session, TABLE, **self.hints)

    def time_query(self, source, engine, variant):
        self.engine.query(self.session, TABLE, **self.hints)

    def peakmem_query(self, source, engine, variant):
        self.engine.query(self.session, TABLE, **self.hints)


memory_methods(QueryFromEngine, "query", QueryFromEngine.query, server_series=5)


class SerializeForQuestDB(Case):
    """TSBS "cpu" into the QuestDB client's in-memory ILP buffer, no server: the serialisation
    alone of the ingestion study, a loop of ``row`` calls against ``dataframe()``. Before any case
    runs, both paths serialise each cell and must give the same bytes, in ``setup_cache``'s process,
    so that no case's peak memory holds the other path's buffer (the engines' cases check what
    QuestDB makes of them). Before the first sample, untimed full serialisations into buffers
    of their own, as a write makes (``untimed_call``: no server, so as many as a write)."""

    version = series(3)
    measures = MEASURES
    params = [list(questdb.SOURCES), sorted(questdb.SERIALIZERS), list(VARIANTS)]
    param_names = ["source", "path", "variant"]
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), check_serializers)

    @loads_once
    def _load(self, source, path, variant):
        check_serializers(source, path, variant)
        self.frame = CELLS.frame(source, variant)
        self.serialize = questdb.SERIALIZERS[path]
        untimed_call(self, (source, path, variant), self._serialize_anew, rows=len(self.frame))

    def _serialize_anew(self):
        """The timed call, into a buffer of its own that goes with it (no copy: the peak stays the
        samples')."""
        self.serialize(questdb.new_buffer(), self.frame, TABLE)

    def setup(self, source, path, variant):
        self._load(source, path, variant)
        self.buffer = questdb.new_buffer()  # empty for every sample

    def time_serialize(self, source, path, variant):
        self.serialize(self.buffer, self.frame, TABLE)

    def peakmem_serialize(self, source, path, variant):
        self.serialize(self.buffer, self.frame, TABLE)


def check_serializers(source, path, variant):
    """asv's skip where the serialisation cannot run here; else the kept check that the row loop
    and ``dataframe()`` serialise the cell alike (its failure where they do not)."""
    # The serialisation needs what questdb-dataframe needs, less its server.
    reason = CATALOG.engine_skip_reason(
        "ingest",
        source,
        "questdb-dataframe",
        variant,
        PROFILE,
        installed_versions(ENGINES["questdb-dataframe"].packages),
    )
    if reason:
        raise NotImplementedError(reason)
    CELLS.checked_once(source, variant, "questdb-serializers", serialized_alike)


def serialized_alike(frame):
    """None where the row loop and ``dataframe()`` give the same bytes for ``frame``, else how not."""
    made = []
    for serialize in (questdb.serialize_rows, questdb.serialize_dataframe):
        buffer = questdb.new_buffer()
        serialize(buffer, frame, TABLE)
        made.append(bytes(buffer))
    if made[0] != made[1]:
        return "the row loop and dataframe() serialise the frame differently (%d and %d bytes)" % (
            len(made[0]),
            len(made[1]),
        )
    return None
