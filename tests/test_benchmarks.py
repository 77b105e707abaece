"""The benchmark classes, called the way asv calls them, without asv: fast, and able to fail."""

import itertools
import os

import pytest

import benchmarks
from benchmarks import batches, prepare, reads, sizes, writes
from data_prep import PROFILES, DatasetError, load_frame
from dsib import catalog, pagecache
from dsib.cells import Cells
from dsib.fidelity import FrameMismatch, assert_same_frame
from dsib.formats import FORMATS, POST_2019_FORMATS, Needs
from dsib_tools import suite


@pytest.fixture
def tiny_run(tiny_data_dir, tmp_path, monkeypatch):
    """The suite at `tiny`, its cell files in a cache of this test's own."""
    monkeypatch.setattr(benchmarks, "DATA_DIR", tiny_data_dir)
    cells = Cells("tiny", tiny_data_dir, str(tmp_path / "cache"))
    for module in (benchmarks, reads, writes, sizes, batches):
        monkeypatch.setattr(module, "CELLS", cells)
        if hasattr(module, "PROFILE"):
            monkeypatch.setattr(module, "PROFILE", "tiny")
    monkeypatch.chdir(tmp_path)  # asv runs the cases in a scratch directory
    return cells


def _built(cells):
    """(source, format, variant) of every cell file in the cache."""
    root = os.path.join(cells.cache_dir, cells.profile)
    found = set()
    for source in os.listdir(root) if os.path.isdir(root) else ():
        for fmt in os.listdir(os.path.join(root, source)):
            if fmt not in ("_frames", "_scratch"):
                for variant in os.listdir(os.path.join(root, source, fmt)):
                    found.add((source, fmt.split(".")[0], variant))  # "orc.columns": a reader's check
    return found


def test_read_from_bytes_times_the_bytes_that_were_checked(tiny_run):
    bench = reads.ReadFromBytes()
    for fmt, variant in itertools.product(POST_2019_FORMATS, ("plain", "str", "cat")):
        bench.setup("nyc_taxi_month", fmt, variant)
        outcome = tiny_run.file("nyc_taxi_month", FORMATS[fmt], variant)
        assert outcome["error"] is None and outcome["skip"] is None
        with open(outcome["path"], "rb") as f:
            assert bench.payload == f.read()
        bench.time_read("nyc_taxi_month", fmt, variant)


def test_a_reader_that_drops_a_row_fails_its_case_only(tiny_run, monkeypatch):
    real, defaults = FORMATS["csv"].read, FORMATS["csv"].defaults
    monkeypatch.setattr(FORMATS["csv"], "read", lambda source, **hints: real(source, **hints).iloc[:-1])
    # The post's month is read as the library's defaults read it: that reader drops the row too.
    dropping = defaults._replace(read=lambda source, **hints: defaults.read(source, **hints).iloc[:-1])
    monkeypatch.setattr(FORMATS["csv"], "defaults", dropping)
    reads.ReadFromBytes().setup("nyc_taxi_month", "parquet", "plain")
    with pytest.raises(FrameMismatch, match="10000 rows became 9999"):
        reads.ReadFromBytes().setup("nyc_taxi_month", "csv", "plain")
    with pytest.raises(FrameMismatch):
        reads.ReadFromPageCache().setup("nyc_taxi", "csv", "plain")


def test_an_unavailable_library_skips_with_its_reason(tiny_run, monkeypatch):
    monkeypatch.setattr(FORMATS["parquet"], "needs", (Needs("pyarrow_not_here"),))
    with pytest.raises(NotImplementedError, match="pyarrow_not_here is not installed"):
        writes.WriteMonthToBytes().setup("nyc_taxi_month", "parquet", "plain")
    with pytest.raises(NotImplementedError, match="pyarrow_not_here"):
        reads.ContinuousReadMonths().setup("nyc_taxi_month", "parquet")
    assert not _built(tiny_run), "a skipped cell builds nothing"


def test_continuous_read_reads_every_partition_from_files(tiny_run):
    for bench, source in ((reads.ContinuousReadMonths(), "nyc_taxi_month"), (reads.ContinuousRead(), "nyc_taxi")):
        for name in POST_2019_FORMATS:
            bench.setup(source, name)
            assert len(bench.paths) == 6 and all(p.endswith(FORMATS[name].suffix) for p in bench.paths)
            bench.time_read(source, name)
            bench.peakmem_first_partition(source, name)


def test_month_writes_write_the_variant(tiny_run):
    bench = writes.WriteMonthToBytes()
    bench.setup("nyc_taxi_month", "csv", "cat")
    assert str(bench.frame["str"].dtype) == "category"
    assert bench.write(bench.frame).startswith(b"VendorID,tpep_pickup_datetime,")


def test_a_missing_dataset_fails_with_the_rebuild_command(tiny_run, tmp_path, monkeypatch):
    monkeypatch.setattr(tiny_run, "data_dir", str(tmp_path / "nowhere"))
    with pytest.raises(DatasetError, match="python -m data_prep prepare --dataset nyc_taxi --profile tiny"):
        reads.ReadFromBytes().setup("nyc_taxi_month", "parquet", "plain")


