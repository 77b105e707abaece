"""What a format is to the suite, as data: its writer and reader, what it needs, what it loses.

A format is registered once (``dsib.formats``), with its capabilities as fields, not as code:

- ``needs``: the libraries it calls, each with the versions that have the API
  (``Needs("pyarrow", "0.17", why="Feather v2 arrived in pyarrow 0.17")``);
- ``losses``: the documented differences of its round trip (``dsib.fidelity.ALLOWED_LOSSES``),
  each under the versions where it happens (``Loss("timezone", below=("pandas", "0.24"))``);
- ``variants``: the string variants it can hold; ``writes``: False where its writer is another
  format's; ``reads_bytes``: False where it reads only a file (a memory map);
- ``to_frame``: for a reader that returns something other than a frame (a summed Arrow table),
  how the round-trip check gets the frame from what the timed read returned;
- ``columns``: a reader of some of the columns (None: the format reads every column);
  ``batches``: a reader of the file in batches of a size asked (None: it has none);
  ``read_ahead``: a reader that fetches the bytes it needs ahead, coalesced (Parquet's
  ``pre_buffer``), of every column or some (None: it has none); ``take``: a reader of some
  rows at the positions asked, without reading the rest where the format can (None: it has none);
- ``settings``: the options its writer and reader state, as (option, value) pairs, where a
  library's default could change between releases (codec, index, timestamp unit, memory map,
  protocol, threads), so that every release does the same work; ``defaults``: where the format
  is also measured with its libraries' defaults (the 2019 post's cases), that writer and reader
  (``LibraryDefaults``): ``with_library_defaults`` gives the format as they make it.

``unavailable(versions)`` and ``losses_in(versions)`` read those fields against a mapping of
package versions: inside a benchmark environment its installed versions
(``installed_versions``), in the tools an environment's pins from its asv results. Both ask the
same data, so a report can say why a cell of another environment was skipped.
"""

import importlib
import platform
from collections import namedtuple

from data_prep.datasets import VARIANTS

from .compat import version_tuple


class UnknownFormatError(KeyError):
    def __str__(self):
        return self.args[0]


# Modules whose pip distribution has another name: an environment's pins name the distribution.
DISTRIBUTIONS = {"lance": "pylance"}


class Needs(namedtuple("Needs", ["package", "minimum", "below", "why", "modules"])):
    """``package`` at ``minimum`` or later and before ``below`` (either may be None); ``why``
    says what a release outside that range lacks; ``modules``: submodules the format imports."""

    def __new__(cls, package, minimum=None, below=None, why=None, modules=()):
        return super(Needs, cls).__new__(cls, package, minimum, below, why, tuple(modules))

    def unmet(self, versions):
        """Why ``versions`` ({package: version string}, by module or by pip distribution, as an
        environment's pins name it) cannot run this, or None."""
        have = versions.get(self.package) or versions.get(DISTRIBUTIONS.get(self.package))
        if have is None:
            return "%s is not installed in this environment" % self.package
        if self.minimum and version_tuple(have) < version_tuple(self.minimum):
            return self._why(have) or "needs %s >= %s, this is %s" % (self.package, self.minimum, have)
        if self.below and version_tuple(have) >= version_tuple(self.below):
            return self._why(have) or "needs %s < %s, this is %s" % (self.package, self.below, have)
        return None

    def _why(self, have):
        return self.why and self.why.replace("{have}", have)


class Loss(namedtuple("Loss", ["name", "since", "below"])):
    """A declared loss, where ``since`` / ``below`` = (package, version) hold (None: always)."""

    def __new__(cls, name, since=None, below=None):
        return super(Loss, cls).__new__(cls, name, since, below)

    def applies(self, versions):
        for bound, newer in ((self.since, True), (self.below, False)):
            if bound is None:
                continue
            package, version = bound
            have = versions.get(package)
            if have is None or (version_tuple(have) >= version_tuple(version)) != newer:
                return False
        return True


