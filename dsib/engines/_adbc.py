"""ADBC, the same for every driver: the frame goes in as an Arrow table (``adbc_ingest``) and
comes out as one (``fetch_arrow_table``), each driver's own connection around them."""

from ..formats import _io


def ingest(connection, frame, table, dictionaries=True):
    """``dictionaries``: whether the driver takes dictionary (categorical) columns; where not, they
    go in as their text."""
    data = _io.arrow_table(frame)
    cursor = connection.cursor()
    try:
        cursor.adbc_ingest(table, data if dictionaries else _io.plain_strings(data), mode="create")
    finally:
        cursor.close()
    connection.commit()


def query(connection, table, datetimes=(), categoricals=(), texts=()):
    """The whole table as a frame; datetimes stored as ISO 8601 text are parsed, as a user would."""
    import pandas as pd

    cursor = connection.cursor()
    try:
        cursor.execute('SELECT * FROM "%s"' % table)
        frame = cursor.fetch_arrow_table().to_pandas()
    finally:
        cursor.close()
    for name in datetimes:
        if frame[name].dtype.kind != "M":
            frame[name] = pd.to_datetime(frame[name])
    return _io.categorize(frame, categoricals)
