"""Every registered format x variant round-trips at `tiny`, and the check that says so can fail."""

import os

import numpy as np
import pandas as pd
import pytest

from data_prep import DATASETS, VARIANTS, load_frame, read_hints
from dsib import catalog, pagecache
from dsib.fidelity import ALLOWED_LOSSES, FrameMismatch, assert_same_frame, compare_frames
from dsib.formats import FORMATS, Format, Loss, Needs, UnknownFormatError, get_format
from dsib.registry import installed_versions
from dsib.roundtrip import raise_for_outcome, write_and_check

ROUND_TRIPS = [(f.name, v) for f in FORMATS.values() for v in VARIANTS if v in f.variants]


@pytest.mark.parametrize("dataset", sorted(DATASETS))
@pytest.mark.parametrize("name,variant", ROUND_TRIPS)
def test_round_trip(tiny_data_dir, tmp_path, dataset, name, variant):
    fmt = get_format(name)
    hints = read_hints(variant, dataset)
    frame = load_frame("tiny", variant, data_dir=tiny_data_dir, dataset=dataset)
    outcome = write_and_check(fmt, frame, hints, str(tmp_path / ("case" + fmt.suffix)))
    if name == "pandas-msgpack" and not hasattr(pd.DataFrame, "to_msgpack"):
        assert outcome["skip"] == "pandas to_msgpack: pandas %s has no to_msgpack (removed in 1.0)" % pd.__version__
        return
    assert outcome["skip"] is None and outcome["error"] is None, outcome
    assert outcome["bytes"] > 0
    # Losses are only those the format declares for this environment.
    declared = set(fmt.losses())
    assert all(any(loss.startswith(c) for c in frame.columns) for loss in outcome["losses"])
    if not declared:
        assert outcome["losses"] == []
    read = fmt.frame_of(fmt.read(outcome["path"], **hints), hints)
    for column in hints["categoricals"]:
        assert str(read[column].dtype) == "category"
    assert_same_frame(frame, read, fmt.losses())


def test_every_format_but_npy_holds_the_three_variants():
    assert {f for f in FORMATS if FORMATS[f].variants != VARIANTS} == {"npy"}
    assert FORMATS["npy"].variants == ("plain",)
    with pytest.raises(NotImplementedError, match="cannot hold the 'str' variant"):
        FORMATS["npy"].check_variant("str")


def test_a_format_module_holds_one_family_and_every_format_is_registered_once():
    from dsib import formats

    for family in formats.FAMILIES:
        assert len(set(f.family for f in family.FORMATS)) == 1, family.__name__
    assert len(FORMATS.names()) == len(set(FORMATS.names())) == sum(len(m.FORMATS) for m in formats.FAMILIES)
    with pytest.raises(ValueError, match="registered twice"):
        type(FORMATS)(FORMATS.values() + [FORMATS["csv"]])


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_memory_mapped_sum_reads_every_page_of_an_evicted_file(tiny_data_dir, tmp_path, variant):
    """Its read is lazy: only touching every byte of every buffer (text data and dictionaries
    included) brings the whole file in. Checked with mincore on a file evicted first."""
    supported, why = pagecache.eviction_supported(str(tmp_path))
    if not supported:
        pytest.skip(why)
    fmt = get_format("arrow-file-mmap")
    tiny = load_frame("tiny", variant, data_dir=tiny_data_dir, dataset="nyc_taxi")
    # Larger than the kernel's readahead (8 MiB on this kind of machine), which would otherwise
    # bring a small file in whole at its first page fault.
    frame = pd.concat([tiny] * 30, ignore_index=True)
    path = str(tmp_path / "frame.arrow")
    with open(path, "wb") as f:
        f.write(fmt.write(frame))
    pagecache.evict_and_verify(path)
    table = fmt.read(path, **read_hints(variant))
    resident, total = pagecache.resident_pages(path)
    assert total > 10 and resident == total, "%d of %d pages read" % (resident, total)
    assert_same_frame(frame, fmt.frame_of(table, read_hints(variant)), fmt.losses())
    # What it sums is every buffer of every column: validity, offsets, text data, dictionaries.
    from dsib.formats.arrow import _buffers

    for column in table.columns:
        for chunk in column.chunks:
            assert sum(b.size for b in _buffers(chunk)) >= chunk.nbytes, column


