"""The 2019 baseline's seven cases, for the post's formats (Parquet, CSV) at the profile's full scale.

1a/1b/1c ``Read.time_read``: one month, from bytes already in memory, so the
disk is out of the figure; the string variants ``str`` (sha256 hex, unique)
and ``cat`` (≤ 4096 values, read as categorical).
2 ``ContinuousRead``: the six months read one after another from files in the
page cache, each frame dropped before the next, as an online learner would.
3a/3b/3c ``Write.time_write``: one month serialised to bytes in memory.

Files are written in ``setup_cache`` by the environment's own writer, read
back once and compared with the frame that was written; a case whose read-back
differs fails, a format missing from the environment is skipped.
"""
from data_prep import frame_nbytes, load_frame, read_hints
from dsib.formats import POST_2019_FORMATS, VARIANTS, get_format
from dsib.roundtrip import raise_for_outcome, write_and_check, write_and_check_series

from . import (FULL_SCALE_TIMEOUT, cache_path, keep_across_rounds, open_store, ready, verify_stores,
               version_by_code_and_scale)


def _post_formats():
    # The post compared these two; benchmarks/grid.py covers every registered format.
    return [get_format(name) for name in POST_2019_FORMATS]


class _OneShot(object):
    # Each call takes from tens of ms to minutes at `full`; one call per sample.
    number = 1
    timeout = FULL_SCALE_TIMEOUT


class Read(_OneShot):
    """Target: Parquet reads at least 10x faster than CSV for every variant (the post: 14–38x)."""

    params = [list(POST_2019_FORMATS), list(VARIANTS)]
    param_names = ["format", "variant"]

    def setup_cache(self):
        dataset = open_store("nyc_taxi")
        month = dataset.partitions[0]
        outcomes = {}
        for variant in VARIANTS:
            frame = load_frame(None, variant, month, store=dataset)
            for fmt in _post_formats():
                path = cache_path("read", variant, month) + fmt.suffix
                outcomes[(fmt.name, variant)] = write_and_check(fmt, frame, read_hints(variant), path)
        return outcomes

    setup_cache.timeout = FULL_SCALE_TIMEOUT

    def setup(self, outcomes, format, variant):
        outcome = outcomes[(format, variant)]
        raise_for_outcome(outcome)
        self.read = ready(format).read
        self.hints = read_hints(variant)
        with open(outcome["path"], "rb") as f:
            self.payload = f.read()

    def time_read(self, outcomes, format, variant):
        self.read(self.payload, **self.hints)


class ContinuousRead(_OneShot):
    """Six months, each read and dropped: the total is timed.

    Target: the peak memory of the six reads stays at that of one month read
    alone (``peakmem_first_month_only``), not six months of frames
    (``track_month_frame`` each). ``peakmem_`` is the peak RSS of the case's
    process, forked by asv's forkserver, including interpreter and libraries
    (``peakmem_baseline``), so ``setup`` holds only file paths.
    """

    params = [list(POST_2019_FORMATS)]
    param_names = ["format"]
    warmup_time = 0  # a warm-up call would double a multi-minute run at `full`

    def setup_cache(self):
        store = open_store("nyc_taxi")
        sizes = []

        def frames():
            for month in store.partitions:
                frame = load_frame(None, "plain", month, store=store)
                sizes.append(frame_nbytes(frame))
                yield month, frame

        outcomes = write_and_check_series(_post_formats(), frames(), read_hints("plain"),
                                          lambda fmt, month: cache_path("continuous", month) + fmt.suffix)
        return {"formats": outcomes, "month_frame_bytes": sizes[0]}

    setup_cache.timeout = FULL_SCALE_TIMEOUT

    def setup(self, cache, format):
        outcome = cache["formats"][format]
        raise_for_outcome(outcome)
        self.paths = outcome["paths"]
        self.read = ready(format).read
        self.hints = read_hints("plain")

    def _read_all(self):
        for path in self.paths:
            frame = self.read(path, **self.hints)
            del frame  # an online learner would update its model here

    def time_continuous_read(self, cache, format):
        self._read_all()

    def peakmem_continuous_read(self, cache, format):
        self._read_all()

    def peakmem_first_month_only(self, cache, format):
        """One month read alone: the floor that ``peakmem_continuous_read`` should stay near."""
        self.read(self.paths[0], **self.hints)

    def peakmem_baseline(self, cache, format):
        """The process after setup, reading nothing: interpreter, libraries, setup."""

    def track_month_frame(self, cache, format):
        """In-memory size of one month's frame, the yardstick for ``peakmem_continuous_read``."""
        return cache["month_frame_bytes"]

    track_month_frame.unit = "bytes"


class Write(_OneShot):
    rounds = 1  # a CSV write of a month takes ~10 s a sample; a second round of them costs a minute
    params = [list(POST_2019_FORMATS), list(VARIANTS)]
    param_names = ["format", "variant"]

    def setup_cache(self):
        return verify_stores("nyc_taxi")

    setup_cache.timeout = FULL_SCALE_TIMEOUT

    def setup(self, verified, format, variant):
        self.write = ready(format).write
        self.frame = load_frame(None, variant, store=open_store("nyc_taxi", verify="sizes"))

    def time_write(self, verified, format, variant):
        self.write(self.frame)


version_by_code_and_scale(globals())
keep_across_rounds(Read, ContinuousRead)
