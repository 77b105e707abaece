"""A table a user brought (``data_prep.own``), as every environment reads it: its columns' kinds,
its manifest, and ``OwnTable``, which builds a partition's frame of a variant from the store.

Reading the store needs numpy only (the benchmark environments' oldest), then pandas.
"""

import os
from collections import OrderedDict, namedtuple

import numpy as np

OWN_PROFILE = "brought"
KINDS = ("integer", "float", "boolean", "datetime", "text", "categorical", "decimal")
TEXT_KINDS = ("text", "categorical")
# What --strict refuses besides left-out columns: a format that holds the table only by turning a
# kind into another (dsib.fidelity.ALLOWED_LOSSES; HDF5 writes nullable integers as floats).
STRICT_REFUSES = ("nullable_float", "decimal_float", "integer_float")


class TableError(ValueError):
    """A table that cannot be brought in as asked; the message names the file or the column."""


# name: the column's name in the frame; key: its files' stem in the store; tz: a datetime's zone.
OwnColumn = namedtuple("OwnColumn", ["name", "key", "kind", "dtype", "tz", "nulls"])


def open_table(name, data_dir=None, verify="on_load"):
    """(the table's spec, its verified store) of the table brought as ``name``."""
    from .store import open_dataset

    store = open_dataset(name, OWN_PROFILE, data_dir, verify=verify)
    if "table" not in store.manifest:
        raise TableError("%s holds no brought table's description" % store.path)
    return OwnTable(name, store.manifest), store


def open_manifest(path):
    import json

    from .store import MANIFEST

    with open(os.path.join(path, MANIFEST)) as f:
        return json.load(f)


def decode_text(ends, data, valid=None):
    """An object array of str from where each value ends in the text (in characters) and the
    text's UTF-8 bytes (None where not ``valid``)."""
    whole = data.tobytes().decode("utf-8")
    ends = ends.tolist()
    values = np.empty(len(ends), dtype=object)
    values[:] = [whole[a:b] for a, b in zip([0] + ends[:-1], ends)]
    if valid is not None:
        values[~valid] = None
    return values


class OwnTable(object):
    """What the suite needs of a brought table (as ``datasets.DatasetSpec`` gives of a built-in one),
    read from its manifest: its partitions, variants, read hints, and the frame of a partition."""

    profile = OWN_PROFILE

    def __init__(self, name, manifest):
        self.name = name
        self.manifest = manifest
        self.table_columns = [OwnColumn(**c) for c in manifest["table"]["columns"]]
        self.left_out = [(c["name"], c["type"]) for c in manifest["table"]["left_out"]]
        self.partitions = tuple(p["name"] for p in manifest["partitions"])
        self.description = manifest.get("description", "")
        self.datetimes = tuple(c.name for c in self.table_columns if c.kind == "datetime")
        self.numeric_text = ()
        # Brought with --strict: a format that holds the table only with one of these declared
        # losses (dsib.fidelity) skips instead of running with it.
        self.refused_losses = STRICT_REFUSES if manifest["table"].get("strict") else ()

    @property
    def text_columns(self):
        return tuple(c.name for c in self.table_columns if c.kind in TEXT_KINDS)

    @property
    def variants(self):
        """``plain`` (no text), ``str`` (text, categoricals too, as str), ``cat`` (text as
        categoricals); ``plain`` alone for a table without text."""
        return ("plain", "str", "cat") if self.text_columns else ("plain",)

    def zoned(self, variant):
        """Whether the variant's frame holds a zoned (tz-aware) timestamp column."""
        self._check_variant(variant)
        return any(c.kind == "datetime" and c.tz for c in self.table_columns)

    def _check_variant(self, variant):
        if variant not in self.variants:
            why = " (it has no text column)" if not self.text_columns else ""
            raise ValueError(
                "table %s has no variant %r%s; it has %s" % (self.name, variant, why, ", ".join(self.variants))
            )

    def columns_of(self, variant):
        """(column, kind in the frame) of ``variant``."""
        self._check_variant(variant)
        out = []
        for c in self.table_columns:
            if c.kind in TEXT_KINDS:
                if variant == "plain":
                    continue
                out.append((c, "categorical" if variant == "cat" else "text"))
            else:
                out.append((c, c.kind))
        return out

    def categorizable(self):
        """Text columns that ``cat`` holds as categoricals of ``str``'s values: all of them."""
        return self.text_columns

    def read_hints(self, variant):
        """What a reader is told, as its user would tell it: datetimes and categoricals as for a
        built-in dataset, and ``dtypes`` (which only a brought table has): a (column, dtype) pair
        for each column of the frame but a boolean without nulls (``told``)."""
        columns = self.columns_of(variant)
        return {
            "datetimes": tuple(c.name for c, _ in columns if c.kind == "datetime"),
            "categoricals": tuple(c.name for c, kind in columns if kind == "categorical"),
            "texts": (),
            "dtypes": tuple((c.name, told(c)) for c, _ in columns if told(c)),
        }

    def data_bytes(self, store, partition, variant, rows=None):
        """The logical bytes of the frame of ``variant`` (``store.data_bytes``): numbers at their
        width, a timestamp 8 bytes, text its UTF-8 bytes, a categorical its codes and categories."""
        from .store import text_data_bytes

        total = 0
        for column, kind in self.columns_of(variant):
            if column.kind not in TEXT_KINDS:
                count = store.rows(partition) if rows is None else min(rows, store.rows(partition))
                total += count * width(column)
            elif kind == "categorical":
                valid = (
                    store.load(partition, column.key + ".valid", rows)
                    if store.has(partition, column.key + ".valid")
                    else None
                )
                values = decode_text(
                    store.load(partition, column.key, rows), store.load(partition, column.key + ".text"), valid
                )
                total += text_data_bytes(values, categorical=True)
            else:
                ends = store.load(partition, column.key, rows)
                data = store.load(partition, column.key + ".text")
                # The values' characters end at ends[-1]: their UTF-8 bytes are the text up to there.
                whole = data.tobytes().decode("utf-8")
                total += len(whole[: int(ends[-1])].encode("utf-8")) if len(ends) else 0
        return int(total)

    def frame(self, store, partition, variant, rows=None):
        import pandas as pd

        data = OrderedDict()
        for column, kind in self.columns_of(variant):
            data[column.name] = _series(store, partition, column, kind, rows)
        return pd.DataFrame(data, columns=list(data))


