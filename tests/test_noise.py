"""The A/A clone that `make noise` compares: its head differs from its base by one comment."""
import subprocess

from dsib import noise

from .conftest import ROOT


def test_the_aa_commit_changes_only_a_comment(tmp_path):
    repo = noise.aa_clone(ROOT, str(tmp_path))
    files = subprocess.run(["git", "diff", "--name-only", "HEAD~1", "HEAD"], cwd=repo, check=True,
                           stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
    assert files == [noise.COMMENT_FILE]
    diff = subprocess.run(["git", "diff", "-U0", "HEAD~1", "HEAD"], cwd=repo, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout.splitlines()
    added = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    removed = [line for line in diff if line.startswith("-") and not line.startswith("---")]
    assert removed == [] and added and all(not line.strip() or line.startswith("#") for line in added)
    head = subprocess.run(["git", "rev-parse", "HEAD~1"], cwd=repo, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout.strip()
    assert head == subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, stdout=subprocess.PIPE,
                                  universal_newlines=True).stdout.strip(), "the base is this repository's HEAD"
