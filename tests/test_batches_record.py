"""The committed record of the reads real work needs (records/batches/: asv's results of
benchmarks/batches.py at `default`, with the whole reads and process baselines they are read
against): every cell measured or skipped for the suite's reason, and the memory targets met.
Memory, not time: these assertions hold on a busy machine too."""

import itertools
import math
import os

from benchmarks import batches, reads, sizes
from benchmarks.batches import MEMORY_BUDGET
from dsib import catalog
from dsib_tools import suite

from .conftest import ROOT

RECORD = os.path.join(ROOT, "records", "batches")
MACHINE = "epyc-zen5-2c-24g"


def _run():
    from asv.results import iter_results_for_machine

    (res,) = list(iter_results_for_machine(RECORD, MACHINE))
    return res


def _value(res, cls, method, **given):
    key = suite.name(cls, method)
    for combo, value in zip(
        itertools.product(*res.get_result_params(key)), res.get_result_value(key, res.get_result_params(key))
    ):
        if dict(zip(cls.param_names, [c.strip("'") for c in combo])) == given:
            return value
    raise KeyError((key, given))


def test_every_cell_is_measured_or_skips_for_a_reason_of_the_suite():
    res = _run()
    for cls in (batches.ReadColumns, batches.IterateBatches, batches.ContinuousReadInBatches):
        for method in suite.methods(cls):
            key = suite.name(cls, method)
            values = res.get_result_value(key, res.get_result_params(key))
            combos = list(itertools.product(*res.get_result_params(key)))
            assert combos and len(values) == len(combos), key
            for combo, value in zip(combos, values):
                given = dict(zip(cls.param_names, [c.strip("'") for c in combo]))
                why = catalog.BUILT_IN.skip_reason(
                    cls.operation,
                    given["source"],
                    given["format"],
                    given.get("variant", "plain"),
                    "default",
                    catalog.ANY_VERSIONS,
                )
                assert value is not None, "%s%s failed" % (key, given)
                assert (value == value) == (why is None), (key, given, why)


def test_the_continuous_read_in_batches_stays_within_its_budget_on_more_than_twice_its_data():
    res = _run()
    months = len(catalog.BUILT_IN.sources["nyc_taxi_month"].partitions)
    for fmt in ("parquet", "csv"):
        peak = _value(res, batches.ContinuousReadInBatches, "peakmem_read", source="nyc_taxi_month", format=fmt)
        base = _value(res, reads.ProcessBaseline, "peakmem_baseline", format=fmt)
        frame = _value(res, sizes.Sizes, "track_frame_size", source="nyc_taxi_month", format=fmt, variant="plain")
        whole = _value(res, reads.ContinuousReadMonths, "peakmem_first_partition", source="nyc_taxi_month", format=fmt)
        assert months * frame >= 2 * MEMORY_BUDGET, "the data is at least twice the budget"
        assert peak - base <= MEMORY_BUDGET, "%s: %.0f MiB above the process" % (fmt, (peak - base) / 2**20)
        assert peak < whole, "%s: in batches, six months take less than one month read whole" % fmt


def test_a_pass_in_batches_holds_less_than_the_whole_read_of_the_same_data():
    """A tenth of the file at a time: CSV's and HDF5's chunked readers on the formats' own files,
    Parquet and Arrow IPC on files written for batches (docs/formats-and-engines.md, "The reads real work needs")."""
    res = _run()
    formats = ("csv", "hdf-table", "parquet", "parquet-none", "parquet-zstd", "feather", "arrow-file", "arrow-stream")
    for fmt, variant in itertools.product(formats, ("plain", "str", "cat")):
        given = dict(source="nyc_taxi", format=fmt, variant=variant)
        batch = _value(res, batches.IterateBatches, "peakmem_iterate", **given)
        whole = _value(res, reads.ReadFromPageCache, "peakmem_read", **given)
        frame = _value(res, sizes.Sizes, "track_frame_size", **given)
        assert not math.isnan(batch) and not math.isnan(whole), given
        assert whole - batch >= frame / 2, "%s: %.0f MiB in batches, %.0f MiB whole, a %.0f MiB frame" % (
            given,
            batch / 2**20,
            whole / 2**20,
            frame / 2**20,
        )
