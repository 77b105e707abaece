"""Every registered format x variant round-trips at `tiny`, and the check that says so can fail."""
import numpy as np
import pandas as pd
import pytest

from data_prep import load_frame, read_hints
from dsib import formats
from dsib.fidelity import ALLOWED_LOSSES, FrameMismatch, assert_same_frame, compare_frames
from dsib.formats import FORMATS, Format, UnknownFormatError, cases, get_format
from dsib.roundtrip import raise_for_outcome, write_and_check


@pytest.mark.parametrize("name,variant", cases())
def test_round_trip(tiny_data_dir, tmp_path, name, variant):
    fmt = get_format(name)
    frame = load_frame("tiny", variant, partition="2016-04", data_dir=tiny_data_dir)
    outcome = write_and_check(fmt, frame, read_hints(variant), str(tmp_path / ("case" + fmt.suffix)))
    assert outcome["skip"] is None and outcome["error"] is None, outcome
    assert outcome["bytes"] > 0
    # Losses are only those the format declares for this environment.
    declared = set(fmt.losses())
    assert all(any(loss.startswith(c) for c in frame.columns) for loss in outcome["losses"])
    if not declared:
        assert outcome["losses"] == []
    with open(outcome["path"], "rb") as f:
        read = fmt.read(f.read(), **read_hints(variant))
    if variant == "cat":
        assert str(read["str"].dtype) == "category"
    read_from_path = fmt.read(outcome["path"], **read_hints(variant))
    assert_same_frame(frame, read_from_path, fmt.losses())


def test_every_registered_format_covers_the_three_variants():
    assert set(cases()) == {(f, v) for f in FORMATS for v in formats.VARIANTS}


def test_unknown_format_name_lists_the_registered_ones():
    with pytest.raises(UnknownFormatError) as info:
        get_format("parket")
    assert str(info.value) == "unknown format 'parket'; registered formats are: parquet, csv"


def test_missing_library_is_a_skip_not_a_failure(tmp_path):
    ghost = Format("ghost", "Ghost", ".ghost", write=None, read=None, requires=("no_such_library_dsib",))
    outcome = write_and_check(ghost, pd.DataFrame({"a": [1]}), {}, str(tmp_path / "x.ghost"))
    assert outcome["skip"] and "no_such_library_dsib is not installed" in outcome["skip"]
    with pytest.raises(NotImplementedError, match="no_such_library_dsib"):
        raise_for_outcome(outcome)


def _sample():
    return pd.DataFrame({
        "i": np.arange(4, dtype="int64"),
        "f": [0.5, np.nan, 2.25, -1.0],
        "b": [True, False, True, False],
        "t": pd.Series([pd.Timestamp("2016-01-01 00:00:01"), pd.Timestamp("2016-01-02"), pd.NaT,
                        pd.Timestamp("2016-01-04")], dtype="datetime64[ns]"),
        "tz": pd.to_datetime(["2016-01-01", "2016-01-02", "2016-01-03", "2016-01-04"]).tz_localize("UTC"),
        "c": pd.Categorical(["x", "y", "x", "z"]),
        "s": pd.Series(["a", None, "c", "d"], dtype=object),
    })


@pytest.mark.parametrize("damage,expected", [
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
])
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
    assert set(ALLOWED_LOSSES) == {"datetime_unit", "float_ulp", "category_order"}