def _series(store, partition, column, kind, rows):
    import pandas as pd

    valid = store.load(partition, column.key + ".valid", rows) if store.has(partition, column.key + ".valid") else None
    if column.kind in TEXT_KINDS + ("decimal",):
        values = decode_text(
            store.load(partition, column.key, rows), store.load(partition, column.key + ".text"), valid
        )
        if column.kind == "decimal":
            return decimals(values)
        return pd.Categorical(values) if kind == "categorical" else values
    values = store.load(partition, column.key, rows)
    if column.kind == "datetime":
        index = pd.DatetimeIndex(values)
        return index.tz_localize("UTC").tz_convert(column.tz) if column.tz else index
    if not column.nulls or column.kind == "float":
        return values
    # A table-wide dtype: a partition without nulls is nullable too when another has some.
    mask = np.zeros(len(values), dtype=bool) if valid is None else ~valid
    return nullable_array(column, values, mask)


def told(column):
    """What a reader is told a column of a brought table holds (the ``dtypes`` hint), or None:
    text as ``text``; integers at their width and signedness (``int8``, ``uint64``), pandas'
    nullable type where they have nulls (``Int32``, ``UInt8``), booleans with nulls ``boolean``;
    floats at their width; decimals with their precision and scale (``decimal128(12, 2)``); a
    zoned timestamp with its zone (``datetime64[ns, Europe/Berlin]``)."""
    if column.kind in TEXT_KINDS:
        return "text"
    if column.kind in ("integer", "boolean") and column.nulls:
        return nullable_dtype(column)
    if column.kind in ("integer", "float"):
        return np.dtype(column.dtype).name
    if column.kind == "decimal":
        return column.dtype
    if column.kind == "datetime" and column.tz:
        return "datetime64[ns, %s]" % column.tz
    return None


def width(column):
    """The bytes of one value of a fixed-width column: its numpy width, a decimal's 16 (decimal128)
    or 32 (decimal256)."""
    if column.kind == "decimal":
        return 32 if column.dtype.startswith("decimal256") else 16
    return np.dtype(column.dtype).itemsize


def decimals(texts):
    """An object array of ``decimal.Decimal`` of exact texts (None where None)."""
    from decimal import Decimal

    values = np.empty(len(texts), dtype=object)
    values[:] = [None if t is None else Decimal(t) for t in texts]
    return values


def nullable_dtype(column):
    """The name of pandas' nullable dtype of an integer or boolean column with nulls (``Int32``,
    ``UInt8``, ``boolean``): what ``nullable_array`` makes."""
    if column.kind == "boolean":
        return "boolean"
    dtype = np.dtype(column.dtype)
    return "%sInt%d" % ("U" if dtype.kind == "u" else "", dtype.itemsize * 8)


def nullable_array(column, values, mask):
    """pandas' nullable array of an integer or boolean column with nulls (``mask``: True where null)."""
    import pandas as pd

    arrays = getattr(pd, "arrays", None)
    kind = "BooleanArray" if column.kind == "boolean" else "IntegerArray"
    if arrays is None or not hasattr(arrays, kind):
        raise NotImplementedError(
            "column %r: %s with nulls need pandas' %s (pandas >= %s), and this is pandas %s"
            % (
                column.name,
                "booleans" if column.kind == "boolean" else "integers",
                kind,
                "1.0" if column.kind == "boolean" else "0.24",
                pd.__version__,
            )
        )
    return getattr(arrays, kind)(values, mask)
