// The end of the HTML report's script (report_script.cpp has its start and the views): the
// self-test that "#selftest=NAME" runs — the top-down tree's hottest path opened to NAME, the
// bottom-up view starting at NAME, a search for NAME keeping exactly the samples that hold it and
// highlighting it in the flame graph, a zoom to the first half of the timeline counting only its
// samples in every view, a click zoom in the flame graph, NAME's source view, the diff views
// when present — recorded on <body data-selftest>; and the page's start.
#include "output/html/report_page.hpp"

namespace sonde::output {

std::string_view html_report_main_script() {
  return R"JS(
  // ---- "#selftest=NAME": what a user would check, recorded on <body>.
  function selftest(name) {
    const problems = [];
    const check = (ok, what) => { if (!ok) problems.push(what); };
    check(data.time.length === meta.samples, "decoded samples");
    // The top-down tree's hottest path, opened, reaches NAME.
    expandHottest();
    renderTopDown();
    const names = Array.from(document.querySelectorAll("#tree-body td.fn"), (td) => td.textContent);
    check(names.some((t) => t.includes(" " + name + " ")), `top-down hottest path shows ${name}`);
    // Bottom-up: NAME is the hottest leaf; opening it lists its callers.
    const top = sortedChildren(upRoots, (x) => x.weight, (x) => frameName(x.frame))[0];
    check(top && frameName(top.frame) === name, `bottom-up starts at ${name}, not ${top ? frameName(top.frame) : "nothing"}`);
    if (top) {
      expandedUp.add(top.key);
      renderBottomUp();
      check(document.querySelectorAll("#up-body tr").length > 1, "bottom-up opens to callers");
    }
    // Search: only the samples that hold NAME, highlighted in the flame graph.
    const full = view.samples;
    state.search = name;
    $("search").value = name;
    refresh();
    let holding = 0;
    for (let i = 0; i < data.time.length; i++) {
      if (data.event[i] !== state.event || data.stack[i] < 0) continue;
      for (let s = data.stack[i]; s >= 0; s = data.prefix[s])
        if (frameName(data.frame[s]) === name) { holding++; break; }
    }
    check(view.samples === holding && holding > 0, `search keeps the ${holding} samples holding ${name}, not ${view.samples}`);
    show("flame");
    check(flameBoxes.some((b) => b.node >= 0 && view.match.frameHit[data.frame[b.node]]), "flame graph highlights the match");
    state.search = "";
    $("search").value = "";
    // Zoom: the first half of the timeline; every view counts only its samples.
    const half = [span[0], (span[0] + span[1]) / 2];
    state.range = half;
    refresh();
    let inRange = 0, weight = 0;
    for (let i = 0; i < data.time.length; i++)
      if (data.event[i] === state.event && data.time[i] >= half[0] && data.time[i] <= half[1]) inRange++, weight += data.weight[i];
    check(view.samples === inRange && inRange > 0 && inRange < full, `zoom keeps ${inRange} of ${full} samples, not ${view.samples}`);
    let roots = 0;
    for (const c of childrenOf(-1)) roots += view.total[c];
    check(Math.abs(roots + view.rootless - weight) <= 1e-6 * weight, "the trees' totals are the range's");
    // The flame graph zooms into a frame on click.
    const target = flameBoxes.find((b) => b.node >= 0 && b.w < $("flame-canvas").clientWidth * 0.9 && b.w > 40);
    if (target) {
      state.flameRoot = target.node;
      renderFlame();
      const again = flameBoxes.find((b) => b.node === target.node);
      check(again && again.w > target.w, "a clicked frame fills the width");
    }
    // The source view: NAME's instructions carry its samples, its hottest line has its text.
    // (A trace.dat's page has no code to show.)
    const annotated = meta.annotations.findIndex((a) => a.name === name);
    check(annotated >= 0 || meta.annotations.length === 0, `a source view of ${name}`);
    if (annotated >= 0) {
      sourceIndex = annotated;
      show("source");
      renderSource();
      const a = meta.annotations[annotated];
      const onInstructions = a.instructions.reduce((sum, i) => sum + i[2], 0);
      check(a.total > 0 && Math.abs(onInstructions - a.total) <= 1e-6 * a.total, "the instructions hold the function's samples");
      const hottest = a.source.reduce((best, l) => (!best || l[2] > best[2] ? l : best), null);
      check(hottest && hottest[2] > 0 && hottest[1].trim() !== "", "the hottest source line is shown with its text");
      check(document.querySelectorAll("#source-asm tr").length === a.instructions.length, "the disassembly is listed");
    }
    // --diff: the table lists the functions, the flame graph draws its change colours.
    if (meta.diff) {
      state.range = null;
      refresh();
      show("diff");
      check(document.querySelectorAll("#diff-body tr").length > 0, "the diff lists functions");
      state.diffColors = true;
      show("flame");
      check(flameBoxes.length > 1, "the flame graph draws its change colours");
      state.diffColors = false;
    }
    check(errors.length === 0, "script errors: " + errors.join("; "));
    document.body.setAttribute("data-selftest", problems.length ? "fail: " + problems.join("; ") : "pass");
  }

  async function main() {
    try {
      data = await decode();
      if (meta.diff) {
        baseTotals = new Float64Array(meta.stacks);
        for (let i = 0; i + 1 < meta.diff.nodes.length; i += 2) baseTotals[meta.diff.nodes[i]] = meta.diff.nodes[i + 1];
        document.querySelector('nav button[data-tab="diff"]').hidden = false;
        $("diff-colors-box").hidden = false;
      }
      let busiest = 0;
      meta.events.forEach((e, i) => { if (e.samples > meta.events[busiest].samples) busiest = i; });
      state.event = busiest;
      wire();
      refresh();
      expandHottest();
      renderTopDown();
      $("loading").hidden = true;
      // When the views were first drawn, in milliseconds from the page's start (for benchmarks).
      document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));
      renderSource();
      const tab = /^#tab=(summary|tree|up|flame|source|diff)$/.exec(location.hash);
      show(tab ? tab[1] : "tree");
      const test = /^#selftest(?:=(.*))?$/.exec(location.hash);
      if (test) selftest(decodeURIComponent(test[1] || ""));
    } catch (e) {
      errors.push(String(e));
      $("loading").textContent = "This report could not be read: " + e;
      document.body.setAttribute("data-selftest", "fail: " + errors.join("; "));
    }
  }
  main();
})();
)JS";
}

}  // namespace sonde::output
