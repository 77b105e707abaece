"""Reads: from bytes in memory, from the page cache, cold, and every partition in turn.

Every file is written by the environment's own writer and read back once, against the frame that
was written, before any case times it (``dsib.cells``): a case whose check failed fails, a
format missing from the environment skips.
"""

import gc
import os
import time

from dsib import pagecache
from dsib.formats import FORMATS

from . import (
    CATALOG,
    CELLS,
    PARAM_NAMES,
    SAMPLES,
    TRACE,
    VERSIONS,
    Case,
    build_every_cell,
    build_files,
    first_call,
    hints,
    loads_once,
    ready,
    series,
    trace,
    warm,
)


def tracing():
    """Whether the untimed steps are traced (``DSIB_TRACE`` names a file: the tests)."""
    return bool(TRACE)


class ReadFromBytes(Case):
    """The 2019 post's read (cases 1a-1c): one month, from bytes already in memory, so the disk
    is out of the figure, after one untimed full read (``first_call``). Target: Parquet at least
    10x faster than CSV for every variant (the post: 14-38x). Sampling (the run's time budget): a
    Parquet month (~0.1 s) gets ten samples, a CSV month (~0.7 s) three, in one round."""

    version = series(2)
    operation = "read_from_bytes"
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1
    repeat = (SAMPLES, 10, 2.0)

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation))

    @loads_once
    def setup(self, source, format, variant):
        self.fmt = ready(self.operation, source, format, variant)
        self.hints = hints(source, variant)
        with open(CELLS.checked_file(source, self.fmt, variant)["path"], "rb") as f:
            self.payload = f.read()
        first_call(self, self.fmt, self.payload, self.hints, (source, format, variant))

    def time_read(self, source, format, variant):
        self.fmt.read(self.payload, **self.hints)


class ReadFromPageCache(Case):
    """The file, its pages in the page cache, read by the format's reader from its path: the warm
    twin of ``ReadCold``, after the same untimed full read (``first_call``). ``peakmem_read`` is
    the process's peak RSS (interpreter and libraries included: ``ProcessBaseline``): the frame
    made, and the input's bytes too where the reader maps the file (mapped pages are RSS:
    ``arrow-file-mmap``, and old pyarrow's IPC file reader given a path)."""

    version = series(3)
    operation = "read_from_page_cache"
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation))

    @loads_once
    def setup(self, source, format, variant):
        self.fmt = ready(self.operation, source, format, variant)
        self.hints = hints(source, variant)
        self.path = CELLS.checked_file(source, self.fmt, variant)["path"]
        warm(self.path)
        first_call(self, self.fmt, self.path, self.hints, (source, format, variant))

    def time_read(self, source, format, variant):
        self.fmt.read(self.path, **self.hints)

    def peakmem_read(self, source, format, variant):
        self.fmt.read(self.path, **self.hints)


class _Cold(Case):
    """What the cold cases share: their cells (those of ``read_cold``), one load a process with
    the warm case's untimed full read (``first_call``), and the eviction, shown by mincore."""

    operation = "read_cold"
    measures = Case.measures + ("dsib.pagecache",)
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation))

    @loads_once
    def load(self, source, format, variant):
        self.fmt = ready(self.operation, source, format, variant)
        self.hints = hints(source, variant)
        self.path = CELLS.checked_file(source, self.fmt, variant)["path"]
        pagecache.require_eviction(CELLS.cache_dir)
        first_call(self, self.fmt, self.path, self.hints, (source, format, variant))
        # What the process holds now (the forkserver's imports: 0.1 s a collection) stays out of
        # the collection before each eviction, which need only find what a read left.
        gc.freeze()

    def evict(self, cell):
        """The file out of the page cache, shown by mincore; no frame of a read before keeps a
        mapped file's pages."""
        gc.collect()
        trace(self, "evicted", cell, resident=pagecache.evict_and_verify(self.path))


class ReadCold(_Cold):
    """The same reader on the same file as ``ReadFromPageCache``, with none of the file in this
    kernel's page cache: evicted (fsync + POSIX_FADV_DONTNEED) before every sample and shown by
    mincore to be out. Where that cannot be shown (a filesystem that caches elsewhere, tmpfs), the
    case skips with the reason, never reported warm. Three samples in one process, as its warm
    twin takes, so that a profile run in one round (``full``) still has three.

    Before the first eviction, the process makes the warm case's untimed full read
    (``first_call``), so that no sample pays first-call costs the warm one does not. What a
    cold sample reads comes from the device behind the page cache, which on a virtual machine may
    be the host's memory: ``DeviceThroughput`` measures it, ``ColdMinusWarm`` the difference."""

    version = series(3)
    repeat = SAMPLES

    def setup(self, source, format, variant):
        self.load(source, format, variant)
        self.evict((source, format, variant))  # asv runs setup before every sample

    def time_read(self, source, format, variant):
        self.fmt.read(self.path, **self.hints)


# The pairs ColdMinusWarm takes in its process: at least PAIRS[0], then more while PAIRS[2] seconds
# last, PAIRS[1] at most (as asv's repeat does with samples).
PAIRS = (5, 10, 4.0)


