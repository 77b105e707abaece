"""dsib.pagecache on real files: eviction must really empty the page cache, and mincore must
really measure it (it fills again on reading, and by half on reading half)."""

import mmap
import os
import sys

import pytest

from dsib import pagecache

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="fsync + POSIX_FADV_DONTNEED + mincore is Linux-only"
)

SIZE = 16 << 20


def read_all(path):
    with open(path, "rb") as stream:
        while stream.read(1 << 20):
            pass


@pytest.fixture
def cache_dir(tmp_path):
    fstype = pagecache.filesystem_type(str(tmp_path))
    if fstype in pagecache.MEMORY_FILESYSTEMS:
        # By design, not a failure of the module; run pytest with --basetemp on a disk.
        pytest.skip("pytest's tmp_path is on %s, which keeps files only in memory" % fstype)
    return tmp_path


@pytest.fixture
def data_file(cache_dir):
    path = str(cache_dir / "data.bin")
    with open(path, "wb") as stream:
        stream.write(os.urandom(SIZE))
    return path


def test_full_read_makes_file_resident(data_file):
    pagecache.evict_and_verify(data_file)
    read_all(data_file)
    resident, total = pagecache.resident_pages(data_file)
    assert total == SIZE // pagecache.PAGE_SIZE
    assert resident > 0.9 * total
    assert pagecache.resident_fraction(data_file) > 0.9


