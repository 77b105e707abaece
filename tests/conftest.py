import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# asv environments of the tests: kept between local runs (building one takes a minute); CI starts without.
ENV_DIR = os.path.join(ROOT, ".asv", "env-test")
GIT = ["git", "-c", "user.name=dsib test", "-c", "user.email=test@dsib.invalid"]


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


def snapshot_working_tree(repo):
    """A git repository at ``repo`` whose one commit is the working tree as it is now (tracked and
    untracked files, ignored ones left out): asv installs from commits, tests test the code."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            stdout=subprocess.PIPE).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = os.path.join(ROOT, name)
        if not os.path.isfile(source):
            continue
        target = os.path.join(repo, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True)
    subprocess.run(GIT + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(GIT + ["commit", "-q", "-m", "snapshot"], cwd=repo, check=True)
