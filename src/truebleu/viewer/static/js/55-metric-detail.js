// Segment detail, every metric: each metric's sentence score of A and B, for chrF the
// character (and chrF++'s word) n-grams that matched (57-chrf-matches.js), and for
// TER the edits it counted (viewer/ter_alignments.py): the blocks its search shifted
// (from where to where), then the edit path from the shifted output to the best
// reference: matches, substitutions (output word → reference word), deletions
// (output words without a counterpart) and insertions (reference words missing).

function renderMetricDetail(root, d, i) {
  if (!d.metrics) return;
  const rows = d.metrics.list.map((m) => {
    const digits = m.external ? 4 : 2, a = sentenceOf(m, state.a, i), b = sentenceOf(m, state.b, i);
    return [m.name + (m.higher_is_better ? " \u2191" : " \u2193"), pyFixed(a, digits), pyFixed(b, digits), signed(b - a, digits)];
  });
  const table = {columns: [{label: "Metric"}, {label: "A", numeric: true}, {label: "B", numeric: true}, {label: "\u0394 (B \u2212 A)", numeric: true}], rows};
  root.appendChild(el("div", {class: "block", id: "metric-scores"}, el("div", {class: "label"}, "Sentence scores of every metric"),
    renderTable(table, {class: "metric-scores"})));
  for (const m of d.metrics.list) {
    if (m.chrf_matches) root.appendChild(renderChrfMatches(d, m, i));
    if (!m.alignment) continue;
    for (const [which, k] of [["A", state.a], ["B", state.b]]) {
      root.appendChild(renderTerAlignment(d, m, k, i, which));
    }
  }
}

// The steps of TER's edit path: [operation, output word or null, reference word or null].
function terEdits(d, m, k, i) {
  const s = m.alignment.systems[k];
  if (s.ops[i] === null) return null;
  const hyp = s.hyp[i] === "" ? [] : s.hyp[i].split(" ");
  const refText = m.alignment.references[s.ref[i]][i];
  const ref = refText === "" ? [] : refText.split(" ");
  const order = s.order[i];
  const steps = [];
  let h = 0, r = 0;
  for (const op of s.ops[i]) {
    const takesHyp = op !== "i", takesRef = op !== "d";
    steps.push([op, takesHyp ? hyp[order[h++]] : null, takesRef ? ref[r++] : null]);
  }
  return {steps, hyp, ref: s.ref[i], shifts: s.shifts[i]};
}

const TER_OPERATIONS = {m: "match", s: "substitute", d: "delete", i: "insert"};

function renderTerAlignment(d, m, k, i, which) {
  const edits = terEdits(d, m, k, i);
  const box = el("div", {class: "block ter-alignment " + which.toLowerCase(), "data-system": which});
  if (!edits) { box.appendChild(el("p", {class: "note"}, `${m.name} of ${which}: no reference for this segment.`)); return box; }
  const count = (op) => edits.steps.filter((s) => s[0] === op).length;
  const total = edits.shifts.length + edits.steps.length - count("m");
  box.appendChild(el("div", {class: "label"}, `${which}: ${m.name} edits against reference ${d.references[edits.ref].name} `,
    el("span", {class: "muted", "data-value": "ter-counts"},
      `(${counted(edits.shifts.length, "shift")}, ${counted(count("s"), "substitution")}, ${counted(count("i"), "insertion")}, ${counted(count("d"), "deletion")}: ${counted(total, "edit")}; sentence ${m.name} ${pyFixed(sentenceOf(m, k, i), 2)})`)));
  if (edits.shifts.length) {
    box.appendChild(el("ol", {class: "ter-shifts"}, edits.shifts.map(([origin, start, to]) =>
      el("li", {"data-start": start, "data-to": to}, "shift \u201c", el("span", {class: "tok shifted"}, text(origin.map((p) => edits.hyp[p]).join(" "))),
        `\u201d from position ${start} to ${to}`))));
  }
  box.appendChild(el("div", {class: "ter-path"}, edits.steps.map(([op, hw, rw]) => {
    const title = TER_OPERATIONS[op];
    if (op === "m") return el("span", {class: "tok matched", "data-op": title}, text(hw));
    if (op === "s") return el("span", {class: "tok substituted", "data-op": title, title}, text(hw), " \u2192 ", text(rw));
    if (op === "d") return el("span", {class: "tok deleted", "data-op": title, title}, text(hw));
    return el("span", {class: "tok inserted", "data-op": title, title}, "+", text(rw));
  }).flatMap((node) => [node, " "])));
  return box;
}

// chrF's matches of A and B against each one's best reference, for the order chosen.
function renderChrfMatches(d, m, i) {
  const cfg = m.chrf_matches, orders = cfg.char_order + cfg.word_order;
  const chosen = Math.min(state.corder, orders);
  const present = d.references.map((r, k) => k).filter((k) => d.references[k].text[i] !== null);
  const refs = present.map((k) => d.references[k].text[i]);
  const box = el("div", {class: "block chrf-matches", "data-metric": m.name});
  const label = (k) => k <= cfg.char_order ? `character ${k}-grams` : `word ${k - cfg.char_order}-grams`;
  const buttons = el("div", {class: "orders"}, `${m.name}: `);
  for (let k = 1; k <= orders; k++) {
    buttons.appendChild(el("button", {type: "button", class: "small" + (k === chosen ? " active" : ""), "data-chrf-order": k, title: label(k),
      onclick: () => { state.corder = k; writeHash(); box.replaceWith(renderChrfMatches(d, m, i)); }},
    k <= cfg.char_order ? `c${k}` : `w${k - cfg.char_order}`));
  }
  buttons.append(" ", el("span", {class: "legend"}, el("span", {class: "chrf-hit"}, "matched"), ` ${label(chosen)} against the system's best reference (highest sentence ${m.name}; its counts are the statistics)`));
  box.appendChild(buttons);
  if (!refs.length) { box.appendChild(el("p", {class: "note"}, "No reference for this segment.")); return box; }
  for (const [which, k] of [["A", state.a], ["B", state.b]]) {
    const hyp = d.systems[k].text[i];
    const found = chrfMatches(hyp, refs, cfg), order = found.orders[chosen - 1];
    const word = order.kind === "word";
    const spans = (key) => order.ngrams.flatMap((g) => g[key]);
    const share = (part, whole) => whole ? pyFixed(100 * part / whole, 2) + "%" : "\u2013";
    box.appendChild(el("div", {class: "chrf-system " + which.toLowerCase(), "data-system": which},
      el("div", {class: "label"}, `${which}: `, el("span", {"data-value": "chrf-counts"},
        `${order.matches} of ${order.hyp} ${label(chosen)} matched (precision ${share(order.matches, order.hyp)}, recall ${share(order.matches, order.ref)} of the reference's ${order.ref})`),
      el("span", {class: "muted"}, ` against reference ${d.references[present[found.best]].name}`)),
      el("div", {class: "seg-text", "data-field": "chrf-hypothesis"}, chrfHighlighted(hyp, spans("hypSpans"), cfg, word)),
      el("div", {class: "seg-text muted-ref", "data-field": "chrf-reference"}, chrfHighlighted(refs[found.best], spans("refSpans"), cfg, word))));
  }
  return box;
}
