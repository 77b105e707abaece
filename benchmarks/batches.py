"""The reads real work needs: a few columns of a file, a file in batches, more data than a
memory budget, batch by batch (the ParaText study's load, sum and copy on each batch), and rows at
random positions of a file.

Each reader is checked once per cell before any case runs (``Cells.checked_reader``, in
``setup_cache``: ``build_every_cell``): the projection against those columns of the frame, the
batches put together against the whole frame. A case's own process then holds no frame but what
it reads, so its peak memory is the reader's.
"""

from dsib import catalog
from dsib.roundtrip import hints_for

from . import (
    CATALOG,
    CELLS,
    PARAM_NAMES,
    SAMPLES,
    Case,
    build_every_cell,
    build_files,
    hints,
    loads_once,
    ready,
    series,
    untimed_call,
    warm,
)


def ready_reader(operation, source, format, variant, partition=None):
    """In ``setup``: the format and its checked reader's outcome (``path``, ``columns``, ``size``)."""
    fmt = ready(operation, source, format, variant)
    return fmt, CELLS.checked_reader(source, fmt, variant, CATALOG.get_operation(operation).reader, partition)


def each_batch(batches, task=None):
    """``task`` on each batch, which is dropped before the reader makes the next: one batch at a
    time is what the pass may hold."""
    for frame in batches:
        if task is not None:
            task(frame)
        del frame


def summed(frame):
    """The ParaText "sum" task: every numeric column summed."""
    return frame.sum(numeric_only=True)


def copied(frame):
    """The ParaText "copy" task: a new frame of the batch's own data."""
    return frame.copy(deep=True)


def both_tasks(frame):
    return summed(frame), copied(frame)


class ReadColumns(Case):
    """Three of the columns (``catalog.projection``: the first two and the last, the text in the str
    and cat variants) from the file in the page cache, by the format's own selection of columns.
    Parquet, fastparquet, Feather and ORC read those columns' data only; CSV (``usecols``,
    pyarrow's ``include_columns``) still reads and splits every line, converting those columns
    only; HDF5 ``table`` reads whole rows (a row holds every column) and keeps those. Target: a
    fraction of ``ReadFromPageCache`` of the same cell, in time and in peak memory above the
    process (``ProcessBaseline``): 3 of 19-20 columns."""

    version = series(2)
    operation = "read_columns"
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation))

    @loads_once
    def setup(self, source, format, variant):
        self.fmt, checked = ready_reader(self.operation, source, format, variant)
        self.path, self.names = checked["path"], checked["columns"]
        self.hints = hints_for(hints(source, variant), self.names)
        warm(self.path)
        untimed_call(self, (source, format, variant), self._read, format=format)

    def _read(self):
        return self.fmt.columns(self.path, self.names, **self.hints)

    def time_read(self, source, format, variant):
        self._read()

    def peakmem_read(self, source, format, variant):
        self._read()


class IterateBatches(Case):
    """The file in the page cache, a tenth at a time (``catalog.BATCHES_A_FILE``: a tenth of its
    rows, or of its bytes for pyarrow.csv's streaming reader), each batch a frame: alone
    (``time_iterate``), then with the ParaText tasks on each batch, every numeric column summed
    (``time_sum``) and a copy into a new frame (``time_copy``).

    Target: ``peakmem_iterate`` above the process (``ProcessBaseline``) bounded by one batch and
    the reader's buffers: below ``ReadFromPageCache.peakmem_read`` of the same cell. Parquet and
    Arrow IPC read files written in row groups or record batches of a batch (``Reader.writes``):
    as the formats' writers make them, a grid file is one piece."""

    version = series(2)
    operation = "iterate_batches"
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation))

    @loads_once
    def setup(self, source, format, variant):
        self.fmt, checked = ready_reader(self.operation, source, format, variant)
        self.path, self.size = checked["path"], checked["size"]
        self.hints = hints(source, variant)
        warm(self.path)
        # One pass with both tasks: whichever of the three the process times, its code has run.
        untimed_call(self, (source, format, variant), lambda: each_batch(self._batches(), both_tasks), format=format)

    def _batches(self):
        return self.fmt.batches(self.path, self.size, **self.hints)

    def time_iterate(self, source, format, variant):
        each_batch(self._batches())

    def time_sum(self, source, format, variant):
        each_batch(self._batches(), summed)

    def time_copy(self, source, format, variant):
        each_batch(self._batches(), copied)

    def peakmem_iterate(self, source, format, variant):
        each_batch(self._batches())


