"""The benchmark classes, called the way asv calls them, without asv: fast, and able to fail."""
import pytest

import benchmarks
from benchmarks import file_formats
from dsib.fidelity import FrameMismatch
from dsib.formats import FORMATS, POST_2019_FORMATS, Format


@pytest.fixture
def tiny_run(tiny_data_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(benchmarks, "PROFILE", "tiny")
    monkeypatch.setattr(benchmarks, "DATA_DIR", tiny_data_dir)
    monkeypatch.chdir(tmp_path)  # asv runs setup_cache in a scratch directory


def test_read_cases_time_what_was_checked(tiny_run):
    bench = file_formats.Read()
    outcomes = bench.setup_cache()
    assert sorted(outcomes) == sorted((f, v) for f in POST_2019_FORMATS for v in ("plain", "str", "cat"))
    for (name, variant), outcome in outcomes.items():
        assert outcome["error"] is None and outcome["skip"] is None
        bench.setup(outcomes, name, variant)
        assert isinstance(bench.payload, bytes) and len(bench.payload) == outcome["bytes"]
        bench.time_read(outcomes, name, variant)


def test_a_reader_that_drops_a_row_fails_its_case_only(tiny_run, monkeypatch):
    real = FORMATS["csv"]
    lossy = Format("csv", "CSV", ".csv", real.write, lambda source, **hints: real.read(source, **hints).iloc[:-1],
                   requires=real.requires, losses=real.losses)
    monkeypatch.setitem(FORMATS, "csv", lossy)
    bench = file_formats.Read()
    outcomes = bench.setup_cache()
    bench.setup(outcomes, "parquet", "plain")
    with pytest.raises(FrameMismatch, match="10000 rows became 9999"):
        bench.setup(outcomes, "csv", "plain")


def test_an_unavailable_library_skips(tiny_run, monkeypatch):
    real = FORMATS["parquet"]
    missing = Format("parquet", "Parquet", ".parquet", real.write, real.read, requires=("pyarrow_not_here",))
    monkeypatch.setitem(FORMATS, "parquet", missing)
    bench = file_formats.Write()
    with pytest.raises(NotImplementedError, match="pyarrow_not_here is not installed"):
        bench.setup(bench.setup_cache(), "parquet", "plain")
    cont = file_formats.ContinuousRead()
    cache = cont.setup_cache()
    with pytest.raises(NotImplementedError):
        cont.setup(cache, "parquet")


def test_continuous_read_reads_six_months_from_files(tiny_run):
    bench = file_formats.ContinuousRead()
    cache = bench.setup_cache()
    assert cache["month_frame_bytes"] > 10000 * 19 * 7
    for name in POST_2019_FORMATS:
        bench.setup(cache, name)
        assert len(bench.paths) == 6 and all(p.endswith(FORMATS[name].suffix) for p in bench.paths)
        bench.time_continuous_read(cache, name)
        bench.peakmem_first_month_only(cache, name)
        assert bench.track_month_frame(cache, name) == cache["month_frame_bytes"]


def test_write_cases_write_the_variant(tiny_run):
    bench = file_formats.Write()
    verified = bench.setup_cache()
    assert verified == ["nyc_taxi"], "asv passes a setup_cache value on only when it is not None"
    bench.setup(verified, "csv", "cat")
    assert str(bench.frame["str"].dtype) == "category"
    payload = bench.write(bench.frame)
    assert payload.startswith(b"VendorID,tpep_pickup_datetime,")


def test_a_missing_dataset_fails_with_the_rebuild_command(tiny_run, tmp_path, monkeypatch):
    monkeypatch.setattr(benchmarks, "DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(Exception, match="python -m data_prep prepare --dataset nyc_taxi --profile tiny"):
        file_formats.Read().setup_cache()


def test_grid_cold_read_proves_the_file_cold_before_timing(tiny_run, monkeypatch):
    from benchmarks import grid
    from dsib import pagecache

    outcomes = grid.ColdRead().setup_cache()
    bench = grid.ColdRead()
    bench.setup(outcomes, "rocklin", "parquet", "cat")
    assert pagecache.resident_fraction(bench.path) == 0.0
    bench.time_cold_read(outcomes, "rocklin", "parquet", "cat")
    assert pagecache.resident_fraction(bench.path) > 0.5, "the timed read really read the file"
    # Where eviction cannot be shown, the case skips instead of timing a warm read.
    monkeypatch.setattr(pagecache.os, "posix_fadvise", lambda *args: None)
    with pytest.raises(NotImplementedError, match="cannot evict"):
        bench.setup(outcomes, "rocklin", "parquet", "cat")


def test_grid_write_to_disk_leaves_the_bytes_on_disk(tiny_run):
    from benchmarks import grid

    bench = grid.Write()
    frames = bench.setup_cache()
    bench.setup(frames, "tsbs_cpu", "feather", "cat")
    bench.time_write_to_disk(frames, "tsbs_cpu", "feather", "cat")
    with open(bench.path, "rb") as f:
        assert FORMATS["feather"].read(f.read(), categoricals=("hostname",))["hostname"].dtype.name == "category"
    bench.teardown("tsbs_cpu", "feather", "cat")


def test_a_corrupt_store_fails_the_write_cases_in_setup_cache(tiny_run, tiny_copy, monkeypatch):
    import os

    from benchmarks import grid
    from data_prep import DatasetError

    monkeypatch.setattr(benchmarks, "DATA_DIR", tiny_copy)
    path = os.path.join(tiny_copy, "tiny", "rocklin", "all", "numbers.npy")
    with open(path, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        f.write(b"\xff")
    with pytest.raises(DatasetError, match="corrupt"):
        grid.Write().setup_cache()
    os.truncate(path, 100)
    with pytest.raises(DatasetError, match="recorded size"):
        grid.Write().setup_cache()


def test_grid_writes_start_from_the_frame_in_the_store(tiny_run):
    from benchmarks import grid
    from data_prep import load_frame
    from dsib.fidelity import assert_same_frame

    frames = grid.Write().setup_cache()
    assert sorted(frames) == sorted((d, v) for d in grid.DATASET_NAMES for v in ("plain", "str", "cat"))
    for dataset, variant in [("tsbs_cpu", "str"), ("rocklin", "cat"), ("nyc_taxi", "plain")]:
        bench = grid.Write()
        bench.setup(frames, dataset, "parquet", variant)
        expected = load_frame("tiny", variant, data_dir=benchmarks.DATA_DIR, dataset=dataset)
        assert_same_frame(bench.frame, expected)
        bench.teardown(frames, dataset, "parquet", variant)


def _versions(module):
    return dict((cls + "." + name, getattr(getattr(module, cls), name).version)
                for cls in dir(module) if not cls.startswith("_") and isinstance(getattr(module, cls), type)
                for name in dir(getattr(module, cls)) if name.startswith(benchmarks.BENCHMARK_PREFIXES))


def test_a_change_of_scale_starts_new_series(monkeypatch):
    """asv hides results of another version: a profile's rows are part of every version."""
    from benchmarks import grid
    from data_prep import PROFILES

    before = _versions(grid)
    assert len(before) >= 10 and len(set(before.values())) == len(before), "each benchmark its own series"
    assert _versions(file_formats)
    monkeypatch.setitem(PROFILES, "default", PROFILES["default"]._replace(
        grid_rows=dict(PROFILES["default"].grid_rows, nyc_taxi=12345)))
    benchmarks.version_by_code_and_scale(vars(grid))
    after = _versions(grid)
    assert set(after) == set(before) and all(after[k] != before[k] for k in before)
    monkeypatch.undo()
    benchmarks.version_by_code_and_scale(vars(grid))
    assert _versions(grid) == before, "a version depends on the code and the scales only"


def test_retuning_the_pr_profile_keeps_every_series():
    """pr results live for one asv continuous: its scale stays out of the versions, so tuning
    it cannot orphan the committed history (versions of tiny/default/full are unchanged by pr)."""
    from benchmarks import grid
    from data_prep import PROFILES

    before = _versions(grid)
    pr = PROFILES["pr"]
    assert not pr.versioned and all(PROFILES[name].versioned for name in ("tiny", "default", "full"))
    try:
        PROFILES["pr"] = pr._replace(grid_rows=dict(pr.grid_rows, nyc_taxi=777))
        benchmarks.version_by_code_and_scale(vars(grid))
        assert _versions(grid) == before
        del PROFILES["pr"]
        benchmarks.version_by_code_and_scale(vars(grid))
        assert _versions(grid) == before, "adding pr left the committed versions as they were"
    finally:
        PROFILES["pr"] = pr
        benchmarks.version_by_code_and_scale(vars(grid))


def test_under_make_compare_a_setup_cache_is_built_once_per_installed_code(tiny_run, tmp_path, monkeypatch):
    """asv runs setup_cache again every round; make compare's DSIB_ROUND_CACHE keeps the first
    round's files and value, keyed by the installed code, and rebuilds an interrupted one."""
    import os

    cache = tmp_path / "round-cache"
    cache.mkdir()
    monkeypatch.setattr(benchmarks, "ROUND_CACHE", str(cache))
    built = []
    real = FORMATS["csv"].write
    monkeypatch.setitem(FORMATS, "csv", Format("csv", "CSV", ".csv", lambda frame: built.append(1) or real(frame),
                                               FORMATS["csv"].read, requires=FORMATS["csv"].requires,
                                               losses=FORMATS["csv"].losses))
    first = file_formats.Read().setup_cache()
    writes = len(built)
    assert writes == 3  # the csv file of each variant, written and checked
    again = file_formats.Read().setup_cache()
    assert len(built) == writes and again == first
    path = first[("csv", "plain")]["path"]
    assert path.startswith(str(cache)) and os.path.getsize(path) == first[("csv", "plain")]["bytes"]

    (directory,) = [cache / name for name in os.listdir(str(cache))]
    os.remove(str(directory / "value.pickle"))  # an interrupted build: files, no value
    assert file_formats.Read().setup_cache() == first and len(built) == 2 * writes

    key = benchmarks._fingerprint_of_installed_code("x")
    monkeypatch.setattr(benchmarks, "PROFILE", "pr")  # another profile (or code, or data): another key
    assert benchmarks._fingerprint_of_installed_code("x") != key


def test_the_round_cache_wrapper_keeps_asvs_cache_key_on_the_original_method():
    import inspect

    from asv_runner.benchmarks._base import get_setup_cache_key

    lines, _ = inspect.findsource(file_formats)
    for cls in (file_formats.Read, file_formats.ContinuousRead):
        module, line = get_setup_cache_key(cls.setup_cache).split(":")
        assert module == "file_formats" and lines[int(line) - 1].strip() == "def setup_cache(self):", (module, line)


def test_the_full_profile_runs_no_grid_and_opens_no_store(tmp_path, monkeypatch):
    """At full the grid's files would take over 440 GB: every grid case skips, saying why,
    and no grid setup_cache opens a store (there is none at full here) or writes a file."""
    import itertools
    import os

    from benchmarks import grid

    monkeypatch.setattr(benchmarks, "PROFILE", "full")
    monkeypatch.setattr(benchmarks, "DATA_DIR", str(tmp_path / "no-store"))
    monkeypatch.chdir(tmp_path)
    classes = (grid.Read, grid.ReadPeakMemory, grid.ColdRead, grid.Sizes, grid.Write, grid.CategorizeThenWrite,
               grid.ContinuousRead)
    for cls in classes:
        bench, reasons = cls(), set()
        cache = bench.setup_cache()
        for params in itertools.product(*cls.params):
            with pytest.raises(NotImplementedError) as skipped:
                bench.setup(cache, *params)
            reasons.add(str(skipped.value))
        # Cases that skip everywhere (a format without a variant) keep their own reason.
        assert "the full profile runs no grid: its files would take over 440 GB; the grid runs at default" in reasons
    assert os.listdir(str(tmp_path)) == []
