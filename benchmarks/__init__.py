"""dsib's asv benchmarks.

Where the data is and at which scale: ``DSIB_PROFILE`` comes from the asv
matrix (``env_nobuild``), so it is part of every environment name and results
at different scales never share a series. ``DSIB_DATA_DIR`` defaults to
``data/`` beside this directory, where ``python -m data_prep prepare`` writes.
"""
import os

from data_prep import get_profile, open_dataset
from dsib.formats import get_format

# asv's forkserver imports this package once and forks a process per benchmark: libraries
# imported here are not re-imported by every case. Missing ones are the formats' business.
for _module in ("pandas", "pyarrow", "pyarrow.parquet", "pyarrow.csv", "pyarrow.compute"):
    try:
        __import__(_module)
    except ImportError:
        pass

PROFILE = os.environ.get("DSIB_PROFILE", "default")
DATA_DIR = os.environ.get("DSIB_DATA_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")

# Long enough for the `full` profile (10.9 M rows a month) on 2 cores.
FULL_SCALE_TIMEOUT = 3600


def open_store(dataset="nyc_taxi", verify=True):
    """The store of ``dataset`` at this run's profile; a clear DatasetError if it is unusable.
    ``verify="sizes"`` in setup of classes whose setup_cache verified every checksum this run."""
    return open_dataset(dataset, PROFILE, DATA_DIR, verify=verify)


def verify_stores(*datasets):
    """A setup_cache body: hash every file of ``datasets`` once per run, before any case runs.
    Returns the verified names: asv passes a setup_cache's value on only when it is not None."""
    for dataset in datasets:
        open_store(dataset)
    return list(datasets)


def grid_rows(dataset):
    return get_profile(PROFILE).grid_rows[dataset]


def cache_path(*parts):
    """A file in the setup_cache directory (asv's working directory for the benchmark run)."""
    return os.path.abspath("_".join(str(p) for p in parts))


def ready(name):
    """The format, warmed up in setup (see ``Format.warm_up``): no import lands in a timing."""
    fmt = get_format(name)
    fmt.warm_up()
    return fmt
