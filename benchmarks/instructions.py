"""Instruction counts: for each timed case whose work runs in this process, the user-space
instructions of one call, over every thread of the process (``dsib.counters``), after the case's
own setup and its untimed full call.

A count does not depend on how busy the machine is: two runs of the same code count the same
instructions to a fraction of a per cent where their times differ by tens. It says nothing of
what makes a call wait (memory stalls, the page cache, the device, another process): a change of
time with the same count is the machine's or the memory's, not more work.

Each counted case is the timed class with its timed methods turned into ``track_`` methods of
the same name (``instructions.ReadFromBytes.track_read`` beside ``reads.ReadFromBytes.time_read``),
so that asv records one count a cell, in a process of its own; its peak-memory and other
figures are the timed class's alone. Where the machine exposes no counter (a VM without a PMU,
``perf_event_paranoid``, a seccomp policy, ``DSIB_COUNTERS=off``) every count skips in its
``setup``, before anything is loaded, with the one-line reason.

Not counted: the cold reads and durable writes (what they measure is the device), and the
engines' cases (their work is in a server's or a JVM's process). The object store's reads count
the client's instructions only: the store and its proxy run in processes of their own.
"""

from dsib import counters

from . import batches, objectstore, prepare, reads, series, writes

TIMED = ("time_",)
HIDDEN = ("time_", "timeraw_", "peakmem_", "mem_", "track_")


def counted(timed, number=1):
    """The class that counts ``timed``'s calls: its setup (and setup_cache, shared with it), each
    ``time_X`` as ``track_X`` returning the call's user-space instructions; series ``number``."""

    def setup(self, *params):
        reason = counters.available()
        if reason:
            raise NotImplementedError(reason)
        timed.setup(self, *params)

    def tracker(method):
        def track(self, *params):
            return counters.count(getattr(timed, method), self, *params).instructions_user

        track.__name__ = "track_" + method[len("time_") :]
        track.unit = "instructions"
        track.__doc__ = "The user-space instructions of one call of %s.%s." % (timed.__name__, method)
        return track

    members = dict((name, None) for name in dir(timed) if name.startswith(HIDDEN) and callable(getattr(timed, name)))
    for method in [name for name in members if name.startswith(TIMED)]:
        members["track_" + method[len("time_") :]] = tracker(method)
    members.update(
        __module__=__name__,
        __doc__="Instruction counts of %s: %s" % (timed.__name__, (timed.__doc__ or "").strip().split("\n")[0]),
        version=series(number),
        measures=timed.measures + ("dsib.counters",),
        setup=setup,
    )
    return type(timed.__name__, (timed,), members)


ReadFromBytes = counted(reads.ReadFromBytes)
ReadFromPageCache = counted(reads.ReadFromPageCache)
ContinuousRead = counted(reads.ContinuousRead)
ContinuousReadMonths = counted(reads.ContinuousReadMonths)
WriteToBytes = counted(writes.WriteToBytes)
WriteMonthToBytes = counted(writes.WriteMonthToBytes)
CategorizeThenWrite = counted(writes.CategorizeThenWrite)
ReadColumns = counted(batches.ReadColumns)
IterateBatches = counted(batches.IterateBatches)
ContinuousReadInBatches = counted(batches.ContinuousReadInBatches)
Prepare = counted(prepare.Prepare)
ReadFromObjectStore = counted(objectstore.ReadFromObjectStore, 2)