def test_unknown_format_name_lists_the_registered_ones():
    with pytest.raises(UnknownFormatError) as info:
        get_format("parket")
    assert str(info.value).startswith("unknown format 'parket'; registered formats are: parquet, parquet-none,")
    assert all(name in str(info.value) for name in FORMATS)


def test_missing_library_is_a_skip_not_a_failure(tmp_path):
    ghost = Format(
        "ghost", "Ghost", ".ghost", write=None, read=None, family="ghost", needs=(Needs("no_such_library_dsib"),)
    )
    outcome = write_and_check(ghost, pd.DataFrame({"a": [1]}), {}, str(tmp_path / "x.ghost"))
    assert outcome["skip"] == "Ghost: no_such_library_dsib is not installed in this environment"
    with pytest.raises(NotImplementedError, match="no_such_library_dsib"):
        raise_for_outcome(outcome)


def test_capabilities_are_data_read_against_any_versions():
    """The same fields decide in a benchmark environment (its installed versions) and in the
    tools (another environment's pins)."""
    old = {"pandas": "0.23.4", "pyarrow": "0.11.1", "numpy": "1.16.6", "tables": "3.5.2", "msgpack": "1.0.5"}
    assert "Feather v2 arrived in pyarrow 0.17" in FORMATS["feather"].unavailable(old)
    assert FORMATS["pandas-msgpack"].unavailable(old) is None
    assert "no to_msgpack" in FORMATS["pandas-msgpack"].unavailable(dict(old, pandas="1.0.0"))
    assert "fastparquet is not installed" in FORMATS["fastparquet"].unavailable(old)
    assert set(FORMATS["csv"].losses_in(old)) == {"timezone", "float_ulp"}
    assert set(FORMATS["csv"].losses_in(dict(old, pandas="3.1.1"))) == {"datetime_unit"}
    assert set(FORMATS["csv"].losses_in(dict(old, pandas="3.0.6"))) == {"datetime_unit", "float_ulp"}
    assert FORMATS["parquet"].losses_in(old) == ("category_order",)
    assert Loss("x", since=("pandas", "1.0"), below=("pandas", "2.0")).applies({"pandas": "1.5.3"})
    assert not Loss("x", since=("pandas", "1.0")).applies({})
    here = installed_versions(FORMATS.packages())
    for fmt in FORMATS.values():
        assert fmt.losses() == fmt.losses_in(here)


def test_skip_reasons_come_from_one_place(monkeypatch):
    from data_prep import profiles

    new = installed_versions(FORMATS.packages())
    assert catalog.BUILT_IN.skip_reason("read_from_page_cache", "nyc_taxi", "npy", "str", "default", new).startswith(
        "NumPy .npy cannot hold the 'str' variant"
    )
    assert "another format's writer" in catalog.BUILT_IN.skip_reason(
        "write_to_bytes", "nyc_taxi", "arrow-file-mmap", "plain", "default", new
    )
    assert "2019 post's formats" in catalog.BUILT_IN.skip_reason(
        "read_from_bytes", "nyc_taxi_month", "arrow-file-mmap", "plain", "default", new
    )
    assert "2019 post's formats" in catalog.BUILT_IN.skip_reason(
        "write_month_to_bytes", "nyc_taxi_month", "feather", "plain", "default", new
    )
    assert catalog.BUILT_IN.skip_reason("read_cold", "tsbs_cpu", "csv", "plain", "pr", new) is None, "pr compares TSBS"
    monkeypatch.setitem(
        profiles.PROFILES,
        "taxi-only",
        profiles.PROFILES["pr"]._replace(name="taxi-only", grid_rows={"nyc_taxi": 100000}),
    )
    reason = catalog.BUILT_IN.skip_reason("read_cold", "tsbs_cpu", "csv", "plain", "taxi-only", new)
    assert "leaves tsbs_cpu out" in reason
    assert "leaves nyc_taxi out of the grid" in catalog.BUILT_IN.skip_reason(
        "read_cold", "nyc_taxi", "csv", "plain", "full", new
    )
    assert catalog.BUILT_IN.skip_reason("read_cold", "rocklin", "csv", "plain", "full", new) is None, (
        "Rocklin's size is full's"
    )
    assert "measured on rocklin only" in catalog.BUILT_IN.skip_reason(
        "read_cold", "nyc_taxi", "json-split-noindex", "plain", "default", new
    )
    assert catalog.BUILT_IN.skip_reason("read_cold", "rocklin", "json-split-noindex", "str", "default", new) is None
    assert catalog.BUILT_IN.skip_reason("read_cold", "nyc_taxi", "csv", "plain", "default", new) is None
    assert catalog.BUILT_IN.params("read_from_bytes") == [["nyc_taxi_month"], ["parquet", "csv"], list(VARIANTS)]


