"""Every format x dataset x string variant, with every metric.

Scale: the profile's ``grid_rows`` (a prefix of the first partition; at
``default`` 100,000 taxi and TSBS rows and Rocklin's 1,000,000), so that the
whole default run fits 20 minutes on 2 cores. The 2019 post's own
cases keep their scale in ``file_formats``.

Metrics, per case:

- ``Read.time_read``: warm, from bytes already in memory (the disk is out of the figure).
- ``ReadPeakMemory.peakmem_read``: peak RSS of the benchmark process while reading the
  file from the page cache. It includes the interpreter and the libraries that asv's
  forkserver had loaded (see ``ReadPeakMemory.peakmem_baseline``), not the input bytes.
- ``ColdRead.time_cold_read``: from a file whose pages were evicted (fsync +
  POSIX_FADV_DONTNEED) and shown by mincore to be out of the page cache; where that
  cannot be shown, the case is skipped, never reported warm.
- ``Sizes.track_file_size`` and ``Sizes.track_frame_size``: bytes on disk and in memory;
  the report divides frame size by time for throughput.
- ``Write.time_write`` (into memory), ``Write.peakmem_write``, and
  ``Write.time_write_to_disk`` (serialise, write the file and fsync it, timed together).
- ``ContinuousRead``: the six taxi months (``grid_rows`` each) read one after another.
- ``CategorizeThenWrite``: Rocklin's "convert to categorical, then serialise", against
  ``Write.time_write`` of the ``str`` variant ("serialise the raw text").

Every file is written in ``setup_cache`` by the environment's own writer and read
back once against the frame that was written; a mismatch fails the case.
"""
import os
import pickle

from data_prep import DATASETS, VARIANTS, frame_nbytes, get_dataset, load_frame
from dsib import pagecache
from dsib.formats import FORMATS
from dsib.roundtrip import raise_for_outcome, write_and_check, write_and_check_series

from . import (FULL_SCALE_TIMEOUT, cache_path, grid_rows, keep_across_rounds, only_inside_grid, open_store,
               outside_grid, ready, version_by_code_and_scale)

DATASET_NAMES = sorted(DATASETS)
FORMAT_NAMES = list(FORMATS)


def _grid_frames(dataset):
    """(variant, frame) for every variant of ``dataset``, from a store verified once."""
    store = open_store(dataset)
    for variant in get_dataset(dataset).variants:
        yield variant, load_frame(None, variant, store=store, dataset=dataset, rows=grid_rows(dataset))


def _hints(dataset, variant):
    return get_dataset(dataset).read_hints(variant)


def _unusable(reason):
    return {"path": None, "skip": reason, "error": None, "losses": [], "bytes": None}


class _Grid(object):
    params = [DATASET_NAMES, FORMAT_NAMES, list(VARIANTS)]
    param_names = ["dataset", "format", "variant"]
    # One call per sample, a few samples where they are cheap; formats are warmed up in setup.
    number = 1
    rounds = 1
    repeat = (1, 5, 2.0)
    warmup_time = 0
    timeout = FULL_SCALE_TIMEOUT


class _Files(_Grid):
    """One ``setup_cache`` shared by the read classes: asv keys it by this method's location."""

    def setup_cache(self):
        outcomes = {}
        for dataset in DATASET_NAMES:
            spec, left_out = get_dataset(dataset), outside_grid(dataset)
            if left_out:
                outcomes.update(((dataset, name, variant), _unusable(left_out))
                                for name in FORMAT_NAMES for variant in VARIANTS)
                continue
            for variant in VARIANTS:
                if variant not in spec.variants:
                    for name in FORMAT_NAMES:
                        outcomes[(dataset, name, variant)] = _unusable("%s has no %s variant" % (dataset, variant))
            for variant, frame in _grid_frames(dataset):
                frame_bytes = frame_nbytes(frame)
                for fmt in FORMATS.values():
                    if variant in fmt.variants:
                        path = cache_path("grid", dataset, fmt.name, variant) + fmt.suffix
                        outcome = write_and_check(fmt, frame, spec.read_hints(variant), path)
                    else:
                        outcome = _unusable("%s cannot hold the %r variant" % (fmt.label, variant))
                    outcome["frame_bytes"] = frame_bytes
                    outcomes[(dataset, fmt.name, variant)] = outcome
        return outcomes

    setup_cache.timeout = FULL_SCALE_TIMEOUT

    def _prepare(self, outcomes, dataset, format, variant):
        outcome = outcomes[(dataset, format, variant)]
        raise_for_outcome(outcome)
        self.fmt = ready(format)
        self.hints = _hints(dataset, variant)
        self.path = outcome["path"]
        return outcome


class Read(_Files):
    repeat = (1, 3, 1.0)

    def setup(self, outcomes, dataset, format, variant):
        self._prepare(outcomes, dataset, format, variant)
        with open(self.path, "rb") as f:
            self.payload = f.read()

    def time_read(self, outcomes, dataset, format, variant):
        self.fmt.read(self.payload, **self.hints)


