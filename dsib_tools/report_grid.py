"""The every-format grid report (a table and a chart per source and variant) and the continuous
read in batches against its memory budget, read from asv results."""

from . import markdown
from .report_cells import (
    DATA_BYTES,
    MIB,
    _case,
    _cell,
    _missing,
    _param_values,
    _relative_spread,
    _under_load,
    case_value,
    format_difference,
    format_seconds,
    format_with_spread,
    skip_reason,
)


GRID_LEGEND = (
    "Times are asv's medians, with half the interquartile range as a share of the median "
    "(±) and the number of samples (n). Peak memory and sizes are one measurement each; "
    "MiB/s is the data's logical bytes over the median time: numbers at their width, timestamps 8 bytes, "
    "text its UTF-8 bytes, categoricals their codes and categories, counted from the store "
    "(sizes.Sizes.track_data_bytes), so the same in every release whatever pandas makes of the text; n/a "
    "in runs that did not record them. Instructions: the user-space instructions of one call, every "
    "thread's (benchmarks/instructions.py), where the machine could count them. "
    '"not run": the run has no such case (a run '
    'of some cases only, or of an earlier suite whose cases had other names). "under load": other '
    "processes used a quarter of a core or more, or the hypervisor took 5 % or more (steal), while "
    "the case ran (dsib_tools/machine_load.py)."
)


# Why a count skipped where its format ran: the machine's CPU exposed no counter to read.
NOT_COUNTED = (
    "not counted: this machine exposed no hardware counter to the run (a VM without a PMU, "
    "perf_event_paranoid or a seccomp policy; python -m dsib.counters on it says which)"
)


def grid_cell(res, names, row, fmt, given, reasons, load=None):
    """One cell's text; a skip is a footnote mark whose reason ``reasons`` collects."""
    from dsib.formats import FORMATS

    from .suite import name

    benchmark = name(row.cls, row.method)
    if benchmark not in res.get_all_result_keys():
        return "not run"  # results of another suite, or a run of some cases only (-b)
    value, stats = _case(res, names, benchmark, fmt, given)
    if value is None and fmt not in _param_values(res, names, benchmark, "format"):
        value = float("nan")  # not a parameter: a format without the reader the case times
    if value is None:
        return "failed"
    if _missing(value):
        reason = skip_reason(res, row.cls.operation, dict(given, format=fmt))
        if row.kind == "count" and reason.startswith("skipped at run time"):
            reason = NOT_COUNTED
        if reason not in reasons:
            reasons.append(reason)
        return "skip %d" % (reasons.index(reason) + 1)
    if row.kind == "time":
        return format_seconds(value) + _relative_spread(value, stats) + _under_load(res, benchmark, load)
    if row.kind == "mib":
        return "%.0f" % (value / MIB) if value >= MIB else "%.2f" % (value / MIB)
    if row.kind == "count":
        return "%.1f M" % (value / 1e6)
    if row.kind == "difference":
        return format_difference(value, stats) + _under_load(res, benchmark, load)
    if not FORMATS[fmt].builds_frame:
        return "no frame"
    from benchmarks import sizes

    data = case_value(res, names, name(sizes.Sizes, DATA_BYTES), fmt, given)
    return "n/a" if _missing(data) or value <= 0 else "%.0f" % (data / MIB / value)


def measured_on(rows, source):
    """The rows whose operation measures ``source`` (the reads real work needs: the first taxi grid
    and a table you brought)."""
    from dsib.catalog import catalog_of

    return [row for row in rows if source in catalog_of([source]).get_operation(row.cls.operation).sources]


