"""pickle: protocols 2 and 5, each by its number."""

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
    Format(
        "pickle-2",
        "pickle protocol 2",
        ".pkl",
        _writer(2),
        _read,
        "pickle",
        needs=(Needs("pandas"),),
        settings=(("protocol", "2"),),
    ),
    Format(
        "pickle-5",
        "pickle protocol 5",
        ".pkl",
        _writer(5),
        _read,
        "pickle",
        # The highest protocol, and pandas' to_pickle default, from Python 3.8; 4 on 3.7.
        needs=(Needs("pandas"), Needs("python", "3.8", why="pickle protocol 5 arrived in Python 3.8")),
        description="in-band buffers, as pickle.dumps(frame, protocol=5)",
        settings=(("protocol", "5"),),
    ),
]
