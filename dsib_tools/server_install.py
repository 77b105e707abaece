"""``python -m dsib_tools servers install``: what the engines' servers need, installed where missing
(``make bench`` and ``make test`` run it first), so that a fresh machine needs no manual step.

- PostgreSQL: the server's binaries from Debian's packages (``apt-get install postgresql``).
  Debian's package makes and starts a cluster of its own on port 5432 unless told not to: the
  suite starts its own clusters (``dsib.servers``), so the package is told to make none.
- QuestDB: Java (Debian's ``default-jre-headless``) and the server's jar from Maven Central, at
  the version and SHA-1 that ``dsib.servers`` pins, written atomically.
- The object store: s3proxy's jar from Maven Central, likewise (``dsib.object_store``).

Where something cannot be installed (no apt-get, no root and no sudo), it says what to do and
exits 0: the cases that need it skip with that reason.

The servers a run starts and holds are ``held_servers``' (``dsib.servers`` starts each one).
"""

import os
import shutil
import subprocess
import sys

from dsib import object_store, postgres_server, questdb_server

CREATECLUSTER = "/etc/postgresql-common/createcluster.conf"


def _as_root(command):
    if os.geteuid() == 0:
        return command
    if shutil.which("sudo"):
        return ["sudo", "-n"] + command
    return None


def _apt_install(packages, say):
    apt = shutil.which("apt-get")
    install = _as_root([apt or "apt-get", "install", "-y", "--no-install-recommends"] + list(packages))
    if apt is None or install is None:
        say(
            "cannot install %s here (no apt-get, or neither root nor sudo): install it with your package manager"
            % " ".join(packages)
        )
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.call(install, env=env) != 0:
        # A fresh machine may have no package lists yet.
        if subprocess.call(_as_root([apt, "update"]), env=env) != 0 or subprocess.call(install, env=env) != 0:
            say("apt-get could not install %s" % " ".join(packages))
            return False
    return True


def _no_default_cluster():
    """Debian's postgresql-common reads this before it makes the ``main`` cluster on install."""
    if os.path.exists(CREATECLUSTER) or os.geteuid() != 0:
        return
    os.makedirs(os.path.dirname(CREATECLUSTER), exist_ok=True)
    with open(CREATECLUSTER, "w") as f:
        f.write("# dsib: the suite starts clusters of its own (dsib/servers.py)\ncreate_main_cluster = false\n")


def ensure_postgres(say):
    if postgres_server.postgres_unavailable() is None:
        say("PostgreSQL: %s (%s)" % (postgres_server.postgres_version(), postgres_server.postgres_bindir()))
        return True
    say("PostgreSQL: not found; installing Debian's postgresql package")
    _no_default_cluster()
    if _apt_install(["postgresql"], say) and postgres_server.postgres_unavailable() is None:
        say("PostgreSQL: %s (%s)" % (postgres_server.postgres_version(), postgres_server.postgres_bindir()))
        return True
    say("PostgreSQL: %s; its engines' cases will skip" % postgres_server.postgres_unavailable())
    return False


def fetch_jar(name, url, sha1, target, say):
    """A pinned jar from ``url`` into ``target``: downloaded beside it, its SHA-1 checked, then
    renamed into place (an interrupted or corrupt download is never used)."""
    import tempfile
    from urllib.request import urlopen

    os.makedirs(os.path.dirname(target), exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=".%s-" % name.lower(), suffix=".part", dir=os.path.dirname(target))
    try:
        with os.fdopen(handle, "wb") as out, urlopen(url, timeout=120) as response:
            shutil.copyfileobj(response, out, 1 << 20)
        got = questdb_server.sha1_of(partial)
        if got != sha1:
            say("%s: %s has SHA-1 %s, not the pinned %s; not used" % (name, url, got, sha1))
            return False
        os.chmod(partial, 0o644)
        os.rename(partial, target)
        return True
    except OSError as exc:
        say("%s: could not fetch %s: %s" % (name, url, exc))
        return False
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def fetch_questdb_jar(say):
    return fetch_jar(
        "QuestDB", questdb_server.QUESTDB_URL, questdb_server.QUESTDB_SHA1, questdb_server.questdb_jar(), say
    )


def ensure_object_store(say):
    """s3proxy's jar (the object store's server) where missing; it runs on QuestDB's Java."""
    jar = object_store.s3proxy_jar()
    if not os.path.isfile(jar) or questdb_server.sha1_of(jar) != object_store.S3PROXY_SHA1:
        say("s3proxy: fetching %s" % object_store.S3PROXY_URL)
        fetch_jar("s3proxy", object_store.S3PROXY_URL, object_store.S3PROXY_SHA1, jar, say)
    reason = object_store.object_store_unavailable()
    say(
        "s3proxy: %s (%s)" % (object_store.S3PROXY_VERSION, jar)
        if reason is None
        else "s3proxy: %s; the object store's cases will skip" % reason
    )
    return reason is None


def ensure_questdb(say):
    java = questdb_server.java_version()
    if java is None or java < questdb_server.JAVA_MINIMUM:
        say(
            "QuestDB: Java %s found, %d or later needed; installing Debian's default-jre-headless"
            % (java, questdb_server.JAVA_MINIMUM)
        )
        _apt_install(["default-jre-headless"], say)
    jar = questdb_server.questdb_jar()
    if not os.path.isfile(jar) or questdb_server.sha1_of(jar) != questdb_server.QUESTDB_SHA1:
        say("QuestDB: fetching %s" % questdb_server.QUESTDB_URL)
        fetch_questdb_jar(say)
    reason = questdb_server.questdb_unavailable()
    say(
        "QuestDB: %s (%s)" % (questdb_server.questdb_version(), jar)
        if reason is None
        else "QuestDB: %s; its engines' cases will skip" % reason
    )
    return reason is None


def main(say=lambda line: print(line, file=sys.stderr)):
    ensure_postgres(say)
    ensure_questdb(say)
    ensure_object_store(say)
    return 0
