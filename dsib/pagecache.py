"""Cold reads and durable writes without root: evict a file from the page cache, and prove it.

A "cold" read is only cold if none of the file is in the kernel's page cache. The usual way
to get there, ``echo 3 > /proc/sys/vm/drop_caches``, needs root and empties the cache of the
whole machine. This module works on one file, as any user:

* :func:`evict` ``fsync``\\ s the file, because dirty pages cannot be dropped, then calls
  ``posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)``, which asks the kernel to drop the file's
  clean, unmapped pages from the cache.
* The advice is only advice, so :func:`resident_pages` checks what happened: it maps the file
  and asks ``mincore(2)`` which of its pages are resident. Python has no wrapper for
  ``mincore``, so both ``mmap`` and ``mincore`` are called through ``ctypes`` on libc (the
  ``mmap`` module does not expose the address of a read-only mapping). Mapping a file does
  not read it, so measuring does not warm it.
* :func:`evict_and_verify` combines the two and raises ``NotImplementedError`` when the file
  stays resident. asv reports a benchmark whose ``setup`` raises ``NotImplementedError`` as
  skipped, so a cold read that cannot be proven cold is skipped, never reported as cold.
* :func:`write_to_disk` is the timed operation of a "to disk" write: the data reaches stable
  storage (``fsync`` of the file and of its directory), not just the page cache.
  :func:`require_durable` skips it where there is no stable storage behind the directory (tmpfs).
* :func:`direct_write` and :func:`direct_read` move a file with ``O_DIRECT``, past the page
  cache: what the device behind a directory delivers (:func:`require_direct_io` skips where
  the filesystem refuses it or keeps files only in memory).

Limits:

* Pages that some process keeps mapped (including this one, through ``mmap`` or a
  memory-mapped Arrow/NumPy buffer) are not dropped; neither are pages under writeback.
* tmpfs and ramfs keep files only in the page cache, and some filesystems (overlay layers,
  FUSE, network filesystems) ignore the advice: the pages stay resident and the case is
  skipped.
* Filesystems with a cache of their own (ZFS's ARC, FUSE with direct I/O) may not fill the
  page cache on read at all. ``mincore`` then says "cold" while the data is still in memory.
  :func:`eviction_supported` catches that by reading its probe file first and requiring the
  page cache to fill; benchmarks should call it once for their data directory.
* Since Linux 5.0, ``mincore`` reports every page of a file as resident to a process that
  neither owns the file nor may write it. Such files cannot be proven cold, so they are
  skipped too (the error message says why).
* The disk's own cache and a RAID controller's are out of reach; so is readahead of a cold
  read, which is part of what a cold read measures. So is the host's cache where the disk is a
  virtual one: ``mincore`` proves this kernel's page cache empty, and a cold read then goes to
  the virtual disk, which the host may answer from its own memory. ``direct_read`` measures
  what that disk delivers, so that a cold figure can be read beside it.

Linux only in practice: where ``os.posix_fadvise`` or ``mincore`` is missing, the functions
raise ``NotImplementedError`` saying so. Stdlib only, importable on Python 3.7.
"""

import ctypes
import ctypes.util
import errno
import mmap
import os
import sys
import time

PAGE_SIZE = mmap.PAGESIZE

# Filesystems that hold files in the page cache only: nothing to evict to.
MEMORY_FILESYSTEMS = ("tmpfs", "ramfs", "devtmpfs", "hugetlbfs")

_PROBE_BYTES = 4 << 20

# bytes.translate table keeping bit 0 of each mincore entry; the other bits are reserved.
_BIT0 = bytes(bytearray(i & 1 for i in range(256)))

_libc_handle = None


def _libc():
    """libc with ``mmap``, ``munmap`` and ``mincore`` prototypes, loaded on first use."""
    global _libc_handle
    if _libc_handle is not None:
        return _libc_handle
    if not hasattr(mmap, "PROT_READ"):
        raise NotImplementedError("page cache residency needs POSIX mmap/mincore; not available on %s" % sys.platform)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        mincore = libc.mincore
    except (OSError, AttributeError):
        name = ctypes.util.find_library("c")
        try:
            libc = ctypes.CDLL(name, use_errno=True)
            mincore = libc.mincore
        except (OSError, AttributeError, TypeError) as exc:
            raise NotImplementedError("cannot call mincore(2) through libc on %s: %s" % (sys.platform, exc))
    libc.mmap.restype = ctypes.c_void_p
    # off_t of the plain `mmap` symbol is a C long on Linux (32- and 64-bit alike).
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.restype = ctypes.c_int
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    mincore.restype = ctypes.c_int
    mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    _libc_handle = libc
    return libc