class ReadPeakMemory(_Files):
    def setup(self, outcomes, dataset, format, variant):
        self._prepare(outcomes, dataset, format, variant)

    def peakmem_read(self, outcomes, dataset, format, variant):
        self.fmt.read(self.path, **self.hints)

    def peakmem_baseline(self, outcomes, dataset, format, variant):
        """The same process reading nothing: what every ``peakmem_read`` includes besides the read."""


class ColdRead(_Files):
    # One sample per case: setup evicts the file, and a second sample in the process would be warm.
    repeat = 1

    def setup(self, outcomes, dataset, format, variant):
        self._prepare(outcomes, dataset, format, variant)
        pagecache.evict_and_verify(self.path)  # NotImplementedError (a skip) if not provably cold

    def time_cold_read(self, outcomes, dataset, format, variant):
        self.fmt.read(self.path, **self.hints)


class Sizes(_Files):
    def setup(self, outcomes, dataset, format, variant):
        raise_for_outcome(outcomes[(dataset, format, variant)])

    def track_file_size(self, outcomes, dataset, format, variant):
        return outcomes[(dataset, format, variant)]["bytes"]

    track_file_size.unit = "bytes"

    def track_frame_size(self, outcomes, dataset, format, variant):
        """The in-memory frame (``memory_usage(deep=True)``): throughput is this over the time."""
        return outcomes[(dataset, format, variant)]["frame_bytes"]

    track_frame_size.unit = "bytes"


def _writer(format, variant):
    fmt = ready(format)
    fmt.check_variant(variant)
    if not fmt.times_write:
        raise NotImplementedError("%s writes with another format's writer; its write is timed there"
                                  % fmt.label)
    return fmt


class _Writes(_Grid):
    repeat = (1, 3, 1.0)

    def setup_cache(self):
        """Each frame the writes start from, pickled: a case's setup then loads it in tens of
        milliseconds instead of deriving its variant again (up to half a second, ~500 cases)."""
        frames = {}
        for dataset in DATASET_NAMES:
            if outside_grid(dataset):
                continue
            for variant, frame in _grid_frames(dataset):
                frames[(dataset, variant)] = path = cache_path("grid-frame", dataset, variant) + ".pickle"
                with open(path, "wb") as f:
                    pickle.dump(frame, f, pickle.HIGHEST_PROTOCOL)
        return frames

    setup_cache.timeout = FULL_SCALE_TIMEOUT


def _pickled_frame(frames, dataset, variant):
    if (dataset, variant) not in frames:
        raise NotImplementedError(outside_grid(dataset) or "%s has no %s variant" % (dataset, variant))
    with open(frames[(dataset, variant)], "rb") as f:
        return pickle.load(f)


class Write(_Writes):
    def setup(self, frames, dataset, format, variant):
        self.path = os.path.abspath("grid-write-%s-%s-%s" % (dataset, format, variant))  # teardown runs after skips
        self.write = _writer(format, variant).write
        self.frame = _pickled_frame(frames, dataset, variant)

    def teardown(self, *params):
        if os.path.exists(self.path):
            os.remove(self.path)

    def time_write(self, frames, dataset, format, variant):
        self.write(self.frame)

    def peakmem_write(self, frames, dataset, format, variant):
        self.write(self.frame)

    def time_write_to_disk(self, frames, dataset, format, variant):
        pagecache.write_to_disk(self.path, self.write(self.frame))


class CategorizeThenWrite(_Writes):
    """Rocklin: converting text to categoricals and then serialising can beat serialising the text."""

    params = [DATASET_NAMES, FORMAT_NAMES]
    param_names = ["dataset", "format"]

    def setup(self, frames, dataset, format):
        columns = get_dataset(dataset).categorizable()
        if not columns:
            raise NotImplementedError("%s's str and cat variants hold different text" % dataset)
        self.write = _writer(format, "cat").write
        self.frame = _pickled_frame(frames, dataset, "str")
        self.categories = dict((name, "category") for name in columns)

    def time_categorize_and_write(self, frames, dataset, format):
        self.write(self.frame.astype(self.categories))


class ContinuousRead(_Grid):
    """The six taxi months, ``grid_rows`` each, read one after another from the page cache."""

    params = [FORMAT_NAMES]
    param_names = ["format"]

    def setup_cache(self):
        store = open_store("nyc_taxi")
        frames = ((month, load_frame(None, "plain", month, store=store, rows=grid_rows("nyc_taxi")))
                  for month in store.partitions)
        return write_and_check_series(list(FORMATS.values()), frames, _hints("nyc_taxi", "plain"),
                                      lambda fmt, month: cache_path("grid-continuous", fmt.name, month) + fmt.suffix)

    setup_cache.timeout = FULL_SCALE_TIMEOUT

    def setup(self, outcomes, format):
        raise_for_outcome(outcomes[format])
        self.paths = outcomes[format]["paths"]
        self.fmt = ready(format)
        self.hints = _hints("nyc_taxi", "plain")

    def _read_all(self):
        for path in self.paths:
            result = self.fmt.read(path, **self.hints)
            del result

    def time_continuous_read(self, outcomes, format):
        self._read_all()

    def peakmem_continuous_read(self, outcomes, format):
        self._read_all()


version_by_code_and_scale(globals())
keep_across_rounds(_Files, _Writes, ContinuousRead)
only_inside_grid("nyc_taxi", ContinuousRead)
