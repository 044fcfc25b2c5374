// One segment in detail: source, references, outputs with the n-grams BLEU
// counted (matched within the clip, matched beyond the clip, unmatched) and
// the explain tables built from truebleu's statistics row of that segment.

function renderDetail(root, d) {
  clear(root);
  detailCache.key = JSON.stringify([state.seg, state.a, state.b, state.order, state.allsys]);
  const i = state.seg;
  if (i === null || i === undefined || i < 0 || i >= d.n_segments) {
    root.appendChild(el("p", {class: "note"}, bleuShown(d) ? "Select a segment to see its n-grams and the arithmetic of its BLEU."
      : "Select a segment to see every metric's scores of it."));
    return;
  }
  const refLists = referenceTokenLists(d, i);
  root.appendChild(el("h2", null, `Segment ${i + 1}`,
    d.documents ? el("span", {class: "muted"}, " · document ", text(d.documents.names[d.documents.index[i]])) : null));
  if (!bleuShown(d)) { renderPlainSegment(root, d, i); return; }     // no BLEU chosen (42-metric-subsets.js)
  const orderButtons = el("div", {class: "orders"}, "n-gram order: ");
  for (let n = 1; n <= d.max_order; n++) {
    orderButtons.appendChild(el("button", {type: "button", class: "small" + (state.order === n ? " active" : ""), "data-order": n,
      onclick: () => { state.order = n; writeHash(); renderDetail(root, d); }}, String(n)));
  }
  orderButtons.append(" ", el("span", {class: "legend"}, el("span", {class: "tok matched"}, "matched"), " ",
    el("span", {class: "tok clipped"}, "beyond the clip"), " ", el("span", {class: "tok unmatched"}, "unmatched")));
  if (d.systems.length > 2) {
    orderButtons.append(" ", el("label", {class: "toggle"}, el("input", {type: "checkbox", "data-control": "all-systems", checked: state.allsys === 1,
      onchange: (e) => { state.allsys = e.target.checked ? 1 : 0; writeHash(); renderDetail(root, d); }}), " every system"));
  }
  root.appendChild(orderButtons);
  if (d.source) root.appendChild(el("div", {class: "block"}, el("div", {class: "label"}, "Source"), el("div", {class: "seg-text", "data-field": "source"}, text(d.source[i]))));
  const systems = [state.a, state.b];
  const analyses = systems.map((k) => ngramAnalysis(tokensOf(d.systems[k], i), refLists, d.max_order));
  d.references.forEach((r, k) => {
    const line = r.text[i];
    root.appendChild(el("div", {class: "block"}, el("div", {class: "label"}, "Reference ", text(r.name)),
      line === null ? el("div", {class: "muted"}, "(no reference for this segment)") :
        el("div", {class: "seg-text", "data-field": "reference"}, referenceTokens(tokensOf(r, i), analyses, state.order))));
  });
  systems.forEach((k, j) => {
    root.appendChild(systemBlock(d, k, i, analyses[j], j === 0 ? "A" : "B"));
  });
  renderMetricDetail(root, d, i);                                       // 55-metric-detail.js
  if (state.allsys === 1 && d.systems.length > 2) root.appendChild(everySystem(d, i, refLists));
}

// Every system's output of the segment, best sentence BLEU first.
function everySystem(d, i, refLists) {
  const order = d.systems.map((s, k) => k).sort((x, y) => d.systems[y].sent[i] - d.systems[x].sent[i] || x - y);
  const rows = order.map((k) => {
    const s = d.systems[k];
    const analysis = ngramAnalysis(tokensOf(s, i), refLists, d.max_order);
    const label = k === state.a ? "A" : k === state.b ? "B" : "";
    return el("tr", {"data-system-index": k}, el("td", {class: "num"}, pyFixed(s.sent[i], 2)),
      el("td", null, label ? el("b", null, label + " ") : null, text(s.name)),
      el("td", null, el("div", {class: "seg-text"}, hypothesisTokens(tokensOf(s, i), analysis, state.order))));
  });
  return el("div", {class: "block"}, el("div", {class: "label"}, `Every system (${d.systems.length}), by sentence BLEU`),
    el("table", {class: "data compact every-system"}, el("thead", null, el("tr", null, el("th", {class: "num"}, "BLEU"), el("th", null, "system"), el("th", null, "output"))),
      el("tbody", null, rows)));
}