def _sample():
    return pd.DataFrame(
        {
            "i": np.arange(4, dtype="int64"),
            "f": [0.5, np.nan, 2.25, -1.0],
            "b": [True, False, True, False],
            "t": pd.Series(
                [pd.Timestamp("2016-01-01 00:00:01"), pd.Timestamp("2016-01-02"), pd.NaT, pd.Timestamp("2016-01-04")],
                dtype="datetime64[ns]",
            ),
            "tz": pd.to_datetime(["2016-01-01", "2016-01-02", "2016-01-03", "2016-01-04"]).tz_localize("UTC"),
            "c": pd.Categorical(["x", "y", "x", "z"]),
            "s": pd.Series(["a", None, "c", "d"], dtype=object),
        }
    )


@pytest.mark.parametrize(
    "damage,expected",
    [
        (lambda df: df.assign(i=df["i"] + 1), "i: 4 values differ"),
        (lambda df: df.assign(i=df["i"].astype("int32")), "i: dtype int64 became int32"),
        (lambda df: df.assign(f=[0.5, 0.0, 2.25, -1.0]), "f: missing values at different rows"),
        (lambda df: df.assign(f=[0.5, np.nan, 2.25 + 1e-9, -1.0]), "f: 1 values differ"),
        (lambda df: df.assign(b=df["b"].astype(object)), "b: dtype bool became object"),
        (lambda df: df.assign(t=df["t"] + pd.Timedelta(1, "s")), "t: 3 values differ"),
        (lambda df: df.assign(tz=df["tz"].dt.tz_convert("America/New_York")), "UTC] became datetime64["),
        (lambda df: df.assign(c=df["c"].astype(str)), "c: dtype category became"),
        (lambda df: df.assign(c=df["c"].cat.add_categories(["w"])), "c: categories differ"),
        (lambda df: df.assign(c=pd.Categorical(["x", "y", "z", "z"])), "c: 1 values differ"),
        (lambda df: df.assign(s=pd.Series(["a", "b", "c", "d"], dtype=object)), "s: missing values at different rows"),
        (lambda df: df.assign(s=df["s"].astype("category")), "s: dtype object became category"),
        (lambda df: df.iloc[:3], "4 rows became 3"),
        (lambda df: df[df.columns[::-1]], "columns"),
        (lambda df: df.set_axis([10, 11, 12, 13]), "the index differs"),
    ],
)
def test_the_check_catches_a_wrong_frame(damage, expected):
    sample = _sample()
    problems, _ = compare_frames(sample, damage(sample.copy()))
    assert any(expected in p for p in problems), problems
    with pytest.raises(FrameMismatch):
        assert_same_frame(sample, damage(sample.copy()))


