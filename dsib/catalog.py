"""The suite's cells: which (dataset, format, variant) each operation measures, and why not the rest.

asv's parameters are a product; many of its combinations cannot make sense (a variant a format
cannot hold, a writer that is another format's), and some the suite leaves out on purpose (the
2019 post's month is measured for the post's formats and cases only). ``skip_reason`` is the
one place that decides, from the registries and a mapping of package versions: a benchmark's
``setup`` raises it as asv's skip, and the tools ask it why a cell of any environment was
skipped, from that environment's pins.

A ``Catalog`` is the cells of one run: the built-in sources and the tables a user brought, whose
data is in one data directory. It is built from those inputs and never changes; ``BUILT_IN`` is
the catalog of the built-in sources in data_prep's default directory.

Datasets of the suite (``Catalog.sources``) are stored datasets (``data_prep.DATASETS``) at a scale:
``nyc_taxi_month`` is a whole stored month, the scale of the post's cases (1,000,000 rows at
``default``); ``nyc_taxi``, ``tsbs_cpu`` and ``rocklin`` are the first ``grid_rows`` rows of
theirs, the scale at which every format is measured.
"""

import functools
from collections import OrderedDict, namedtuple

from data_prep import VARIANTS, get_dataset, get_profile
from data_prep.own_table import OWN_PROFILE, open_table
from data_prep.store import default_data_dir

from .engines import ENGINES
from .formats import FORMATS, POST_2019_FORMATS
from .registry import Needs


class Source(
    namedtuple(
        "Source", ["name", "stored", "whole_partitions", "formats", "description", "library_defaults", "data_dir"]
    )
):
    """``whole_partitions``: the stored partitions as they are (the post's month), else their
    first ``grid_rows`` rows. ``formats``: the formats measured on it (None: every one).
    ``library_defaults``: its formats are written and read as their libraries' defaults make them
    in each release (the post's cases), not with the options the grid states (``format_for``).
    ``data_dir``: where its data is (None: data_prep's default)."""

    def __new__(cls, name, stored, whole_partitions, formats, description, library_defaults=False, data_dir=None):
        return super(Source, cls).__new__(
            cls, name, stored, whole_partitions, formats, description, library_defaults, data_dir
        )

    own = False

    def _data_dir(self):
        return self.data_dir or default_data_dir()

    def rows(self, profile):
        """Rows per partition at ``profile``; None where the profile leaves this source out."""
        if profile == OWN_PROFILE:
            return None
        spec = get_profile(profile, self._data_dir())
        if self.whole_partitions:
            return spec.rows_for(self.stored)
        if spec.grid_left_out and self.stored not in spec.grid_kept:
            return None
        return spec.grid_rows.get(self.stored)

    def left_out(self, profile):
        if profile == OWN_PROFILE:
            return "the %s profile measures the table you brought (DSIB_DATASET) only" % OWN_PROFILE
        spec = get_profile(profile, self._data_dir())
        if self.rows(profile) is not None:
            return None
        if spec.grid_left_out:
            return "the %s profile leaves %s out of the grid: %s" % (profile, self.name, spec.grid_left_out)
        return "the %s profile leaves %s out" % (profile, self.name)

    @property
    def dataset(self):
        return get_dataset(self.stored)

    @property
    def partitions(self):
        return self.dataset.partitions


class OwnSource(Source):
    """A table a user brought (``python -m data_prep add``), measured whole, partition by partition,
    at the profile ``brought`` alone. Its frames are what the user's data is: a format that cannot
    give back one of its columns skips the cell, naming the column, where a built-in source's
    cell would fail."""

    own = True

    def __new__(cls, name, data_dir=None):
        return super(OwnSource, cls).__new__(cls, name, name, True, None, "your table %s" % name, data_dir=data_dir)

    def rows(self, profile):
        return None

    def left_out(self, profile):
        if profile != OWN_PROFILE:
            return "%s is your own table: it is measured at the %s profile (make bench DATASET=%s)" % (
                self.name,
                OWN_PROFILE,
                self.name,
            )
        return None

    @property
    def dataset(self):
        return _own_table(self.stored, self._data_dir())


@functools.lru_cache(maxsize=None)
def _own_table(name, data_dir):
    return open_table(name, data_dir, verify="sizes")[0]


