"""Sizes: the file each format writes, the frame it holds in memory, and the data's logical bytes
(the throughput's numerator: MiB/s is those bytes over a time, shown only where a read builds the
frame)."""

from dsib import catalog

from . import CELLS, PARAM_NAMES, VERSIONS, Case, loads_once, series


class Sizes(Case):
    version = series(1)
    operation = "sizes"
    params, param_names = catalog.params(operation), PARAM_NAMES

    @loads_once
    def setup(self, source, format, variant):
        # No warm-up: nothing here is timed or measured in memory.
        reason = catalog.skip_reason(self.operation, source, format, variant, CELLS.profile, VERSIONS)
        if reason:
            raise NotImplementedError(reason)
        self.outcome = CELLS.checked_file(source, catalog.format_for(source, format), variant)

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