def test_the_check_accepts_an_equal_frame_and_only_declared_losses():
    sample = _sample()
    assert compare_frames(sample, sample.copy()) == ([], [])
    coarser = sample.assign(t=sample["t"].values.astype("datetime64[us]"))
    if str(coarser["t"].dtype) == "datetime64[ns]":
        pytest.skip("this pandas keeps only nanosecond datetimes")
    assert compare_frames(sample, coarser)[0]
    assert compare_frames(sample, coarser, ["datetime_unit"]) == ([], ["t: datetime64[ns] read as datetime64[us]"])
    reordered = sample.assign(c=sample["c"].cat.reorder_categories(["z", "y", "x"]))
    assert compare_frames(sample, reordered)[0]
    assert compare_frames(sample, reordered, ["category_order"])[0] == []
    with pytest.raises(ValueError, match="unknown allowed losses"):
        compare_frames(sample, sample, ["anything"])
    assert set(ALLOWED_LOSSES) == {
        "datetime_unit",
        "timezone",
        "float_ulp",
        "float_digits",
        "category_order",
        "column_order",
        "boolean",
        "row_order",
        "nullable_float",
        "decimal_float",
        "integer_float",
    }
    from decimal import Decimal

    prices = pd.DataFrame({"p": np.array([Decimal("12.30"), None, Decimal("0.10")], dtype=object)})
    as_floats = pd.DataFrame({"p": [12.3, np.nan, 0.1]})
    assert compare_frames(prices, as_floats)[0] == ["p: dtype object became float64"]
    assert compare_frames(prices, as_floats, ["decimal_float"]) == ([], ["p: decimal read as float64"])
    assert compare_frames(prices, as_floats.assign(p=[12.3, np.nan, 0.1000001]), ["decimal_float"])[0]
    big = pd.DataFrame({"u": np.array([2**63 + 5, 1], dtype="uint64")})
    rounded = pd.DataFrame({"u": np.array([2**63, 1], dtype="uint64")})
    assert compare_frames(big, rounded)[0]
    assert compare_frames(big, rounded, ["integer_float"]) == ([], ["u: 1 integers rounded to float64 (integer_float)"])
    assert compare_frames(big, rounded.assign(u=np.array([2**63 + 4096, 1], dtype="uint64")), ["integer_float"])[0]
    flags = pd.DataFrame({"b": [True, False, True]})
    as_integers = pd.DataFrame({"b": [1, 0, 1]})
    assert compare_frames(flags, as_integers)[0] == ["b: dtype bool became int64"]
    assert compare_frames(flags, as_integers, ["boolean"]) == ([], ["b: bool read as int64"])
    assert compare_frames(flags, pd.DataFrame({"b": [1, 1, 1]}), ["boolean"])[0], "a value that differs still does"


def test_nullable_integers_and_booleans_as_floats_are_a_declared_loss_and_nothing_more():
    """HDF5's declared loss (it cannot store pandas' nullable types): the same values as float64,
    NaN for each null; a changed value, a moved null or an integer float64 cannot hold is still a
    difference."""
    nullable = pd.DataFrame(
        {"n": pd.array([1, None, -3, 2**40], dtype="Int64"), "b": pd.array([True, None, False, True], dtype="boolean")}
    )
    floats = pd.DataFrame({"n": [1.0, np.nan, -3.0, 2.0**40], "b": [1.0, np.nan, 0.0, 1.0]})
    assert compare_frames(nullable, floats)[0] == ["n: dtype Int64 became float64", "b: dtype boolean became float64"]
    assert compare_frames(nullable, floats, ["nullable_float"]) == (
        [],
        ["n: Int64 read as float64", "b: boolean read as float64"],
    )
    for wrong in (floats.assign(n=[1.0, np.nan, -4.0, 2.0**40]), floats.assign(b=[1.0, 1.0, np.nan, 1.0])):
        assert compare_frames(nullable, wrong, ["nullable_float"])[0], wrong
    big = pd.DataFrame({"n": pd.array([2**53 + 1, None], dtype="Int64")})
    assert compare_frames(big, pd.DataFrame({"n": [float(2**53 + 1), np.nan]}), ["nullable_float"])[0]


