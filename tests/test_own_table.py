"""Your own data (data_prep.own): a table of every column kind, with nulls, brought in from real
CSV, Parquet, Feather and JSON Lines files made here, in batches, and every way it can go wrong."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

from data_prep import DatasetError, load_frame, read_hints
from data_prep import own_ingest
from data_prep.own_table import OWN_PROFILE, TableError, open_table
from data_prep.own_ingest import add_table
from dsib.fidelity import assert_same_frame
from dsib_tools.config import derive_config, table_digest

from .conftest import ROOT
from .own_tables import ROWS, arrow_table, every_kind, make_file, ready_in_a_case_process

PARTITION_ROWS = 1000  # three partitions, and batches that straddle them


def expected(frame, fmt):
    """What the store gives back of ``frame`` brought from ``fmt``: text formats have no
    categoricals, no column width and no zone but UTC."""
    columns = dict((name, frame[name]) for name in frame.columns)
    if fmt in ("csv", "jsonl"):
        columns["small"] = frame["small"].astype("Int64")
        columns["when_tz"] = frame["when_tz"].dt.tz_convert("UTC")
        if fmt == "jsonl":  # pyarrow's JSON reader takes "...Z" as a naive time
            columns["when_tz"] = columns["when_tz"].dt.tz_localize(None)
    # str holds every text column as text, categoricals too.
    columns["kind"] = np.array([None if v is np.nan else v for v in frame["kind"].astype(object)], dtype=object)
    columns["name"] = np.array(frame["name"].astype(object).where(frame["name"].notna(), None), dtype=object)
    return pd.DataFrame(columns)


def values(column):
    return [None if pd.isna(v) else v for v in column.astype(object)]


LEFT_OUT = {
    "parquet": ["tags", "point", "blob"],
    "feather": ["tags", "point", "blob"],
    "csv": [],
    "jsonl": ["tags", "point"],
}


@pytest.mark.parametrize("fmt", ["csv", "parquet", "feather", "jsonl"])
def test_a_table_of_every_kind_comes_back_as_it_was(tmp_path, fmt):
    source = every_kind()
    path = make_file(tmp_path, fmt, source)
    data_dir = str(tmp_path / "data")
    summary = add_table("mine", path, data_dir, partition_rows=PARTITION_ROWS, progress=False)

    assert summary["rows"] == ROWS and summary["partitions"] == 3
    assert [name for name, _ in summary["left_out"]] == LEFT_OUT[fmt]
    assert summary["variants"] == ("plain", "str", "cat")
    table, store = open_table("mine", data_dir)
    kinds = dict((c.name, c.kind) for c in table.table_columns)
    assert kinds == {
        "id": "integer",
        "small": "integer",
        "x": "float",
        "flag": "boolean",
        "maybe": "boolean",
        "when": "datetime",
        "when_tz": "datetime",
        "name": "text",
        "kind": "text" if fmt in ("csv", "jsonl") else "categorical",
    }

    want = expected(source, fmt)
    got = pd.concat(
        [load_frame(OWN_PROFILE, "str", partition=p, data_dir=data_dir, dataset="mine") for p in store.partitions],
        ignore_index=True,
    )
    assert_same_frame(want, got)
    plain = load_frame(OWN_PROFILE, "plain", data_dir=data_dir, dataset="mine")
    assert list(plain.columns) == ["id", "small", "x", "flag", "maybe", "when", "when_tz"]
    assert_same_frame(want.iloc[:PARTITION_ROWS].drop(columns=["name", "kind"]), plain)
    cat = load_frame(OWN_PROFILE, "cat", data_dir=data_dir, dataset="mine", rows=10)
    assert str(cat["name"].dtype) == "category" and str(cat["kind"].dtype) == "category"
    assert values(cat["name"]) == values(want["name"].iloc[:10])
    # Readers that take dtypes are told every column's type but a boolean's without nulls, as a user
    # would tell them: numbers at their width, nullable types, text, a zoned timestamp's zone.
    zone = {"csv": "UTC", "parquet": "America/New_York", "feather": "America/New_York"}.get(fmt)
    assert read_hints("cat", "mine", data_dir) == {
        "datetimes": ("when", "when_tz"),
        "categoricals": ("name", "kind"),
        "texts": (),
        "dtypes": (
            ("id", "int64"),
            ("small", "Int64" if fmt in ("csv", "jsonl") else "Int32"),
            ("x", "float64"),
            ("maybe", "boolean"),
        )
        + ((("when_tz", "datetime64[ns, %s]" % zone),) if zone else ())
        + (("name", "text"), ("kind", "text")),
    }


def test_the_cli_names_what_it_left_out_and_a_table_without_text_runs_plain_only(tmp_path):
    path = str(tmp_path / "numbers.parquet")
    frame = every_kind(50)[["id", "x", "when"]]
    pq.write_table(arrow_table(frame), path)
    proc = run_cli("add", "numbers", "--from-file", path, "--data-dir", str(tmp_path / "data"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "left out: column 'tags' of type list<element: int64>" in proc.stdout
    assert "left out: column 'blob' of type binary" in proc.stdout
    assert "variants: plain only (the table has no text column)" in proc.stdout
    with pytest.raises(ValueError, match="has no variant 'str' \\(it has no text column\\)"):
        load_frame(OWN_PROFILE, "str", data_dir=str(tmp_path / "data"), dataset="numbers")


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "data_prep"] + list(args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def test_strict_refuses_the_table_naming_its_columns_and_stores_nothing(tmp_path):
    path = make_file(tmp_path, "parquet", every_kind(20))
    data_dir = str(tmp_path / "data")
    with pytest.raises(TableError, match="column 'tags' of type list<element: int64>; column 'point' of type struct"):
        add_table("mine", path, data_dir, strict=True, progress=False)
    assert not os.path.exists(os.path.join(data_dir, OWN_PROFILE)), "nothing was written"


def test_a_failed_ingest_leaves_the_table_before_it_as_it_was(tmp_path, monkeypatch):
    # Types from the first 64 KiB, blocks of 16 KiB: the reader fails after partitions were written.
    monkeypatch.setattr(own_ingest, "SAMPLE_BYTES", 1 << 16)
    monkeypatch.setattr(own_ingest, "BLOCK_BYTES", 1 << 14)
    data_dir = str(tmp_path / "data")
    good = make_file(tmp_path, "csv", every_kind(30))
    add_table("mine", good, data_dir, progress=False)
    before = open_table("mine", data_dir, verify=True)[1].digest
    bad = str(tmp_path / "bad.csv")
    with open(good) as f:
        text = f.read()
    # 3,000 good rows, then one whose "id" is not a number: the reader fails well after the first partition.
    lines = text.splitlines()
    with open(bad, "w") as f:
        f.write("\n".join([lines[0]] + lines[1:] * 100 + ['"seven",' + lines[1].split(",", 1)[1]]) + "\n")
    with pytest.raises(TableError, match="pyarrow cannot read .*bad.csv as csv"):
        add_table("mine", bad, data_dir, partition_rows=1000, progress=False)
    assert open_table("mine", data_dir, verify=True)[1].digest == before
    # What was written of the failed table stays out of the way, as an interrupted preparation's.
    assert [n for n in os.listdir(os.path.join(data_dir, OWN_PROFILE)) if n != "mine"][0].startswith(".tmp-mine-")


def test_bad_names_formats_and_files_are_refused_clearly(tmp_path):
    path = make_file(tmp_path, "csv", every_kind(5))
    with pytest.raises(TableError, match="built-in dataset's name"):
        add_table("nyc_taxi", path, str(tmp_path), reserved=("nyc_taxi",), progress=False)
    with pytest.raises(TableError, match="lower-case letters"):
        add_table("My Table", path, str(tmp_path), progress=False)
    with pytest.raises(TableError, match="no such file"):
        add_table("mine", str(tmp_path / "absent.csv"), str(tmp_path), progress=False)
    odd = str(tmp_path / "table.xlsx")
    open(odd, "w").close()
    with pytest.raises(TableError, match="cannot tell the format .* say it with --format"):
        add_table("mine", odd, str(tmp_path), progress=False)
    proc = run_cli("add", "mine", "--from-file", odd, "--data-dir", str(tmp_path))
    assert proc.returncode == 1 and "error: cannot tell the format" in proc.stderr


def test_a_corrupt_or_missing_table_says_how_to_rebuild_it(tmp_path):
    data_dir = str(tmp_path / "data")
    path = make_file(tmp_path, "parquet", every_kind(40))
    add_table("mine", path, data_dir, progress=False)
    table, store = open_table("mine", data_dir)
    column = os.path.join(store.path, "part-00000", "c7.text.npy")
    with open(column, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        last = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last[0] ^ 1]))
    with pytest.raises(
        DatasetError,
        match="c7.text.npy does not match its sha256 checksum. Rebuild it with: "
        "python -m data_prep add mine --from-file .*table.parquet",
    ):
        load_frame(OWN_PROFILE, "str", data_dir=data_dir, dataset="mine")
    with pytest.raises(DatasetError, match="python -m data_prep add absent --from-file PATH"):
        open_table("absent", data_dir)


# A file larger than the memory its process may use: the limit is a memory cgroup's (v1 or v2),
# which counts what the process holds, as a machine's memory does.
LIMIT_BYTES = 300 << 20
BIG_ROWS = 6000000


def memory_cgroup(name, limit):
    """A new memory cgroup below this process's own, limited to ``limit`` bytes: its directory."""
    with open("/proc/self/cgroup") as f:
        lines = [line.rstrip("\n").split(":", 2) for line in f]
    for _, controllers, path in lines:
        if "memory" in controllers.split(","):  # v1
            directory, limit_file = "/sys/fs/cgroup/memory" + path, "memory.limit_in_bytes"
            break
    else:
        path = [p for _, c, p in lines if c == ""][0]
        directory, limit_file = "/sys/fs/cgroup" + path, "memory.max"
    group = os.path.join(directory, name)
    try:
        os.mkdir(group)
        with open(os.path.join(group, limit_file), "w") as f:
            f.write(str(limit))
    except OSError as exc:
        pytest.fail("cannot make a memory cgroup at %s to limit a process's memory: %s" % (group, exc))
    return group


