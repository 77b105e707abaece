"""The gate's cells: what ``make compare`` runs at the ``pr`` scale (asv patterns, one a benchmark
method and its parameters), the committed list of the cells it compares
(``benchmarks/gate-cells.txt``), read at the base commit, and the patterns a comparison asks asv for."""

import itertools
import re
import subprocess
import sys

from dsib import catalog
from dsib.formats import FORMATS, POST_2019_FORMATS

from . import suite


class CompareError(Exception):
    pass


PROFILE = "pr"


def _on(sources, formats=None, variants=None):
    """The parameters, as asv writes them, of the cells on ``sources`` in those formats and
    variants (every one where not named)."""

    def axis(values):
        return "'(%s)'" % "|".join(re.escape(v) for v in values) if values else "'[^']*'"

    return r"\(" + axis(sources) + ", " + axis(formats) + (", " + axis(variants) if variants else "") + "[,)]"


def _pattern(cls, method, cells):
    return "^" + re.escape(suite.name(cls, method)) + cells


_POST = ["nyc_taxi_month"]
_TAXI = ["nyc_taxi"]
_POST_FORMATS = list(POST_2019_FORMATS)
# Formats whose writer and reader are another format's functions called with another argument (a
# codec, a pickle protocol, a JSON orient, an HDF5 layout): the argument's path is compared on the
# plain variant, and the string variants' paths on the format whose functions they are (a test
# checks that they share them). The JSON orients alone took 9 s a round in all three variants.
ANOTHER_FORMATS_CALL = {
    "parquet-none": "parquet",
    "parquet-zstd": "parquet",
    "hdf-table": "hdf-fixed",
    "pickle-2": "pickle-highest",
    "json-records": "json-split",
    "json-split-noindex": "json-split",
}
# Readers the gate's noise records (records/noise/) have not measured: a format joins the gate with
# a noise record of a gate that holds it, so that its cells' flags rest on their measured noise.
NOT_YET_GATED = ("parquet-duckdb", "csv-duckdb", "parquet-polars", "csv-polars", "parquet-by-polars", "lance")
_GATED = [name for name in FORMATS if name not in NOT_YET_GATED]
_OWN_CALL = [name for name in _GATED if name not in ANOTHER_FORMATS_CALL]
_ARGUMENT = sorted(ANOTHER_FORMATS_CALL)


def _every_format(cls, method):
    return (_pattern(cls, method, _on(_TAXI, _OWN_CALL)), _pattern(cls, method, _on(_TAXI, _ARGUMENT, ["plain"])))


# What the gate compares, within 10 minutes at pr on 2 cores (README, "What it runs"):
# - every format's read and write of the taxi frame;
# - the 2019 post's cases: its reads from bytes and its continuous read at the pr month; its
#   writes are the taxi frame's (at pr the month is the grid's 100,000 rows: the same call on the
#   same frame, a test checks);
# - TSBS's numbers (plain) and Rocklin's text (str, cat) through the post's formats, and Rocklin's
#   categorize-then-write;
# - durable writes (fsync included) of Parquet and Feather; data_prep's generator;
# - measured once a commit: peak memory of every format's read and write of the str frame (the
#   largest), and the size of every file the timed cells read.
# asv matches each pattern against "name(param, ...)": a pattern picks cells.
BENCHMARKS = (
    (
        _pattern(suite.reads.ReadFromBytes, "time_read", _on(_POST)),
        _pattern(suite.reads.ContinuousReadMonths, "time_read", _on(_POST)),
    )
    + _every_format(suite.reads.ReadFromPageCache, "time_read")
    + _every_format(suite.writes.WriteToBytes, "time_write")
    + (
        _pattern(suite.reads.ReadFromPageCache, "time_read", _on(["tsbs_cpu"], _POST_FORMATS, ["plain"])),
        _pattern(suite.writes.WriteToBytes, "time_write", _on(["tsbs_cpu"], _POST_FORMATS, ["plain"])),
        _pattern(suite.reads.ReadFromPageCache, "time_read", _on(["rocklin"], _POST_FORMATS, ["str", "cat"])),
        _pattern(suite.writes.WriteToBytes, "time_write", _on(["rocklin"], _POST_FORMATS, ["str", "cat"])),
        _pattern(suite.writes.CategorizeThenWrite, "time_write", _on(["rocklin"], _POST_FORMATS)),
        _pattern(suite.writes.WriteDurable, "time_write", _on(_TAXI, ["parquet", "feather"], ["plain"])),
        _pattern(*(suite.GENERATOR + (r"\(",))),
        _pattern(suite.reads.ReadFromPageCache, "peakmem_read", _on(_TAXI, _GATED, ["str"])),
        _pattern(suite.reads.ReadFromPageCache, "peakmem_read", _on(_TAXI, ["npy"], ["plain"])),
        _pattern(suite.writes.WriteToBytes, "peakmem_write", _on(_TAXI, _GATED, ["str"])),
        _pattern(suite.writes.WriteToBytes, "peakmem_write", _on(_TAXI, ["npy"], ["plain"])),
        _pattern(suite.sizes.Sizes, "track_file_size", _on(_POST + _TAXI, _GATED)),
        _pattern(suite.sizes.Sizes, "track_file_size", _on(["tsbs_cpu"], _POST_FORMATS, ["plain"])),
        _pattern(suite.sizes.Sizes, "track_file_size", _on(["rocklin"], _POST_FORMATS, ["str", "cat"])),
    )
    + tuple(  # a study's own format, measured on its frame only (dsib.catalog.FORMAT_SOURCES): there, on its text
        _pattern(cls, method, _on(list(sources), [name], ["str"]))
        for name, sources in sorted(catalog.FORMAT_SOURCES.items())
        for cls, method in (
            (suite.reads.ReadFromPageCache, "time_read"),
            (suite.reads.ReadFromPageCache, "peakmem_read"),
            (suite.writes.WriteToBytes, "time_write"),
            (suite.writes.WriteToBytes, "peakmem_write"),
            (suite.sizes.Sizes, "track_file_size"),
        )
    )
)