class ColdMinusWarm(_Cold):
    """Cold minus warm, with its spread: in one process, after the untimed first call, pairs of a
    cold read (the file evicted and shown out by mincore) and a warm one (the file read with
    ``read()`` and shown resident), alternately, each pair's cold seconds minus its warm seconds a
    sample. Both reads are timed as asv times ``time_read`` (one call, the collector off, the frame
    dropped inside the timing).

    Taken apart, in two processes of their own, the cold and warm figures differ by the
    processes' luck as well as the I/O (a process's memory layout and neighbours move a read by
    10-40 %); paired in one process, that luck is common to both sides and the difference's
    spread is the pairs'. asv times one call a sample and cannot subtract, so this is a ``track_``
    whose value is every pair's difference as asv's own sampled result (``{"samples", "number"}``,
    which asv's runner reads from any benchmark): asv then keeps the median, its interquartile
    range and the samples, as it does for a time. A negative difference is a cold read faster
    than the warm one: the device answered from a cache of its own (a virtual disk's host)."""

    version = series(1)
    unit = "seconds"
    pairs = PAIRS

    def setup(self, source, format, variant):
        self.load(source, format, variant)

    def _timed_read(self):
        enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter()
            self.fmt.read(self.path, **self.hints)
            return time.perf_counter() - start
        finally:
            if enabled:
                gc.enable()

    def track_cold_minus_warm(self, source, format, variant):
        low, high, seconds = self.pairs
        cell = (source, format, variant)
        differences = []
        began = time.perf_counter()
        while len(differences) < high and (len(differences) < low or time.perf_counter() - began < seconds):
            self.evict(cell)
            cold = self._timed_read()
            warm(self.path)
            if tracing():
                trace(self, "warmed", cell, resident=pagecache.resident_fraction(self.path))
            differences.append(cold - self._timed_read())
        return {"samples": differences, "number": 1}


class DeviceThroughput(Case):
    """What the block device behind the cell cache delivers past the page cache, in MB/s (10^6
    bytes a second): a 256 MiB file written with ``O_DIRECT`` and fsynced, and read back with
    ``O_DIRECT``, one 8 MiB request at a time, three passes each, their MB/s as asv's samples.
    Once a run, whatever the profile: the figure to set the cold reads and durable writes against.
    On a virtual machine the device is the host's virtual disk, which may answer from the host's
    memory (the file was just written). It is not a ceiling for a cold read: the kernel's
    readahead keeps more than one request in flight. Skips where O_DIRECT is refused, or where the
    cache keeps files only in memory (tmpfs)."""

    version = series(1)
    measures = Case.measures + ("dsib.pagecache",)
    params, param_names = [], []  # one cell: the machine's
    rounds = 1
    unit = "MB/s"
    passes = SAMPLES

    def setup(self):
        self.directory = CELLS.scratch("direct-")
        pagecache.require_direct_io(self.directory)
        self.path = os.path.join(self.directory, "device")

    def teardown(self):
        if os.path.exists(getattr(self, "path", "")):
            os.remove(self.path)

    def _mb_per_second(self, seconds):
        return pagecache.DIRECT_BYTES / seconds / 1e6

    def track_direct_write(self):
        samples = []
        for _ in range(self.passes):
            if os.path.exists(self.path):
                os.remove(self.path)
            samples.append(self._mb_per_second(pagecache.direct_write(self.path)))
        return {"samples": samples, "number": 1}

    def track_direct_read(self):
        pagecache.direct_write(self.path)
        samples = [self._mb_per_second(pagecache.direct_read(self.path)) for _ in range(self.passes)]
        return {"samples": samples, "number": 1}


class _Continuous(Case):
    """Every partition of the source read one after another from files in the page cache, each
    frame dropped before the next, as an online learner would.

    Target: the peak memory of the whole pass stays at that of its first partition read alone
    (``peakmem_first_partition``), not six partitions' frames. Both follow one untimed full read
    of the first partition (``first_call``), so the pass holds six steady reads."""

    @loads_once
    def setup(self, source, format):
        self.fmt = ready(self.operation, source, format)
        self.hints = hints(source, "plain")
        self.paths = [CELLS.checked_file(source, self.fmt, "plain", p)["path"] for p in CELLS.partitions(source)]
        for path in self.paths:
            warm(path)
        first_call(self, self.fmt, self.paths[0], self.hints, (source, format))

    def _read_all(self):
        for path in self.paths:
            result = self.fmt.read(path, **self.hints)
            del result  # an online learner would update its model here

    def time_read(self, source, format):
        self._read_all()

    def peakmem_read(self, source, format):
        self._read_all()

    def peakmem_first_partition(self, source, format):
        self.fmt.read(self.paths[0], **self.hints)


class ContinuousRead(_Continuous):
    """Every format, on the first grid_rows rows of each of the six taxi months."""

    version = series(3)
    operation = "continuous_read"
    params, param_names = CATALOG.params(operation, with_variant=False), ["source", "format"]
    rounds = 1
    repeat = (SAMPLES, 5, 2.0)

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation, partitioned=True))


class ContinuousReadMonths(_Continuous):
    """The 2019 post's case 2: the six whole months, Parquet and CSV. Its own class for its
    sampling (the run's time budget): six Parquet months (~0.5 s a pass) get ten samples, six CSV
    months (~4 s a pass) two, in one round."""

    version = series(2)
    operation = "continuous_read_months"
    params, param_names = CATALOG.params(operation, with_variant=False), ["source", "format"]
    rounds = 1
    repeat = (1, 10, 6.0)

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation, partitioned=True))


class ProcessBaseline(Case):
    """A case's process after its format was warmed up, reading nothing: what every ``peakmem_``
    includes besides its case (the interpreter, the libraries, the forkserver's imports)."""

    version = series(1)
    params, param_names = [FORMATS.names()], ["format"]

    @loads_once
    def setup(self, format):
        fmt = FORMATS[format]
        reason = fmt.unavailable(VERSIONS)
        if reason:
            raise NotImplementedError(reason)
        fmt.warm_up()

    def peakmem_baseline(self, format):
        pass
