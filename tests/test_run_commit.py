"""A run measures one commit's code: asv takes ``benchmarks/`` from the clone's working tree and
installs ``dsib`` and ``data_prep`` from the commit, so ``dsib_tools run`` refuses a clone whose
measured code differs from COMMIT, before anything is written."""

import os
import subprocess
import sys

import pytest

from dsib_tools import audit, run
from dsib_tools.compare import resolve

from .conftest import GIT, snapshot_working_tree


def _run(repo, commit):
    """``dsib_tools run`` of the tiny profile at ``commit`` in ``repo``, with the repo's own tools."""
    return subprocess.run(
        [sys.executable, "-m", "dsib_tools", "run", "--config", "asv.conf.json", "--profile", "tiny"]
        + ["--machine", "refused-machine", "--commit", commit],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def _append(repo, name, text):
    with open(os.path.join(repo, name), "a") as f:
        f.write(text)


def test_a_clean_clone_has_no_change_and_each_kind_of_change_is_named(tmp_path):
    repo = str(tmp_path / "repo")
    snapshot_working_tree(repo)
    assert run.measured_code_changes("HEAD", repo) == []
    _append(repo, "dsib_tools/report.py", "\n# a tool's change is not measured code\n")
    _append(repo, "README.md", "\nA line.\n")
    assert run.measured_code_changes("HEAD", repo) == []
    _append(repo, "benchmarks/reads.py", "\n# a change in the working tree\n")
    with open(os.path.join(repo, "dsib", "formats", "new_adapter.py"), "w") as f:
        f.write("# untracked\n")
    assert run.measured_code_changes("HEAD", repo) == ["benchmarks/reads.py", "dsib/formats/new_adapter.py"]
    # Committed, the working tree equals HEAD again but not the commit before it.
    subprocess.run(GIT + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(GIT + ["commit", "-q", "-m", "change"], cwd=repo, check=True)
    assert run.measured_code_changes("HEAD", repo) == []
    assert run.measured_code_changes("HEAD~1", repo) == ["benchmarks/reads.py", "dsib/formats/new_adapter.py"]


def test_a_run_refuses_mixed_code_or_an_unknown_commit_in_one_line_and_writes_nothing(tmp_path):
    repo = str(tmp_path / "repo")
    snapshot_working_tree(repo)
    _append(repo, "data_prep/store.py", "\n# not yet committed\n")
    proc = _run(repo, "HEAD")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "data_prep/store.py" in lines[0], proc.stderr
    proc = _run(repo, "0" * 40)
    assert proc.returncode == 2 and proc.stderr.strip() == "error: COMMIT %s is not a commit of this clone" % ("0" * 40)
    assert not os.path.exists(os.path.join(repo, "build")), os.listdir(repo)


def test_the_audit_refuses_a_checkout_with_an_untracked_measured_file(tmp_path):
    """The post's audit times the checkout's code against asv's results of HEAD: a new file in
    ``dsib/`` that nobody committed is a difference too, and is named."""
    repo = str(tmp_path / "repo")
    snapshot_working_tree(repo)
    assert audit._clean_commit(repo) == resolve(repo, "HEAD")
    with open(os.path.join(repo, "dsib", "formats", "new_adapter.py"), "w") as f:
        f.write("# untracked\n")
    with pytest.raises(audit.AuditError, match=r"dsib/formats/new_adapter\.py differ from "):
        audit._clean_commit(repo)
