// Draws each figure.dsib-chart-figure of the page with the vendored Vega-Lite (vega-embed), from
// the specification beside it (dsib_tools/charts.py). SVG, so that every point is an element that a
// pointer (and a test) can hover; a chart drawn carries data-rendered.
(function () {
  "use strict";
  function draw(figure) {
    var target = figure.querySelector(".dsib-chart");
    var spec = JSON.parse(figure.querySelector("script.dsib-chart-spec").textContent);
    return vegaEmbed(target, spec, {renderer: "svg", actions: {export: true, source: false, compiler: false,
                                                                 editor: false}})
      .then(function () { target.setAttribute("data-rendered", "true"); })
      .catch(function (error) {
        target.textContent = "This chart could not be drawn: " + error;
        target.setAttribute("data-rendered", "error");
        throw error;
      });
  }
  function drawAll() {
    Array.prototype.forEach.call(document.querySelectorAll("figure.dsib-chart-figure"), draw);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