def test_read_cold_proves_the_file_cold_before_timing(tiny_run, monkeypatch):
    bench = reads.ReadCold()
    bench.setup("rocklin", "parquet", "cat")
    assert pagecache.resident_fraction(bench.path) == 0.0
    bench.time_read("rocklin", "parquet", "cat")
    assert pagecache.resident_fraction(bench.path) > 0.5, "the timed read really read the file"
    warm = reads.ReadFromPageCache()
    warm.setup("rocklin", "parquet", "cat")
    assert warm.path == bench.path, "the warm twin reads the same file"
    assert pagecache.resident_fraction(bench.path) == 1.0
    # Where eviction cannot be shown, the case skips instead of timing a warm read.
    monkeypatch.setattr(pagecache.os, "posix_fadvise", lambda *args: None)
    with pytest.raises(NotImplementedError, match="cannot evict"):
        reads.ReadCold().setup("rocklin", "parquet", "cat")


def test_read_cold_skips_where_the_filesystem_cannot_be_shown_cold(tiny_run, monkeypatch):
    monkeypatch.setattr(pagecache, "eviction_supported", lambda d: (False, "a filesystem with a cache of its own"))
    monkeypatch.setattr(pagecache, "_boot_id", lambda: None)  # no kept verdict: ask the probe
    with pytest.raises(NotImplementedError, match="no cold read here: a filesystem with a cache of its own"):
        reads.ReadCold().setup("rocklin", "parquet", "cat")


def test_write_durable_leaves_the_bytes_on_disk(tiny_run):
    bench = writes.WriteDurable()
    bench.setup("tsbs_cpu", "feather", "cat")
    bench.time_write("tsbs_cpu", "feather", "cat")
    with open(bench.path, "rb") as f:
        assert FORMATS["feather"].read(f.read(), categoricals=("hostname",))["hostname"].dtype.name == "category"
    bench.teardown("tsbs_cpu", "feather", "cat")
    assert not os.path.exists(bench.path)


