"""pickle: protocol 2 and the highest protocol of the running Python."""

import pickle

from ..registry import Format, Needs
from . import _io


def _writer(protocol):
    def write(frame):
        return pickle.dumps(frame, protocol=protocol)

    return write


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return pickle.loads(_io.payload(source))


FORMATS = [
    Format("pickle-2", "pickle protocol 2", ".pkl", _writer(2), _read, "pickle", needs=(Needs("pandas"),)),
    Format(
        "pickle-highest",
        "pickle highest protocol",
        ".pkl",
        _writer(pickle.HIGHEST_PROTOCOL),
        _read,
        "pickle",
        needs=(Needs("pandas"),),
        description="protocol %d on this Python" % pickle.HIGHEST_PROTOCOL,
    ),
]
