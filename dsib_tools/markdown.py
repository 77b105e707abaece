"""Markdown tables of rows, as GitHub renders them (tabulate's "pipe" format, the alignment in its
rule): cells as given, never reparsed as numbers, a pipe in a cell escaped."""

from tabulate import tabulate


def table(headers, rows, align=None):
    """A pipe table of ``rows`` under ``headers``; ``align``, a string of "l" and "r" a column
    (default: every column left)."""
    colalign = [{"l": "left", "r": "right"}[a] for a in align] if align else None
    escaped = [[str(cell).replace("|", "\\|") for cell in row] for row in rows]
    return tabulate(escaped, headers=list(headers), tablefmt="pipe", disable_numparse=True, colalign=colalign)