_MAP_FAILED = ctypes.c_void_p(-1).value


def _raise_errno(call, path):
    code = ctypes.get_errno()
    raise OSError(code, "%s failed: %s" % (call, os.strerror(code)), path)


def _require_fadvise():
    if not hasattr(os, "posix_fadvise"):
        raise NotImplementedError(
            "cannot evict files from the page cache on %s: os.posix_fadvise "
            "(POSIX_FADV_DONTNEED) is not available" % sys.platform
        )


def write_to_disk(path, payload):
    """Write ``payload`` to ``path`` durably and atomically; return the number of bytes.

    The bytes go to a temporary name in the same directory, are ``fsync``\\ ed, and the name
    is renamed over ``path``; the directory is then ``fsync``\\ ed so that the rename is
    durable too. Readers never see a partial file, and the new pages are clean, so the file
    can be evicted at once.
    """
    view = memoryview(payload).cast("B")
    directory = os.path.dirname(os.path.abspath(path))
    # pid + random suffix: concurrent writers of the same path must not share a temp file.
    temp = os.path.join(directory, ".%s.%d.%s.tmp" % (os.path.basename(path), os.getpid(), os.urandom(4).hex()))
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            written = 0
            total = len(view)
            # os.write may write less than asked (Linux caps one call near 2 GiB).
            while written < total:
                written += os.write(fd, view[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)
    return total


def _fsync_directory(directory):
    dir_fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(dir_fd)
    except OSError as exc:
        # Some filesystems (several network ones) refuse fsync on a directory; the file's
        # data is already durable, only the rename's durability is then up to them.
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(dir_fd)


def evict(path):
    """Ask the kernel to drop ``path``'s pages from the page cache (no root, no drop_caches).

    Only advice: pages mapped by a process, or on a filesystem that ignores it, stay. Use
    :func:`evict_and_verify` to know.
    """
    _require_fadvise()
    fd = os.open(path, os.O_RDONLY)
    try:
        # DONTNEED skips dirty pages (it only starts their writeback), so flush them first.
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def resident_pages(path):
    """``(resident, total)``: how many of ``path``'s pages are in the page cache, by mincore(2).

    ``total`` is ``ceil(size / PAGE_SIZE)``; an empty file is ``(0, 0)``. Failures raise
    ``OSError`` with the errno of the failing call.
    """
    libc = _libc()
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            # mmap rejects a zero length; an empty file has no pages to be resident.
            return 0, 0
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr is None or addr == _MAP_FAILED:
            _raise_errno("mmap", path)
    finally:
        # The mapping keeps its own reference to the file.
        os.close(fd)
    try:
        pages = (size + PAGE_SIZE - 1) // PAGE_SIZE
        vector = (ctypes.c_ubyte * pages)()
        if libc.mincore(addr, size, vector) != 0:
            _raise_errno("mincore", path)
        resident = bytes(vector).translate(_BIT0).count(b"\x01")
    finally:
        libc.munmap(addr, size)
    return resident, pages


def resident_fraction(path):
    """The fraction (0.0 to 1.0) of ``path``'s pages in the page cache; 0.0 for an empty file."""
    resident, total = resident_pages(path)
    return float(resident) / total if total else 0.0


def _percent(resident, total):
    share = 100.0 * resident / total
    # "0%" would read as evicted when a few pages stay.
    if 0 < share < 1:
        return "%.2g%%" % share
    return "%.0f%%" % share


def _why_resident(path, resident, total):
    hints = []
    try:
        st = os.stat(path)
        owner = st.st_uid == os.geteuid()
    except (OSError, AttributeError):
        owner = True
    if resident == total and not owner and not os.access(path, os.W_OK):
        hints.append(
            "mincore(2) reports every page as resident for files this user neither "
            "owns nor may write (Linux >= 5.0), so coldness cannot be checked"
        )
    fstype = filesystem_type(path)
    if fstype in MEMORY_FILESYSTEMS:
        hints.append("%s keeps files only in memory" % fstype)
    elif not hints:
        hints.append("pages mapped by a process, or a filesystem ignoring the advice, stay resident")
    if fstype:
        hints.insert(0, "filesystem %s" % fstype)
    return "; ".join(hints)


def evict_and_verify(path, max_resident=0.0, attempts=3, pause=0.05):
    """Evict ``path`` and prove it: return the resident fraction left, at most ``max_resident``.

    Retries a few times, since writeback or another CPU's LRU batch can hold pages for a
    moment. If the file stays resident, raise ``NotImplementedError`` (asv skips the case).
    """
    resident, total = 0, 0
    for attempt in range(max(1, attempts)):
        if attempt:
            time.sleep(pause)
        evict(path)
        resident, total = resident_pages(path)
        fraction = float(resident) / total if total else 0.0
        if fraction <= max_resident:
            return fraction
    raise NotImplementedError(
        "cannot evict %s from the page cache here: %s of its pages stay resident after fsync + "
        "POSIX_FADV_DONTNEED (%d of %d pages, %d attempts; %s)"
        % (path, _percent(resident, total), resident, total, max(1, attempts), _why_resident(path, resident, total))
    )


def filesystem_type(path):
    """The type (``ext4``, ``tmpfs``, ...) of the filesystem holding ``path``, or None if unknown.

    Read from ``/proc/self/mounts``: the longest mount point containing the path wins.
    """
    target = os.path.realpath(path)
    best, best_type = "", None
    try:
        with open("/proc/self/mounts", "rb") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) < 3:
                    continue
                # Spaces and such in mount points are octal escapes ("\040"); other bytes
                # pass through unicode_escape as latin-1 and come back unchanged.
                point = os.fsdecode(fields[1].decode("unicode_escape").encode("latin-1"))
                inside = target == point or point == "/" or target.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best):
                    best, best_type = point, os.fsdecode(fields[2])
    except (OSError, UnicodeError):
        return None
    return best_type