def grid_table(res, names, source, variant, formats, load=None, labels=None):
    """Markdown: rows are cases (those ``labels`` name, else all), columns are formats; a skipped
    cell names its reason below."""
    from .suite import GRID, name

    given = {"source": source, "variant": variant}
    reasons = []
    rows = measured_on([r for r in GRID if labels is None or r.label in labels], source)
    # A case of which the run has no cell at all is a line below the table, not a row of "not run".
    absent = [row.label for row in rows if name(row.cls, row.method) not in res.get_all_result_keys()]
    cells = [
        [row.label] + [grid_cell(res, names, row, f, given, reasons, load) for f in formats]
        for row in rows
        if row.label not in absent
    ]
    lines = [markdown.table(["%s / %s" % (source, variant)] + list(formats), cells, "l" + "r" * len(formats))]
    if reasons:
        lines += [""] + ["skip %d: %s" % (i + 1, reason) for i, reason in enumerate(reasons)]
    if absent:
        lines += [
            "",
            "Not in this run (at %s; the suite it ran had no such case, or its selection left it out): %s."
            % (res.commit_hash[:8], "; ".join(absent)),
        ]
    return "\n".join(lines)


COLD_LEGEND = (
    "Read, cold: the file evicted from this kernel's page cache before each sample and shown out "
    "by mincore. Cold minus warm: pairs of a cold and a warm read taken alternately in one process, "
    "the median of their differences with its interquartile range; a negative one is a cold read "
    "faster than the warm one, its device answering from a cache of its own."
)


def device_line(res):
    """The device behind the cell cache, past the page cache (``reads.DeviceThroughput``): what
    the cold reads and durable writes are to be read against; "" where the run did not measure it."""
    from benchmarks import reads

    from .suite import name

    figures = []
    for method, what in (("track_direct_read", "read"), ("track_direct_write", "write + fsync")):
        value, stats = _cell(res, {}, name(reads.DeviceThroughput, method), {})
        if value is None:
            continue
        if _missing(value):
            figures.append("%s skipped (O_DIRECT refused, or the cell cache in memory)" % what)
        else:
            spread = ""
            if stats and stats.get("q_25") is not None:
                spread = " (IQR %.0f-%.0f, n=%d)" % (stats["q_25"], stats["q_75"], stats["repeat"])
            figures.append("%s %.0f MB/s%s" % (what, value, spread))
    if not figures:
        return ""
    return (
        "The device behind the cell cache, past the page cache (O_DIRECT, 256 MiB, "
        "reads.DeviceThroughput): %s. mincore proves a cold read's file absent from this kernel's "
        "page cache, not from a cache below it: on a virtual machine the disk is the host's, which "
        "may answer from its memory. Set a cold read's file size over its time beside this." % "; ".join(figures)
    )


def grid_report(res, names, sources, variants, formats, load=None, labels=None):
    from .suite import GRID

    blocks = [GRID_LEGEND]
    if any(r.label.startswith("read, cold") for r in GRID if labels is None or r.label in labels):
        blocks.append(" ".join(filter(None, [COLD_LEGEND, device_line(res)])))
    for source in sources:
        if labels is not None and not measured_on([r for r in GRID if r.label in labels], source):
            continue
        for variant in variants:
            blocks.append(grid_table(res, names, source, variant, formats, load, labels))
    return "\n\n".join(blocks)


def grid_chart(res, names, source, variant, formats):
    """The chart of one dataset and variant (dsib_tools/charts.py): each format's page-cache read,
    in-memory write, file size and their peaks; a format with no read or no size is listed with its
    reason instead."""
    from .charts import chart_html, point
    from .suite import GRID, name

    given = {"source": source, "variant": variant}
    rows = dict((row.label, row) for row in GRID)
    points, skipped = [], []
    for fmt in formats:
        figures = {}
        for key, label in (
            ("read", "read, page cache"),
            ("write", "write, memory"),
            ("size", "file MiB"),
            ("read_peak", "read, peak MiB"),
            ("write_peak", "write, peak MiB"),
        ):
            row = rows[label]
            figures[key] = _case(res, names, name(row.cls, row.method), fmt, given)
        read, size = figures["read"][0], figures["size"][0]
        if _missing(read) or _missing(size):
            row, value = (rows["read, page cache"], read) if _missing(read) else (rows["file MiB"], size)
            if value is None:
                why = "not run or failed in this run"
            else:
                why = skip_reason(res, row.cls.operation, dict(given, format=fmt))
            skipped.append((fmt, why))
        elif _missing(figures["write"][0]):
            row = rows["write, memory"]
            why = (
                "not run or failed in this run"
                if figures["write"][0] is None
                else skip_reason(res, row.cls.operation, dict(given, format=fmt))
            )
            skipped.append((fmt, "no write (right panel): " + why))
        points.append(
            point(
                fmt,
                format_with_spread,
                read,
                figures["read"][1],
                figures["write"][0],
                figures["write"][1],
                size,
                figures["read_peak"][0],
                figures["write_peak"][0],
            )
        )
    if not any(p["read"] is not None and p["size_mib"] is not None for p in points):
        return None  # nothing measured (a run of other cases, or of the earlier series' names)
    return chart_html("chart-%s-%s" % (source, variant), points, "%s / %s" % (source, variant), skipped)