BUILT_IN_SOURCES = OrderedDict(
    (s.name, s)
    for s in [
        Source(
            "nyc_taxi_month",
            "nyc_taxi",
            True,
            POST_2019_FORMATS,
            "one month of taxi trips at the profile's scale: the 2019 post's cases, libraries' defaults",
            library_defaults=True,
        ),
        Source("nyc_taxi", "nyc_taxi", False, None, "the first grid_rows taxi trips of each month: every format"),
        Source("tsbs_cpu", "tsbs_cpu", False, None, "TSBS cpu rows, as in the QuestDB ingestion study"),
        Source("rocklin", "rocklin", False, None, "Rocklin's text with 1,000 values, plus integers"),
    ]
)
BUILT_IN_GRID = ("nyc_taxi", "tsbs_cpu", "rocklin")
# Formats measured on some sources only: a study's own format, on that study's frame (the run's time budget:
# Rocklin's JSON without the index, a split orient's call with one argument more, on his frame).
FORMAT_SOURCES = {"json-split-noindex": ("rocklin",)}
# skip_reason's versions for a question about the suite alone: every package taken as installed.
ANY_VERSIONS = None


class Operation(
    namedtuple(
        "Operation",
        ["name", "sources", "writes", "from_bytes", "needs_text", "partitioned", "reader", "formats", "needs"],
    )
):
    """What a benchmark class does to a cell: the sources it runs on; ``writes``: it times the
    format's writer; ``from_bytes``: it reads bytes in memory; ``needs_text``: it converts text to
    categoricals; ``partitioned``: it reads every partition of the source in turn; ``reader``: the
    format's reader it times besides ``read`` (``columns``, ``batches``: ``dsib.registry.Format``);
    ``formats``: the formats it measures (None: every format); ``needs``: the libraries its own
    calls need beyond the format's (``dsib.registry.Needs``)."""

    def __new__(
        cls,
        name,
        sources,
        writes=False,
        from_bytes=False,
        needs_text=False,
        partitioned=False,
        reader=None,
        formats=None,
        needs=(),
    ):
        return super(Operation, cls).__new__(
            cls,
            name,
            tuple(sources),
            writes,
            from_bytes,
            needs_text,
            partitioned,
            reader,
            None if formats is None else tuple(formats),
            tuple(needs),
        )


# Why a format has no reader an operation times.
NO_READER = {
    "columns": "%s reads every column: it has no reader of some columns",
    "batches": "%s has no reader of batches of a size asked: it is read whole",
    "read_ahead": "%s has no reader that fetches ahead (pre_buffer is Parquet's)",
    "take": "%s has no reader of rows at positions asked: it is read whole",
}
# pyarrow's S3 client is in its wheels from 2.0 (0.17's has no compiled S3 support).
S3_CLIENT = Needs("pyarrow", "2.0", why="pyarrow.fs.S3FileSystem is in pyarrow's wheels from 2.0")
# The clients an object-store read goes through: pyarrow's S3 client, or fsspec's s3fs, the path
# pandas' storage_options takes; each with what it needs besides the format's libraries.
CLIENTS = OrderedDict([("pyarrow", ()), ("s3fs", (Needs("s3fs"),))])
CLIENT_PACKAGES = tuple(need.package for needs in CLIENTS.values() for need in needs)


def store_reader(columns, pre_buffer):
    """The format's reader an object-store cell times (``benchmarks.objectstore``): with pre_buffer
    on, the one that fetches ahead (of every column or three); else ``columns`` for three of them,
    ``read`` for all."""
    return "read_ahead" if pre_buffer == "on" else "columns" if columns == "three" else "read"


# The reads real work needs, on the first taxi grid (every format) and on a table you brought.
# A batch is a tenth of a file: a tenth of its rows, or of its bytes for a reader that counts bytes.
BATCHES_A_FILE = 10
BatchSize = namedtuple("BatchSize", ["rows", "bytes"])