def eviction_supported(directory):
    """``(True, how)`` if cold reads can be made and proven in ``directory``, else ``(False, why)``.

    Writes a small probe file there, reads it (the page cache must fill, or mincore cannot
    tell warm from cold), evicts it and checks that nothing stays resident. Costs one 4 MiB
    write + fsync; callers that ask often can keep the answer per directory.
    """
    fstype = filesystem_type(directory) or "unknown filesystem"
    where = "%s (%s)" % (directory, fstype)
    probe = os.path.join(directory, ".dsib-pagecache-probe-%d-%s" % (os.getpid(), os.urandom(4).hex()))
    try:
        _require_fadvise()
        _libc()
        try:
            write_to_disk(probe, b"\xa5" * _PROBE_BYTES)
            with open(probe, "rb") as stream:
                while stream.read(1 << 20):
                    pass
            warm = resident_fraction(probe)
        except OSError as exc:
            return False, "cannot probe the page cache in %s: %s" % (where, exc)
        if warm < 0.9:
            return False, (
                "reading a file in %s does not fill the page cache (%.0f%% resident "
                "after a full read): the filesystem caches elsewhere, so mincore "
                "cannot tell a cold read from a warm one" % (where, 100 * warm)
            )
        try:
            left = evict_and_verify(probe)
        except OSError as exc:
            return False, "cannot probe the page cache in %s: %s" % (where, exc)
        except NotImplementedError as exc:
            return False, ("files in %s cannot be read cold, a probe file showed it: %s" % (where, exc))
        return True, (
            "fsync + POSIX_FADV_DONTNEED evicts files in %s (probe: %.0f%% resident "
            "after reading, %.0f%% after eviction, checked with mincore)" % (where, 100 * warm, 100 * left)
        )
    except NotImplementedError as exc:
        return False, str(exc)
    finally:
        try:
            os.unlink(probe)
        except OSError:
            pass


def _boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return None


def eviction_verdict(directory):
    """:func:`eviction_supported` for ``directory``, probed once per boot and filesystem and
    kept in a small file there: every cold case asks, and the probe costs a 4 MiB fsync."""
    import json

    boot = _boot_id()
    if boot is None:
        return eviction_supported(directory)
    record = os.path.join(directory, ".dsib-eviction-%s-%d.json" % (boot, os.stat(directory).st_dev))
    try:
        with open(record) as f:
            kept = json.load(f)
        return bool(kept["supported"]), kept["how"]
    except (OSError, ValueError, KeyError):
        pass
    supported, how = eviction_supported(directory)
    tmp = "%s.%d.tmp" % (record, os.getpid())
    with open(tmp, "w") as f:
        json.dump({"supported": supported, "how": how}, f)
    os.replace(tmp, record)
    return supported, how