def grid_charts(res, names, sources, variants, formats):
    """{the grid table's name ("source / variant"): its chart's HTML} for the sources whose reads the
    grid measures."""
    from .suite import GRID

    reads = [row for row in GRID if row.label == "read, page cache"]
    charts = {}
    for source in sources:
        for variant in variants if measured_on(reads, source) else ():
            chart = grid_chart(res, names, source, variant, formats)
            if chart is not None:
                charts["%s / %s" % (source, variant)] = chart
    return charts


BATCHES_LEGEND = (
    "A continuous read in batches: every partition of the source, each file a tenth at a time, every "
    "numeric column of each batch summed and nothing kept (benchmarks/batches.py). Target: its peak "
    "memory above the process (the format's ProcessBaseline) within the budget, where the frames of "
    "the partitions are at least twice it (the six months at default). Times are asv's medians (± half the IQR "
    "as a share, n samples); memory is one measurement each, in MiB."
)


def batches_report(res, names, sources, load=None):
    """Markdown: the continuous read in batches of each source, against its memory budget."""
    from benchmarks.batches import MEMORY_BUDGET
    from dsib.catalog import catalog_of

    from .suite import name
    from benchmarks import batches, reads, sizes

    catalog = catalog_of(sources)
    operation = catalog.get_operation(batches.ContinuousReadInBatches.operation)
    timed = name(batches.ContinuousReadInBatches, "time_read")
    if timed not in res.get_all_result_keys():
        return ""
    head = [
        "source",
        "format",
        "pass",
        "peak",
        "process",
        "above the process",
        "budget",
        "data: frames of the partitions",
        "the first partition read whole, peak",
    ]
    rows = []
    for source in [s for s in sources if s in operation.sources]:
        whole = reads.ContinuousReadMonths if source == "nyc_taxi_month" else reads.ContinuousRead
        for fmt in _param_values(res, names, timed, "format"):
            given = {"source": source}
            value, stats = _cell(res, names, timed, dict(given, format=fmt))
            if _missing(value):
                continue
            peak = _cell(res, names, name(batches.ContinuousReadInBatches, "peakmem_read"), dict(given, format=fmt))[0]
            base = _cell(res, names, name(reads.ProcessBaseline, "peakmem_baseline"), {"format": fmt})[0]
            frame = _cell(res, names, name(sizes.Sizes, "track_frame_size"), dict(given, format=fmt, variant="plain"))[
                0
            ]
            first = _cell(res, names, name(whole, "peakmem_first_partition"), dict(given, format=fmt))[0]
            partitions = len(catalog.sources[source].partitions)
            cells = [format_seconds(value) + _relative_spread(value, stats) + _under_load(res, timed, load)]
            cells += ["n/a" if _missing(v) else "%.0f" % (v / MIB) for v in (peak, base)]
            cells.append("n/a" if _missing(peak) or _missing(base) else "%.0f" % ((peak - base) / MIB))
            cells.append("%.0f" % (MEMORY_BUDGET / MIB))
            cells.append(
                "n/a" if _missing(frame) else "%.0f (%d x %.0f)" % (partitions * frame / MIB, partitions, frame / MIB)
            )
            cells.append("n/a" if _missing(first) else "%.0f" % (first / MIB))
            rows.append([source, fmt] + cells)
    return BATCHES_LEGEND + "\n\n" + markdown.table(head, rows, "ll" + "r" * 7)
