"""``advise``'s worker: one format in a process of its own, which loads the frame (built once, for
every worker, by ``save_frame``), times its writes and reads (samples until ``BUDGET`` seconds),
takes its peak memory and checks the first read against the frame."""

import json
import os
import pickle
import shutil
import sys
import tempfile
import time

NAME = "advised"
# Seconds of samples an operation takes after its first: at 3.0, advise on a 1,000,000-row month
# took 4 min 11 s; its goal is two minutes. A fast operation still gets its samples
# (``--samples``, three), a slow one (a CSV write, seconds) one.
BUDGET = 1.0


def frame_file(data_dir, variant):
    return os.path.join(data_dir, "frame-%s.pickle" % variant)


def _built_frame(data_dir, variant):
    from data_prep.own_table import open_table
    from dsib.roundtrip import concat_batches

    spec, store = open_table(NAME, data_dir)
    return concat_batches(spec.frame(store, p, variant) for p in spec.partitions), spec


def save_frame(data_dir, variant):
    """The frame built from the store once, pickled for every worker: a pickle loads in a fraction
    of a build's time, which each of 22 workers paid before. Pickle keeps every dtype the check
    compares (categories, time zones, Arrow-backed text)."""
    frame, _ = _built_frame(data_dir, variant)
    path = frame_file(data_dir, variant)
    with open(path + ".tmp", "wb") as f:
        pickle.dump(frame, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(path + ".tmp", path)
    return path


def _frame(data_dir, variant):
    path = frame_file(data_dir, variant)
    if not os.path.exists(path):  # a worker run alone
        frame, spec = _built_frame(data_dir, variant)
        return frame, spec.read_hints(variant)
    from data_prep.own_table import open_table

    spec, _ = open_table(NAME, data_dir)
    with open(path, "rb") as f:
        return pickle.load(f), spec.read_hints(variant)


def _samples(operation, wanted):
    """Times of ``operation()``, each call timed alone; the first call's result and its peak RSS."""
    from dsib.procmem import PeakDuring

    times, first, peak = [], None, None
    while len(times) < wanted and (len(times) < 2 or sum(times[1:]) < BUDGET):
        if times:
            start = time.perf_counter()
            operation()
            times.append(time.perf_counter() - start)
        else:
            with PeakDuring(os.getpid()) as measured:
                start = time.perf_counter()
                first = operation()
                times.append(time.perf_counter() - start)
            peak = measured.bytes
        if len(times) == 1 and times[0] > BUDGET:
            break  # one sample of a slow operation, not three
    return times, first, peak


def measure(name, data_dir, variant, samples, work, keep=None, given=None):
    """One format's figures on the table of ``data_dir``, as JSON-able data. ``keep``: where to leave
    the file written (for a format that reads it with another reader); ``given``: the file of the
    format whose writer this one uses, written by that format's worker (else written here)."""
    import gc

    from dsib.fidelity import FrameMismatch, assert_same_frame
    from dsib.formats import FORMATS
    from dsib.roundtrip import write_atomic

    fmt = FORMATS[name]
    out = {
        "format": name,
        "label": fmt.label,
        "skip": None,
        "error": None,
        "losses": [],
        "bytes": None,
        "write": [],
        "read": [],
        "write_peak": None,
        "read_peak": None,
        "times_write": fmt.writes,
    }
    try:
        fmt.check_available()
        fmt.check_variant(variant)
    except NotImplementedError as exc:
        out["skip"] = str(exc)
        return out
    frame, hints = _frame(data_dir, variant)
    path = keep or os.path.join(work, "file" + fmt.suffix)
    try:
        fmt.warm_up()
        if fmt.writes:
            out["write"], payload, out["write_peak"] = _samples(lambda: fmt.write(frame), samples)
        elif given and os.path.exists(given):
            path, payload = given, None  # another format's writer, whose worker wrote this file
        else:
            payload = fmt.write(frame)  # another format's writer: its file, not its time
        out["bytes"] = os.path.getsize(path) if payload is None else write_atomic(path, payload)
        del payload
    except NotImplementedError as exc:
        out["skip"] = str(exc)
        return out
    except Exception as exc:
        out["error"] = "could not write: %s: %s" % (type(exc).__name__, exc)
        return out
    gc.collect()
    try:
        out["read"], result, out["read_peak"] = _samples(lambda: fmt.read(path, **hints), samples)
        out["losses"] = sorted(
            set(assert_same_frame(frame, fmt.frame_of(result, hints), fmt.losses(), context="%s, read back" % name))
        )
    except FrameMismatch as exc:
        out["error"] = str(exc)
        out["differs"] = _problems(str(exc))
    except NotImplementedError as exc:
        out["skip"] = str(exc)
    except Exception as exc:
        out["error"] = "could not read back its file: %s: %s" % (type(exc).__name__, exc)
    return out


def _problems(message):
    """The mismatch's problems (a column's dtype or values), without its heading."""
    lines = [line.strip(" -") for line in message.splitlines()[1:] if line.strip(" -")]
    return lines or [message.strip()]


def _worker(args):
    work = tempfile.mkdtemp(prefix="dsib-advise-%s-" % args.worker)
    try:
        print(json.dumps(measure(args.worker, args.data_dir, args.variant, args.samples, work, args.keep, args.given)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # The outcome is printed: skip the interpreter's teardown, which pyarrow's thread pools can
    # abort ("terminate called without an active exception", apache/arrow #34314) and so turn a
    # measured format into a failed one.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