def counted_patterns(patterns):
    """The instruction counts' patterns (``benchmarks.instructions``) of the timed ones among
    ``patterns``: the same cells, counted."""
    twins = []
    for pattern in patterns:
        for cls in suite.classes():
            twin = suite.counted(cls)
            for method in suite.methods(cls) if twin else ():
                head = "^" + re.escape(suite.name(cls, method))
                if suite.counted_method(method) and pattern.startswith(head):
                    twins.append("^" + re.escape(suite.name(twin, suite.counted_method(method))) + pattern[len(head) :])
    return tuple(twins)


# The gate's list holds the timed cells; where the machine counts instructions, compare.run adds
# their counting twins (counted_patterns), so that a list and a noise record stay those of the times.

# The cells the gate compares, one asv name a line: a committed, reviewed list. A comparison reads
# it from the base commit, so a pull request cannot shorten what it is compared on; a head whose
# list lacks any of the base's cells fails the gate, naming them.
GATE_FILE = "benchmarks/gate-cells.txt"


def _label(cls, method, params):
    return suite.name(cls, method) + ("(%s)" % ", ".join(repr(p) for p in params) if params else "")


def _runs_at(cls, params, profile):
    """Whether a cell of ``cls`` runs at ``profile`` where every package is installed."""
    if not hasattr(cls, "operation"):
        return True
    given = dict(zip(cls.param_names, params))
    return catalog.BUILT_IN.cell_skip_reason(cls.operation, given, profile, catalog.ANY_VERSIONS) is None


def gate_cells(benchmarks=BENCHMARKS, profile=PROFILE):
    """Every cell of the suite that the gate's patterns pick and that runs at ``profile`` with
    every package installed, named as asv names it."""
    picked = []
    for cls in suite.classes():
        for method in suite.methods(cls):
            for params in itertools.product(*cls.params) if getattr(cls, "params", None) else [()]:
                label = _label(cls, method, params)
                if any(re.search(pattern, label) for pattern in benchmarks) and _runs_at(cls, params, profile):
                    picked.append(label)
    return sorted(picked)


def gate_file_text(cells):
    return "# The cells make compare compares (python -m dsib_tools compare cells writes this file).\n" + "".join(
        cell + "\n" for cell in cells
    )


def committed_cells(root, commit):
    """The gate's list as ``commit`` has it; None where that commit has no list."""
    proc = subprocess.run(
        ["git", "show", "%s:%s" % (commit, GATE_FILE)],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        universal_newlines=True,
    )
    if proc.returncode != 0:
        return None
    return [line for line in proc.stdout.splitlines() if line.strip() and not line.startswith("#")]


def gate_patterns(root, base, head):
    """asv's -b patterns for the cells of the base's list; CompareError naming the cells the head's
    list lacks. A base from before the list existed is compared on this checkout's patterns."""
    base_cells = committed_cells(root, base)
    if base_cells is None:
        sys.stderr.write(
            "dsib compare: %s has no %s; comparing the cells of this checkout's patterns\n" % (base[:8], GATE_FILE)
        )
        return BENCHMARKS
    head_cells = set(committed_cells(root, head) or ())
    lost = [cell for cell in base_cells if cell not in head_cells]
    if lost:
        raise CompareError(
            "%s's %s lacks %d of the cells %s compares, so they would leave the gate unseen; "
            "restore them, or have the shorter list reviewed and merged on its own:\n%s"
            % (head[:8], GATE_FILE, len(lost), base[:8], "\n".join("  " + c for c in lost))
        )
    return tuple("^" + re.escape(cell) for cell in base_cells)
