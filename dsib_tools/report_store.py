"""The report's block of reads from the object store (``benchmarks.objectstore``): for each file and
reader, its time at each delay a request, with its spread, and what one read cost: the requests
and the bytes the store sent, counted at the proxy."""

import itertools

from .markdown import table
from .report_cells import MIB, _cell, _missing, _param_values, format_with_spread, skip_reason

CASE = "objectstore.ReadFromObjectStore"
OPERATION = "read_from_object_store"
AXES = ("source", "format", "variant", "client", "columns", "pre_buffer")
LEGEND = (
    "Each file read into pandas from the run's S3-compatible store through a client: pyarrow's S3 client, or "
    "s3fs (the path of pandas' storage_options). "
    "Times are asv medians with their interquartile range and samples, at each delay the counting "
    "proxy adds to every request (a model of a network: the store is on this machine); the requests "
    "and MiB are one read's at no delay, counted at the proxy: they do not depend on the machine's speed."
)


def _count(res, names, method, given):
    value, _ = _cell(res, names, "%s.%s" % (CASE, method), given)
    return None if _missing(value) else value


def _row(res, names, given, delays):
    """The row of one file and reader: its times at each delay, one read's requests and MiB."""
    times = [_cell(res, names, CASE + ".time_read", dict(given, delay_ms=d)) for d in delays]
    if all(_missing(value) for value, _ in times):
        return None
    at_rest = dict(given, delay_ms=delays[0])
    requests = _count(res, names, "track_requests", at_rest)
    sent = _count(res, names, "track_bytes_from_server", at_rest)
    return (
        [given[p] for p in AXES]
        + [format_with_spread(value, stats) for value, stats in times]
        + ["-" if requests is None else "%d" % requests, "-" if sent is None else "%.2f" % (sent / MIB)]
    )


def store_rows(res, names):
    """(rows of the table, {reason: the cells that skipped for it}, the delays) of the run's cells."""
    values = dict((p, _param_values(res, names, CASE + ".time_read", p)) for p in AXES + ("delay_ms",))
    rows, skipped = [], {}
    for combination in itertools.product(*[values[p] for p in AXES]):
        given = dict(zip(AXES, combination))
        row = _row(res, names, given, values["delay_ms"])
        if row is None:
            reason = skip_reason(res, OPERATION, dict(given, delay_ms=values["delay_ms"][0]))
            skipped.setdefault(reason, []).append(" ".join(combination[1:]))
        else:
            rows.append(row)
    return rows, skipped, values["delay_ms"]


def store_blocks(res, names):
    """The block's Markdown: the table, then why the cells that skipped did; [] where the run has no
    read from the object store."""
    if CASE + ".time_read" not in names or CASE + ".time_read" not in res.get_all_result_keys():
        return []
    rows, skipped, delays = store_rows(res, names)
    headers = list(AXES) + ["time, %s ms a request" % d for d in delays] + ["requests", "MiB from the store"]
    blocks = [table(headers, rows, "l" * len(AXES) + "r" * (len(delays) + 2)) if rows else "No cell ran."]
    reasons = [
        "Skipped (%d cells: %s): %s" % (len(cells), ", ".join(cells[:4]) + (", ..." if len(cells) > 4 else ""), reason)
        for reason, cells in sorted(skipped.items())
    ]
    return blocks + (["\n".join(reasons)] if reasons else [])
