"""The chart library is vendored from npm tarballs checked against pinned sha256 (dsib_tools/vendor_js.py);
served here from local tarballs laid out as the registry's, through file://."""

import hashlib
import io
import os
import tarfile

import pytest

from dsib_tools import vendor_js


def _tarball(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo("package/" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture
def registry(tmp_path, monkeypatch):
    served = tmp_path / "registry" / "vega-lite" / "-"
    served.mkdir(parents=True)
    digest = _tarball(
        str(served / "vega-lite-9.9.9.tgz"),
        {"build/vega-lite.min.js": "var vegaLite = {};", "LICENSE": "BSD-3-Clause", "src/other.ts": "x"},
    )
    monkeypatch.setitem(vendor_js.PINS, "vega-lite", ("9.9.9", digest, ("build/vega-lite.min.js", "LICENSE")))
    return "file://" + str(tmp_path / "registry") + "/%(name)s/-/%(name)s-%(version)s.tgz"


def test_a_verified_tarball_leaves_its_browser_build_and_licence(registry, tmp_path):
    into = str(tmp_path / "vendor")
    target = vendor_js.fetch("vega-lite", into, registry, progress=lambda line: None)
    assert target == os.path.join(into, "vega-lite-9.9.9")
    assert sorted(os.listdir(target)) == ["LICENSE", "vega-lite.min.js"]
    assert oct(os.stat(target).st_mode & 0o777) == oct(0o755)


def test_a_tarball_of_another_checksum_is_refused_and_nothing_is_unpacked(registry, tmp_path, monkeypatch):
    version, _, files = vendor_js.PINS["vega-lite"]
    monkeypatch.setitem(vendor_js.PINS, "vega-lite", (version, "0" * 64, files))
    into = str(tmp_path / "vendor")
    with pytest.raises(vendor_js.VendorError, match="not the pinned"):
        vendor_js.fetch("vega-lite", into, registry, progress=lambda line: None)
    assert not os.path.exists(os.path.join(into, "vega-lite-9.9.9"))


def test_the_pages_load_the_committed_vendored_files():
    for script in vendor_js.scripts():
        path = os.path.join(vendor_js.VENDOR, script)
        assert os.path.getsize(path) > 10000, path
        assert os.path.exists(os.path.join(os.path.dirname(path), "LICENSE"))
