"""`make test` builds actionlint with Go (scripts/provision); without a Go on PATH it fetches one from the Go module
proxy (dsib/fetch_go.py). Served here from a local zip laid out as the proxy's, through file://."""

import hashlib
import os
import stat
import zipfile

import pytest

from dsib_tools import fetch_go


def _toolchain_zip(path, version, platform):
    prefix = "golang.org/toolchain@v0.0.1-go%s.%s/" % (version, platform)
    with zipfile.ZipFile(path, "w") as z:
        for name, mode, text in (
            ("bin/go", 0o755, "#!/bin/sh\necho go%s\n" % version),
            ("src/runtime/x.go", 0o644, "package runtime\n"),
            ("VERSION", 0o644, version),
        ):
            info = zipfile.ZipInfo(prefix + name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            z.writestr(info, text)
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture
def proxy(tmp_path, monkeypatch):
    platform = fetch_go.this_platform()
    served = tmp_path / "proxy"
    served.mkdir()
    digest = _toolchain_zip(str(served / ("v0.0.1-go9.9.9.%s.zip" % platform)), "9.9.9", platform)
    monkeypatch.setattr(fetch_go, "PROXY", "file://" + str(served) + "/v0.0.1-go%s.%s.zip")
    monkeypatch.setattr(fetch_go, "SHA256", {("9.9.9", platform): digest})
    return platform


def test_a_verified_toolchain_is_unpacked_with_its_executable_bits(proxy, tmp_path):
    into = str(tmp_path / "venv" / "go")
    go = fetch_go.fetch("9.9.9", into, progress=lambda line: None)
    assert go == os.path.join(into, "bin", "go")
    assert os.access(go, os.X_OK) and not os.access(os.path.join(into, "VERSION"), os.X_OK)
    with open(os.path.join(into, "src", "runtime", "x.go")) as f:
        assert f.read() == "package runtime\n"


def test_a_download_that_does_not_match_its_pinned_checksum_is_not_unpacked(proxy, tmp_path, monkeypatch):
    monkeypatch.setattr(fetch_go, "SHA256", {("9.9.9", proxy): "0" * 64})
    into = str(tmp_path / "venv" / "go")
    with pytest.raises(fetch_go.FetchError, match="not the pinned"):
        fetch_go.fetch("9.9.9", into, progress=lambda line: None)
    assert os.listdir(str(tmp_path / "venv")) == [], "nothing half-made is left behind"


def test_a_release_without_a_pinned_checksum_says_to_install_go(tmp_path):
    with pytest.raises(fetch_go.FetchError, match="install Go"):
        fetch_go.fetch("0.0.0", str(tmp_path / "go"), progress=lambda line: None)


def test_the_pinned_release_is_the_one_the_provisioning_asks_for():
    from .conftest import ROOT

    with open(os.path.join(ROOT, "scripts", "provision")) as f:
        version = [line.split("=")[1].strip() for line in f if line.startswith("GO_VERSION=")][0]
    assert (version, "linux-amd64") in fetch_go.SHA256