class Reader(namedtuple("Reader", ["call", "needs", "writes"])):
    """A reader beside the format's ``read`` (``Format.columns``, ``Format.batches``, ...), with what
    it needs beyond what the format needs (an API newer than the format's), and ``writes(frame,
    size) -> bytes`` where it reads a file written for it (Parquet in row groups, Arrow IPC in
    record batches, of ``size.rows``, as a user who reads in batches writes them; None: the
    format's own file)."""

    def __new__(cls, call, needs=(), writes=None):
        return super(Reader, cls).__new__(cls, call, tuple(needs), writes)

    def __call__(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    def unavailable(self, versions):
        for need in self.needs:
            reason = need.unmet(versions)
            if reason:
                return reason
        return None


class LibraryDefaults(namedtuple("LibraryDefaults", ["write", "read", "description"])):
    """A format's writer and reader as its libraries' defaults make them (``to_parquet(buf)``,
    ``read_table(path)``): what a user who states nothing gets, in each release its own."""


def distribution_versions(names):
    """{name: version} of the installed distributions among ``names``, found without importing
    them (a client a case imports in its own process only: s3fs); "0" where no metadata says."""
    import importlib.util

    found = {}
    for name in names:
        if importlib.util.find_spec(name) is None:
            continue
        try:
            from importlib.metadata import version  # Python 3.8 and later

            found[name] = version(name)
        except Exception:
            found[name] = "0"
    return found


def installed_versions(packages):
    """{package: version} of the importable ``packages`` in this interpreter; ``python`` is the
    interpreter's own (as asv names it among an environment's parameters)."""
    found = {}
    for package in packages:
        if package == "python":
            found[package] = platform.python_version()
            continue
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        version = getattr(module, "__version__", None)
        if version is None and isinstance(getattr(module, "version", None), tuple):
            version = ".".join(str(part) for part in module.version)  # msgpack before 1.0
        found[package] = version or "0"
    return found


class Registered(object):
    """What a format and an engine share: a name and label, the libraries it needs, the losses
    it declares, the variants it holds, and the answers the suite asks of them."""

    def __init__(self, name, label, family, needs=(), losses=(), variants=VARIANTS, description=""):
        self.name = name
        self.label = label
        self.family = family
        self.needs = tuple(needs)
        self.declared_losses = tuple(losses)
        self.variants = tuple(variants)
        self.description = description

    @property
    def packages(self):
        return tuple(n.package for n in self.needs)

    def unavailable(self, versions, needs=None):
        """Why this cannot run with ``versions``, or None; ``needs``: others than its own."""
        for need in self.needs if needs is None else needs:
            reason = need.unmet(versions)
            if reason:
                return "%s: %s" % (self.label, reason)
        return None

    def losses_in(self, versions):
        return tuple(loss.name for loss in self.declared_losses if loss.applies(versions))

    def check_available(self):
        """In a benchmark environment: raise NotImplementedError (asv's skip) with the reason."""
        versions = installed_versions(self.packages)
        reason = self.unavailable(versions)
        if reason is None:
            for need in self.needs:
                for module in need.modules:
                    try:
                        importlib.import_module(module)
                    except ImportError as exc:
                        reason = "%s: %s cannot be imported here (%s)" % (self.label, module, exc)
        if reason:
            raise NotImplementedError(reason)
        return versions

    def losses(self):
        """The declared losses in this environment."""
        return self.losses_in(installed_versions(self.packages))

    def check_variant(self, variant):
        if variant not in self.variants:
            raise NotImplementedError(
                "%s cannot hold the %r variant (it holds %s)" % (self.label, variant, ", ".join(self.variants))
            )

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.name)


