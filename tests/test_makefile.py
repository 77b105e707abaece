"""The Makefile is the front door's other half: `make help` is its default and lists every target."""

import re
import subprocess

from .conftest import ROOT


def _phony_targets():
    with open(ROOT + "/Makefile") as f:
        text = f.read()
    phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", text, re.M).group(1)
    return [t for t in phony.replace("\\\n", " ").split() if t != "FORCE"]


def test_make_with_no_target_prints_one_line_for_every_target():
    proc = subprocess.run(
        ["make", "--no-print-directory"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert proc.returncode == 0, proc.stderr
    listed = [line.split()[1] for line in proc.stdout.splitlines()]
    targets = _phony_targets()
    assert sorted(listed) == sorted(targets), "a target without its '## name: what' line, or a stale line"
    for line in proc.stdout.splitlines():
        assert len(line.split(None, 2)) == 3 and len(line) <= 120, line
