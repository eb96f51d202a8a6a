// The flame graph's interactive script, embedded in every SVG and HTML page sonde writes. The
// page sets `fg` (geometry and labels) before it. Behaviour follows flamegraph.pl's graphs: hover
// details, click to zoom (ancestors dimmed, others hidden), Reset Zoom, Ctrl-F/F3 search by
// regular expression with the matched share of all samples, Ctrl-I to ignore case. Opening the
// page with "#selftest" (or "#selftest=REGEX") clicks the widest frame (matching REGEX) and
// searches for it (REGEX), then records the outcome in the <svg>'s data-selftest attribute
// ("pass" or "fail: ...") for headless tests.
#include "output/flame/flamegraph_svg.hpp"

namespace sonde::output {

std::string_view flamegraph_script() {
  return R"JS("use strict";
(function () {
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  var svg, frames = [], root = null, details, unzoomBtn, searchBtn, icBtn, matchedTxt;
  var term = null, ignoreCase = false, fullWidth = 0, charWidth = fg.fontsize * fg.fontwidth;
  var fudge = 0.0001;

  function frameOf(node) {
    for (; node && node.parentNode; node = node.parentNode)
      if (node.parentNode.id === "frames") return node._frame;
    return null;
  }
  function label(f, width) {
    var chars = Math.floor(width / charWidth);
    if (chars < 3) return "";
    if (chars >= f.name.length) return f.name;
    return f.name.substring(0, chars - 2) + "..";
  }
  function place(f, x, w) {
    f.rect.setAttribute("x", x.toFixed(1));
    f.rect.setAttribute("width", w.toFixed(1));
    var text = label(f, w);
    if (!f.text) {
      if (!text) return;
      f.text = document.createElementNS("http://www.w3.org/2000/svg", "text");
      f.text.setAttribute("y", String(f.y + f.h / 2 + 3));
      f.g.appendChild(f.text);
    }
    f.text.setAttribute("x", (x + 3).toFixed(2));
    f.text.textContent = text;
  }
  function zoom(target) {
    var xmin = target.x, xmax = target.x + target.w, ratio = fullWidth / target.w;
    unzoomBtn.classList.remove("hide");
    frames.forEach(function (f) {
      f.g.classList.remove("hide");
      f.g.classList.remove("parent");
      var above = fg.inverted ? f.y < target.y : f.y > target.y;
      if (above) {
        if (f.x <= xmin + fudge && f.x + f.w + fudge >= xmax) {
          f.g.classList.add("parent");
          place(f, fg.xpad, fullWidth);
        } else {
          f.g.classList.add("hide");
        }
      } else if (f.x < xmin - fudge || f.x + fudge >= xmax) {
        f.g.classList.add("hide");
      } else {
        place(f, (f.x - xmin) * ratio + fg.xpad, f.w * ratio);
      }
    });
    if (term !== null) search(term);
  }
  function unzoom() {
    unzoomBtn.classList.add("hide");
    frames.forEach(function (f) {
      f.g.classList.remove("hide");
      f.g.classList.remove("parent");
      place(f, f.x, f.w);
    });
    if (term !== null) search(term);
  }
  function resetSearch() {
    frames.forEach(function (f) { f.rect.setAttribute("fill", f.fill); });
    term = null;
    searchBtn.classList.remove("show");
    searchBtn.textContent = "Search";
    matchedTxt.classList.add("hide");
    matchedTxt.textContent = " ";
  }
  function search(newTerm) {
    var re;
    try { re = new RegExp(newTerm, ignoreCase ? "i" : ""); } catch (e) { matchedTxt.textContent = "bad regex"; return; }
    resetSearch();
    term = newTerm;
    var matches = [];
    frames.forEach(function (f) {
      if (f === root || !re.test(f.name)) return;
      f.rect.setAttribute("fill", fg.searchcolor);
      matches.push(f);
    });
    searchBtn.classList.add("show");
    searchBtn.textContent = "Reset Search";
    // The share of all samples under matching frames, each sample counted once: walk the
    // matches left to right, widest first, skipping those inside one already counted.
    matches.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
    var counted = 0, end = -1;
    matches.forEach(function (f) {
      if (f.x >= end - fudge) { counted += f.w; end = f.x + f.w; }
    });
    var pct = root && root.w > 0 ? 100 * counted / root.w : 0;
    matchedTxt.classList.remove("hide");
    matchedTxt.textContent = "Matched: " + (pct >= 99.995 ? "100" : pct.toFixed(1)) + "%";
  }
  function promptSearch() {
    if (term !== null) { resetSearch(); return; }
    var entered = prompt("Enter a search term (regexp allowed, eg: ^ext4_)" + (ignoreCase ? ", ignoring case" : "") +
                         "\nPress Ctrl-i to toggle case sensitivity", "");
    if (entered) search(entered);
  }
  function toggleCase() {
    ignoreCase = !ignoreCase;
    icBtn.classList.toggle("show", ignoreCase);
    if (term !== null) search(term);
  }

  function selftest(wanted) {
    var problems = [], target = null, re = wanted ? new RegExp(wanted) : null;
    frames.forEach(function (f) {
      if (f === root || (re && !re.test(f.name))) return;
      if (!target || f.w > target.w || (f.w === target.w && (fg.inverted ? f.y > target.y : f.y < target.y))) target = f;
    });
    if (!target) problems.push("no frame to click");
    else {
      target.rect.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      if (unzoomBtn.classList.contains("hide")) problems.push("Reset Zoom not shown after a click");
      if (Math.abs(parseFloat(target.rect.getAttribute("width")) - fullWidth) > 0.5)
        problems.push("clicked frame not zoomed to the full width");
      var hidden = frames.filter(function (f) { return f.g.classList.contains("hide"); }).length;
      if (target.w < root.w - 0.5 && hidden === 0) problems.push("nothing hidden by the zoom");
      search(wanted || target.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      var lit = frames.filter(function (f) { return f.rect.getAttribute("fill") === fg.searchcolor; }).length;
      if (lit === 0) problems.push("search highlighted nothing");
      if (!/^Matched: [0-9.]+%$/.test(matchedTxt.textContent)) problems.push("no matched percentage");
    }
    problems = problems.concat(errors);
    svg.setAttribute("data-selftest", problems.length ? "fail: " + problems.join("; ") : "pass");
  }

  function init() {
    svg = document.getElementById("flamegraph");
    details = document.getElementById("details");
    unzoomBtn = document.getElementById("unzoom");
    searchBtn = document.getElementById("search");
    icBtn = document.getElementById("ignorecase");
    matchedTxt = document.getElementById("matched");
    fullWidth = parseFloat(svg.getAttribute("width")) - 2 * fg.xpad;
    var groups = document.getElementById("frames").children;
    for (var i = 0; i < groups.length; i++) {
      var g = groups[i], rect = g.querySelector("rect"), title = g.querySelector("title").textContent;
      var f = { g: g, rect: rect, text: g.querySelector("text"), title: title,
                name: title.replace(/ \([^()]*\)$/, ""), fill: rect.getAttribute("fill"),
                x: parseFloat(rect.getAttribute("x")), w: parseFloat(rect.getAttribute("width")),
                y: parseFloat(rect.getAttribute("y")), h: parseFloat(rect.getAttribute("height")) };
      g._frame = f;
      frames.push(f);
      if (!root || f.w > root.w) root = f;
    }
    svg.addEventListener("mouseover", function (e) {
      var f = frameOf(e.target);
      if (f) details.textContent = fg.nametype + " " + f.title;
    });
    svg.addEventListener("mouseout", function (e) { if (frameOf(e.target)) details.textContent = " "; });
    svg.addEventListener("click", function (e) {
      var f = frameOf(e.target);
      if (f) zoom(f);
      else if (e.target.id === "unzoom") unzoom();
      else if (e.target.id === "search") promptSearch();
      else if (e.target.id === "ignorecase") toggleCase();
    });
    window.addEventListener("keydown", function (e) {
      if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault(); promptSearch(); }
      else if (e.ctrlKey && e.keyCode === 73) { e.preventDefault(); toggleCase(); }
    });
    var hash = decodeURIComponent(location.hash || "");
    var test = /^#selftest(?:=(.*))?$/.exec(hash);
    if (test) selftest(test[1]);
  }
  window.addEventListener("load", init);
})();
)JS";
}

}  // namespace sonde::output
