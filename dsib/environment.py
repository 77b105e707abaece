"""Every environment variable the measured package reads, in one place: what each says and its
default. The run's own (profile, data directory, the table brought, selection, trace) are read by
the suite's package once, in ``benchmarks/__init__.py``; data_prep reads ``DSIB_DATA_DIR`` for its
command line (``data_prep.store.default_data_dir``).

- ``DSIB_CACHE_DIR``: where the cells' files, the held servers' data and PostgreSQL's template
  cluster are kept (default: ``.cache`` in the data directory; the template's, the system's
  temporary directory).
- ``DSIB_SERVERS``: the servers a run holds, as JSON (``dsib.servers.hold`` sets it for the
  command it runs).
- ``DSIB_SERVERS_DIR``: where ``make servers`` keeps what it fetches (default: the user's cache,
  ``$XDG_CACHE_HOME/dsib`` or ``~/.cache/dsib``); ``DSIB_QUESTDB_JAR``: QuestDB's jar, elsewhere.
- ``DSIB_POSTGRES_BIN``: PostgreSQL's server binaries, where ``pg_config`` does not find them.
- ``DSIB_COUNTERS``: ``off`` switches the hardware counters off (every count skips, saying so).
"""

import os
import tempfile


def _get(name):
    return os.environ.get(name) or None


def cache_dir(data_dir):
    """Where the cells' files and the held servers' data are kept."""
    return _get("DSIB_CACHE_DIR") or os.path.join(data_dir, ".cache")


def template_dir():
    """Where PostgreSQL's template cluster is kept, for every run of this user."""
    return os.path.join(_get("DSIB_CACHE_DIR") or tempfile.gettempdir(), "dsib-servers-%d" % os.geteuid())


HELD_SERVERS = "DSIB_SERVERS"


def held_servers():
    """The JSON text of the servers held for this run, or None."""
    return _get(HELD_SERVERS)


def servers_dir():
    """Where ``make servers`` keeps what it fetches."""
    cache = _get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return _get("DSIB_SERVERS_DIR") or os.path.join(cache, "dsib")


def questdb_jar():
    """QuestDB's jar where the user put it, or None: the one ``make servers`` fetched."""
    return _get("DSIB_QUESTDB_JAR")


def postgres_bin():
    """PostgreSQL's server binaries where the user said, or None: found otherwise."""
    return _get("DSIB_POSTGRES_BIN")


COUNTERS = "DSIB_COUNTERS"


def counters_off():
    """Whether the hardware counters are switched off."""
    return (_get(COUNTERS) or "").strip().lower() == "off"
