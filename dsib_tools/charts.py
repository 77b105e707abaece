"""The report's and ``advise``'s format charts: Vega-Lite specifications, drawn in the browser by the
vendored Vega (dsib_tools/vendor_js.py) through ``www/charts.js``.

One chart a dataset and variant, two panels: read time against file size, and write time against
read time; one point a format, labelled, sized by the peak memory of the operation on its y axis,
with a bar through it over the interquartile range of that time. A panel's axis is logarithmic
where its values span more than ``LOG_SPAN`` times. The points' tooltips give each figure with its
spread (IQR, n)."""

import html
import json
import math

LOG_SPAN = 20.0
MIB = float(1 << 20)


def point(
    fmt,
    describe,
    read=None,
    read_stats=None,
    write=None,
    write_stats=None,
    size=None,
    read_peak=None,
    write_peak=None,
    extra=None,
):
    """One format's record. Times in seconds with asv-like stats ({q_25, q_75, repeat}); sizes and
    peaks in bytes; a missing figure is None. ``describe(time, stats)``: a time's text with its
    spread (report.format_with_spread)."""

    def number(value):
        return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)

    def spread(stats, which):
        return number((stats or {}).get(which))

    read, write = number(read), number(write)
    record = {
        "format": fmt,
        "read": read,
        "read_lo": spread(read_stats, "q_25"),
        "read_hi": spread(read_stats, "q_75"),
        "write": write,
        "write_lo": spread(write_stats, "q_25"),
        "write_hi": spread(write_stats, "q_75"),
        "size_mib": None if number(size) is None else size / MIB,
        "read_peak_mib": None if number(read_peak) is None else read_peak / MIB,
        "write_peak_mib": None if number(write_peak) is None else write_peak / MIB,
        "read_text": describe(read, read_stats) if read is not None else "not measured",
        "write_text": describe(write, write_stats) if write is not None else "not measured",
    }
    record["size_text"] = "not measured" if record["size_mib"] is None else "%.2f MiB" % record["size_mib"]
    for which in ("read", "write"):
        peak = record[which + "_peak_mib"]
        record[which + "_peak_text"] = "not measured" if peak is None else "%.0f MiB" % peak
    record.update(extra or {})
    return record


def _scale(values):
    values = [v for v in values if v is not None and v > 0]
    if values and max(values) / min(values) > LOG_SPAN:
        return {"type": "log"}
    return {"type": "linear", "zero": False}


TOOLTIP = [
    {"field": "format", "title": "format"},
    {"field": "read_text", "title": "read"},
    {"field": "write_text", "title": "write"},
    {"field": "size_text", "title": "file"},
    {"field": "read_peak_text", "title": "read peak memory"},
    {"field": "write_peak_text", "title": "write peak memory"},
]


def _panel(points, x, y, x_title, y_title, peak, spreads):
    shown = [p for p in points if p[x] is not None and p[y] is not None]
    xs = [p[x] for p in shown] + [p.get(x + "_lo") for p in shown] + [p.get(x + "_hi") for p in shown]
    ys = [p[y] for p in shown] + [p.get(y + "_lo") for p in shown] + [p.get(y + "_hi") for p in shown]
    xscale, yscale = _scale(xs), _scale(ys)
    xenc = {"field": x, "type": "quantitative", "title": x_title, "scale": xscale}
    yenc = {"field": y, "type": "quantitative", "title": y_title, "scale": yscale}
    layers = []
    for axis in spreads:  # the IQR of a time, as a bar through the point
        lo, hi = axis + "_lo", axis + "_hi"
        enc = {"x": xenc, "y": yenc}
        which = "x" if axis == x else "y"
        enc[which] = dict(enc[which], field=lo)
        enc[which + "2"] = {"field": hi}
        layers.append(
            {
                "transform": [{"filter": "isValid(datum.%s) && isValid(datum.%s)" % (lo, hi)}],
                "mark": {"type": "rule", "color": "#888"},
                "encoding": enc,
            }
        )
    layers.append(
        {
            "mark": {"type": "point", "filled": True, "opacity": 0.8},
            "encoding": {
                "x": xenc,
                "y": yenc,
                "color": {"field": "format", "type": "nominal", "legend": None, "scale": {"scheme": "category20"}},
                "size": {"field": peak, "type": "quantitative", "title": "peak MiB", "scale": {"range": [30, 600]}},
                "tooltip": TOOLTIP,
            },
        }
    )
    layers.append(
        {
            "mark": {"type": "text", "align": "left", "dx": 8, "dy": -6, "fontSize": 11},
            "encoding": {"x": xenc, "y": yenc, "text": {"field": "format"}},
        }
    )
    return {
        "width": 360,
        "height": 260,
        "transform": [{"filter": "isValid(datum.%s) && isValid(datum.%s)" % (x, y)}],
        "layer": layers,
    }


def spec(points, title):
    """The two panels of ``points`` (``point`` records)."""
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "title": title,
        "data": {"values": points},
        "hconcat": [
            _panel(points, "size_mib", "read", "file size (MiB)", "read time (s)", "read_peak_mib", ["read"]),
            _panel(points, "read", "write", "read time (s)", "write time (s)", "write_peak_mib", ["read", "write"]),
        ],
        "resolve": {"scale": {"color": "shared", "size": "independent"}},
    }


def chart_html(ident, points, title, skipped=(), note=""):
    """The chart's block: a container for charts.js, its specification as JSON, and the formats left
    out with their reasons."""
    data = json.dumps(spec(points, title)).replace("</", "<\\/")
    measured = sum(1 for p in points if p["read"] is not None and p["size_mib"] is not None)
    parts = [
        "<figure class='dsib-chart-figure' id='%s'>" % html.escape(ident, quote=True),
        "<div class='dsib-chart' data-points='%d'></div>" % measured,
        "<script type='application/json' class='dsib-chart-spec'>%s</script>" % data,
    ]
    caption = [html.escape(note)] if note else []
    caption.append(
        "Points: one a format; left, read time against file size; right, write time against read "
        "time; a point's area is the peak memory of that read or write, a grey bar the interquartile "
        "range of its time. Hover a point for its figures."
    )
    parts.append("<figcaption>%s</figcaption>" % " ".join(caption))
    if skipped:
        parts.append(
            "<ul class='chart-skipped'>%s</ul>"
            % "".join(
                "<li data-format='%s'><code>%s</code>: %s</li>"
                % (html.escape(f, quote=True), html.escape(f), html.escape(r))
                for f, r in skipped
            )
        )
    parts.append("</figure>")
    return "\n".join(parts)


def script_tags(vendor_prefix="../vendor/", own="charts.js"):
    from .vendor_js import scripts

    return (
        "".join("<script src='%s%s'></script>" % (vendor_prefix, s) for s in scripts())
        + "<script src='%s'></script>" % own
    )