def test_a_brought_tables_nullable_columns_come_back_from_each_reader_told_their_dtypes():
    """The ``dtypes`` hint (a brought table's only): CSV's three readers, JSON's and ORC's give
    back pandas' nullable integers and booleans and text with nulls; HDF5 holds them as floats,
    its declared loss. A built-in dataset's hints have no ``dtypes``: their calls are unchanged."""
    import tempfile

    frame = pd.DataFrame(
        {
            "n": pd.array([1, None, 3, 85], dtype="Int32"),
            "b": pd.array([True, None, False, True], dtype="boolean"),
            "s": np.array(["85", None, "café", "x"], dtype=object),
            "i": [1, 2, 3, 4],
        }
    )
    hints = {
        "datetimes": (),
        "categoricals": (),
        "texts": (),
        "dtypes": (("n", "Int32"), ("b", "boolean"), ("s", "text")),
    }
    for fmt in FORMATS.values():
        if fmt.family not in ("csv", "json", "orc", "hdf5") or not fmt.writes:
            continue
        try:
            fmt.check_available()
        except NotImplementedError:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            outcome = write_and_check(fmt, frame, hints, os.path.join(tmp, "f" + fmt.suffix))
            assert outcome["error"] is None, (fmt.name, outcome["error"])
            if fmt.family == "hdf5":
                assert outcome["losses"] == ["b: boolean read as float64", "n: Int32 read as float64"], outcome
                refused = write_and_check(
                    fmt, frame, hints, os.path.join(tmp, "g" + fmt.suffix), refused=("nullable_float",)
                )
                assert "n: dtype Int32 became float64" in refused["error"], refused
            else:
                assert outcome["losses"] == [], (fmt.name, outcome["losses"])


def test_rows_in_another_order_pass_only_where_declared_and_only_as_the_same_rows():
    sample = _sample()
    shuffled = sample.iloc[::-1].reset_index(drop=True)
    assert compare_frames(sample, shuffled)[0], "order matters unless declared"
    assert compare_frames(sample, shuffled, ["row_order"]) == ([], ["row_order: the rows came back in another order"])
    assert compare_frames(sample, sample.copy(), ["row_order"]) == ([], []), "no loss where the order is the same"
    changed = shuffled.copy()
    changed.loc[0, "i"] = changed["i"].max() + 1
    assert compare_frames(sample, changed, ["row_order"])[0], "a value that differs still does"
    doubled = pd.concat([shuffled.iloc[:1]] * 2 + [shuffled.iloc[2:]]).reset_index(drop=True)
    assert compare_frames(sample, doubled, ["row_order"])[0], "one row twice and another lost is caught"


def test_a_lost_time_zone_is_caught_unless_declared():
    sample = _sample()
    naive = sample.assign(tz=sample["tz"].dt.tz_convert(None))
    problems, _ = compare_frames(sample, naive)
    assert problems and "time zone changed" in problems[0]
    # A dropped zone plus a coarser unit must not pass as a unit change alone.
    coarser_naive = sample.assign(tz=naive["tz"].values.astype("datetime64[us]"))
    assert compare_frames(sample, coarser_naive, ["datetime_unit"])[0]
    assert compare_frames(sample, naive, ["timezone"])[0] == []
    shifted = sample.assign(tz=sample["tz"].dt.tz_convert(None) + pd.Timedelta(1, "h"))
    assert compare_frames(sample, shifted, ["timezone"])[0], "the instants must still match"


def test_json_rounding_is_tolerated_only_as_declared():
    sample = _sample()
    rounded = sample.assign(f=[0.5, np.nan, 2.25 + 4e-16, -1.0 + 9e-16])
    assert compare_frames(sample, rounded)[0]
    assert compare_frames(sample, rounded, ["float_digits"])[0] == []
    too_far = sample.assign(f=[0.5, np.nan, 2.25 + 1e-12, -1.0])
    assert compare_frames(sample, too_far, ["float_digits"])[0]


def test_a_built_in_datasets_readers_are_told_nothing_new():
    """Only a brought table's hints carry ``dtypes``: every built-in cell's reader gets the call it
    got before (the series of its classes continue)."""
    for name, spec in DATASETS.items():
        for variant in spec.variants:
            assert set(read_hints(variant, name)) == {"datetimes", "categoricals", "texts"}, (name, variant)


def test_a_need_is_met_by_the_module_or_by_its_pip_distribution_as_pins_name_it():
    """pylance installs the module lance: an environment's pins name the distribution."""
    lance = FORMATS["lance"]
    assert lance.unavailable({"pylance": "14.0.2", "pandas": "3.1.1", "pyarrow": "26.0.1"}) is None
    assert lance.unavailable({"lance": "14.0.2", "pandas": "3.1.1", "pyarrow": "26.0.1"}) is None
    assert "lance is not installed" in lance.unavailable({"pandas": "3.1.1", "pyarrow": "26.0.1"})
