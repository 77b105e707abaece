/* dsib's release view: one SVG line per case, the environments (library releases) on the x-axis in
   the order of the chosen view. The state lives in the URL hash, #case=ID[&case=ID…][&view=pandas],
   so that every case, or a set of them, has an address. Data: window.DSIB_RELEASES
   (releases-data.js, or releases-data-<machine>.js for another machine's page, written by
   `python -m dsib_tools site`). The plots are Vega-Lite's, drawn by the vendored Vega (vega-embed). */
(function () {
  "use strict";
  var D = window.DSIB_RELEASES;
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

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* --- the state in the hash ------------------------------------------------------------- */
  function state() {
    var p = new URLSearchParams(location.hash.slice(1));
    var asked = p.getAll("case");
    var cases = asked.filter(function (id) { return byId[id]; });
    var unknown = asked.filter(function (id) { return !byId[id]; });
    // The default case only where no case was asked for: an unknown one is said, never replaced.
    if (!asked.length && defaultCase) cases = [defaultCase];
    return {view: p.get("view") === "pandas" ? "pandas" : "pyarrow", cases: cases, unknown: unknown};
  }

  function hash(st) {
    var parts = st.cases.map(function (id) { return "case=" + encodeURIComponent(id).replace(/%2F/g, "/"); });
    if (st.view !== "pyarrow") parts.push("view=" + st.view);
    return "#" + parts.join("&");
  }

  /* --- numbers: three significant digits, no trailing zeros (release_page.human too) ------- */
  function human(v, unit) {
    if (!isNumber(v)) return v === null || v === undefined ? "—" : v;
    if (v === 0) return "0";
    var step = STEPS[unit] || [[1, ""]];
    return number(v / unitOf(v, step)[0]) + unitOf(v, step)[1];
  }

  // Memory and sizes in MiB (1 MiB = 2**20 bytes), as the README and the report give them.
  var STEPS = {seconds: [[1e-9, "ns"], [1e-6, "μs"], [1e-3, "ms"], [1, "s"], [60, "m"], [3600, "h"]],
               bytes: [[1, "B"], [1024, "KiB"], [1048576, "MiB"], [1073741824, "GiB"], [1099511627776, "TiB"]]};

  function unitOf(v, steps) {
    var step = steps[0];
    steps.forEach(function (s) { if (Math.abs(v) >= s[0]) step = s; });
    return step;
  }

  // From 999.5 on, toPrecision(3) would write "1.00e+3".
  function number(x) {
    return Math.abs(x) >= 999.5 ? String(Math.round(x))
      : x.toPrecision(3).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  }

  function changeText(unit, ratio) {
    var words = {seconds: ["faster", "slower"], bytes: ["smaller", "larger"]}[unit] || ["lower", "higher"];
    if (!isNumber(ratio)) return "n/a";
    return ratio >= 1 ? ratio.toFixed(2) + "× " + words[0] : (1 / ratio).toFixed(2) + "× " + words[1];
  }

  /* --- the plot: Vega-Lite (vendored, dsib_tools/vendor_js.py), one chart per unit ---------- */
  var QUANTITY = {seconds: "time", bytes: "memory or size"};

  // The axis is in one unit (the one of its largest value), so that its title names the unit of
  // every tick; several orders of magnitude give a log axis, which keeps every line readable.
  function axisOf(values, unit) {
    var step = unitOf(Math.max.apply(null, values), STEPS[unit] || [[1, ""]]);
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    return {step: step, log: lo > 0 && hi / lo > 10};
  }

  function spec(cases, colors, view, unit) {
    var order = D.orders[view], keys = D.views[view];
    var values = [], rows = [];
    cases.forEach(function (c) {
      order.forEach(function (i) {
        if (!isNumber(c.values[i])) return;
        values.push(c.values[i]);
        var sp = c.spread[i];  // the IQR bar must fit the axis too
        if (sp && isNumber(sp[0]) && isNumber(sp[1])) values.push(sp[0], sp[1]);
      });
    });
    var a = axisOf(values, unit), k0 = a.step[0];
    cases.forEach(function (c) {
      var run = 0;
      order.forEach(function (i, p) {
        var v = c.values[i], sp = c.spread[i];
        if (!isNumber(v)) { run += 1; return; }  // skipped, failed or not run: a gap, not a zero
        var ranged = sp && isNumber(sp[0]) && isNumber(sp[1]) && sp[2] > 1;
        rows.push({id: c.id, label: c.label, p: p, run: c.id + "#" + run, release: D.envs[i].label, v: v / k0,
                   lo: ranged ? sp[0] / k0 : null, hi: ranged ? sp[1] / k0 : null, figure: withSpread(c, i)});
      });
    });
    var short = order.map(function (i) {  // short labels, in the view's order of libraries; the full one on hover
      return keys.map(function (k) { return (k === "python" ? "py" : "") + D.envs[i][k]; }).join(" / ");
    });
    var x = {field: "p", type: "ordinal", scale: {domain: order.map(function (i, p) { return p; })},
             axis: {title: keys.join(" / ") + " release", labelAngle: -35,
                    labelExpr: JSON.stringify(short) + "[datum.value]"}};
    var y = {field: "v", type: "quantitative",
             scale: a.log ? {type: "log"} : {type: "linear", zero: true},  // from zero: heights compare as ratios
             axis: {title: (QUANTITY[unit] || unit) + " (" + a.step[1] + (a.log ? ", log scale" : "") + ")",
                    labelExpr: "format(datum.value, '~g') + " + JSON.stringify(a.step[1])}};
    var color = {field: "label", type: "nominal", sort: null,
                 scale: {domain: cases.map(function (c) { return c.label; }), range: colors},
                 legend: {title: null, orient: "top", direction: "vertical", labelLimit: 760}};
    return {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      width: 700, height: 300,
      data: {values: rows},
      layer: [
        {mark: {type: "line", strokeWidth: 1.5}, encoding: {x: x, y: y, color: color, detail: {field: "run"}}},
        {transform: [{filter: "isValid(datum.lo) && isValid(datum.hi)"}],
         mark: {type: "rule", strokeWidth: 1.5}, encoding: {x: x, y: dict(y, {field: "lo"}), y2: {field: "hi"},
                                                           color: color}},
        {mark: {type: "point", filled: true, size: 40, opacity: 1},
         encoding: {x: x, y: y, color: color,
                    tooltip: [{field: "label", title: "case"}, {field: "release", title: "release"},
                              {field: "figure", title: "median"}]}}
      ]
    };
  }

  function dict(a, b) {
    var out = {};
    [a, b].forEach(function (o) { Object.keys(o).forEach(function (k) { out[k] = o[k]; }); });
    return out;
  }

  // Each unit's chart in its own box, which carries its unit and, once drawn, its cases.
  function plot(box, cases, colors, view, unit) {
    var div = el("div", {"class": "release-plot", "data-unit": unit});
    box.appendChild(div);
    return vegaEmbed(div, spec(cases, colors, view, unit),
                     {renderer: "svg", actions: {export: true, source: false, compiler: false, editor: false}})
      .then(function () {
        div.setAttribute("data-cases", JSON.stringify(cases.map(function (c) { return c.id; })));
      });
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
    var unknown = document.getElementById("case-unknown");
    unknown.hidden = !st.unknown.length;
    unknown.textContent = st.unknown.length ? "No case "
      + st.unknown.map(function (id) { return "\u201c" + id + "\u201d"; }).join(", ") + " on machine " + D.machine
      + " (profile " + D.profile + "): the list below holds every case this page has." : "";
    document.getElementById("case-title").textContent = cases.map(function (c) { return c.label; }).join(" · ");
    var headline = document.getElementById("case-headline");
    headline.textContent = "";
    cases.forEach(function (c) {
      var h = c.headline[st.view];
      var against = function (which) {
        if (h[which] === h.newest) return which + " " + D.envs[h[which]].label + " is the newest";
        return which + " " + D.envs[h[which]].label + ": " + withSpread(c, h[which]) + ", the newest "
          + changeText(c.unit, h[which + "_ratio"]) + (h[which + "_kinds"] ? " (" + h[which + "_kinds"]
          + ": two different frames)" : "");
      };
      headline.appendChild(el("span", {"class": "case-headline", "data-case": c.id}, h
        ? "newest " + D.envs[h.newest].label + ": " + withSpread(c, h.newest) + "; " + against("best") + "; "
          + against("previous") + " (medians, on this machine)"
        : c.newest_only || "measured in one release only"));
      headline.appendChild(el("br"));
    });
    var colors = cases.map(function (c, k) { return COLORS[k % COLORS.length]; });
    var box = document.getElementById("plot");
    box.textContent = "";
    var units = [];
    cases.forEach(function (c) { if (units.indexOf(c.unit) < 0) units.push(c.unit); });
    units.forEach(function (unit) {  // one plot per unit: seconds and bytes share no axis
      var same = cases.map(function (c, k) { return c.unit === unit ? k : -1; })
        .filter(function (k) { return k >= 0; });
      plot(box, same.map(function (k) { return cases[k]; }), same.map(function (k) { return colors[k]; }),
           st.view, unit);
    });
    var table = document.getElementById("case-values");
    table.textContent = "";
    var head = el("tr");
    head.appendChild(el("th", {}, "release"));
    cases.forEach(function (c, k) {
      head.appendChild(el("th", {"data-case": c.id, style: "color:" + colors[k]}, c.label));
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

  /* --- two releases compared, as compare-versions prints them ---------------------------- */
  var FACTOR = 1.1;

  // Where either figure has no interquartile range (one sample, none recorded), the ratio alone
  // decides, as asv's own test does without samples and as the steps page does.
  function distinct(a, b) {
    if (!a || !b || a[2] < 2 || b[2] < 2 || ![a[0], a[1], b[0], b[1]].every(isNumber)) return true;
    return a[0] > b[1] || b[0] > a[1];
  }

  function compare() {
    var a = +document.getElementById("compare-a").value, b = +document.getElementById("compare-b").value;
    var changedOnly = document.getElementById("compare-changed").checked;
    var table = document.getElementById("compare-table");
    table.textContent = "";
    document.getElementById("compare-note").textContent = D.envs[a].text === D.envs[b].text ? ""
      : "Not like with like: the str and cat variants' text is " + D.envs[a].text + " before and " + D.envs[b].text
        + " after, so their rows compare two different frames.";
    var head = el("tr");
    ["", "before", "after", "after / before", "case"].forEach(function (t) { head.appendChild(el("th", {}, t)); });
    table.appendChild(head);
    var rows = D.cases
      .filter(function (c) { return isNumber(c.values[a]) && isNumber(c.values[b]) && c.values[a] > 0; })
      .map(function (c) { return {c: c, ratio: c.values[b] / c.values[a]}; })
      .filter(function (r) { return !changedOnly || r.ratio >= FACTOR || r.ratio <= 1 / FACTOR; })
      .sort(function (x, y) { return y.ratio - x.ratio; });
    rows.forEach(function (r) {
      var c = r.c, changed = r.ratio >= FACTOR || r.ratio <= 1 / FACTOR;
      var mark = !changed ? "" : !distinct(c.spread[a], c.spread[b]) ? "~" : r.ratio > 1 ? "+" : "-";
      var tr = el("tr", {"class": "compared", "data-case": c.id});
      tr.appendChild(el("td", {"class": "mark"}, mark));
      tr.appendChild(el("td", {}, withSpread(c, a)));
      tr.appendChild(el("td", {}, withSpread(c, b)));
      tr.appendChild(el("td", {"class": "ratio" + (mark === "+" ? " slower" : mark === "-" ? " faster" : ""),
                               "data-ratio": r.ratio}, r.ratio.toFixed(2)));
      var name = el("td");
      name.appendChild(el("a", {href: hash({view: state().view, cases: [c.id]})}, c.label));
      tr.appendChild(name);
      table.appendChild(tr);
    });
    if (!rows.length) {
      var none = el("tr");
      none.appendChild(el("td", {colspan: 5}, "no case measured in both releases"
                                               + (changedOnly ? " changed by 10 % or more" : "")));
      table.appendChild(none);
    }
  }

  function compareSetup() {
    var order = D.orders.pyarrow;
    ["compare-a", "compare-b"].forEach(function (id, k) {
      var select = document.getElementById(id);
      order.forEach(function (i) { select.appendChild(el("option", {value: i}, D.envs[i].label)); });
      // By default the newest release against the one before it.
      if (order.length) select.value = order[Math.max(0, order.length - 2 + k)];
      select.addEventListener("change", compare);
    });
    document.getElementById("compare-changed").addEventListener("change", compare);
    if (order.length) compare();
  }

  document.getElementById("case-filter").addEventListener("input", filter);
  document.getElementById("table-2019-env").addEventListener("change", function (ev) {
    Array.prototype.forEach.call(document.querySelectorAll(".table-2019"), function (div) {
      div.hidden = div.getAttribute("data-env") !== ev.target.value;
    });
  });
  window.addEventListener("hashchange", render);
  // A headline's case is drawn below the table: follow it there.
  Array.prototype.forEach.call(document.querySelectorAll("#headline-table a.case-link"), function (a) {
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      location.hash = a.getAttribute("href");
      document.getElementById("plot-section").scrollIntoView();
    });
  });
  document.getElementById("machine-select").addEventListener("change", function (ev) {
    location.href = ev.target.value + location.hash;  // the same cases on the other machine's page
  });
  filter();
  render();
  compareSetup();
  // A case's own address shows its plot, which sits below the headline figures.
  if (/(^#|&)case=/.test(location.hash)) document.getElementById("plot-section").scrollIntoView();
})();
