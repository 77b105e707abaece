"""The fidelity table comes from real round trips and says what each type became."""

from dsib_tools.fidelity_table import TYPES, fidelity_rows, markdown, round_trip, probe_columns
from dsib.formats import FORMATS, get_format

from .conftest import table_rows


def test_one_row_per_available_format_and_one_column_per_type():
    rows = fidelity_rows(list(FORMATS.values()))
    labels = [label for label, _ in rows]
    assert "Parquet" in labels and "NumPy .npy" in labels
    assert all(len(cells) == len(TYPES) for _, cells in rows)
    table = markdown(list(FORMATS.values()))
    assert table_rows(table)[0] == ["format"] + list(TYPES)
    assert [row[0] for row in table_rows(table)[1:]] == labels


def test_cells_describe_what_happened():
    columns = probe_columns()
    pickle = get_format("pickle-highest")
    assert [round_trip(pickle, t, columns[t]) for t in TYPES if t in columns] == ["preserved"] * len(columns)
    assert round_trip(get_format("npy"), "string", columns["string"]).startswith("not stored: ")
    # CSV has no categorical type, but a reader told to make one gets the same values back.
    assert round_trip(get_format("csv"), "categorical", columns["categorical"]) == "preserved"
    # JSON writes instants: the zone comes back as UTC.
    assert round_trip(get_format("json-split"), "tz-aware datetime", columns["tz-aware datetime"]).startswith("→ ")
