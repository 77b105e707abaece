"""What a call adds to another process tree's memory (``procmem.Added``), measured on real
processes: a child that takes memory and gives it back while the caller is busy."""

import random
import subprocess
import sys

from dsib import procmem

# The child: once started it says so; on a line from its stdin, it takes SIZE bytes (touched, so
# resident), keeps them for HOLD seconds, gives them back and says so.
CHILD = """
import sys, time
print("ready", flush=True)
sys.stdin.readline()
block = bytearray(%(size)d)
for i in range(0, len(block), 4096):
    block[i] = 1
time.sleep(%(hold)s)
del block
print("freed", flush=True)
sys.stdin.readline()
"""
SIZE = 200 * 2**20


def _started(script):
    """A process running ``script``, once it has said it is ready: its interpreter's start-up is
    not the call's."""
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, universal_newlines=True
    )
    assert process.stdout.readline() == "ready\n"
    return process


def _child(hold):
    return _started(CHILD % dict(size=SIZE, hold=hold))


def test_a_peak_is_seen_while_the_caller_holds_the_gil():
    """The child's 200 MiB come and go while the caller sorts a list in C, which keeps the GIL
    throughout: a sampler in a thread of the caller's would take no sample then and see nothing
    added; ``Added``'s process of its own sees the peak."""
    numbers = [random.random() for _ in range(3000000)]
    with _child(hold=0.3) as child:  # its pipes closed and it waited for at the end
        try:
            with procmem.Added(child.pid) as added:
                child.stdin.write("take\n")
                child.stdin.flush()
                sorted(numbers)  # about a second in C, the GIL held
                assert child.stdout.readline() == "freed\n"
        finally:
            child.kill()
    assert added.bytes > SIZE / 2, added.bytes
    assert added.before > 0


def test_a_call_that_adds_nothing_adds_next_to_nothing():
    with _child(hold=0) as child:
        try:
            with procmem.Added(child.pid) as added:
                pass
        finally:
            child.kill()
    assert abs(added.bytes) < SIZE / 100, added.bytes


# A tree of two: the root starts a grandchild that takes SIZE bytes; on a line, the root ends the
# grandchild, then takes SIZE / 4 for HOLD seconds itself, gives them back and says so.
ROOT = """
import subprocess, sys, time
grandchild = subprocess.Popen(
    [sys.executable, "-c", %(grandchild)r], stdin=subprocess.PIPE, stdout=subprocess.PIPE, universal_newlines=True
)
print(grandchild.stdout.readline().strip(), flush=True)
sys.stdin.readline()
grandchild.stdin.close()
grandchild.wait()
block = bytearray(%(size)d // 4)
for i in range(0, len(block), 4096):
    block[i] = 1
time.sleep(0.3)
del block
print("done", flush=True)
sys.stdin.readline()
"""
GRANDCHILD = (
    """
import sys
block = bytearray(%d)
for i in range(0, len(block), 4096):
    block[i] = 1
print("ready", flush=True)
sys.stdin.read()
"""
    % SIZE
)


def test_a_process_of_the_tree_that_ends_during_the_call_takes_nothing_from_what_it_added():
    """A server's backend of an earlier connection may end while a call runs: its memory leaving
    the tree is not the call's. Here a grandchild holding 200 MiB ends as the call starts, and the
    root then takes 50 MiB: the call added about 50 MiB, not 150 MiB less than nothing."""
    with _started(ROOT % dict(grandchild=GRANDCHILD, size=SIZE)) as root:
        try:
            with procmem.Added(root.pid) as added:
                root.stdin.write("go\n")
                root.stdin.flush()
                assert root.stdout.readline() == "done\n"
        finally:
            root.kill()
    assert added.before > SIZE
    assert SIZE / 8 < added.bytes < SIZE / 2, added.bytes


# The child: maps a file, reads every page of it (resident, in its PSS), says so, and keeps it
# mapped until its stdin closes.
MAPPER = """
import mmap, sys
with open(%(path)r, "rb") as f:
    pages = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
sum(pages[i] for i in range(0, len(pages), 4096))
print("ready", flush=True)
sys.stdin.read()
"""


def test_another_process_leaving_a_file_the_tree_maps_adds_nothing(tmp_path):
    """The pages of a file the tree maps are divided among every process that maps them, those
    outside the tree too, as a second PostgreSQL server maps the same binary: when such a process
    ends during the call, the tree's share of those pages doubles (here by 100 MiB) and the call
    has added nothing. ``Added`` counts the tree's memory, not the files it maps."""
    path = tmp_path / "mapped"
    path.write_bytes(b"\1" * SIZE)
    with _started(MAPPER % dict(path=str(path))) as child, _started(MAPPER % dict(path=str(path))) as other:
        try:
            with procmem.Added(child.pid) as added:
                other.stdin.close()
                other.wait()
        finally:
            child.kill()
            other.kill()
    assert added.before > 0
    assert abs(added.bytes) < SIZE / 100, added.bytes
