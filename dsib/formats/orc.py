"""ORC through pyarrow."""

from .. import compat
from ..registry import Format, Loss, Needs
from . import _io


def _write(frame):
    import pyarrow as pa
    import pyarrow.orc as orc

    sink = pa.BufferOutputStream()
    # ZLIB, the codec pyarrow 4 and 5 always write; from 6.0 the writer takes one, and its default
    # is uncompressed. ORC has no unsigned integers: they are written as signed, bit for bit (a
    # reader told turns them back).
    orc.write_table(
        _io.plain_strings(_io.arrow_table(_io.signed(frame))), sink, **compat.taken(orc.write_table, compression="zlib")
    )
    return sink.getvalue().to_pybytes()


def _table(source, **options):
    import pyarrow.orc as orc

    # ORCFile is there from pyarrow 0.13; orc.read_table only from 6.0.
    with _io.arrow_input(source) as f:
        return orc.ORCFile(f).read(**options)


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    # ORC keeps no pandas types: a table a user brought has its nullable columns converted by
    # types_mapper, and its unsigned integers and zones as told (_io.as_told), as its user would.
    return _io.arrow_to_pandas(_table(source), categoricals, dtypes)


def _columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _io.arrow_to_pandas(_table(path, columns=list(names)), categoricals, dtypes)


FORMATS = [
    Format(
        "orc",
        "ORC",
        ".orc",
        _write,
        _read,
        "orc",
        needs=(
            Needs("pandas"),
            Needs("pyarrow", "4.0", why="pyarrow.orc.write_table arrived in pyarrow 4.0", modules=("pyarrow.orc",)),
        ),
        # ORC stores no zone and no dictionary type: categories come back in order of appearance.
        losses=(Loss("timezone"), Loss("category_order")),
        description="pyarrow.orc, ZLIB",
        columns=_columns,
        settings=(("compression", "zlib"), ("memory map", "no: read")),
    ),
]
