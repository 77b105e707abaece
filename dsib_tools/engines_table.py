"""The registered engines as docs/formats-and-engines.md lists them (``python -m dsib_tools table engines``)."""


def markdown():
    """What each registered engine times, needs and declares lost, as a Markdown table."""
    from dsib.engines import ENGINES

    from .markdown import table

    rows = []
    for engine in ENGINES.values():
        needs = ", ".join(
            [n.package + (" >= " + n.minimum if n.minimum else "") for n in engine.needs]
            + (["a %s server, started by the suite" % engine.server.name] if engine.server else [])
        )
        losses = ", ".join(loss.name for loss in engine.declared_losses) or "none"
        rows.append(("`%s` (%s)" % (engine.name, engine.label), engine.description, needs, losses))
    return table(["engine", "what is timed (ingest; query)", "needs", "declared losses"], rows)
