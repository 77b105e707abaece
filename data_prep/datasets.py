"""The dataset registry: what each dataset stores and which frame each string variant makes of it.

Variants are the string axis of the suite, for every dataset that has text:

- ``plain``: no string column;
- ``str``: the text columns as Python strings (the taxi's sha256 column is high entropy);
- ``cat``: the text columns as categoricals (the taxi's "a-b-c" column, TSBS' symbols,
  Rocklin's 1,000 labels), which a reader is asked to return as categoricals.
"""

from collections import namedtuple

from . import nyc_taxi, rocklin, tsbs_cpu
from .profiles import MONTHS_2016_H1

VARIANTS = ("plain", "str", "cat")

# A frame column: its name, the stored column it comes from, and how it is built:
# "value" (as stored), "text" (bytes decoded to str), "category" (text, then categorical),
# "utc" (datetime64[ns] made tz-aware UTC).
Column = namedtuple("Column", ["name", "stored", "kind"])


class DatasetSpec(object):
    def __init__(
        self,
        name,
        description,
        partitions,
        generate,
        variants,
        datetimes,
        generator_version,
        derive=None,
        numeric_text=(),
    ):
        self.name = name
        self.description = description
        self.partitions = tuple(partitions)
        self.generate = generate
        # Stored columns computed from the generated ones (the taxi's hashed strings), timed apart.
        self.derive = derive or (lambda columns: {})
        self._variants = variants
        self.datetimes = tuple(datetimes)
        self.generator_version = generator_version
        # Text whose values look like numbers ("85"): text formats must be told it is text.
        self.numeric_text = tuple(numeric_text)

    @property
    def variants(self):
        return tuple(v for v in VARIANTS if v in self._variants)

    def columns(self, variant):
        try:
            return self._variants[variant]
        except KeyError:
            raise ValueError("dataset %s has no variant %r; it has %s" % (self.name, variant, ", ".join(self.variants)))

    def zoned(self, variant):
        """Whether the variant's frame holds a zoned (tz-aware) timestamp column."""
        return any(c.kind == "utc" for c in self.columns(variant))

    def categorizable(self):
        """Text columns that the ``cat`` variant holds as categoricals of the same values as ``str``:
        Rocklin's "convert to categorical, then serialise" applies to them."""
        categories = set((c.name, c.stored) for c in self._variants.get("cat", ()) if c.kind == "category")
        return tuple(
            c.name for c in self._variants.get("str", ()) if c.kind == "text" and (c.name, c.stored) in categories
        )

    def read_hints(self, variant):
        """What a reader is told, as a user would tell it: datetime columns, and which to make categorical."""
        columns = self.columns(variant)
        text = set(c.name for c in columns if c.kind in ("text", "category"))
        return {
            "datetimes": tuple(c.name for c in columns if c.name in self.datetimes),
            "categoricals": tuple(c.name for c in columns if c.kind == "category"),
            "texts": tuple(c.name for c in columns if c.name in text and c.name in self.numeric_text),
        }


def _values(names):
    return [Column(n, n, "value") for n in names]


_TAXI = _values(nyc_taxi.COLUMNS)
_TSBS_FIELDS = _values(tsbs_cpu.FIELDS) + [Column(tsbs_cpu.TIMESTAMP, tsbs_cpu.TIMESTAMP, "utc")]

DATASETS = dict(
    (spec.name, spec)
    for spec in [
        DatasetSpec(
            nyc_taxi.DATASET,
            "NYC yellow-taxi trips, 2016 schema, six monthly partitions",
            MONTHS_2016_H1,
            nyc_taxi.generate_month,
            {
                "plain": _TAXI,
                "str": _TAXI + [Column(nyc_taxi.STRING_COLUMN, nyc_taxi.HIGH_ENTROPY, "text")],
                "cat": _TAXI + [Column(nyc_taxi.STRING_COLUMN, nyc_taxi.LOW_ENTROPY, "category")],
            },
            nyc_taxi.DATETIME_COLUMNS,
            nyc_taxi.GENERATOR_VERSION,
            derive=nyc_taxi.string_columns,
        ),
        DatasetSpec(
            tsbs_cpu.DATASET,
            "TSBS cpu devops metrics at scale 4000, as in the QuestDB ingestion study",
            tsbs_cpu.PARTITIONS,
            tsbs_cpu.generate,
            {
                "plain": _TSBS_FIELDS,
                "str": [Column(t, t, "text") for t in tsbs_cpu.TAGS] + _TSBS_FIELDS,
                "cat": [Column(t, t, "category") for t in tsbs_cpu.TAGS] + _TSBS_FIELDS,
            },
            (tsbs_cpu.TIMESTAMP,),
            tsbs_cpu.GENERATOR_VERSION,
            numeric_text=("rack", "service", "service_version"),
        ),
        DatasetSpec(
            rocklin.DATASET,
            "Rocklin's serialisation study: text with 1,000 distinct values, plus integers",
            rocklin.PARTITIONS,
            rocklin.generate,
            {
                "plain": [Column("numbers", "numbers", "value")],
                "str": [Column("text", "text", "text"), Column("numbers", "numbers", "value")],
                "cat": [Column("text", "text", "category"), Column("numbers", "numbers", "value")],
            },
            (),
            rocklin.GENERATOR_VERSION,
            numeric_text=("text",),
        ),
    ]
)


class UnknownDatasetError(KeyError):
    def __str__(self):
        return self.args[0]


def get_dataset(name):
    try:
        return DATASETS[name]
    except KeyError:
        raise UnknownDatasetError("unknown dataset %r; datasets are: %s" % (name, ", ".join(sorted(DATASETS))))
