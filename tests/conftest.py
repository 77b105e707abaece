import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="session")
def tiny_data_dir(tmp_path_factory):
    """The `tiny` profile, generated once for the session by the real CLI."""
    data_dir = str(tmp_path_factory.mktemp("data"))
    subprocess.run([sys.executable, "-m", "data_prep", "prepare", "--profile", "tiny", "--quiet",
                    "--data-dir", data_dir], check=True, cwd=ROOT)
    return data_dir


@pytest.fixture
def tiny_copy(tiny_data_dir, tmp_path):
    """A private copy of the tiny store, for tests that damage it."""
    target = str(tmp_path / "data")
    shutil.copytree(tiny_data_dir, target)
    return target