// Reference tokens matched by A's or B's counted n-grams of the chosen order.
function referenceTokens(tokens, analyses, n) {
  const counted = new Set();
  for (const analysis of analyses) for (const occ of analysis[n - 1].occurrences) if (occ.status === "matched") counted.add(occ.gram);
  const covered = new Uint8Array(tokens.length);
  for (let p = 0; p + n <= tokens.length; p++) if (counted.has(tokens.slice(p, p + n).join(" "))) covered.fill(1, p, p + n);
  return tokens.map((t, p) => [el("span", {class: "tok" + (covered[p] ? " ref-hit" : "")}, text(t)), " "]);
}

function hypothesisTokens(tokens, analysis, n) {
  // A token's colour: matched if any counted n-gram covers it, else beyond the
  // clip if a clipped one does, else unmatched.
  const level = new Uint8Array(tokens.length);  // 0 unmatched, 1 clipped, 2 matched
  for (const occ of analysis[n - 1].occurrences) {
    const v = occ.status === "matched" ? 2 : occ.status === "clipped" ? 1 : 0;
    for (let p = occ.start; p < occ.start + n; p++) level[p] = Math.max(level[p], v);
  }
  const names = ["unmatched", "clipped", "matched"];
  return tokens.map((t, p) => [el("span", {class: "tok " + names[level[p]]}, text(t)), " "]);
}

function systemBlock(d, k, i, analysis, letter) {
  const s = d.systems[k];
  const row = Array.from(s.statsArr.slice(i * d.width, (i + 1) * d.width));
  const order = d.max_order;
  const tokens = tokensOf(s, i);
  const block = el("div", {class: "block system-block", "data-system": letter},
    el("div", {class: "label"}, `${letter}: `, text(s.name), " · sentence BLEU ", el("b", {"data-value": "sentence-bleu"}, pyFixed(s.sent[i], 2))),
    el("div", {class: "seg-text", "data-field": "output"}, hypothesisTokens(tokens, analysis, state.order)));
  // explain table: the statistics row is truebleu's; the page's own n-gram
  // analysis must agree with it (a mismatch would be shown, never hidden)
  const sentence = computeBleu(row, order, d.smoothing, true, d.python_sum === "compensated");
  const rows = [];
  for (let n = 1; n <= order; n++) {
    const m = row[1 + n], t = row[1 + order + n], a = analysis[n - 1];
    const agree = a.matches === m && a.total === t;
    rows.push([String(n), `${m} / ${t}`, pyFixed(sentence.precisions[n - 1], 2), agree ? "" : `page counted ${a.matches} / ${a.total}`]);
  }
  const explain = {columns: [{label: "n", numeric: true}, {label: "clipped matches / n-grams", numeric: true}, {label: "p_n (%)", numeric: true}, {label: ""}], rows};
  block.appendChild(renderTable(explain, {class: "explain"}));
  const [hypLen, refLen] = row;
  block.appendChild(el("p", {class: "formula"},
    `hyp_len ${hypLen}, ref_len ${refLen} (closest reference) → BP = ${hypLen < refLen ? `exp(1 − ${refLen}/${hypLen}) = ${pyFixed(sentence.bp, 4)}` : "1"}; `,
    `BLEU = BP · exp(mean log p_n) = `, el("b", null, pyFixed(s.sent[i], 2)),
    el("span", {class: "muted"}, ` (smoothing ${d.smoothing.method}, effective order)`)));
  // the n-grams of the chosen order
  const a = analysis[state.order - 1];
  const grams = a.grams.slice().sort((x, y) => x.first - y.first);
  const gramTable = {columns: [{label: `${state.order}-gram`}, {label: "in output", numeric: true}, {label: "max in a reference", numeric: true}, {label: "counted", numeric: true}],
    rows: grams.map((g) => [g.gram, String(g.count), String(g.ref), String(g.clipped)])};
  const nodes = grams.map((g) => [el("span", {class: "tok " + (g.ref === 0 ? "unmatched" : g.count > g.ref ? "clipped" : "matched")}, text(g.gram)),
    String(g.count), String(g.ref), String(g.clipped)]);
  block.appendChild(el("details", {class: "grams"}, el("summary", null, `${grams.length} distinct ${state.order}-grams (${a.matches} of ${a.total} counted)`),
    renderTable({columns: gramTable.columns, rows: gramTable.rows, nodes}, {class: "compact"})));
  return block;
}