def test_evict_and_verify_leaves_nothing_resident(data_file):
    read_all(data_file)
    assert pagecache.resident_fraction(data_file) > 0.9
    assert pagecache.evict_and_verify(data_file) == 0.0
    assert pagecache.resident_pages(data_file) == (0, SIZE // pagecache.PAGE_SIZE)


def test_reading_again_brings_pages_back(data_file):
    pagecache.evict_and_verify(data_file)
    assert pagecache.resident_fraction(data_file) == 0.0
    read_all(data_file)
    assert pagecache.resident_fraction(data_file) > 0.9
    pagecache.evict_and_verify(data_file)
    assert pagecache.resident_fraction(data_file) == 0.0


def read_prefix(path, nbytes):
    fd = os.open(path, os.O_RDONLY)
    try:
        # Readahead (8 MiB on some disks) could pull in the rest of the file; these tests are
        # about mincore, not readahead.
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        while nbytes:
            chunk = os.read(fd, min(nbytes, 1 << 20))
            assert chunk
            nbytes -= len(chunk)
    finally:
        os.close(fd)


def test_half_read_gives_half_residency(data_file):
    pagecache.evict_and_verify(data_file)
    read_prefix(data_file, SIZE // 2)
    assert 0.3 < pagecache.resident_fraction(data_file) < 0.7


def test_partial_last_page_counts_as_a_page(cache_dir):
    path = str(cache_dir / "odd.bin")
    with open(path, "wb") as stream:
        stream.write(b"x" * (3 * pagecache.PAGE_SIZE + 1))
    read_all(path)
    assert pagecache.resident_pages(path) == (4, 4)
    pagecache.evict_and_verify(path)
    assert pagecache.resident_pages(path) == (0, 4)


def drop_clean_pages(path):
    """DONTNEED without the fsync of ``evict``: only pages that are already clean go."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def test_write_to_disk_writes_exact_bytes_and_clean_pages(cache_dir):
    # A new name on purpose: renaming over an existing file makes ext4 flush the data by
    # itself (auto_da_alloc), which would hide a missing fsync.
    path = str(cache_dir / "out.bin")
    payload = os.urandom(SIZE + 123)
    assert pagecache.write_to_disk(path, payload) == len(payload)
    drop_clean_pages(path)
    assert pagecache.resident_fraction(path) == 0.0
    with open(path, "rb") as stream:
        assert stream.read() == payload
    assert sorted(os.listdir(str(cache_dir))) == ["out.bin"]


def test_write_to_disk_replaces_existing_file(cache_dir):
    path = str(cache_dir / "out.bin")
    with open(path, "wb") as stream:
        stream.write(b"old contents, longer than the new ones")
    assert pagecache.write_to_disk(path, b"new") == 3
    with open(path, "rb") as stream:
        assert stream.read() == b"new"
    assert sorted(os.listdir(str(cache_dir))) == ["out.bin"]


def test_evict_flushes_dirty_pages_first(cache_dir):
    path = str(cache_dir / "dirty.bin")
    with open(path, "wb") as stream:
        stream.write(os.urandom(SIZE))
    pagecache.evict(path)
    assert pagecache.resident_fraction(path) == 0.0


def test_write_to_disk_accepts_buffers(cache_dir):
    path = str(cache_dir / "buf.bin")
    assert pagecache.write_to_disk(path, memoryview(bytearray(b"abc" * 1000))) == 3000
    assert pagecache.write_to_disk(path, bytearray(b"xyz")) == 3
    with open(path, "rb") as stream:
        assert stream.read() == b"xyz"


def test_write_to_disk_leaves_no_temp_file_on_failure(cache_dir):
    path = str(cache_dir / "missing-dir" / "out.bin")
    with pytest.raises(OSError):
        pagecache.write_to_disk(path, b"data")
    target = cache_dir / "target"
    target.mkdir()
    (target / "inside").write_bytes(b"")
    with pytest.raises(OSError):
        # rename onto a non-empty directory fails after the temp file is written
        pagecache.write_to_disk(str(target), b"data")
    assert sorted(os.listdir(str(cache_dir))) == ["target"]


def test_empty_file(cache_dir):
    path = str(cache_dir / "empty.bin")
    assert pagecache.write_to_disk(path, b"") == 0
    assert os.path.getsize(path) == 0
    assert pagecache.resident_pages(path) == (0, 0)
    assert pagecache.resident_fraction(path) == 0.0
    pagecache.evict(path)
    assert pagecache.evict_and_verify(path) == 0.0


def test_errors_carry_errno(cache_dir):
    with pytest.raises(OSError) as missing:
        pagecache.resident_pages(str(cache_dir / "nope.bin"))
    assert missing.value.errno == 2
    with pytest.raises(OSError) as missing:
        pagecache.evict(str(cache_dir / "nope.bin"))
    assert missing.value.errno == 2
    # A directory opens and has a size, but cannot be mapped: the libc mmap path must fail loudly.
    with pytest.raises(OSError) as unmappable:
        pagecache.resident_pages(str(cache_dir))
    assert unmappable.value.errno
    assert "mmap" in str(unmappable.value)


def test_mapped_pages_cannot_be_evicted_so_the_case_is_skipped(data_file):
    with open(data_file, "rb") as stream:
        mapping = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        total = 0
        for offset in range(0, len(mapping), mmap.PAGESIZE):
            total += mapping[offset]
        with pytest.raises(NotImplementedError) as skipped:
            pagecache.evict_and_verify(data_file, attempts=2, pause=0.01)
    finally:
        mapping.close()
    message = str(skipped.value)
    assert message.startswith(
        "cannot evict %s from the page cache here: 100%% of its pages "
        "stay resident after fsync + POSIX_FADV_DONTNEED" % data_file
    )
    # Unmapped, the same file goes.
    assert pagecache.evict_and_verify(data_file) == 0.0


def test_ignored_advice_is_skipped_not_reported_cold(data_file, monkeypatch):
    read_all(data_file)
    monkeypatch.setattr(os, "posix_fadvise", lambda fd, offset, length, advice: None)
    with pytest.raises(
        NotImplementedError,
        match=r"cannot evict .* from the page cache here: "
        r"100% of its pages stay resident after fsync \+ POSIX_FADV_DONTNEED",
    ):
        pagecache.evict_and_verify(data_file, attempts=2, pause=0.01)
    assert pagecache.resident_fraction(data_file) > 0.9


def test_max_resident_tolerates_a_partly_resident_file(data_file, monkeypatch):
    pagecache.evict_and_verify(data_file)
    read_prefix(data_file, SIZE // 4)
    monkeypatch.setattr(os, "posix_fadvise", lambda fd, offset, length, advice: None)
    fraction = pagecache.evict_and_verify(data_file, max_resident=0.99)
    assert 0.2 < fraction < 0.3


def test_missing_fadvise_raises_not_implemented(data_file, monkeypatch):
    monkeypatch.delattr(os, "posix_fadvise")
    with pytest.raises(NotImplementedError, match="posix_fadvise"):
        pagecache.evict(data_file)
    supported, reason = pagecache.eviction_supported(os.path.dirname(data_file))
    assert not supported
    assert "posix_fadvise" in reason


def test_eviction_supported_on_tmp_path(cache_dir):
    supported, reason = pagecache.eviction_supported(str(cache_dir))
    assert supported, reason
    assert os.listdir(str(cache_dir)) == []


def test_eviction_supported_reports_memory_filesystem():
    shm = "/dev/shm"
    if pagecache.filesystem_type(shm) != "tmpfs" or not os.access(shm, os.W_OK):
        pytest.skip("no writable tmpfs at /dev/shm")
    before = set(os.listdir(shm))
    supported, reason = pagecache.eviction_supported(shm)
    assert not supported
    assert "cannot evict" in reason and "tmpfs" in reason
    # Other programs (a PostgreSQL server of the engines' tests) come and go in /dev/shm: only the
    # probe's own name counts.
    assert not [n for n in set(os.listdir(shm)) - before if n.startswith(".dsib-pagecache-probe-")]


def test_eviction_supported_reports_unusable_directory(cache_dir):
    supported, reason = pagecache.eviction_supported(str(cache_dir / "does-not-exist"))
    assert not supported
    assert "cannot probe" in reason


def test_durable_writes_need_a_filesystem_behind_which_there_is_a_device(cache_dir):
    assert pagecache.require_durable(str(cache_dir)) == pagecache.filesystem_type(str(cache_dir))
    shm = "/dev/shm"
    if pagecache.filesystem_type(shm) != "tmpfs":
        pytest.skip("no tmpfs at /dev/shm")
    with pytest.raises(
        NotImplementedError,
        match="no durable write here: /dev/shm/x is on tmpfs, which keeps files "
        "only in memory, so fsync reaches no device",
    ):
        pagecache.require_durable("/dev/shm/x")
