"""Reads: from bytes in memory, from the page cache, cold, and every partition in turn.

Every file is written by the environment's own writer and read back once, against the frame that
was written, before any case times it (``dsib.cells``): a case whose check failed fails, a
format missing from the environment skips.
"""

import gc
import json
import os

from dsib import catalog, pagecache
from dsib.formats import FORMATS

from . import (
    CELLS,
    PARAM_NAMES,
    SAMPLES,
    VERSIONS,
    Case,
    build_every_cell,
    build_files,
    hints,
    loads_once,
    ready,
    series,
    warm,
)


def trace(case, event, cell, **fields):
    """Where ``DSIB_TRACE`` names a file (the tests), one JSON line of an untimed step of a case's
    setup, with the process's id, appended to it."""
    where = os.environ.get("DSIB_TRACE")
    if where:
        fields.update(case=type(case).__name__, event=event, cell=list(cell), pid=os.getpid())
        with open(where, "a") as f:
            f.write(json.dumps(fields, sort_keys=True) + "\n")


def first_call(case, fmt, source, hints, cell):
    """In ``setup``: one full read, untimed, its result dropped, so that the samples pay none of a
    process's first-call costs (a memory pool growing, pages of the libraries faulted in,
    per-schema set-up); a warm and a cold case of a cell make the same one."""
    result = fmt.read(source, **hints)
    trace(
        case,
        "first call",
        cell,
        format=fmt.name,
        rows=len(result),
        hints=dict((k, list(v)) for k, v in hints.items()),
        source=source if not isinstance(source, bytes) else "%d bytes" % len(source),
    )
    del result
    gc.collect()  # nothing of it left holding pages of the file (a memory map) or the pool


class ReadFromBytes(Case):
    """The 2019 post's read (cases 1a-1c): one month, from bytes already in memory, so the disk
    is out of the figure, after one untimed full read (``first_call``). Target: Parquet at least
    10x faster than CSV for every variant (the post: 14-38x). Sampling (issue 32's budget): a
    Parquet month (~0.1 s) gets ten samples, a CSV month (~0.7 s) three, in one round."""

    version = series(2)
    operation = "read_from_bytes"
    params, param_names = catalog.params(operation), PARAM_NAMES
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

    version = series(2)
    operation = "read_from_page_cache"
    params, param_names = catalog.params(operation), PARAM_NAMES
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


class ReadCold(Case):
    """The same reader on the same file as ``ReadFromPageCache``, with none of the file in this
    kernel's page cache: evicted (fsync + POSIX_FADV_DONTNEED) before every sample and shown by
    mincore to be out. Where that cannot be shown (a filesystem that caches elsewhere, tmpfs), the
    case skips with the reason, never reported warm. Three samples in one process, as its warm
    twin takes, so that a profile run in one round (``full``) still has three.

    Before the first eviction, the process makes the warm case's untimed full read
    (``first_call``), so that no sample pays first-call costs the warm one does not. What a
    cold sample reads comes from the device behind the page cache, which on a virtual machine may
    be the host's memory: ``DeviceThroughput`` measures it, ``ColdMinusWarm`` the difference."""

    version = series(2)
    operation = "read_cold"
    measures = Case.measures + ("dsib.pagecache",)
    params, param_names = catalog.params(operation), PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation))

    def setup(self, source, format, variant):
        cell = (source, format, variant)
        if getattr(self, "_loaded_for", None) != cell:
            self.fmt = ready(self.operation, source, format, variant)
            self.hints = hints(source, variant)
            self.path = CELLS.checked_file(source, self.fmt, variant)["path"]
            pagecache.require_eviction(CELLS.cache_dir)
            first_call(self, self.fmt, self.path, self.hints, cell)
            gc.freeze()  # what the process holds now stays out of every collection below
            self._loaded_for = cell
        # asv runs setup before every sample: each one starts from an evicted file. The frame
        # of the sample before is gone (nothing of a mapped file may stay mapped).
        gc.collect()
        left = pagecache.evict_and_verify(self.path)
        trace(self, "evicted", cell, resident=left)

    def time_read(self, source, format, variant):
        self.fmt.read(self.path, **self.hints)


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

    version = series(2)
    operation = "continuous_read"
    params, param_names = catalog.params(operation, with_variant=False), ["source", "format"]
    rounds = 1
    repeat = (SAMPLES, 5, 2.0)

    def setup_cache(self):
        build_every_cell(type(self), build_files(self.operation, partitioned=True))


class ContinuousReadMonths(_Continuous):
    """The 2019 post's case 2: the six whole months, Parquet and CSV. Its own class for its
    sampling (issue 32's budget): six Parquet months (~0.5 s a pass) get ten samples, six CSV
    months (~4 s a pass) two, in one round."""

    version = series(2)
    operation = "continuous_read_months"
    params, param_names = catalog.params(operation, with_variant=False), ["source", "format"]
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