def require_durable(directory):
    """In a durable write's ``setup``: skip, with the reason, where ``fsync`` in ``directory``
    reaches no device (a filesystem that keeps files only in memory: tmpfs, ramfs); return its
    filesystem's type otherwise (None where unknown: no ``/proc/self/mounts``)."""
    fstype = filesystem_type(directory)
    if fstype in MEMORY_FILESYSTEMS:
        raise NotImplementedError(
            "no durable write here: %s is on %s, which keeps files only in memory, so fsync "
            "reaches no device (set DSIB_CACHE_DIR to a directory on a disk)" % (directory, fstype)
        )
    return fstype


def require_eviction(directory):
    """In a cold case's ``setup``: skip, with the reason, where cold reads cannot be proven."""
    supported, how = eviction_verdict(directory)
    if not supported:
        raise NotImplementedError("no cold read here: %s" % how)
    return how


# O_DIRECT moves whole blocks between the device and memory aligned to them: chunks a multiple of
# any logical block size (512 B to 4 KiB) from page-aligned anonymous maps.
DIRECT_CHUNK = 8 << 20
DIRECT_BYTES = 256 << 20


def require_direct_io(directory):
    """Skip, with the reason, where ``O_DIRECT`` cannot measure the device behind ``directory``:
    no ``O_DIRECT`` on this system, a filesystem that keeps files only in memory (tmpfs accepts
    ``O_DIRECT`` since Linux 6.6, and then measures memory), or one that refuses the flag (its
    ``open`` fails with ``EINVAL``). Returns the filesystem's type."""
    flag = getattr(os, "O_DIRECT", None)
    if flag is None:
        raise NotImplementedError("no direct I/O on %s: os.O_DIRECT is not available" % sys.platform)
    fstype = filesystem_type(directory)
    if fstype in MEMORY_FILESYSTEMS:
        raise NotImplementedError(
            "no device to measure: %s is on %s, which keeps files only in memory" % (directory, fstype)
        )
    probe = os.path.join(directory, ".dsib-direct-probe-%d-%s" % (os.getpid(), os.urandom(4).hex()))
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | flag, 0o600)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            raise NotImplementedError(
                "no direct I/O in %s: its filesystem (%s) refuses O_DIRECT" % (directory, fstype or "unknown")
            )
        raise
    os.close(fd)
    os.unlink(probe)
    return fstype


def direct_write(path, size=DIRECT_BYTES, chunk=DIRECT_CHUNK):
    """Write ``size`` bytes (a multiple of ``chunk``) to a new file ``path`` with ``O_DIRECT``,
    then ``fsync`` it: the seconds that took. Nothing of the file enters the page cache."""
    if size % chunk:
        raise ValueError("size %d is not a multiple of the chunk %d" % (size, chunk))
    buffer = mmap.mmap(-1, chunk)  # page-aligned, as O_DIRECT needs
    try:
        buffer.write(os.urandom(chunk))  # incompressible, should the device compress
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_DIRECT, 0o600)
        try:
            start = time.perf_counter()
            for _ in range(size // chunk):
                if os.write(fd, buffer) != chunk:
                    raise OSError(errno.EIO, "a short direct write", path)
            os.fsync(fd)
            return time.perf_counter() - start
        finally:
            os.close(fd)
    finally:
        buffer.close()


def direct_read(path, chunk=DIRECT_CHUNK):
    """Read all of ``path`` (a size that is a multiple of ``chunk``) with ``O_DIRECT``, past the
    page cache: the seconds that took."""
    buffer = mmap.mmap(-1, chunk)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        try:
            size = os.fstat(fd).st_size
            if size % chunk:
                raise ValueError("%s: size %d is not a multiple of the chunk %d" % (path, size, chunk))
            start = time.perf_counter()
            for _ in range(size // chunk):
                if os.readv(fd, [buffer]) != chunk:
                    raise OSError(errno.EIO, "a short direct read", path)
            return time.perf_counter() - start
        finally:
            os.close(fd)
    finally:
        buffer.close()
