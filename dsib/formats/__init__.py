"""Every format the suite measures, one module per family, collected in one registry.

Benchmarks, the round-trip checks, the fidelity table and the reports all parametrize over
``FORMATS``, so registering a format in its family's module adds it everywhere. Libraries are
imported inside the adapters, so that this package imports in every environment of the release
matrix; ``Format.warm_up`` imports them in ``setup``, outside any timing.
"""

from ..registry import Format, Loss, Needs, Reader, Registry, UnknownFormatError
from . import arrow, csv, hdf5, json, lance, msgpack, npy, orc, parquet, pickle

# Family order is the order of every table; a format's name is its benchmark parameter, and so
# part of its asv series: keep names stable.
FAMILIES = (parquet, arrow, lance, csv, hdf5, pickle, json, msgpack, orc, npy)
FORMATS = Registry(fmt for family in FAMILIES for fmt in family.FORMATS)

# The formats of the 2019 post.
POST_2019_FORMATS = ("parquet", "csv")
# Libraries not to import in a process that forks afterwards (asv's forkserver): pylance says it is
# not fork-safe. A case imports them in its own process, in ``setup``.
NOT_FORK_SAFE = ("lance",)


def get_format(name):
    return FORMATS[name]


__all__ = [
    "FORMATS",
    "Format",
    "Loss",
    "Needs",
    "NOT_FORK_SAFE",
    "POST_2019_FORMATS",
    "Reader",
    "UnknownFormatError",
    "get_format",
]
