"""Every table of measured figures in the README and docs/ is its command's output on committed files; the
README stays a front door."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys

from dsib_tools import readme

from .conftest import ROOT, committed, documentation, table_rows


def _readme_check(path):
    return subprocess.run(
        [sys.executable, "-m", "dsib_tools", "readme", "--check", "--path", path],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def _pages():
    return ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def test_every_table_of_figures_in_the_readme_and_docs_is_generated_and_current():
    for page in _pages():
        proc = _readme_check(page)
        assert proc.returncode == 0, page + ": " + proc.stdout[-4000:] + proc.stderr[-4000:]
    commands = [command for _, _, command in readme.blocks(documentation())]
    for kind in (
        "table post --results-dir results ",
        "table post --results-dir records/curated-results --machine epyc-2c-24g --env DSIB_PROFILEfull",
        "table speedups ",
        "report --studies ",
        "table matrix ",
        "table noise ",
        "table audit ",
    ):
        assert any(c.startswith(kind) for c in commands), "the documentation's %s block" % kind.strip()


def test_the_readme_is_a_front_door_whose_links_resolve():
    """At most 200 lines, the headline generated, and every relative link to a file that exists."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    assert len(text.splitlines()) <= 200
    assert readme.blocks(text), "the headline table is a generated block"
    for page in _pages():
        with open(os.path.join(ROOT, page)) as f:
            for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", f.read()):
                resolved = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), target))
                assert os.path.exists(resolved), "%s links to %s, which does not exist" % (page, target)


def test_a_stale_figure_and_a_typed_table_are_caught(tmp_path):
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    start, end, command = readme.blocks(text)[0]
    stale = str(tmp_path / "stale.md")
    with open(stale, "w") as f:
        f.write(text[:start] + text[start:end].replace("ms", "0ms", 1) + text[end:])
    proc = _readme_check(stale)
    assert proc.returncode == 1 and "0ms" in proc.stdout and "is not what its commands print" in proc.stderr, (
        proc.stderr
    )
    typed = str(tmp_path / "typed.md")
    with open(typed, "w") as f:
        f.write(text + "\n| case | time |\n|---|---|\n| a read | 12 ms |\n")
    proc = _readme_check(typed)
    assert proc.returncode == 1 and "| a read | 12 ms |" in proc.stderr, proc.stderr
    with open(typed, "w") as f:
        f.write(text + "\n<!-- typed: an example, timed by hand -->\n| case | time |\n|---|---|\n| a read | 12 ms |\n")
    assert _readme_check(typed).returncode == 0


def test_readme_rewrites_a_block_from_its_command(tmp_path):
    path = tmp_path / "doc.md"
    path.write_text(
        "before\n<!-- generated: table matrix records/matrix-checks/matrix-tiny-epyc-2c-24g.json -->\nold\n"
        "<!-- /generated -->\nafter\n"
    )
    shutil.copytree(os.path.join(ROOT, "records"), str(tmp_path / "records"))
    proc = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "readme", "--path", str(path)],
        cwd=str(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert proc.returncode == 0, proc.stderr
    text = path.read_text()
    assert "old" not in text and text.startswith("before\n") and text.endswith("<!-- /generated -->\nafter\n")
    assert "The curated matrix at profile `tiny`" in text and [
        "environment",
        "cells run",
        "skipped",
        "failed",
    ] in table_rows(text)


def test_every_case_address_in_the_readme_and_docs_opens_a_case_of_the_published_release_view():
    """A `releases.html#case=…` written in the documentation names a case that the committed release
    view has: a renamed suite leaves no address that opens on "unknown case"."""
    with open(committed("html/dsib/releases-data.js")) as f:
        text = f.read()
    cases = set(c["id"] for c in json.loads(text[text.index("=") + 1 :].strip().rstrip(";"))["cases"])
    addresses = re.findall(r"releases(?:-[\w-]+)?\.html#case=([^\s`&)]+)", documentation())
    assert addresses, "the documentation gives a case's address"
    assert not [a for a in addresses if a not in cases], "addresses of no published case"
