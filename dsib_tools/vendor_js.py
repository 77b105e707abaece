"""The site's chart library (Vega-Lite, drawn by Vega, embedded by vega-embed), vendored from the
npm registry at pinned versions.

``python -m dsib_tools setup vendor-js`` (the site's chart library) downloads each package's tarball, checks it
against the sha256 pinned here before anything is unpacked, and copies its browser build and
licence into ``dsib_tools/www/vendor/<name>-<version>/``, which is committed beside asv's vendored
libraries and copied into ``html/vendor/`` by ``site``: the published pages load nothing from the
network. To move to another release, change its version and sha256 here and run it again."""

import hashlib
import io
import os
import shutil
import tarfile
import tempfile
import urllib.request

REGISTRY = "https://registry.npmjs.org/%(name)s/-/%(name)s-%(version)s.tgz"
# name: (version, sha256 of the registry's tarball, files of the package to keep)
PINS = {
    "vega": (
        "6.4.0",
        "3521fb6ff68a94a40323954f0ba4484ba4014b157bfd37f89a3b063082320c42",
        ("build/vega.min.js", "LICENSE"),
    ),
    "vega-lite": (
        "6.5.0",
        "811230a6bfd2cdbfc359d0c38f624a90df86657b7f251b67be88bcc4eee32b7f",
        ("build/vega-lite.min.js", "LICENSE"),
    ),
    "vega-embed": (
        "7.3.0",
        "d9a958ced3240f0418df7d5e12e97dba6e63cecda15b8403e47a0db7eb6ea859",
        ("build/vega-embed.min.js", "LICENSE"),
    ),
}
VENDOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "www", "vendor")


class VendorError(Exception):
    pass


def directory(name):
    return "%s-%s" % (name, PINS[name][0])


def scripts():
    """The pages' <script> paths under vendor/, in load order (vega-embed needs the other two)."""
    return [
        "%s/%s" % (directory(name), os.path.basename(PINS[name][2][0])) for name in ("vega", "vega-lite", "vega-embed")
    ]


def copy_into(html_dir):
    """The chart library's committed files into ``html_dir/vendor`` (a page published on its own, as
    the release view is, gets them too)."""
    for name in PINS:
        target = os.path.join(html_dir, "vendor", directory(name))
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(os.path.join(VENDOR, directory(name)), target)


def fetch(name, into=VENDOR, registry=REGISTRY, progress=print):
    version, expected, files = PINS[name]
    url = registry % {"name": name, "version": version}
    with urllib.request.urlopen(url, timeout=60) as response:
        data = response.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected:
        raise VendorError("%s has sha256 %s, not the pinned %s: not unpacked" % (url, digest, expected))
    target = os.path.join(into, directory(name))
    os.makedirs(into, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".vendor-", dir=into)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for path in files:
                member = tar.extractfile("package/" + path)
                if member is None:
                    raise VendorError("%s holds no %s" % (url, path))
                with open(os.path.join(work, os.path.basename(path)), "wb") as f:
                    shutil.copyfileobj(member, f)
        os.chmod(work, 0o755)  # mkdtemp's 0700 would hide the files from a web server's user
        shutil.rmtree(target, ignore_errors=True)
        os.rename(work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    progress("%s %s (sha256 %s) is in %s" % (name, version, expected[:12], target))
    return target


def fetch_all(into=VENDOR, registry=REGISTRY, progress=print):
    return [fetch(name, into, registry, progress) for name in PINS]


def main(args):
    try:
        fetch_all()
    except (VendorError, OSError) as exc:
        print("error: %s" % exc)
        return 1
    return 0
