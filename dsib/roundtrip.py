"""Write a frame in a format, read it back, and say whether it is the same frame.

Benchmarks call this once per case in ``setup_cache``, outside the timing, and
the tests call it for every registered format and variant: the read that is
timed is the read that was checked.
"""
import os

from .fidelity import FrameMismatch, assert_same_frame


def write_atomic(path, payload):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(payload)
    os.rename(tmp, path)
    return len(payload)


def write_and_check(fmt, frame, hints, path):
    """Write ``frame`` to ``path`` with ``fmt``, read it back with ``hints`` and compare.

    Returns a JSON-able outcome: ``skip`` (format unavailable here), ``error``
    (the frame read back differs), ``losses`` (documented, allowed differences)
    and ``bytes`` (file size).
    """
    outcome = {"path": path, "skip": None, "error": None, "losses": [], "bytes": None}
    try:
        fmt.check_available()
    except NotImplementedError as exc:
        outcome["skip"] = str(exc)
        return outcome
    try:
        outcome["bytes"] = write_atomic(path, fmt.write(frame))
    except Exception as exc:  # one cell fails, not the whole grid's setup_cache
        outcome["error"] = "%s could not write: %s: %s" % (fmt.name, type(exc).__name__, exc)
        return outcome
    with open(path, "rb") as f:
        payload = f.read()
    try:
        outcome["losses"] = assert_same_frame(frame, fmt.check_read(payload, **hints), fmt.losses(),
                                              context="%s %s" % (fmt.name, os.path.basename(path)))
    except FrameMismatch as exc:
        outcome["error"] = str(exc)
    except Exception as exc:
        outcome["error"] = "%s could not read back its file: %s: %s" % (fmt.name, type(exc).__name__, exc)
    return outcome


def write_and_check_series(formats, frames, hints, path_for):
    """``write_and_check`` for a series of ``(partition, frame)`` in every format: the files of a
    continuous read. Returns ``{format name: {"paths", "skip", "error"}}``; the first skip or
    mismatch of any partition stands for the whole series."""
    series = dict((fmt.name, {"paths": [], "skip": None, "error": None}) for fmt in formats)
    for partition, frame in frames:
        for fmt in formats:
            outcome = write_and_check(fmt, frame, hints, path_for(fmt, partition))
            summary = series[fmt.name]
            summary["paths"].append(outcome["path"])
            summary["skip"] = summary["skip"] or outcome["skip"]
            summary["error"] = summary["error"] or outcome["error"]
    return series


def raise_for_outcome(outcome):
    """In ``setup``: skip an unavailable format, fail a case whose read-back check failed."""
    if outcome["skip"]:
        raise NotImplementedError(outcome["skip"])
    if outcome["error"]:
        raise FrameMismatch(outcome["error"])
