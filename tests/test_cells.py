"""dsib.cells on the `tiny` store: a cell file that is no longer what was built says so."""

import os
import re

import pytest

from dsib.cells import Cells
from dsib.formats import FORMATS


def test_a_cell_file_of_another_size_than_built_names_its_build_to_remove(tiny_data_dir, tmp_path):
    cells = Cells("tiny", tiny_data_dir, str(tmp_path / "cache"))
    built = cells.file("rocklin", FORMATS["parquet"], "plain")
    with open(built["path"], "ab") as f:
        f.write(b"a byte too many")
    with pytest.raises(
        OSError,
        match=r"^%s is not the %d bytes it was built with: remove %s$"
        % (re.escape(built["path"]), built["bytes"], re.escape(os.path.dirname(built["path"]))),
    ):
        cells.file("rocklin", FORMATS["parquet"], "plain")
