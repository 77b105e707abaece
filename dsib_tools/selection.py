"""asv's ``-b`` regex for the cells of one format, engine or source (``python -m dsib_tools setup select``,
``make bench FORMAT=... SOURCE=... ENGINE=...``)."""

import re

ALL_ENGINES = "all"


def select_regex(fmt=None, source=None, engine=None):
    """asv's ``-b`` for the cells of one format (or engine, or every engine: ``all``) and/or one
    source (a regex on "name(params)")."""
    from dsib import catalog
    from dsib.engines import ENGINES
    from dsib.formats import FORMATS

    if fmt and engine:
        raise KeyError("a cell has a format or an engine, not both: choose one")
    if fmt:
        FORMATS[fmt]  # an unknown name is an error that lists the known ones
    if engine and engine != ALL_ENGINES:
        ENGINES[engine]
    if source and source not in catalog.BUILT_IN.sources:
        raise KeyError("unknown source %r; sources are: %s" % (source, ", ".join(catalog.BUILT_IN.sources)))
    f, s = ("'%s'" % re.escape(x) if x else None for x in (fmt, source))
    if engine:
        names = ENGINES.names() if engine == ALL_ENGINES else [engine]
        regex = r"\(%s, '(%s)'[,)]" % (s or "'[^']*'", "|".join(re.escape(n) for n in names))
        if any(ENGINES[n].family == "questdb" for n in names):  # and QuestDB's serialisation alone
            regex = r"(?:%s|SerializeForQuestDB\.\w+\(%s[,)])" % (regex, s or "'[^']*'")
        return regex
    if f and s:
        return r"\(%s, %s[,)]" % (s, f)
    if s:
        return r"\(%s[,)]" % s
    return r"\((?:'[^']*', )?%s[,)]" % f
