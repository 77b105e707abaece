"""pickle: protocol 2, and pickle's highest protocol, 5, each by its number."""

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
        "pickle-highest",
        "pickle highest protocol (5)",
        ".pkl",
        _writer(5),
        _read,
        "pickle",
        # pickle's highest protocol, and pandas' to_pickle default, from Python 3.8, stated by its
        # number so that every Python writes the same (Python 3.7's highest is 4: it skips there).
        needs=(Needs("pandas"), Needs("python", "3.8", why="pickle protocol 5 arrived in Python 3.8")),
        description="pickle.dumps(frame, protocol=5), in-band buffers",
        settings=(("protocol", "5"),),
    ),
]
