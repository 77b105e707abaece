"""Sizes: the file each format writes, and the frame it holds in memory (throughput is frame
size over time, shown only where a read builds that frame)."""
from dsib import cases
from dsib.formats import FORMATS

from . import CELLS, PARAM_NAMES, VERSIONS, Cell, loads_once, series


class Sizes(Cell):
    version = series(1)
    operation = "sizes"
    params, param_names = cases.params(operation), PARAM_NAMES

    @loads_once
    def setup(self, source, format, variant):
        # No warm-up: nothing here is timed or measured in memory.
        reason = cases.skip_reason(self.operation, source, format, variant, CELLS.profile, VERSIONS)
        if reason:
            raise NotImplementedError(reason)
        self.outcome = CELLS.checked_file(source, FORMATS[format], variant)

    def track_file_size(self, source, format, variant):
        return self.outcome["bytes"]

    track_file_size.unit = "bytes"

    def track_frame_size(self, source, format, variant):
        """The in-memory frame (``memory_usage(deep=True)``)."""
        return self.outcome["frame_bytes"]

    track_frame_size.unit = "bytes"

