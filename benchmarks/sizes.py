"""Sizes: the file each format writes, the frame it holds in memory, and the data's logical bytes
(the throughput's numerator: MiB/s is those bytes over a time, shown only where a read builds the
frame)."""

from data_prep import VARIANTS
from dsib import layout

from . import CATALOG, CELLS, PARAM_NAMES, VERSIONS, Case, loads_once, series


class Sizes(Case):
    version = series(2)
    operation = "sizes"
    params, param_names = CATALOG.params(operation), PARAM_NAMES

    @loads_once
    def setup(self, source, format, variant):
        # No warm-up: nothing here is timed or measured in memory.
        reason = CATALOG.skip_reason(self.operation, source, format, variant, CELLS.profile, VERSIONS)
        if reason:
            raise NotImplementedError(reason)
        self.outcome = CELLS.checked_file(source, CATALOG.format_for(source, format), variant)

    def track_file_size(self, source, format, variant):
        return self.outcome["bytes"]

    track_file_size.unit = "bytes"

    def track_frame_size(self, source, format, variant):
        """The in-memory frame (``memory_usage(deep=True)``)."""
        return self.outcome["frame_bytes"]

    track_frame_size.unit = "bytes"

    def track_data_bytes(self, source, format, variant):
        """The data's logical bytes (``data_prep.store.data_bytes``), counted from the store: the
        same in every environment, whatever pandas makes of the text (``track_frame_size``)."""
        return CELLS.data_bytes(source, variant)

    track_data_bytes.unit = "bytes"


def _post_read(source, format, variant):
    """(format, checked file's path, a call that reads it as the post's case reads) of a cell of
    the post's month, after one untimed read: a reader's own first-time work stays out. Skips,
    raising NotImplementedError, where the suite's rules skip the cell."""
    reason = CATALOG.skip_reason("sizes", source, format, variant, CELLS.profile, VERSIONS)
    if reason:
        raise NotImplementedError(reason)
    fmt = CATALOG.format_for(source, format)
    path = CELLS.checked_file(source, fmt, variant)["path"]
    hints = CATALOG.sources[source].dataset.read_hints(variant)

    def read():
        return fmt.read(path, **hints)

    read()
    return fmt, path, read


class FileLayout(Case):
    """What the post's Parquet files are besides their data, recorded per environment, so that the
    release view can mark the steps of the post's cases at which a library's default changed the
    file (``dsib.layout``, read from the file itself): the timestamp unit's digits of a second,
    the index columns stored as data, the format version and codec (``layout.CODECS``), and the
    fraction of the file its reader read by system calls (about 0 where the reader maps it).
    The post's CSV file has none of these to change: ``to_csv`` writes text, and ``read_csv``
    reads it by system calls in every release."""

    version = series(1)
    measures = Case.measures + ("dsib.layout",)
    params = [["nyc_taxi_month"], ["parquet"], list(VARIANTS)]
    param_names = PARAM_NAMES

    @loads_once
    def setup(self, source, format, variant):
        fmt, path, read = _post_read(source, format, variant)
        self.numbers = layout.as_numbers(layout.describe(fmt, path))
        self.numbers["read by system calls"] = layout.read_by_system_calls(read, path)

    def _number(self, field):
        return self.numbers[field]

    def track_timestamp_digits(self, source, format, variant):
        return self._number("timestamp digits")

    track_timestamp_digits.unit = "digits"

    def track_index_columns(self, source, format, variant):
        return self._number("index columns")

    track_index_columns.unit = "columns"

    def track_format_version(self, source, format, variant):
        return self._number("format version")

    track_format_version.unit = "version"

    def track_codec(self, source, format, variant):
        return self._number("codec")

    track_codec.unit = "codec"

    def track_read_by_system_calls(self, source, format, variant):
        return self._number("read by system calls")

    track_read_by_system_calls.unit = "fraction"


class ReaderThreads(Case):
    """Where the post's reads run: the fraction of a read's CPU time spent off the calling thread
    (``dsib.layout.off_thread``), recorded per environment, so that the release view can mark the
    steps at which a reader's default moved the work to a thread pool (pandas 3.1's ``read_csv``
    parses a file of 5 MB or more on ``mode.max_threads`` threads; pyarrow's Parquet reader uses
    its CPU pool in every release). A figure of where the work runs, not of its speed."""

    version = series(1)
    measures = Case.measures + ("dsib.layout",)
    params = [["nyc_taxi_month"], ["csv", "parquet"], list(VARIANTS)]
    param_names = PARAM_NAMES

    @loads_once
    def setup(self, source, format, variant):
        self.fraction = layout.off_thread(_post_read(source, format, variant)[2])
        if self.fraction is None:
            raise NotImplementedError("this system keeps no per-thread CPU time (getrusage RUSAGE_THREAD)")

    def track_off_thread(self, source, format, variant):
        return self.fraction

    track_off_thread.unit = "fraction"