def test_a_corrupt_store_fails_the_cases_that_load_it(tiny_run, tiny_copy, monkeypatch):
    monkeypatch.setattr(tiny_run, "data_dir", tiny_copy)
    path = os.path.join(tiny_copy, "tiny", "rocklin", "all", "numbers.npy")
    with open(path, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        f.write(b"\xff")
    with pytest.raises(DatasetError, match="corrupt"):
        writes.WriteToBytes().setup("rocklin", "parquet", "plain")
    os.truncate(path, 100)
    tiny_run._stores.clear()
    with pytest.raises(DatasetError, match="recorded size"):
        writes.WriteToBytes().setup("rocklin", "parquet", "plain")


def test_writes_start_from_the_frame_in_the_store(tiny_run):
    for source, variant in [("tsbs_cpu", "str"), ("rocklin", "cat"), ("nyc_taxi", "plain")]:
        bench = writes.WriteToBytes()
        bench.setup(source, "parquet", variant)
        expected = load_frame("tiny", variant, data_dir=tiny_run.data_dir, dataset=source)
        assert_same_frame(bench.frame, expected)


def test_running_one_formats_cases_builds_only_that_formats_files(tiny_run):
    """Files are built per cell, when a case first needs one: running every case of one format
    (what `make bench FORMAT=orc` selects) builds that format's files and no other's."""
    ran = 0
    for cls in suite.classes():
        if "format" not in cls.param_names:
            continue
        at = cls.param_names.index("format")
        for params in itertools.product(*cls.params):
            if params[at] != "orc":
                continue
            try:
                cls().setup(*params)
                ran += 1
            except NotImplementedError:
                pass
    built = _built(tiny_run)
    assert ran > 20 and built and set(fmt for _, fmt, _ in built) == {"orc"}, built


def test_a_cell_file_is_built_once_and_an_interrupted_build_again(tiny_run, monkeypatch):
    writes_seen = []
    real = FORMATS["csv"].write
    monkeypatch.setattr(FORMATS["csv"], "write", lambda frame: writes_seen.append(1) or real(frame))
    first = tiny_run.file("nyc_taxi", FORMATS["csv"], "plain")
    assert tiny_run.file("nyc_taxi", FORMATS["csv"], "plain") == first and len(writes_seen) == 1
    os.remove(os.path.join(os.path.dirname(first["path"]), "outcome.json"))  # as if interrupted
    again = tiny_run.file("nyc_taxi", FORMATS["csv"], "plain")
    assert len(writes_seen) == 2 and again["bytes"] == first["bytes"]
    other = Cells("pr", tiny_run.data_dir, tiny_run.cache_dir)
    with pytest.raises(DatasetError):  # another profile is another key (and here, no data)
        other.file("nyc_taxi", FORMATS["csv"], "plain")


def test_two_processes_building_one_cell_take_turns(tiny_run, tmp_path):
    """Two runs sharing the cache (two environments side by side) once removed each other's
    build in progress; now the second waits for the first and uses its build."""
    import multiprocessing
    import time

    from dsib import cells as cells_module

    started = tmp_path / "started"

    def slow_build(tmp):
        started.write_text("1")
        time.sleep(1.0)
        with open(os.path.join(tmp, "payload"), "w") as f:
            f.write(str(os.getpid()))
        return {"builder": os.getpid()}

    def build_in_child(queue):
        final = cells_module._built(str(tmp_path / "cell"), "key", slow_build)
        with open(os.path.join(final, "outcome.json")) as f:
            queue.put(f.read())

    queue = multiprocessing.get_context("fork").Queue()
    first = multiprocessing.get_context("fork").Process(target=build_in_child, args=(queue,))
    first.start()
    while not started.exists():
        time.sleep(0.01)
    second = multiprocessing.get_context("fork").Process(target=build_in_child, args=(queue,))
    second.start()
    first.join(30)
    second.join(30)
    assert first.exitcode == 0 and second.exitcode == 0
    outcomes = [queue.get(timeout=5), queue.get(timeout=5)]
    assert outcomes[0] == outcomes[1] and str(first.pid) in outcomes[0]  # one build, the first's
    assert sorted(os.listdir(str(tmp_path / "cell"))) == [".lock", "key"]


def test_every_class_declares_its_series_and_every_versioned_scale_is_in_it(monkeypatch):
    for cls in suite.classes():
        assert cls.version == benchmarks.series(int(cls.version.split(".")[0])), cls
    before = benchmarks._scale_of_versioned_profiles()
    monkeypatch.setitem(PROFILES, "pr", PROFILES["pr"]._replace(grid_rows={"nyc_taxi": 777}))
    assert benchmarks._scale_of_versioned_profiles() == before, "pr's results are never kept: its scale is out"
    monkeypatch.setitem(
        PROFILES, "default", PROFILES["default"]._replace(grid_rows=dict(PROFILES["default"].grid_rows, nyc_taxi=12345))
    )
    assert benchmarks._scale_of_versioned_profiles() != before, "a published scale changes every series"


def test_the_full_profile_measures_no_grid_and_opens_no_store(tmp_path, monkeypatch):
    """At full the grid's files would take over 440 GB: every grid case skips, saying why,
    and opens no store (there is none at full here) and writes no file; but Rocklin's frame, at
    his study's size."""
    monkeypatch.setattr(benchmarks, "PROFILE", "full")
    cells = Cells("full", str(tmp_path / "no-store"), str(tmp_path / "cache"))
    for module in (benchmarks, reads, writes, sizes):
        monkeypatch.setattr(module, "CELLS", cells)
    monkeypatch.chdir(tmp_path)
    for cls in (
        reads.ReadFromPageCache,
        reads.ReadCold,
        writes.WriteToBytes,
        writes.WriteDurable,
        writes.CategorizeThenWrite,
        sizes.Sizes,
    ):
        reasons = set()
        for params in itertools.product(*cls.params):
            if params[0] not in catalog.BUILT_IN.grid or params[0] == "rocklin":
                continue  # the post's month and Rocklin's frame run at full
            with pytest.raises(NotImplementedError) as skipped:
                cls().setup(*params)
            reasons.add(str(skipped.value))
        assert (
            "the full profile leaves nyc_taxi out of the grid: its files would take over 440 GB; the grid runs "
            "at default (but Rocklin's frame, at his 1,000,000 rows)" in reasons
        ), reasons
    assert os.listdir(str(tmp_path)) == [], "no store opened, no file built"


def test_prepare_times_the_generator_into_a_fresh_directory_each_sample():
    bench = prepare.Prepare()
    bench.setup(1000)
    bench.time_generate_plain_month(1000)
    bench.teardown(1000)
    assert not os.path.exists(bench.tmp)
    bench.setup(1000)  # asv's setup before the next sample: the generated columns are kept
    bench.time_generate_plain_month(1000)
    bench.time_string_columns(1000)
    bench.teardown(1000)


def test_setup_cache_builds_every_selected_cell_and_leaves_failures_to_the_case(monkeypatch):
    import benchmarks
    from benchmarks import reads

    built = []

    def build(*given):
        built.append(given)
        if given[1] == "csv":
            raise NotImplementedError("the case's setup says why")

    benchmarks.build_every_cell(reads.ReadFromPageCache, build)
    assert len(built) == len(list(itertools.product(*reads.ReadFromPageCache.params)))
    # asv's -b of the run (DSIB_SELECT): only its cells, whichever method the pattern names
    monkeypatch.setattr(benchmarks, "SELECTED", r"^reads\.ReadFromPageCache\.time_read\('nyc_taxi', '(csv|orc)'")
    del built[:]
    benchmarks.build_every_cell(reads.ReadFromPageCache, build)
    assert sorted(set((s, f) for s, f, v in built)) == [("nyc_taxi", "csv"), ("nyc_taxi", "orc")]
    monkeypatch.setattr(benchmarks, "SELECTED", r"SerializeForQuestDB")
    del built[:]
    benchmarks.build_every_cell(reads.ReadFromPageCache, build)
    assert built == []
