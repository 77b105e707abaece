"""Databases and engines (``dsib.engines``): a frame into a new table, and a whole table into a frame.

Every engine's cell is built once, as a file is (``dsib.cells``): the engine ingests the cell's
frame into a new database and queries it back against that frame, before any case times it. A
case whose check failed fails; an engine missing from the environment skips.
"""
import itertools
import os
import shutil

from data_prep import VARIANTS
from dsib import cases
from dsib.engines import ENGINES, TABLE, questdb
from dsib.procmem import PeakDuring
from dsib.registry import installed_versions

from . import CELLS, PROFILE, SAMPLES, Cell, build_every_cell, hints, loads_once, series

ENGINE_PARAM_NAMES = ["source", "engine", "variant"]
MEASURES = Cell.measures + ("dsib.engines", "dsib.procmem")
# Three samples a case (SAMPLES); the warm-up is the session's tiny round trip, never a sample.


def engine_ready(operation, source, engine, variant):
    """In ``setup``: the engine of a cell that runs, its round trip checked; asv's skip
    (``NotImplementedError``) with the reason for a cell that cannot. The engine's libraries are
    imported by the case's session (``open_session``, which warms it up), in the case's process,
    not by the suite's import in asv's forkserver: every other case's peak memory stays without them."""
    found = ENGINES[engine]
    reason = cases.engine_skip_reason(operation, source, engine, variant, PROFILE, installed_versions(found.packages))
    if reason:
        raise NotImplementedError(reason)
    return found, CELLS.checked_table(source, found, variant)


def unmeasured(cls, method):
    """asv's ``skip_params`` of ``cls.method``: the cells of the engines that say why they do
    not measure it (``Engine.unmeasured``), skipped before their ``setup`` starts anything."""
    return [given for given in itertools.product(*cls.params) if method in ENGINES[given[1]].unmeasured]


def without_process(cls):
    """``skip_params`` of a case that measures the engine's own process: the engines that have none."""
    return [given for given in itertools.product(*cls.params) if ENGINES[given[1]].process is None]


def build_table(operation):
    """``build_every_cell``'s ``build`` of an engine case: the cell's checked database."""
    def build(source, engine, variant):
        found = ENGINES[engine]
        if not cases.engine_skip_reason(operation, source, engine, variant, PROFILE,
                                        installed_versions(found.packages)):
            CELLS.checked_table(source, found, variant)
    return build


def open_session(engine, directory):
    """A session on ``directory``, warmed up in itself (``Engine.warm_up_session``): every engine's
    first timed call finds its connection open and its paths in and out initialised."""
    session = engine.connect(directory)
    engine.warm_up_session(session)
    return session


class IngestIntoEngine(Cell):
    """The frame into a new table of a new database, committed: the engine's own path in
    (``to_sql``, ``executemany``, ``adbc_ingest``, a registered frame copied into a table, a
    Parquet file written by the engine, ILP). Each sample starts from an empty database; where
    the engine is a server, which takes seconds to start, from an empty table of the server the
    case's process started."""

    version = series(2)
    measures = MEASURES
    operation = "ingest"
    params, param_names = cases.engine_params(operation), ENGINE_PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), build_table(self.operation))

    engine = session = directory = None

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
        elif self.engine.server:
            self.engine.drop(self.session, TABLE)

    def teardown(self, source, engine, variant):
        # asv runs teardown after every sample: each sample's database goes with it. A server
        # stays for the process's next sample, and stops when the process ends (dsib.servers).
        if self.session is not None and not self.engine.server:  # asv tears down a skipped case too
            self._close()

    def time_ingest(self, source, engine, variant):
        self.engine.ingest(self.session, self.frame, TABLE)

    def peakmem_ingest(self, source, engine, variant):
        self.engine.ingest(self.session, self.frame, TABLE)


IngestIntoEngine.peakmem_ingest.skip_params = unmeasured(IngestIntoEngine, "peakmem_ingest")


class QueryFromEngine(Cell):
    """The whole table into a frame: the engine's own path out (``read_sql``, the driver's
    cursor, ``fetch_arrow_table().to_pandas()``, ``.df()``, a Parquet file read by the engine),
    the reader told the datetimes and categoricals as a file reader is."""

    version = series(2)
    measures = MEASURES
    operation = "query"
    params, param_names = cases.engine_params(operation), ENGINE_PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), build_table(self.operation))

    @loads_once
    def setup(self, source, engine, variant):
        self.engine, checked = engine_ready(self.operation, source, engine, variant)
        self.hints = hints(source, variant)
        # The case's own copy: the cached database stays as it was built and checked, and a
        # server started on it (PostgreSQL's) never shares its directory with another run's.
        copy = os.path.join(CELLS.scratch("query-"), "db")
        shutil.copytree(checked["path"], copy, symlinks=True)
        self.session = open_session(self.engine, copy)

    def time_query(self, source, engine, variant):
        self.engine.query(self.session, TABLE, **self.hints)

    def peakmem_query(self, source, engine, variant):
        self.engine.query(self.session, TABLE, **self.hints)

    def track_process_peakmem_query(self, source, engine, variant):
        """The peak RSS of the engine's own process (Spark's JVM) during the query, which
        ``peakmem_query`` (the case's process alone) leaves out."""
        with PeakDuring(self.engine.process(self.session)) as peak:
            self.engine.query(self.session, TABLE, **self.hints)
        return peak.bytes

    track_process_peakmem_query.unit = "bytes"


QueryFromEngine.track_process_peakmem_query.skip_params = without_process(QueryFromEngine)


class SerializeForQuestDB(Cell):
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
    reason = cases.engine_skip_reason("ingest", source, "questdb-dataframe", variant, PROFILE,
                                      installed_versions(ENGINES["questdb-dataframe"].packages))
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
            len(made[0]), len(made[1]))
    return None