def batch_size(rows, nbytes):
    return BatchSize(max(1, -(-rows // BATCHES_A_FILE)), max(1, -(-nbytes // BATCHES_A_FILE)))


# Random access: rows at random positions of a file, as a user fetches a sample or the rows an
# index points at. The positions are drawn once (numpy's legacy generator, the same in every
# release), ascending; a file of fewer rows gives half of its rows.
TAKE_ROWS = 1000
TAKE_SEED = 20161


def take_positions(rows):
    """The positions (ascending, 0-based) a random-access read of a file of ``rows`` rows fetches."""
    import numpy as np

    count = min(TAKE_ROWS, rows // 2)
    return np.sort(np.random.RandomState(TAKE_SEED).choice(rows, count, replace=False))


def projection(columns):
    """The columns a projection reads, of a variant's ``columns`` (in the file's order): the
    first two and the last, which in the taxi frame's str and cat variants is the text."""
    columns = list(columns)
    return columns if len(columns) <= 3 else columns[:2] + columns[-1:]


def _operations(grid, own):
    return OrderedDict(
        (o.name, o)
        for o in [
            Operation("read_from_bytes", ("nyc_taxi_month",), from_bytes=True),
            Operation("read_from_page_cache", grid),
            Operation("read_cold", grid),
            Operation("continuous_read", ("nyc_taxi",) + own, partitioned=True),
            # The post's six months, apart: their sampling is another (benchmarks.reads.ContinuousReadMonths).
            Operation("continuous_read_months", ("nyc_taxi_month",), partitioned=True),
            Operation("write_to_bytes", grid, writes=True),
            # The post's month, apart: its sampling is another (benchmarks.writes.WriteMonthToBytes).
            Operation("write_month_to_bytes", ("nyc_taxi_month",), writes=True),
            Operation("write_durable", grid, writes=True),
            Operation("sizes", ("nyc_taxi_month",) + grid),
            Operation("categorize_then_write", grid, writes=True, needs_text=True),
            Operation("read_columns", ("nyc_taxi",) + own, reader="columns"),
            Operation("iterate_batches", ("nyc_taxi",) + own, reader="batches"),
            Operation("continuous_read_in_batches", ("nyc_taxi_month",) + own, partitioned=True, reader="batches"),
            Operation("random_access", ("nyc_taxi",) + own, reader="take"),
            # The taxi frame's files in an object store: Parquet, Feather and CSV, as users keep them there.
            Operation(
                "read_from_object_store",
                ("nyc_taxi",),
                formats=("parquet", "feather", "csv"),
                needs=(S3_CLIENT,),
            ),
        ]
    )


# What the engines (dsib.engines) are measured on: the taxi frame and TSBS "cpu", the QuestDB
# study's data, and a table you brought.
ENGINE_SOURCES = ("nyc_taxi", "tsbs_cpu")


def _engine_operations(own):
    return OrderedDict(
        (o.name, o)
        for o in [
            Operation("ingest", ENGINE_SOURCES + own, writes=True),
            Operation("query", ENGINE_SOURCES + own),
        ]
    )


class Catalog(object):
    """The cells of a run: the built-in sources and the tables a user brought (``own``: names
    given to ``python -m data_prep add``), whose data is in ``data_dir`` (None: data_prep's
    default). Built from these inputs, it never changes: ``bringing`` makes another."""

    def __init__(self, own=(), data_dir=None):
        self.own, self.data_dir = tuple(own), data_dir
        sources = [source._replace(data_dir=data_dir) for source in BUILT_IN_SOURCES.values()]
        for name in self.own:
            if name in BUILT_IN_SOURCES:
                raise ValueError("%r is a built-in source's name, not a table you brought" % name)
            sources.append(OwnSource(name, data_dir))
        self.sources = OrderedDict((source.name, source) for source in sources)
        self.grid = BUILT_IN_GRID + self.own
        self.operations = _operations(self.grid, self.own)
        self.engine_operations = _engine_operations(self.own)

    def bringing(self, name):
        """This catalog with the table brought as ``name`` a source of the grid and of the engines."""
        return self if name in self.own else Catalog(self.own + (name,), self.data_dir)

    def engine_params(self, operation):
        """asv's ``params`` for an engine operation: its sources, every engine, the variants."""
        return [list(self.engine_operations[operation].sources), ENGINES.names(), list(VARIANTS)]

    def engine_measures(self, engine, source):
        """Whether ``engine`` is measured on ``source``: an engine measured on some built-in sources
        only (the run's budget: ``Engine.sources``) measures a table you brought."""
        return engine.sources is None or source in engine.sources + self.own

    def engine_skip_reason(self, operation, source, engine, variant, profile, versions):
        """``skip_reason`` for an engine's cell."""
        op, found = self.engine_operations[operation], ENGINES[engine]
        if source in op.sources and not self.engine_measures(found, source):
            return "%s is measured on %s only" % (found.label, ", ".join(found.sources))
        reason = _cell_reason(op, self.sources[source], found, variant, profile, versions)
        if reason:
            return reason
        if versions is not ANY_VERSIONS and self.sources[source].dataset.zoned(variant):
            reason = found.unavailable_for_zoned(versions)
            if reason:
                return reason
        if op.name == "query" and found.queried_as:
            return "%s's query is %s's: it is timed there" % (found.label, ENGINES[found.queried_as].label)
        return None

    def format_for(self, source, name):
        """The format ``name`` as the cells of ``source`` write and read it: with the options the
        grid states, or as its libraries' defaults make it where the source measures those."""
        fmt = FORMATS[name]
        return fmt.with_library_defaults() if self.sources[source].library_defaults else fmt

    def get_operation(self, name):
        return self.operations[name]

    def read_from_bytes(self, source):
        """Whether some case reads ``source``'s files from bytes in memory (the check must then
        read them that way too)."""
        return any(op.from_bytes and source in op.sources for op in self.operations.values())

    def params(self, operation, with_variant=True):
        """asv's ``params`` for an operation: its sources, the formats measured on them, the variants."""
        op = self.get_operation(operation)
        sources = [self.sources[name] for name in op.sources]
        formats = FORMATS.names()
        if all(s.formats is not None for s in sources):
            formats = [name for name in formats if any(name in s.formats for s in sources)]
        if op.formats is not None:
            formats = [name for name in formats if name in op.formats]
        if op.reader:  # a format without the reader has no cell to skip: it is not a parameter
            formats = [name for name in formats if getattr(FORMATS[name], op.reader) is not None]
        axes = [[s.name for s in sources], formats]
        return axes + [list(VARIANTS)] if with_variant else axes

    def skip_reason(self, operation, source, fmt, variant, profile, versions):
        """Why the cell cannot make sense, or is left out, with these package ``versions``; None
        when it runs. Cases that only the running machine can decide (whether a file can be
        evicted) are not here: they skip at run time with their reason. With ``ANY_VERSIONS``,
        only the suite's own reasons: whether the cell runs where every package is installed."""
        op, src, fmt = self.get_operation(operation), self.sources[source], FORMATS[fmt]
        reason = _cell_reason(op, src, fmt, variant, profile, versions)
        if reason:
            return reason
        if op.formats is not None and fmt.name not in op.formats:
            return "%s is measured in %s only" % (op.name, ", ".join(op.formats))
        for need in op.needs if versions is not ANY_VERSIONS else ():
            reason = need.unmet(versions)
            if reason:
                return reason
        if fmt.name in FORMAT_SOURCES and source not in FORMAT_SOURCES[fmt.name]:
            return "%s is measured on %s only: it is that study's format" % (
                fmt.label,
                ", ".join(FORMAT_SOURCES[fmt.name]),
            )
        if op.writes and not fmt.writes:
            return "%s writes with another format's writer: its writes are timed there" % fmt.label
        if op.from_bytes and not fmt.reads_bytes:
            return "%s reads a file by its path, not bytes in memory" % fmt.label
        if op.needs_text and not src.dataset.categorizable():
            return "%s's str and cat variants hold different text" % source
        if op.reader:
            return _reader_reason(fmt, op.reader, versions)
        return None

    def cell_skip_reason(self, operation, given, profile, versions, variant="plain"):
        """``skip_reason`` or ``engine_skip_reason`` of a cell given as {parameter name: value},
        with ``variant`` where the cell has none."""
        variant = given.get("variant", variant)
        if "engine" in given:
            return self.engine_skip_reason(operation, given["source"], given["engine"], variant, profile, versions)
        reason = self.skip_reason(operation, given["source"], given["format"], variant, profile, versions)
        if reason is None and "pre_buffer" in given:  # an object store's read: the reader its axes pick
            name = store_reader(given["columns"], given["pre_buffer"])
            if name != "read":
                reason = _reader_reason(FORMATS[given["format"]], name, versions)
        if reason is None and versions is not ANY_VERSIONS:
            for need in CLIENTS.get(given.get("client"), ()):
                if need.unmet(versions):
                    return "the %s client: %s" % (given["client"], need.unmet(versions))
        return reason


# The catalog of the built-in sources, in data_prep's default data directory.
BUILT_IN = Catalog()


def _reader_reason(fmt, name, versions):
    """Why ``fmt`` cannot be read by its reader ``name`` (``columns``, ``batches``, ...) with
    ``versions``, or None."""
    reader = getattr(fmt, name)
    if reader is None:
        return NO_READER[name] % fmt.label
    reason = reader.unavailable(versions) if versions is not ANY_VERSIONS else None
    return "%s: %s" % (fmt.label, reason) if reason else None


def _cell_reason(op, src, registered, variant, profile, versions):
    """What formats and engines share: the source, its scale, its variants, the libraries."""
    if src.name not in op.sources:
        return "%s is not measured on %s" % (op.name, src.name)
    if src.formats is not None and registered.name not in src.formats:
        return "%s is measured in the 2019 post's formats (%s) only" % (src.name, ", ".join(src.formats))
    left_out = src.left_out(profile)
    if left_out:
        return left_out
    if variant not in src.dataset.variants:
        return "%s has no %s variant" % (src.name, variant)
    reason = registered.unavailable(versions) if versions is not ANY_VERSIONS else None
    if reason:
        return reason
    if variant not in registered.variants:
        return "%s cannot hold the %r variant (it holds %s)" % (
            registered.label,
            variant,
            ", ".join(registered.variants),
        )
    return None


def catalog_of(sources, data_dir=None):
    """The catalog that holds ``sources``: the built-in ones, and under any other name the table a
    user brought as that name (in ``data_dir``; None: data_prep's default). One catalog for each
    set of tables: the reports ask a cell at a time."""
    own = tuple(OrderedDict.fromkeys(name for name in sources if name not in BUILT_IN_SOURCES))
    return BUILT_IN if not own and data_dir is None else _catalog(own, data_dir)


@functools.lru_cache(maxsize=None)
def _catalog(own, data_dir):
    return Catalog(own, data_dir)
