"""A table a user brings (``python -m data_prep add NAME --from-file PATH``): CSV, Parquet,
Feather / Arrow IPC or JSON Lines, read in batches with bounded memory and stored in the canonical
store (checksummed ``.npy`` files, written atomically) under the profile ``brought``.

What a column becomes is its *kind*, recorded in the manifest with the column's name, so that every
environment of the release matrix builds the same frame from the same files:

- ``integer``, ``float``, ``boolean``: numbers as stored (nulls: a validity file; pandas' nullable
  ``Int64`` / ``boolean`` where a column has any, NaN for floats);
- ``datetime``: datetime64[ns], NaT for nulls, with its time zone if it has one (dates become
  midnight). Text formats carry types as pyarrow infers them: a CSV's "Z" or offset times come in
  zoned UTC, JSON Lines' naive (UTC clock);
- ``text`` and ``categorical``: UTF-8 text, ``None`` for nulls, categorical where the input said so;
- ``decimal``: Python ``Decimal`` objects (as pyarrow gives them to pandas), ``None`` for nulls,
  stored as their exact text; the column's type (``decimal128(12, 2)``) is its dtype.

Columns of any other type (nested lists, structs, maps, binary, durations) are left
out, each named with its type, unless the user asks for ``strict`` (then nothing is stored).

Reading the store needs numpy only (the benchmark environments' oldest); ingesting needs pyarrow.

The table as read: ``data_prep.own_table``; bringing it in: ``data_prep.own_ingest``. Their names
are all importable from here.
"""
