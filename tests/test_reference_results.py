"""The committed reference run: results/ renders the post's table, and html/ was published from it."""
import json
import os
import subprocess
import sys

from .conftest import ROOT

MACHINE = "xeon-2c-24g"


def test_committed_results_render_the_full_table():
    table = subprocess.run([sys.executable, "-m", "dsib", "table", "--machine", MACHINE, "--env",
                            "DSIB_PROFILEdefault", "--with-2019"], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
    assert table.returncode == 0, table.stderr
    assert "profile `default` (1,000,000 rows per month)" in table.stdout
    rows = [line for line in table.stdout.splitlines() if line.startswith("| ") and "Benchmark" not in line]
    assert len(rows) == 7
    for row in rows:
        assert "failed" not in row and "skipped" not in row and "n/a" not in row, row
    assert "pyarrow26.0.1" in table.stdout, "of a release matrix, the table shows the newest releases"
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    assert all(row in readme for row in rows), "the README's table is the committed run's"


def test_committed_site_was_published_from_the_committed_results():
    with open(os.path.join(ROOT, "html", "index.json")) as f:
        index = json.load(f)
    assert MACHINE in index["params"]["machine"]
    assert index["params"]["env-DSIB_PROFILE"] == ["default"], "the scale is a parameter of every graph"
    with open(os.path.join(ROOT, "results", "benchmarks.json")) as f:
        benchmarks = set(k for k, v in json.load(f).items() if isinstance(v, dict))
    assert benchmarks == set(index["benchmarks"])
    assert os.path.exists(os.path.join(ROOT, "html", "index.html"))
