"""Databases and engines (``dsib.engines``): a frame into a new table, and a whole table into a frame.

Every engine's cell is built once, as a file is (``dsib.cells``): the engine ingests the cell's
frame into a new database and queries it back against that frame, before any case times it. A
case whose check failed fails; an engine missing from the environment skips.
"""

import itertools
import os
import shutil

from data_prep import VARIANTS
from dsib import catalog, procmem, servers
from dsib.engines import ENGINES, TABLE, questdb
from dsib.registry import installed_versions

from . import CELLS, PROFILE, SAMPLES, Case, build_every_cell, hints, loads_once, series

ENGINE_PARAM_NAMES = ["source", "engine", "variant"]
MEASURES = Case.measures + ("dsib.engines", "dsib.servers", "dsib.procmem")
# Three samples a case (SAMPLES); the warm-up is the session's tiny round trip, never a sample.
# The kind of held server (dsib.servers.held) each server engine's cases need.
HELD_KIND = {servers.POSTGRES: "postgres", servers.QUESTDB: "questdb"}


def held_kind(engine):
    """The kind of the run's held server that ``engine`` works in, or None (an engine in the case's
    own process, or Spark's JVM, which its session starts)."""
    return HELD_KIND.get(engine.server)


def other_process(engine, session):
    """The PID of the process outside the case's that does ``session``'s work: the held server's,
    or the engine's own (Spark's JVM, ``Engine.process``); None where the case's process does it all."""
    if engine.process is not None:
        return engine.process(session)
    return session.server_pid if held_kind(engine) else None


def server_engine_params(operation):
    """``engine_params`` of the engines whose work is done in another process (a held server, Spark's
    JVM) and measured there (``track_server_peakmem_*``, beside the case's own ``peakmem_``), less
    those that say why they do not measure the operation's memory (``Engine.unmeasured``)."""
    sources, engines, variants = catalog.engine_params(operation)
    method = "peakmem_" + operation
    return [
        sources,
        [
            e
            for e in engines
            if (held_kind(ENGINES[e]) or ENGINES[e].process is not None) and method not in ENGINES[e].unmeasured
        ],
        variants,
    ]


def engine_ready(operation, source, engine, variant):
    """In ``setup``: the engine of a cell that runs, its round trip checked; asv's skip
    (``NotImplementedError``) with the reason for a cell that cannot. The engine's libraries are
    imported by the case's session (``open_session``, which warms it up), in the case's process,
    not by the suite's import in asv's forkserver: every other case's peak memory stays without them."""
    found = ENGINES[engine]
    reason = catalog.engine_skip_reason(operation, source, engine, variant, PROFILE, installed_versions(found.packages))
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
        if not catalog.engine_skip_reason(
            operation, source, engine, variant, PROFILE, installed_versions(found.packages)
        ) and not (held_kind(found) and servers.not_held(held_kind(found))):
            CELLS.checked_table(source, found, variant)

    return build


def open_session(engine, directory):
    """A session on ``directory``, warmed up in itself (``Engine.warm_up_session``), so that every
    engine's first timed call finds its connection open and its paths in and out initialised: where
    the engine works in a server, a database or table prefix of its own on the run's held server
    (Spark: a JVM of its own, seconds to start)."""
    session = engine.connect(directory)
    engine.warm_up_session(session)
    return session


def server_peak(engine, session, call, *args, **kwargs):
    """``call(*args, **kwargs)``, and the peak RSS in bytes of the process tree that does the
    session's work outside the case's process while it ran (a held server with its backends, for
    PostgreSQL; Spark's JVM): the memory a case's ``peakmem_`` leaves out."""
    with procmem.PeakDuring(other_process(engine, session)) as peak:
        call(*args, **kwargs)
    return peak.bytes


