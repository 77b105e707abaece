/* dsib's release view: one SVG line per case, the environments (library releases) on the x-axis in
   the order of the chosen view. The state lives in the URL hash, #case=ID[&case=ID…][&view=pandas],
   so that every case, or a set of them, has an address. Data: window.DSIB_RELEASES
   (releases-data.js, written by `python -m dsib site`). Plain DOM and SVG: no library to load. */
(function () {
  "use strict";
  var D = window.DSIB_RELEASES;
  var NS = "http://www.w3.org/2000/svg";
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
  var byId = {};
  D.cases.forEach(function (c) {
    c.label = c.benchmark + (Object.keys(c.params).length ? " (" + Object.keys(c.params).map(function (k) {
      return k + "=" + c.params[k];
    }).join(", ") + ")" : "");
    byId[c.id] = c;
  });
  var defaultCase = D.headlines.length ? D.headlines[0][1] : (D.cases.length ? D.cases[0].id : null);

  function isNumber(v) { return typeof v === "number"; }

  // A median with its spread: "89ms (IQR 87ms–96ms, n=10)"; one sample says so.
  function withSpread(c, i) {
    var v = c.values[i], sp = c.spread[i];
    if (!isNumber(v)) return human(v, c.unit);
    if (!sp) return human(v, c.unit) + " (no spread recorded)";
    if (sp[2] === 1) return human(v, c.unit) + " (one sample)";
    if (!isNumber(sp[0]) || !isNumber(sp[1])) return human(v, c.unit) + " (n=" + sp[2] + ")";
    return human(v, c.unit) + " (IQR " + human(sp[0], c.unit) + "–" + human(sp[1], c.unit) + ", n=" + sp[2] + ")";
  }

  function el(tag, attrs, text, ns) {
    var node = ns ? document.createElementNS(NS, tag) : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svg(tag, attrs, text) { return el(tag, attrs, text, true); }

  /* --- the state in the hash ------------------------------------------------------------- */
  function state() {
    var p = new URLSearchParams(location.hash.slice(1));
    var cases = p.getAll("case").filter(function (id) { return byId[id]; });
    if (!cases.length && defaultCase) cases = [defaultCase];
    return {view: p.get("view") === "pandas" ? "pandas" : "pyarrow", cases: cases};
  }

  function hash(st) {
    var parts = st.cases.map(function (id) { return "case=" + encodeURIComponent(id).replace(/%2F/g, "/"); });
    if (st.view !== "pyarrow") parts.push("view=" + st.view);
    return "#" + parts.join("&");
  }

  /* --- numbers as asv shows them (asv.util.human_value) ---------------------------------- */
  function human(v, unit) {
    if (!isNumber(v)) return v === null || v === undefined ? "—" : v;
    if (v === 0) return "0";
    var steps = unit === "seconds" ? [[1e-9, "ns"], [1e-6, "μs"], [1e-3, "ms"], [1, "s"], [60, "m"], [3600, "h"]]
      : unit === "bytes" ? [[1, ""], [1e3, "k"], [1e6, "M"], [1e9, "G"], [1e12, "T"]] : [[1, ""]];
    var step = steps[0];
    steps.forEach(function (s) { if (Math.abs(v) >= s[0]) step = s; });
    return (v / step[0]).toPrecision(3).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "") + step[1];
  }

  function changeText(unit, ratio) {
    var words = {seconds: ["faster", "slower"], bytes: ["smaller", "larger"]}[unit] || ["lower", "higher"];
    if (!isNumber(ratio)) return "n/a";
    return ratio >= 1 ? ratio.toFixed(2) + "× " + words[0] : (1 / ratio).toFixed(2) + "× " + words[1];
  }

  /* --- the plot ------------------------------------------------------------------------- */
  function scale(values, top, bottom) {
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    var log = lo > 0 && hi / lo > 10;  // several orders of magnitude: a log axis keeps every line readable
    var ticks = [], f, a, b;
    if (log) {
      a = Math.floor(Math.log10(lo)); b = Math.ceil(Math.log10(hi));
      for (var e = a; e <= b; e++) [1, 2, 5].forEach(function (m) { ticks.push(m * Math.pow(10, e)); });
      ticks = ticks.filter(function (t) { return t >= lo / 1.5 && t <= hi * 1.5; });
      a = Math.log10(Math.min(lo, ticks[0] || lo)); b = Math.log10(Math.max(hi, ticks[ticks.length - 1] || hi));
      f = function (v) { return bottom - (Math.log10(v) - a) / ((b - a) || 1) * (bottom - top); };
    } else {
      hi = hi > 0 ? hi * 1.05 : 1;  // linear from zero, so that heights compare as ratios
      var step = Math.pow(10, Math.floor(Math.log10(hi / 5)));
      step *= hi / step > 25 ? 5 : hi / step > 10 ? 2 : 1;
      for (var t = 0; t <= hi; t += step) ticks.push(t);
      f = function (v) { return bottom - v / hi * (bottom - top); };
    }
    return {y: f, ticks: ticks, log: log};
  }

  function plot(cases, view, unit) {
    var order = D.orders[view], keys = D.views[view];
    var W = 820, H = 400, L = 110, R = 20, T = 15, B = 130;
    var root = svg("svg", {width: W, height: H, viewBox: "0 0 " + W + " " + H, "data-unit": unit});
    var values = [];
    cases.forEach(function (c) {
      order.forEach(function (i) {
        if (!isNumber(c.values[i])) return;
        values.push(c.values[i]);
        var sp = c.spread[i];  // the IQR bar must fit the axis too
        if (sp && isNumber(sp[0]) && isNumber(sp[1])) values.push(sp[0], sp[1]);
      });
    });
    var s = scale(values, T, H - B);
    var x = function (p) { return L + (p + 0.5) * (W - L - R) / order.length; };
    var axis = svg("g", {"class": "axis"});
    s.ticks.forEach(function (t) {
      axis.appendChild(svg("line", {x1: L, x2: W - R, y1: s.y(t), y2: s.y(t), stroke: "#eee"}));
      axis.appendChild(svg("text", {x: L - 6, y: s.y(t) + 4, "text-anchor": "end"}, human(t, unit)));
    });
    order.forEach(function (i, p) {  // short labels, in the view's order of libraries; the full one on hover
      var label = svg("text", {x: x(p), y: H - B + 14, "text-anchor": "end",
                               transform: "rotate(-35 " + x(p) + " " + (H - B + 14) + ")"},
                      keys.map(function (k) { return (k === "python" ? "py" : "") + D.envs[i][k]; }).join(" / "));
      label.appendChild(svg("title", {}, D.envs[i].label));
      axis.appendChild(label);
    });
    axis.appendChild(svg("text", {x: L + (W - L - R) / 2, y: H - 6, "text-anchor": "middle"},
                             keys.join(" / ") + " release"));
    axis.appendChild(svg("text", {x: 12, y: T + (H - B - T) / 2, transform: "rotate(-90 12 " + (T + (H - B - T) / 2) + ")",
                                  "text-anchor": "middle"}, unit + (s.log ? " (log scale)" : "")));
    root.appendChild(axis);
    cases.forEach(function (c, k) {
      var color = COLORS[k % COLORS.length];
      var g = svg("g", {"class": "series", "data-case": c.id, stroke: color, fill: color});
      var run = [];
      var flush = function () {
        if (run.length > 1) g.appendChild(svg("polyline", {points: run.join(" ")}));
        run = [];
      };
      order.forEach(function (i, p) {
        var v = c.values[i];
        if (!isNumber(v)) { flush(); return; }  // skipped, failed or not run: a gap, not a zero
        run.push(x(p) + "," + s.y(v));
        var sp = c.spread[i];
        if (sp && isNumber(sp[0]) && isNumber(sp[1]) && sp[2] > 1) {  // the interquartile range, as a bar
          g.appendChild(svg("line", {"class": "iqr", x1: x(p), x2: x(p), y1: s.y(sp[0]), y2: s.y(sp[1])}));
          [sp[0], sp[1]].forEach(function (q) {
            g.appendChild(svg("line", {"class": "iqr", x1: x(p) - 4, x2: x(p) + 4, y1: s.y(q), y2: s.y(q)}));
          });
        }
        var dot = svg("circle", {cx: x(p), cy: s.y(v), r: 3.5});
        dot.appendChild(svg("title", {}, c.label + "\n" + D.envs[i].label + ": " + withSpread(c, i)));
        g.appendChild(dot);
      });
      flush();
      root.appendChild(g);
    });
    return root;
  }

  /* --- the page ------------------------------------------------------------------------- */
  var list = document.getElementById("case-list");
  var items = {};
  D.cases.forEach(function (c) {
    var li = el("li", {"data-case": c.id});
    var box = el("input", {type: "checkbox", title: "plot beside the others"});
    box.addEventListener("change", function () {
      var st = state();
      st.cases = st.cases.filter(function (id) { return id !== c.id; });
      if (box.checked) st.cases.push(c.id);
      location.hash = hash(st);
    });
    var link = el("a", {href: hash({view: "pyarrow", cases: [c.id]})}, c.label);
    link.addEventListener("click", function (ev) {
      ev.preventDefault();  // keep the current view
      location.hash = hash({view: state().view, cases: [c.id]});
    });
    li.appendChild(box);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(link);
    list.appendChild(li);
    items[c.id] = li;
  });

  function filter() {
    var terms = document.getElementById("case-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    D.cases.forEach(function (c) {
      var text = (c.id + " " + c.label).toLowerCase();
      var ok = terms.every(function (t) { return text.indexOf(t) >= 0; });
      items[c.id].hidden = !ok;
      shown += ok ? 1 : 0;
    });
    document.getElementById("case-count").textContent = shown + " of " + D.cases.length + " cases";
  }

  function render() {
    var st = state();
    var order = D.orders[st.view];
    var cases = st.cases.map(function (id) { return byId[id]; });
    ["pyarrow", "pandas"].forEach(function (v) {
      var a = document.getElementById("view-" + v);
      a.href = hash({view: v, cases: st.cases});
      a.className = v === st.view ? "active" : "";
    });
    D.cases.forEach(function (c) {
      var on = st.cases.indexOf(c.id) >= 0;
      items[c.id].className = on ? "selected" : "";
      items[c.id].firstChild.checked = on;
    });
    document.getElementById("case-title").textContent = cases.map(function (c) { return c.label; }).join(" · ");
    var headline = document.getElementById("case-headline");
    headline.textContent = "";
    cases.forEach(function (c) {
      var h = c.headline[st.view];
      headline.appendChild(el("span", {"class": "case-headline", "data-case": c.id}, h
        ? D.envs[h.first].label + " → " + D.envs[h.last].label + ": " + withSpread(c, h.first) + " → "
          + withSpread(c, h.last) + " = " + changeText(c.unit, h.ratio) + " of the medians, on this machine"
          + (h.kinds ? " (" + h.kinds + ": two different frames)" : "")
        : "measured in one release only"));
      headline.appendChild(el("br"));
    });
    var box = document.getElementById("plot");
    box.textContent = "";
    var units = [];
    cases.forEach(function (c) { if (units.indexOf(c.unit) < 0) units.push(c.unit); });
    units.forEach(function (unit) {  // one plot per unit: seconds and bytes share no axis
      box.appendChild(plot(cases.filter(function (c) { return c.unit === unit; }), st.view, unit));
    });
    var table = document.getElementById("case-values");
    table.textContent = "";
    var head = el("tr");
    head.appendChild(el("th", {}, "release"));
    cases.forEach(function (c, k) {
      head.appendChild(el("th", {style: "color:" + COLORS[k % COLORS.length]}, c.label));
    });
    table.appendChild(head);
    order.forEach(function (i) {
      var tr = el("tr");
      tr.appendChild(el("td", {}, D.envs[i].label));
      cases.forEach(function (c) { tr.appendChild(el("td", {}, withSpread(c, i))); });
      table.appendChild(tr);
    });
    if (cases.length) list.scrollTop = items[cases[0].id].offsetTop - list.offsetTop - 60;
  }

  document.getElementById("case-filter").addEventListener("input", filter);
  document.getElementById("table-2019-env").addEventListener("change", function (ev) {
    Array.prototype.forEach.call(document.querySelectorAll(".table-2019"), function (div) {
      div.hidden = div.getAttribute("data-env") !== ev.target.value;
    });
  });
  window.addEventListener("hashchange", render);
  filter();
  render();
  // A case's own address shows its plot, which sits below the headline figures.
  if (/(^#|&)case=/.test(location.hash)) document.getElementById("plot-section").scrollIntoView();
})();
