"""Writes: into memory at two scales, durably to a file, and Rocklin's categorize-then-write.

Each case starts from the frame of its cell, as the store makes it (``dsib.cells`` keeps it
pickled, so a case's setup loads it instead of deriving its variant again).
"""

import os

from dsib import pagecache

from . import CATALOG, CELLS, PARAM_NAMES, SAMPLES, Case, loads_once, ready, series, untimed_call


class _Write(Case):
    """A write into memory, after one untimed full write (``untimed_call``) in the case's process."""

    @loads_once
    def setup(self, source, format, variant):
        self.write = ready(self.operation, source, format, variant).write
        self.frame = CELLS.frame(source, variant)
        untimed_call(self, (source, format, variant), lambda: self.write(self.frame), format=format)

    def time_write(self, source, format, variant):
        self.write(self.frame)


class WriteToBytes(_Write):
    """Every format serialising a frame of grid_rows rows into bytes in memory (no disk)."""

    version = series(2)
    operation = "write_to_bytes"
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    def peakmem_write(self, source, format, variant):
        self.write(self.frame)


class WriteMonthToBytes(_Write):
    """The 2019 post's write (cases 3a-3c): one month serialised into bytes in memory. Its own
    class for its sampling: a CSV month takes ~10 s a sample, a Parquet month ~0.5 s, and both
    keep the samples the post's cases had (up to ten, within 20 s)."""

    version = series(2)
    operation = "write_month_to_bytes"
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1
    repeat = (1, 10, 20.0)


class WriteDurable(Case):
    """Serialise, write the file and fsync it (and its directory), timed together: the data is on
    stable storage when the call returns, not just in the page cache. The file goes into the
    cell cache (``CELLS.cache_dir``: a directory of this process's own in it, ``Cells.scratch``),
    whose filesystem the cold reads check too, not asv's working directory under ``$TMPDIR``;
    where that filesystem keeps files only in memory (tmpfs), fsync reaches no device and the
    case skips, saying so (``pagecache.require_durable``)."""

    version = series(3)
    operation = "write_durable"
    measures = Case.measures + ("dsib.pagecache",)
    params, param_names = CATALOG.params(operation), PARAM_NAMES
    rounds = 1
    repeat = SAMPLES

    @loads_once
    def setup(self, source, format, variant):
        self.write = ready(self.operation, source, format, variant).write
        directory = CELLS.scratch("durable-")
        pagecache.require_durable(directory)
        self.path = os.path.join(directory, "%s-%s-%s" % (source, format, variant))
        self.frame = CELLS.frame(source, variant)
        untimed_call(self, (source, format, variant), self._write_durably, format=format)
        os.remove(self.path)

    def _write_durably(self):
        pagecache.write_to_disk(self.path, self.write(self.frame))

    def teardown(self, *params):
        if os.path.exists(getattr(self, "path", "")):
            os.remove(self.path)

    def time_write(self, source, format, variant):
        self._write_durably()


class CategorizeThenWrite(Case):
    """Rocklin: converting text to categoricals and then serialising can beat serialising the
    text. Against ``WriteToBytes.time_write`` of the ``str`` variant (the raw text); the writer
    is the ``cat`` variant's."""

    version = series(2)
    operation = "categorize_then_write"
    params, param_names = CATALOG.params(operation, with_variant=False), ["source", "format"]
    rounds = 1
    repeat = SAMPLES

    @loads_once
    def setup(self, source, format):
        self.write = ready(self.operation, source, format, "cat").write
        self.frame = CELLS.frame(source, "str")
        self.categories = dict((name, "category") for name in CATALOG.sources[source].dataset.categorizable())
        untimed_call(self, (source, format), lambda: self.time_write(source, format), format=format)

    def time_write(self, source, format):
        return self.write(self.frame.astype(self.categories))