class IngestIntoEngine(Case):
    """The frame into a new table of a new database, committed: the engine's own path in
    (``to_sql``, ``executemany``, ``adbc_ingest``, a registered frame copied into a table, a
    Parquet file written by the engine, ILP). Each sample starts from an empty database; where
    the engine works in a server (held for the whole run) or a JVM, each sample goes into a new
    table of the case's own database there, dropped after the sample.
    ``track_server_peakmem_ingest``: the held server's peak RSS during one ingest (bytes), beside the
    case's own (``peakmem_ingest``)."""

    version = series(2)
    measures = MEASURES
    operation = "ingest"
    params, param_names = catalog.engine_params(operation), ENGINE_PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), build_table(self.operation))

    engine = session = directory = None
    samples = 0

    @loads_once
    def _load(self, source, engine, variant):
        self._close()  # another cell's session, where one process runs several
        self.engine, _ = engine_ready(self.operation, source, engine, variant)
        self.frame = CELLS.frame(source, variant)

    def _close(self):
        if self.session is not None:
            self.engine.close(self.session)
            shutil.rmtree(self.directory, ignore_errors=True)
            self.session = self.directory = None

    def setup(self, source, engine, variant):
        self._load(source, engine, variant)
        if self.session is None:
            self.directory = CELLS.scratch("ingest-")
            self.session = open_session(self.engine, self.directory)
        self.table = TABLE
        if self.engine.server:  # the session stays for the process's samples: a new table each
            self.samples += 1
            self.table = "%s_%d" % (TABLE, self.samples)

    def teardown(self, source, engine, variant):
        # asv runs teardown after every sample: each sample's database goes with it; in a server
        # or a JVM, each sample's table. A held server stays for the run (dsib.servers); Spark's
        # JVM stops when the process ends.
        if self.session is None:  # asv tears down a skipped case too
            return
        if self.engine.server:
            self.engine.drop(self.session, self.table)
        else:
            self._close()

    def time_ingest(self, source, engine, variant):
        self.engine.ingest(self.session, self.frame, self.table)

    def peakmem_ingest(self, source, engine, variant):
        self.engine.ingest(self.session, self.frame, self.table)

    def track_server_peakmem_ingest(self, source, engine, variant):
        return server_peak(self.engine, self.session, self.engine.ingest, self.session, self.frame, self.table)

    track_server_peakmem_ingest.params = server_engine_params(operation)
    track_server_peakmem_ingest.unit = "bytes"


IngestIntoEngine.peakmem_ingest.skip_params = unmeasured(IngestIntoEngine, "peakmem_ingest")


class QueryFromEngine(Case):
    """The whole table into a frame: the engine's own path out (``read_sql``, the driver's
    cursor, ``fetch_arrow_table().to_pandas()``, ``.df()``, a Parquet file read by the engine),
    the reader told the datetimes and categoricals as a file reader is. The table was loaded
    once (a server engine's: into the run's held server) and checked against the frame.
    ``track_server_peakmem_query``: the held server's or Spark's JVM's peak RSS during one query (bytes), beside the
    case's own (``peakmem_query``)."""

    version = series(2)
    measures = MEASURES
    operation = "query"
    params, param_names = catalog.engine_params(operation), ENGINE_PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

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

    def time_query(self, source, engine, variant):
        self.engine.query(self.session, TABLE, **self.hints)

    def peakmem_query(self, source, engine, variant):
        self.engine.query(self.session, TABLE, **self.hints)

    def track_server_peakmem_query(self, source, engine, variant):
        return server_peak(self.engine, self.session, self.engine.query, self.session, TABLE, **self.hints)

    track_server_peakmem_query.params = server_engine_params(operation)
    track_server_peakmem_query.unit = "bytes"


class SerializeForQuestDB(Case):
    """TSBS "cpu" into the QuestDB client's in-memory ILP buffer, no server: the serialisation
    alone of the ingestion study, a loop of ``row`` calls against ``dataframe()``. Before any case
    runs, both paths serialise each cell and must give the same bytes, in ``setup_cache``'s process,
    so that no case's peak memory holds the other path's buffer (the engines' cases check what
    QuestDB makes of them)."""

    version = series(2)
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
    reason = catalog.engine_skip_reason(
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
