"""`python -m dsib_tools advise PATH` on a table made here (nulls, text, a zoned timestamp): its ranking
is the one its printed figures give, and every format that can hold the table is measured, as the
suite's own round-trip check says of that table, asked here in this process."""

import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from dsib.formats import FORMATS
from dsib.roundtrip import concat_batches, write_and_check

from .conftest import ROOT

pytestmark = pytest.mark.slow  # the advised fixture measures every format: about half a minute

ROWS = 3000


def _table(path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "trip": np.arange(ROWS, dtype="int64"),
            "passengers": pd.array(np.where(rng.random(ROWS) < 0.1, None, rng.integers(1, 6, ROWS)), dtype="Int64"),
            "fare": np.where(rng.random(ROWS) < 0.1, np.nan, rng.random(ROWS) * 50),
            "zone": pd.Series(rng.choice(["Midtown", "JFK", "Harlem", None], ROWS), dtype=object),
            "at": pd.date_range("2016-01-01", periods=ROWS, freq="min", tz="America/New_York"),
        }
    )
    frame.to_parquet(path)
    return frame


def _held_here(table_path, tmp_path):
    """The formats that write and read back the frame `advise` ingests (as `data_prep add` does),
    with the suite's check, in this process: {format: None, or why not}."""
    from data_prep.own_ingest import add_table
    from data_prep.own_table import open_table

    data_dir = str(tmp_path / "store")
    add_table("here", table_path, data_dir=data_dir, progress=False)
    spec, store = open_table("here", data_dir)
    frame = concat_batches(spec.frame(store, p, "str") for p in spec.partitions)
    hints = spec.read_hints("str")
    out = {}
    for name, fmt in FORMATS.items():
        if "str" not in fmt.variants:
            out[name] = "no str variant"
            continue
        outcome = write_and_check(fmt, frame, hints, str(tmp_path / ("check-" + name + fmt.suffix)))
        out[name] = outcome["skip"] or outcome["error"]
    return out


def _rows(text):
    """The printed table's rows: {format: (rank, read ms, write ms or None, MiB, peak MiB, score or None)}."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 8 or not re.fullmatch(r"\d+|-", cells[0]):
            continue

        def number(cell):
            match = re.match(r"([\d.]+)", cell)
            return float(match.group(1)) if match else None

        rows[cells[1]] = (
            None if cells[0] == "-" else int(cells[0]),
            number(cells[2]),
            number(cells[3]),
            number(cells[4]),
            number(cells[5]),
            number(cells[6]),
        )
    return rows


@pytest.fixture(scope="module")
def advised(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("advise")
    path = str(tmp / "trips.parquet")
    _table(path)
    page = str(tmp / "page" / "trips.html")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "advise",
            path,
            "--samples",
            "2",
            "--html",
            page,
            "--json",
            str(tmp / "figures.json"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return path, tmp, done.stdout, page


def test_the_ranking_is_the_one_its_printed_figures_give(advised):
    _, _, text, _ = advised
    rows = _rows(text)
    ranked = sorted((r for r in rows.items() if r[1][0] is not None), key=lambda item: item[1][0])
    assert len(ranked) >= 3, text
    assert [r[0] for _, r in ranked] == list(range(1, len(ranked) + 1))
    columns = {"read": 1, "write": 2, "size": 3, "peak": 4}
    best = dict((goal, min(r[i] for _, r in ranked if r[i])) for goal, i in columns.items())
    scores = []
    for name, row in ranked:
        terms = [math.log(row[i] / best[goal], 2) if row[i] else 0.0 for goal, i in columns.items()]
        assert row[5] == pytest.approx(sum(terms) / len(terms), abs=0.01), (name, row)
        scores.append(row[5])
    assert scores == sorted(scores)
    for goal, heading in (
        ("read", "fastest read"),
        ("write", "fastest write"),
        ("size", "smallest file"),
        ("peak", "least memory"),
    ):
        pick = re.search(r"^- %s: (\S+)" % heading, text, re.M).group(1)
        assert rows[pick][columns[goal]] == best[goal], (goal, pick)
    balanced = re.search(r"^- balanced pick: (\S+)", text, re.M).group(1)
    assert balanced == ranked[0][0]
    assert "Quick measures" in text and "make bench DATASET=" in text
    assert re.search(r"\(IQR [\d.]+–[\d.]+, n=2\)", text), "figures with their spread"


def test_every_format_that_can_hold_the_table_is_measured(advised, tmp_path):
    path, tmp, text, _ = advised
    rows = _rows(text)
    here = _held_here(path, tmp_path)
    can = sorted(name for name, why in here.items() if why is None)
    assert can, here
    assert sorted(name for name, row in rows.items() if row[0] is not None) == can
    for name, why in here.items():
        if why is not None:
            # A format that cannot hold it is named with its reason, or measured and shown as changed.
            assert re.search(r"^- %s: \S" % re.escape(name), text, re.M) or (name in rows and rows[name][0] is None), (
                name,
                why,
            )
    with open(str(tmp / "figures.json")) as f:
        outcomes = json.load(f)["outcomes"]
    assert sorted(o["format"] for o in outcomes) == sorted(FORMATS)
    # A format that held the table read it back as the same frame but for the losses the suite declares
    # for it here (the check raises on any other difference): each loss names a column of the table.
    columns = set(pd.read_parquet(path).columns)
    for o in outcomes:
        if o["format"] in can:
            assert o["error"] is None, o
            assert all(loss.split(":")[0] in columns for loss in o["losses"]), o


def test_the_page_charts_every_measured_format(advised):
    _, _, text, page = advised
    with open(page) as f:
        html = f.read()
    spec = json.loads(
        re.search(r"<script type='application/json' class='dsib-chart-spec'>(.*?)</script>", html, re.S)
        .group(1)
        .replace("<\\/", "</")
    )
    ranked = sorted(name for name, row in _rows(text).items() if row[0] is not None)
    assert sorted(p["format"] for p in spec["data"]["values"]) == ranked
    for script in re.findall(r"<script src='([^']+)'>", html):
        assert os.path.exists(os.path.join(os.path.dirname(page), script)), script


def test_an_unknown_format_or_variant_is_a_one_line_error(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,x\n2,y\n")
    for option, said in (
        ("--only=nope", "error: no format nope (formats: parquet, "),
        ("--variant=zoned", "error: this table has no variant zoned (it has "),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "dsib_tools", "advise", str(path), option],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            universal_newlines=True,
        )
        assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].startswith(said), done.stderr
