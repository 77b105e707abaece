"""HDF5 through PyTables: pandas' HDFStore, "fixed" and "table" layouts, in memory."""

from .. import compat
from ..registry import Format, Loss, Needs
from . import _io

NEEDS = (Needs("pandas"), Needs("tables"))
# HDFStore cannot store pandas' nullable integers and booleans (a table a user brought has them
# where a column has nulls), nor decimals in its table layout: they are written as float64 and
# read back so.
LOSSES = (Loss("nullable_float"), Loss("decimal_float"))


def _writer(layout):
    def write(frame):
        import pandas as pd

        if layout == "fixed":
            frame = _io.to_text(frame)  # "fixed" stores no categoricals
        frame = _io.nullables_as_float(frame)
        if layout == "table":  # "fixed" pickles a column of objects, Decimals too
            frame = _io.decimals_as_float(frame)
        # An in-memory HDF5 file (the CORE driver without a backing store), so no disk is timed.
        with pd.HDFStore("dsib-write.h5", mode="w", driver="H5FD_CORE", driver_core_backing_store=0) as store:
            store.put("frame", frame, format=layout, complevel=0, **compat.hdf_put_kwargs())
            return store._handle.get_file_image()

    return write


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pandas as pd

    if isinstance(source, bytes):
        store = pd.HDFStore(
            "dsib-read.h5", mode="r", driver="H5FD_CORE", driver_core_image=source, driver_core_backing_store=0
        )
    else:
        store = pd.HDFStore(source, mode="r")
    with store:
        frame = store["frame"]
    return _io.categorize(frame, categoricals)


def _table_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """A table's rows hold every column: the rows are read whole, and ``names`` kept."""
    import pandas as pd

    with pd.HDFStore(path, mode="r") as store:
        frame = store.select("frame", columns=list(names))
    return _io.categorize(frame, categoricals)


def _table_batches(path, size, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pandas as pd

    with pd.HDFStore(path, mode="r") as store:
        for frame in store.select("frame", chunksize=size.rows):
            yield _io.categorize(frame, categoricals)


def _table_take(path, positions, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """The table's rows at ``positions`` (PyTables reads those coordinates); "fixed" has no such read."""
    import pandas as pd

    with pd.HDFStore(path, mode="r") as store:
        frame = store.select("frame", where=pd.Index(positions))
    return _io.categorize(frame.reset_index(drop=True), categoricals)


FORMATS = [
    Format(
        "hdf-fixed",
        "HDF5 fixed",
        ".h5",
        _writer("fixed"),
        _read,
        "hdf5",
        needs=NEEDS,
        losses=LOSSES,
        description="pandas HDFStore, format='fixed' (categoricals stored as text)",
        settings=(("compression", "none"),),
    ),
    Format(
        "hdf-table",
        "HDF5 table",
        ".h5",
        _writer("table"),
        _read,
        "hdf5",
        needs=NEEDS,
        losses=LOSSES,
        description="pandas HDFStore, format='table'",
        settings=(("compression", "none"),),
        columns=_table_columns,
        batches=_table_batches,
        take=_table_take,
    ),
]
