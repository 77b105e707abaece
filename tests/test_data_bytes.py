"""The throughput's numerator: the data's logical bytes, counted from the store, the same whatever
pandas makes of the text (Python objects before pandas 3, Arrow-backed strings from it)."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_prep import get_dataset, load_frame, open_dataset
from data_prep.own_table import OWN_PROFILE, open_table
from data_prep.own_ingest import add_table
from data_prep.store import data_bytes, frame_data_bytes


def _text(frame):
    return [
        c for c in frame.columns if str(frame[c].dtype) in ("object", "str") or str(frame[c].dtype).startswith("string")
    ]


def _categoricals(frame):
    return [c for c in frame.columns if str(frame[c].dtype) == "category"]


def python_objects(frame):
    """The frame's text as Python objects (pandas < 3's text), categories too."""
    frame = frame.astype(dict((c, object) for c in _text(frame)))
    for c in _categoricals(frame):
        frame[c] = frame[c].cat.set_categories(pd.Index(list(frame[c].cat.categories), dtype=object))
    return frame


def arrow_backed(frame):
    """The frame's text as Arrow-backed strings, categories too."""
    frame = frame.astype(dict((c, pd.ArrowDtype(pa.string())) for c in _text(frame)))
    for c in _categoricals(frame):
        frame[c] = frame[c].cat.set_categories(frame[c].cat.categories.astype(pd.ArrowDtype(pa.string())))
    return frame


@pytest.mark.parametrize("dataset", ["rocklin", "tsbs_cpu", "nyc_taxi"])
@pytest.mark.parametrize("variant", ["str", "cat"])
def test_the_same_frame_with_object_or_arrow_text_has_the_same_numerator(tiny_data_dir, dataset, variant):
    store = open_dataset(dataset, "tiny", tiny_data_dir)
    frame = load_frame("tiny", variant, data_dir=tiny_data_dir, dataset=dataset)
    objects, arrow = python_objects(frame), arrow_backed(frame)
    if variant == "str":  # what the numerator was, and why it moved with the release
        assert objects.memory_usage(deep=True).sum() > arrow.memory_usage(deep=True).sum()
    numerator = data_bytes(store, get_dataset(dataset), store.partitions[0], variant)
    assert frame_data_bytes(objects) == frame_data_bytes(arrow) == numerator


def test_rocklins_numerator_counts_its_text_as_utf8_and_its_numbers_at_their_width(tiny_data_dir):
    store = open_dataset("rocklin", "tiny", tiny_data_dir)
    frame = load_frame("tiny", "str", data_dir=tiny_data_dir, dataset="rocklin")
    text = sum(len(v.encode("utf-8")) for v in frame["text"].astype(object))
    assert data_bytes(store, get_dataset("rocklin"), store.partitions[0], "str") == text + 8 * len(frame)
    cat = load_frame("tiny", "cat", data_dir=tiny_data_dir, dataset="rocklin")
    categories = sorted(set(cat["text"].astype(object)))
    assert len(categories) == 1000  # int16 codes
    assert data_bytes(store, get_dataset("rocklin"), store.partitions[0], "cat") == 2 * len(cat) + sum(
        len(c.encode("utf-8")) for c in categories
    ) + 8 * len(cat)


def test_a_brought_tables_numerator_counts_what_it_holds(tmp_path):
    """Counted by hand: nulls count their width (numbers) or nothing (text), text beyond ASCII
    its UTF-8 bytes."""
    frame = pd.DataFrame(
        {
            "n": pd.array([1, None, 3, 4], dtype="Int32"),  # 4 x 4
            "b": pd.array([True, None, False, True], dtype="boolean"),  # 4 x 1
            "x": [0.5, np.nan, 1.5, 2.0],  # 4 x 8
            "t": pd.to_datetime(["2016-01-01", None, "2016-01-02", "2016-01-03"]).tz_localize("UTC"),  # 4 x 8
            "s": np.array(["café", None, "日本", "x"], dtype=object),
        }
    )  # 5 + 0 + 6 + 1
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    add_table("mine", path, str(tmp_path / "data"), progress=False)
    spec, store = open_table("mine", str(tmp_path / "data"))
    part = store.partitions[0]
    assert data_bytes(store, spec, part, "plain") == 16 + 4 + 32 + 32
    assert data_bytes(store, spec, part, "str") == 16 + 4 + 32 + 32 + 12
    # three categories: int8 codes, 4 x 1, and the categories' 12 bytes
    assert data_bytes(store, spec, part, "cat") == 16 + 4 + 32 + 32 + 4 + 12
    for variant in spec.variants:
        loaded = load_frame(OWN_PROFILE, variant, data_dir=str(tmp_path / "data"), dataset="mine")
        assert (
            frame_data_bytes(python_objects(loaded))
            == frame_data_bytes(arrow_backed(loaded))
            == data_bytes(store, spec, part, variant)
        )