class Format(Registered):
    """A storage format as the suite sees it.

    ``write(frame) -> bytes``: the timed serialisation, into memory.
    ``read(source, datetimes=(), categoricals=(), texts=())``: the timed deserialisation of
    ``source``, bytes or a file path. The reader is told, as a user would tell it, which
    columns hold datetimes, which to return as categoricals, and which hold text that looks
    numeric. Where a format cannot store categoricals, it converts after reading, and that
    conversion is part of its time.

    ``columns(path, names, **hints)``: the frame of ``names`` alone (in the file's order), read
    without reading the others where the format can; the hints name those columns only.
    ``batches(path, size, **hints)``: an iterator of frames, each of about ``size.rows`` rows (or
    ``size.bytes`` of the file, for a reader that counts bytes), that together are the frame.
    ``read_ahead(source, names=None, **hints)``: ``read`` (or ``columns``, of ``names``) with the
    bytes it needs fetched ahead in coalesced ranges.
    ``take(path, positions, **hints)``: the frame of the rows at ``positions`` (ascending, 0-based),
    in that order, with a fresh RangeIndex.
    """

    def __init__(
        self,
        name,
        label,
        suffix,
        write,
        read,
        family,
        needs=(),
        losses=(),
        variants=VARIANTS,
        description="",
        writes=True,
        reads_bytes=True,
        to_frame=None,
        columns=None,
        batches=None,
        read_ahead=None,
        take=None,
        settings=(),
        defaults=None,
    ):
        super(Format, self).__init__(name, label, family, needs, losses, variants, description)
        self.settings = tuple(settings)
        self.defaults = defaults
        self.suffix = suffix
        self.write = write
        self.read = read
        self.writes = writes
        self.reads_bytes = reads_bytes
        self.to_frame = to_frame
        self.columns = columns if columns is None or isinstance(columns, Reader) else Reader(columns)
        self.batches = batches if batches is None or isinstance(batches, Reader) else Reader(batches)
        self.read_ahead = read_ahead
        self.take = take if take is None or isinstance(take, Reader) else Reader(take)

    def with_library_defaults(self):
        """This format written and read as its libraries' defaults make it, in each release its
        own (``defaults``); the format itself where it has no such twin."""
        if self.defaults is None:
            return self
        import copy

        twin = copy.copy(self)
        twin.write, twin.read, twin.description = self.defaults
        twin.settings, twin.defaults = (), None
        return twin

    @property
    def builds_frame(self):
        """Whether ``read`` returns a frame: only then is a throughput (frame size / time) shown."""
        return self.to_frame is None

    def frame_of(self, result, hints=None):
        """The frame a timed read returned (made from it, where the read returns something else),
        for the round-trip check."""
        return result if self.to_frame is None else self.to_frame(result, **(hints or {}))

    def read_back(self, payload, hints):
        """The frame of reading ``payload`` as this format reads (from a file where it reads no
        bytes), outside any timing: warm-ups and the fidelity table."""
        if self.reads_bytes:
            return self.frame_of(self.read(payload, **hints), hints)
        import os
        import tempfile

        handle, path = tempfile.mkstemp(suffix=self.suffix)
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(payload)
            result = self.read(path, **hints)
            return self.frame_of(result, hints)
        finally:
            os.remove(path)

    def warm_up(self):
        """Import the libraries and do one tiny round trip, so that no import or lazy
        initialisation (pyarrow's pandas shim, thread pools) lands in a timing."""
        import pandas as pd

        self.check_available()
        tiny = pd.DataFrame({"i": [1, 2], "t": pd.to_datetime(["2016-01-01", "2016-01-02"])})
        if "cat" in self.variants:
            tiny["s"] = pd.Categorical(["a", "b"])
        self.read_back(self.write(tiny), {"datetimes": ("t",), "categoricals": ("s",) if "s" in tiny else ()})


class Registry(object):
    """Formats (or engines: ``kind``) by name, in registration order."""

    def __init__(self, formats, kind="format", unknown=UnknownFormatError):
        self._formats = []
        self._by_name = {}
        self.kind, self._unknown = kind, unknown
        for fmt in formats:
            if fmt.name in self._by_name:
                raise ValueError("%s %r is registered twice" % (kind, fmt.name))
            self._formats.append(fmt)
            self._by_name[fmt.name] = fmt

    def __getitem__(self, name):
        try:
            return self._by_name[name]
        except KeyError:
            raise self._unknown(
                "unknown %s %r; registered %ss are: %s" % (self.kind, name, self.kind, ", ".join(self.names()))
            )

    def __contains__(self, name):
        return name in self._by_name

    def __iter__(self):
        return iter(self.names())

    def __len__(self):
        return len(self._formats)

    def names(self):
        return [f.name for f in self._formats]

    def values(self):
        return list(self._formats)

    def items(self):
        return [(f.name, f) for f in self._formats]

    def packages(self):
        """Every package some format (or engine) needs, in first-seen order."""
        seen = []
        for fmt in self._formats:
            for package in fmt.packages:
                if package not in seen:
                    seen.append(package)
        return seen
