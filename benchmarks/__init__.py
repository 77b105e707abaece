"""dsib's asv benchmarks.

Where the data is and at which scale: ``DSIB_PROFILE`` comes from the asv
matrix (``env_nobuild``), so it is part of every environment name and results
at different scales never share a series. ``DSIB_DATA_DIR`` defaults to
``data/`` beside this directory, where ``python -m data_prep prepare`` writes.
"""
import os

from data_prep import open_dataset

PROFILE = os.environ.get("DSIB_PROFILE", "default")
DATA_DIR = os.environ.get("DSIB_DATA_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")

# Long enough for the `full` profile (10.9 M rows a month) on 2 cores.
FULL_SCALE_TIMEOUT = 3600


def taxi_dataset():
    """The verified NYC taxi store at this run's profile; a clear DatasetError if it is unusable."""
    return open_dataset("nyc_taxi", PROFILE, DATA_DIR)


def cache_path(*parts):
    """A file in the setup_cache directory (asv's working directory for the benchmark run)."""
    return os.path.abspath("_".join(str(p) for p in parts))
