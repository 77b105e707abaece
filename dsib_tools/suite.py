"""The suite as the tools see it: benchmark names come from the classes themselves.

Tools never spell a benchmark's name as a string: they take the class from ``benchmarks`` (the
suite, importable from the checkout) and ask ``name(cls, method)``, so a renamed class or
method breaks the tools' imports, not their numbers.
"""

import importlib
import inspect
import pkgutil
from collections import namedtuple

import benchmarks
from benchmarks import batches, instructions, prepare, reads, sizes, writes

PREFIXES = ("time_", "timeraw_", "peakmem_", "mem_", "track_")


def name(cls, method):
    """asv's name of ``cls.method``: ``reads.ReadFromBytes.time_read``."""
    if not callable(getattr(cls, method, None)):
        raise AttributeError("%s has no benchmark %s" % (cls.__name__, method))
    module = cls.__module__
    if module.startswith(benchmarks.__name__ + "."):
        module = module[len(benchmarks.__name__) + 1 :]
    return "%s.%s.%s" % (module, cls.__name__, method)


def classes():
    """Every benchmark class of the suite, in module order: the classes that have benchmarks."""
    found = []
    for info in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda m: m.name):
        module = importlib.import_module("%s.%s" % (benchmarks.__name__, info.name))
        for _, cls in sorted(inspect.getmembers(module, inspect.isclass), key=lambda item: item[0]):
            if cls.__module__ == module.__name__ and not cls.__name__.startswith("_") and methods(cls):
                found.append(cls)
    return found


def methods(cls):
    return sorted(m for m in dir(cls) if m.startswith(PREFIXES) and callable(getattr(cls, m)))


# The module of the instruction counts, as asv names it ("instructions.ReadFromBytes.track_read").
COUNTS_MODULE = instructions.__name__.rsplit(".", 1)[-1]


def counted(cls):
    """The class of ``benchmarks.instructions`` that counts ``cls``'s timed calls; None where none does."""
    twin = getattr(instructions, cls.__name__, None)
    return twin if isinstance(twin, type) and twin.__bases__ == (cls,) else None


def counted_method(method):
    """The count's method of a timed one: ``time_read`` -> ``track_read``; None for any other."""
    return "track_" + method[len("time_") :] if method.startswith("time_") else None


# The 2019 post's seven cases, taken from the suite: (label, key of the post's figures, class,
# method, parameters besides the format, and the name and parameters the case had in the first
# suite, under which the committed history was taken until it is re-run).
PostCase = namedtuple("PostCase", ["label", "key", "cls", "method", "given", "legacy"])
_MONTH = {"source": "nyc_taxi_month"}
POST_2019 = [
    PostCase(
        "1a READ",
        "1a",
        reads.ReadFromBytes,
        "time_read",
        dict(_MONTH, variant="plain"),
        ("file_formats.Read.time_read", {"variant": "plain"}),
    ),
    PostCase(
        "1b READ with str",
        "1b",
        reads.ReadFromBytes,
        "time_read",
        dict(_MONTH, variant="str"),
        ("file_formats.Read.time_read", {"variant": "str"}),
    ),
    PostCase(
        "1c READ with cat",
        "1c",
        reads.ReadFromBytes,
        "time_read",
        dict(_MONTH, variant="cat"),
        ("file_formats.Read.time_read", {"variant": "cat"}),
    ),
    PostCase(
        "2 cont. READ",
        "2",
        reads.ContinuousReadMonths,
        "time_read",
        dict(_MONTH),
        ("file_formats.ContinuousRead.time_continuous_read", {}),
    ),
    PostCase(
        "3a WRITE",
        "3a",
        writes.WriteMonthToBytes,
        "time_write",
        dict(_MONTH, variant="plain"),
        ("file_formats.Write.time_write", {"variant": "plain"}),
    ),
    PostCase(
        "3b WRITE with str",
        "3b",
        writes.WriteMonthToBytes,
        "time_write",
        dict(_MONTH, variant="str"),
        ("file_formats.Write.time_write", {"variant": "str"}),
    ),
    PostCase(
        "3c WRITE with cat",
        "3c",
        writes.WriteMonthToBytes,
        "time_write",
        dict(_MONTH, variant="cat"),
        ("file_formats.Write.time_write", {"variant": "cat"}),
    ),
]


def case_id(name, params):
    """The release view's id of a case: ``benchmark/param/param...`` in asv's parameter order."""
    return "/".join([name] + list(params))


def post_case_ids(case, fmt):
    """The ids a post case may have in results: the suite's, then the earlier series' (file_formats.*)."""
    ordered = [case.given["source"], fmt] + ([case.given["variant"]] if "variant" in case.given else [])
    old_name, old_given = case.legacy
    old = [fmt] + ([old_given["variant"]] if "variant" in old_given else [])
    return [case_id(name(case.cls, case.method), ordered), case_id(old_name, old)]


# Rows of the every-format report: (label, class, method, kind); the class's operation says why
# a cell skipped.
GridRow = namedtuple("GridRow", ["label", "cls", "method", "kind"])
GRID = [
    GridRow("read, page cache", reads.ReadFromPageCache, "time_read", "time"),
    GridRow("read, page cache MiB/s", reads.ReadFromPageCache, "time_read", "throughput"),
    GridRow("read, page cache instructions", instructions.ReadFromPageCache, "track_read", "count"),
    GridRow("read, cold", reads.ReadCold, "time_read", "time"),
    GridRow("read, cold minus warm", reads.ColdMinusWarm, "track_cold_minus_warm", "difference"),
    GridRow("read, peak MiB", reads.ReadFromPageCache, "peakmem_read", "mib"),
    GridRow("write, memory", writes.WriteToBytes, "time_write", "time"),
    GridRow("write, memory MiB/s", writes.WriteToBytes, "time_write", "throughput"),
    GridRow("write, memory instructions", instructions.WriteToBytes, "track_write", "count"),
    GridRow("write, disk + fsync", writes.WriteDurable, "time_write", "time"),
    GridRow("write, peak MiB", writes.WriteToBytes, "peakmem_write", "mib"),
    GridRow("file MiB", sizes.Sizes, "track_file_size", "mib"),
    GridRow("read 3 columns", batches.ReadColumns, "time_read", "time"),
    GridRow("read 3 columns, peak MiB", batches.ReadColumns, "peakmem_read", "mib"),
    GridRow("in batches", batches.IterateBatches, "time_iterate", "time"),
    GridRow("in batches + sum", batches.IterateBatches, "time_sum", "time"),
    GridRow("in batches + copy", batches.IterateBatches, "time_copy", "time"),
    GridRow("in batches, peak MiB", batches.IterateBatches, "peakmem_iterate", "mib"),
    GridRow("1,000 rows at random", batches.RandomAccess, "time_take", "time"),
    GridRow("1,000 rows at random, peak MiB", batches.RandomAccess, "peakmem_take", "mib"),
]


def owner(benchmark):
    """The suite's class of an asv benchmark name, or None."""
    for cls in classes():
        if any(name(cls, m) == benchmark for m in methods(cls)):
            return cls
    return None


FRAME_SIZE = (sizes.Sizes, "track_frame_size")
GENERATOR = (prepare.Prepare, "time_generate_plain_month")
