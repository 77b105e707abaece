"""Dataset generation and loading for dsib.

Importable on Python 3.7 with numpy 1.16 and pandas 0.23: benchmark
environments of the whole release matrix load data through this package.
Generation itself needs numpy >= 1.17 (``default_rng``) and runs in the tool
environment only.
"""

from .datasets import DATASETS, VARIANTS, get_dataset
from .frames import frame_nbytes, load_frame, read_hints
from .profiles import DEFAULT_PROFILE, PROFILES, get_profile
from .store import DatasetError, default_data_dir, open_dataset

__all__ = [
    "DATASETS",
    "DEFAULT_PROFILE",
    "PROFILES",
    "VARIANTS",
    "DatasetError",
    "default_data_dir",
    "frame_nbytes",
    "get_dataset",
    "get_profile",
    "load_frame",
    "open_dataset",
    "read_hints",
]
