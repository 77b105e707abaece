"""Lance: the columnar file format of Lance datasets, written and read through ``lance.file``.

A Lance dataset is a directory: data files in this format, plus manifests and transaction files
that version them (a table format over its files, as Delta Lake and Iceberg are over Parquet). The
suite measures the format, one file written and read as the dataset writes and reads its data
files; the dataset's manifests, versions and indexes are not measured.
"""

from ..registry import Format, Needs, Reader
from . import _io

# The file format's version, stated: the release's default ("stable") is 2.2 in pylance 14, and a
# later default would write other encodings.
FILE_VERSION = "2.2"
# The reader's batch and read-ahead, stated at lance.file's defaults: the table comes back in
# batches of 1,024 rows.
READ_BATCH_ROWS = 1024
READ_AHEAD_BATCHES = 16

NEEDS = (
    Needs("pandas"),
    Needs("pyarrow"),
    Needs("lance", "14.0", why="pylance {have} predates the file session (lance.file) the suite writes with"),
)


def _write(frame):
    """The file written into an in-memory object store (a session of its own, dropped after), and
    its bytes read back, as Parquet's writer fills a buffer."""
    import lance.file

    table = _io.arrow_table(frame)
    session = lance.file.LanceFileSession("memory:///")
    writer = session.open_writer("frame.lance", schema=table.schema, version=FILE_VERSION)
    writer.write_batch(table)
    writer.close()
    return session.read_range("frame.lance", 0, 1 << 62)


def _reader(path, names=None):
    import lance.file

    return lance.file.LanceFileReader(path, columns=None if names is None else list(names))


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=(), names=None):
    """The file whole, or the columns ``names`` alone, in the reader's batches (stated)."""
    results = _reader(source, names).read_all(batch_size=READ_BATCH_ROWS, batch_readahead=READ_AHEAD_BATCHES)
    return _io.arrow_to_pandas(results.to_table(), categoricals)


def _columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _read(path, datetimes, categoricals, texts, dtypes, names=names)


def _batches(path, size, datetimes=(), categoricals=(), texts=(), dtypes=()):
    results = _reader(path).read_all(batch_size=size.rows, batch_readahead=READ_AHEAD_BATCHES)
    return _io.arrow_batches(results.to_batches(), categoricals)


def _take(path, positions, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """The rows at ``positions``: Lance reads the pages that hold them, not the file."""
    results = _reader(path).take_rows(list(positions), batch_size=READ_BATCH_ROWS)
    return _io.arrow_to_pandas(results.to_table(), categoricals)


FORMATS = [
    Format(
        "lance",
        "Lance",
        ".lance",
        _write,
        _read,
        "lance",
        needs=NEEDS,
        reads_bytes=False,
        description="lance.file.LanceFileWriter (file version %s) / LanceFileReader.read_all" % FILE_VERSION,
        settings=(
            ("file version", FILE_VERSION),
            ("compression", "the file version's encodings"),
            ("read batch", "1Ki rows, 16 ahead (lance.file's defaults)"),
            ("index", "none"),
        ),
        columns=_columns,
        batches=Reader(_batches),
        take=_take,
    ),
]