def run_limited(group, code, *args):
    def join():
        with open(os.path.join(group, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run(
        [sys.executable, "-c", code] + list(args),
        cwd=ROOT,
        env=env,
        preexec_fn=join,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def write_big_csv(path, rows):
    words = pa.array(["%064x" % (k * 2654435761) for k in range(1000)])
    writer = None
    for start in range(0, rows, 500000):
        i = np.arange(start, min(rows, start + 500000))
        chunk = pa.table(
            {
                "id": i,
                "x": i / 7.0,
                "when": pa.array((1451606400 + i).astype("datetime64[s]")),
                "flag": i % 2 == 0,
                "hex": words.take(pa.array(i % 1000)),
            }
        )
        writer = writer or pyarrow.csv.CSVWriter(path, chunk.schema)
        writer.write_table(chunk)
    writer.close()


INGEST = """
import json, sys
from data_prep.own_ingest import add_table
summary = add_table("big", sys.argv[1], sys.argv[2], partition_rows=100000, progress=False)
print(json.dumps({"rows": summary["rows"], "partitions": summary["partitions"]}))
"""
READ_WHOLE = """
import sys, pyarrow.csv
print(pyarrow.csv.read_csv(sys.argv[1]).num_rows)
"""


@pytest.mark.slow  # a file of hundreds of MB, written and ingested: seconds
def test_a_file_larger_than_the_memory_its_process_may_use_comes_in(tmp_path):
    path, data_dir = str(tmp_path / "big.csv"), str(tmp_path / "data")
    write_big_csv(path, BIG_ROWS)
    group = memory_cgroup("dsib-test-%d" % os.getpid(), LIMIT_BYTES)
    try:
        assert os.path.getsize(path) > 2 * LIMIT_BYTES
        whole = run_limited(group, READ_WHOLE, path)
        assert whole.returncode != 0, "the limit does not bind: the whole file was read in one go"
        ingest = run_limited(group, INGEST, path, data_dir)
        assert ingest.returncode == 0, ingest.stderr[-2000:]
    finally:
        os.rmdir(group)
    assert json.loads(ingest.stdout) == {"rows": BIG_ROWS, "partitions": BIG_ROWS // 100000}
    table, store = open_table("big", data_dir, verify=True)
    last = load_frame(OWN_PROFILE, "str", partition=store.partitions[-1], data_dir=data_dir, dataset="big")
    i = np.arange(BIG_ROWS - 100000, BIG_ROWS)
    assert last["id"].tolist() == i.tolist() and last["x"].tolist() == (i / 7.0).tolist()
    assert (last["when"] == pd.to_datetime(1451606400 + i, unit="s")).all()
    assert last["hex"].tolist()[:2] == ["%064x" % (k * 2654435761) for k in i[:2] % 1000]
    os.remove(path)  # 1.3 GB that pytest would keep for three sessions
    shutil.rmtree(data_dir)


def test_a_table_brought_again_with_other_rows_starts_another_series(tmp_path):
    """make bench DATASET=NAME records the table's name and what it holds in the environment's
    name (asv's series): other rows under the same name are another series, the same rows the same."""
    data_dir = str(tmp_path / "data")
    base = {"include": [{"python": "3.11", "req": {"pandas": "3.1.1"}}]}
    recorded = []
    for rows in (100, 200, 200):
        add_table("mine", make_file(tmp_path, "parquet", every_kind(rows)), data_dir, progress=False)
        recorded.append(
            derive_config(base, OWN_PROFILE, dataset="mine", data_dir=data_dir)["include"][0]["env_nobuild"]
        )
    assert all(r["DSIB_DATASET"] == "mine" and r["DSIB_PROFILE"] == OWN_PROFILE for r in recorded)
    assert recorded[0]["DSIB_TABLE"] != recorded[1]["DSIB_TABLE"] == recorded[2]["DSIB_TABLE"]


def test_a_run_configured_for_other_rows_refuses_the_table(tmp_path):
    """The environment's name records what the table held when the run was configured
    (DSIB_TABLE); a table brought again since then fails its cells, saying so, rather than
    adding other rows' figures to that series."""
    data_dir = str(tmp_path / "data")
    add_table("mine", make_file(tmp_path, "parquet", every_kind(300)), data_dir, progress=False)
    cache = str(tmp_path / "cache")
    os.makedirs(cache)
    outputs = [
        ready_in_a_case_process(ROOT, data_dir, cache, digest, "parquet")
        for digest in (table_digest("mine", data_dir), "000000000000")
    ]
    assert outputs[0] == "ran", outputs
    assert outputs[1].startswith("DatasetError") and "brought again" in outputs[1], outputs