class RandomAccess(Case):
    """``catalog.TAKE_ROWS`` rows at random positions of the file in the page cache
    (``catalog.take_positions``: seeded, ascending), fetched into a frame by the format's reader of
    rows: Parquet reads the row groups that hold them (the footer's row counts say which), in row
    groups of a tenth of the file; Feather and the Arrow IPC file through a memory map (Feather's
    lz4 decompressed whole first); NumPy .npy memory-mapped; HDF5 ``table`` by PyTables'
    coordinates. The frame holds those rows in order, checked once against them.

    Target: a fraction of ``ReadFromPageCache`` of the same cell where the format reads only the
    rows' pages (the uncompressed map, .npy, HDF5); about the whole read where it cannot skip what
    the rows sit in (lz4 buffers, row groups that each hold some of them)."""

    version = series(1)
    operation = "random_access"
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation))

    @loads_once
    def setup(self, source, format, variant):
        self.fmt, checked = ready_reader(self.operation, source, format, variant)
        self.path, self.positions = checked["path"], catalog.take_positions(checked["rows"])
        self.hints = hints(source, variant)
        warm(self.path)
        untimed_call(self, (source, format, variant), self._take, format=format)

    def _take(self):
        return self.fmt.take(self.path, self.positions, **self.hints)

    def time_take(self, source, format, variant):
        self._take()

    def peakmem_take(self, source, format, variant):
        self._take()


# The memory a continuous read in batches may take above the process, and the data it reads:
# the six months at ``default`` are 830 MiB of plain frames, 3.2x the budget.
MEMORY_BUDGET = 256 << 20


class ContinuousReadInBatches(Case):
    """The 2019 post's six months (or every partition of a table you brought), each file in
    batches of a tenth, every numeric column of each batch summed, and nothing kept: a pass over
    more data than ``MEMORY_BUDGET``.

    Target: ``peakmem_read`` at most ``ProcessBaseline`` + ``MEMORY_BUDGET`` at ``default``, where the
    frames of the six months are 3.2x that budget; no more than the first month alone
    (``ContinuousReadMonths.peakmem_first_partition`` reads it whole)."""

    version = series(2)
    operation = "continuous_read_in_batches"
    params, param_names = CATALOG.params(operation, with_variant=False), ["source", "format"]
    rounds = 1
    repeat = (1, 3, 12.0)

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation, partitioned=True))

    @loads_once
    def setup(self, source, format):
        self.fmt = ready(self.operation, source, format)  # first: a skipped source has no partitions here
        reader = CATALOG.get_operation(self.operation).reader
        self.files = []
        for partition in CELLS.partitions(source):
            checked = CELLS.checked_reader(source, self.fmt, "plain", reader, partition)
            self.files.append((checked["path"], checked["size"]))
            warm(checked["path"])
        self.hints = hints(source, "plain")
        # The first partition, as the continuous reads warm up (``reads._Continuous``).
        path, size = self.files[0]
        untimed_call(
            self,
            (source, format),
            lambda: each_batch(self.fmt.batches(path, size, **self.hints), summed),
            format=format,
        )

    def _read_all(self):
        for path, size in self.files:
            each_batch(self.fmt.batches(path, size, **self.hints), summed)

    def time_read(self, source, format):
        self._read_all()

    def peakmem_read(self, source, format):
        self._read_all()
