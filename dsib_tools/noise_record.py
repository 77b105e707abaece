"""A noise record (``noise/<machine>-<profile>[-slowdown].json``): what it keeps of each run's cells,
those cells and the gate's verdict replayed from it, the slowdowns these samples would let through,
and the record saved and loaded. ``noise`` measures the runs; ``noise_tables`` writes the tables."""

import json
import os
import re

from . import compare
from . import machine_load  # noise.load reads a record


def touches(cell, slowdown):
    """Whether ``cell`` (``"reads.ReadFromPageCache.time_read('nyc_taxi', 'parquet', 'plain')"``) times a call
    that ``slowdown`` slows: its format is one of them and its method names that side."""
    method = cell.split("(", 1)[0].rsplit(".", 1)[-1]
    return any("'%s'" % name in cell and side in method for name, side in slowdown)


def raw_of(cells, gate):
    """What a record keeps of one commit's cells of the ``gate`` (asv's results hold every cell of
    a benchmark, None where it did not run): each timed cell's samples and asv's ``number`` (from
    which asv's own statistics are recomputed), each other cell's value."""
    samples, values, numbers, failed, skipped = {}, {}, {}, [], []
    for name, (value, (stats, cell_samples), _) in sorted(cells.items()):
        if name not in gate:
            continue
        if not compare._measured(value):
            (failed if value is None else skipped).append(name)
        elif compare.sampled(name):
            samples[name], numbers[name] = cell_samples, stats["number"]
        else:
            values[name] = value
    return {"samples": samples, "number": numbers, "values": values, "failed": failed, "skipped": skipped}


def cells_of(raw):
    """``raw_of`` undone: cells as ``compare.load_cells`` returns them, asv's statistics computed
    afresh from the samples, so that every figure of a record follows from its raw data."""
    from asv_runner.statistics import compute_stats

    cells = {}
    for name, samples in raw["samples"].items():
        value, stats = compute_stats(samples, raw["number"][name])
        cells[name] = (value, (stats, samples), "record")
    for name, value in raw["values"].items():
        cells[name] = (value, (None, None), "record")
    for name in raw["failed"]:
        cells[name] = (None, (None, None), "record")
    for name in raw["skipped"]:
        cells[name] = (float("nan"), (None, None), "record")
    return cells


def rule_of(record):
    """The time rule the record's runs were judged by (``compare.RULE``); asv's in records before it."""
    return record.get("rule", "asv")


def replay(run, factor, rule=compare.RULE):
    """A run's base and head cells and the verdict of ``rule``, all recomputed from its raw data."""
    before, after = cells_of(run["base"]), cells_of(run["head"])
    return before, after, compare.verdict_of(before, after, factor, rule)


def _loads(record):
    """Each run's machine load, as the README says it: other processes' cores / steal."""
    return ", ".join(machine_load.describe_record(r.get("load")) for r in record["runs"])


SLOWDOWN = 1.25  # the detection test's injected slowdown


def _slowed(cells, factor):
    """``cells`` as if every case took ``factor`` times as long: asv's stats scale with the samples."""
    unscaled = ("repeat", "number")
    return dict(
        (
            name,
            (
                value * factor,
                (
                    dict((k, v if k in unscaled or v is None else v * factor) for k, v in stats.items()),
                    [x * factor for x in samples],
                ),
                version,
            ),
        )
        for name, (value, (stats, samples), version) in cells.items()
        if compare._measured(value) and stats and samples
    )


def detects(before, after, slowdown=SLOWDOWN):
    """For each cell: in how many of the two directions the gate's rule would flag a ``slowdown`` of
    one side, replaying these very samples (0, 1 or 2): which changes this noise lets through."""
    hits = {}
    for base, head in ((before, after), (after, before)):
        for name in compare.verdict_of(base, _slowed(head, slowdown))["worse"]:
            hits[name] = hits.get(name, 0) + 1
    return hits


def save(record, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    text = json.dumps(record, indent=1, sort_keys=True)
    # A list of numbers (a cell's samples) on one line: a record stays readable, and diffs short.
    text = re.sub(r"\[([^\[\]{}\"]*)\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, path)


def load(path):
    with open(path) as f:
        return json.load(f)
