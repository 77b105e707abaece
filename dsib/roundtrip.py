"""Write a frame in a format, read it back, and say whether it is the same frame.

The suite calls this once per file it builds, outside any timing, and the tests call it for every
registered format and variant. The read that is checked is the read that is timed: the format's
own ``read`` on the file (and on its bytes, where the format reads bytes), and for a reader that
returns something other than a frame, the frame made from what that very call returned.
"""

import os

from .fidelity import FrameMismatch, assert_same_frame


def write_atomic(path, payload):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(payload)
    os.rename(tmp, path)
    return len(payload)


def check_file(fmt, frame, hints, path, losses, from_bytes=True):
    """Read ``path`` back the ways the suite times it (from the file; and from its bytes, where the
    format reads bytes and ``from_bytes``) and compare with ``frame``; the losses seen."""
    sources = [("file", path)]
    if fmt.reads_bytes and from_bytes:
        with open(path, "rb") as f:
            sources.append(("bytes", f.read()))
    seen = []
    for how, source in sources:
        context = "%s %s (read from %s)" % (fmt.name, os.path.basename(path), how)
        seen += assert_same_frame(frame, fmt.frame_of(fmt.read(source, **hints), hints), losses, context=context)
    return sorted(set(seen))


def concat_batches(frames):
    """One frame of a batch reader's frames, as a user would make it. Each batch holds the
    categories it has, so each categorical is their union (``pd.concat`` would make it text)."""
    import pandas as pd
    from pandas.api.types import union_categoricals

    frames = list(frames)
    if not frames:
        raise FrameMismatch("the batch reader gave no batch")
    combined = pd.concat(frames, ignore_index=True)
    for name in frames[0].columns:
        if getattr(frames[0][name].dtype, "name", "") == "category":
            combined[name] = pd.Categorical(union_categoricals([f[name] for f in frames]))
    return combined


# The union lists a categorical's categories in the order the batches show them.
BATCH_LOSSES = ("category_order",)


def hints_for(hints, columns):
    """A reader's hints for ``columns`` alone (``dtypes``: (column, dtype) pairs)."""
    return dict(
        (key, tuple(c for c in names if (c if isinstance(c, str) else c[0]) in columns)) for key, names in hints.items()
    )


def check_columns(fmt, frame, hints, path, names):
    """``fmt.columns`` of ``names`` from ``path`` against those columns of ``frame``: the losses seen."""
    got = fmt.columns(path, names, **hints_for(hints, names))
    context = "%s %s (columns %s)" % (fmt.name, os.path.basename(path), ", ".join(names))
    return assert_same_frame(frame[list(names)], got, fmt.losses(), context=context)


def check_batches(fmt, frame, hints, path, size):
    """``fmt.batches`` of ``path``, put together, against ``frame``: the losses seen."""
    got = concat_batches(fmt.batches(path, size, **hints))
    context = "%s %s (in batches of %d rows, %d bytes)" % (fmt.name, os.path.basename(path), size.rows, size.bytes)
    return assert_same_frame(frame, got, tuple(fmt.losses()) + BATCH_LOSSES, context=context)


def check_take(fmt, frame, hints, path, positions):
    """``fmt.take`` of the rows at ``positions`` from ``path`` against those rows of ``frame``."""
    got = fmt.take(path, positions, **hints)
    context = "%s %s (%d rows at positions asked)" % (fmt.name, os.path.basename(path), len(positions))
    wanted = frame.iloc[list(positions)].reset_index(drop=True)
    return assert_same_frame(wanted, got, fmt.losses(), context=context)


def write_and_check(fmt, frame, hints, path, from_bytes=True, refused=()):
    """Write ``frame`` to ``path`` with ``fmt``, read it back with ``hints`` and compare (from the
    bytes too, with ``from_bytes``, where a case reads them so). ``refused``: declared losses not
    allowed here (a table brought with ``--strict``: ``data_prep.own``).

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
    except Exception as exc:  # one cell fails, not the whole run
        outcome["error"] = "%s could not write: %s: %s" % (fmt.name, type(exc).__name__, exc)
        return outcome
    try:
        allowed = tuple(loss for loss in fmt.losses() if loss not in refused)
        outcome["losses"] = check_file(fmt, frame, hints, path, allowed, from_bytes)
    except FrameMismatch as exc:
        outcome["error"] = str(exc)
    except Exception as exc:
        outcome["error"] = "%s could not read back its file: %s: %s" % (fmt.name, type(exc).__name__, exc)
    return outcome


def raise_for_outcome(outcome):
    """In ``setup``: skip an unavailable format, fail a case whose read-back check failed."""
    if outcome["skip"]:
        raise NotImplementedError(outcome["skip"])
    if outcome["error"]:
        raise FrameMismatch(outcome["error"])


def ingest_and_check(engine, frame, hints, directory, table):
    """A new database of ``engine`` in ``directory``: ``frame`` ingested into ``table`` and queried
    back with ``hints``, outside any timing. Returns an outcome as ``write_and_check`` does:
    ``skip``, ``error`` (the frame that came back is another), ``losses``."""
    outcome = {"skip": None, "error": None, "losses": []}
    try:
        engine.check_available()
    except NotImplementedError as exc:
        outcome["skip"] = str(exc)
        return outcome
    os.makedirs(directory)
    session = engine.connect(directory)
    try:
        engine.ingest_visible(session, frame, table)
        if engine.keep:
            engine.keep(session, table)
        result = engine.query(session, table, **hints)
        outcome["losses"] = sorted(
            set(assert_same_frame(frame, result, engine.losses(), context="%s table %s" % (engine.name, table)))
        )
    except FrameMismatch as exc:
        outcome["error"] = str(exc)
    except Exception as exc:  # one cell fails, not the whole run
        outcome["error"] = "%s could not ingest and query back: %s: %s" % (engine.name, type(exc).__name__, exc)
    finally:
        engine.close(session)
    return outcome
