// The segment browser: filters, sorting and a virtualized list (only the rows
// in view exist in the DOM), so 100k+ segments scroll and sort smoothly.

const ROW_HEIGHT = 46;
const SORT_KEYS = {
  index: {label: "segment", key: (d, i) => i},
  bleuA: {label: "sentence BLEU of A", bleu: true, key: (d, i) => d.systems[state.a].sent[i]},
  bleuB: {label: "sentence BLEU of B", bleu: true, key: (d, i) => d.systems[state.b].sent[i]},
  delta: {label: "ΔBLEU (B − A)", bleu: true, key: (d, i) => d.systems[state.b].sent[i] - d.systems[state.a].sent[i]},
  contribution: {label: "contribution to corpus Δ", bleu: true, key: (d, i) => contribution(d, i)},
  length: {label: "reference length", key: (d, i) => d.firstRefLen[i]},
  hypLength: {label: "length of A", key: (d, i) => d.systems[state.a].hypLen[i]},
  ratio: {label: "length ratio of A", key: (d, i) => d.firstRefLen[i] ? d.systems[state.a].hypLen[i] / d.firstRefLen[i] : Infinity},
};

// Corpus ΔBLEU (B − A) minus the same difference without segment i: how much
// segment i moves the corpus-level difference (from the additive statistics).
function corpusDelta(d) { return d.systems[state.b].corpus.score - d.systems[state.a].corpus.score; }
function contribution(d, i) {
  const a = d.systems[state.a], b = d.systems[state.b];
  return corpusDelta(d) - (b.without[i] - a.without[i]);
}

let filterCache = {key: null, indices: null, problems: [], pending: false};

function filterKey() {
  return JSON.stringify([state.a, state.b, state.src, state.ref, state.hyp, regexOn, state.minLen, state.maxLen,
    state.doc, state.minScore, state.maxScore, state.ngram, state.ngramOrder, state.ngramSide, state.sort, state.dir,
    state.fcol, state.fmin, state.fmax, state.disagree]);
}

function currentIndices(d) {
  const key = filterKey();
  if (filterCache.key === key) return filterCache.indices;
  const n = d.n_segments;
  // text filters (35-text-filter.js): plain text, or a regular expression run in a worker
  const filters = {src: textFilter(d, "src"), ref: textFilter(d, "ref"), hyp: textFilter(d, "hyp")};
  const pending = Object.values(filters).some((f) => f && f.pending);
  const texts = Object.values(filters).filter((f) => f && f.test);
  const minLen = state.minLen === "" ? -Infinity : Number(state.minLen);
  const maxLen = state.maxLen === "" ? Infinity : Number(state.maxLen);
  // "BLEU of A" bounds: only on a page that shows BLEU (42-metric-subsets.js)
  const minScore = state.minScore === "" || !bleuShown(d) ? -Infinity : Number(state.minScore);
  const maxScore = state.maxScore === "" || !bleuShown(d) ? Infinity : Number(state.maxScore);
  const docIndex = d.documents && state.doc !== "" ? d.documents.names.indexOf(state.doc) : -1;
  const ngramSet = state.ngram ? ngramSegments(d) : null;
  const A = d.systems[state.a];
  const inRange = rangeFilter(d);                                       // 45-metric-segments.js
  const disagreeing = state.disagree === "1" && d.metrics && d.metrics.list.length > 1;
  const out = [];
  for (let i = 0; i < n && !pending; i++) {   // no rows until every regular expression has answered
    if (d.firstRefLen[i] < minLen || d.firstRefLen[i] > maxLen) continue;
    if (A.sent[i] < minScore || A.sent[i] > maxScore) continue;
    if (docIndex >= 0 && d.documents.index[i] !== docIndex) continue;
    if (ngramSet && !ngramSet.has(i)) continue;
    if (inRange && !inRange(i)) continue;
    if (disagreeing && !(disagreement(d, i) > 0)) continue;
    if (!texts.every((f) => f.test(i))) continue;
    out.push(i);
  }
  const sortKeysOfData = sortKeys(d);
  const sortKey = (Object.hasOwn(sortKeysOfData, state.sort) ? sortKeysOfData[state.sort] : sortKeysOfData.index).key;
  const keys = new Float64Array(n);
  for (const i of out) keys[i] = sortKey(d, i);
  const indices = sortByKey(Uint32Array.from(out), keys, state.dir);
  filterCache = {key, indices, problems: textFilterProblems(filters), pending};
  return indices;
}

// `indices` (ascending) ordered by dir * keys[i], ties by segment index: a stable LSD radix
// sort on the keys' IEEE-754 bits, linear in the number of segments (a comparator sort
// of 200k segments took about a second, a frozen page).
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
function sortByKey(indices, keys, dir) {
  const m = indices.length;
  const hi = new Uint32Array(m), lo = new Uint32Array(m);
  const f = new Float64Array(1), u = new Uint32Array(f.buffer);
  const L = LITTLE_ENDIAN ? 0 : 1, H = 1 - L;
  for (let p = 0; p < m; p++) {
    let k = keys[indices[p]] * dir + 0;     // + 0 turns -0 into 0 (equal keys tie)
    if (k !== k) k = Infinity;
    f[0] = k;
    // order-preserving map of doubles to unsigned integers: flip all bits of negatives, the sign of others
    if (u[H] & 0x80000000) { hi[p] = ~u[H] >>> 0; lo[p] = ~u[L] >>> 0; } else { hi[p] = (u[H] | 0x80000000) >>> 0; lo[p] = u[L]; }
  }
  let order = new Uint32Array(m), spare = new Uint32Array(m);
  for (let p = 0; p < m; p++) order[p] = p;
  const count = new Uint32Array(65537);
  for (const [words, shift] of [[lo, 0], [lo, 16], [hi, 0], [hi, 16]]) {
    count.fill(0);
    for (let p = 0; p < m; p++) count[((words[order[p]] >>> shift) & 0xffff) + 1]++;
    for (let b = 1; b <= 65536; b++) count[b] += count[b - 1];
    for (let p = 0; p < m; p++) { const q = order[p]; spare[count[(words[q] >>> shift) & 0xffff]++] = q; }
    [order, spare] = [spare, order];
  }
  const sorted = new Uint32Array(m);
  for (let p = 0; p < m; p++) sorted[p] = indices[order[p]];
  return sorted;
}

function isFiltered() {
  return !!(state.src || state.ref || state.hyp || state.minLen !== "" || state.maxLen !== "" || state.doc ||
    state.minScore !== "" || state.maxScore !== "" || state.ngram || state.fmin !== "" || state.fmax !== "" || state.disagree);
}

function filterInput(label, key, attrs) {
  return el("label", null, label + " ", el("input", Object.assign({
    value: state[key], "data-filter": key,
    onchange: (e) => { state[key] = e.target.value; state.seg = null; update(); },
  }, attrs || {})));
}

function textFilterInput(key) {
  return filterInput(FILTER_LABELS[key] + (regexOn ? " /re/" : " contains"), key,
    {placeholder: regexOn ? "regex" : "text", size: 12});
}

function renderFilters(d) {
  const docs = d.documents;
  return el("div", {class: "filters"},
    d.source ? textFilterInput("src") : null,
    textFilterInput("ref"),
    textFilterInput("hyp"),
    regexSwitch(),
    filterInput("ref length ≥", "minLen", {type: "number", min: 0, class: "narrow"}),
    filterInput("≤", "maxLen", {type: "number", min: 0, class: "narrow"}),
    bleuShown(d) ? filterInput("BLEU of A ≥", "minScore", {type: "number", step: "any", class: "narrow"}) : null,
    bleuShown(d) ? filterInput("≤", "maxScore", {type: "number", step: "any", class: "narrow"}) : null,
    docs ? el("label", null, "document ", el("select", {"data-filter": "doc", onchange: (e) => { state.doc = e.target.value; state.seg = null; update(); }},
      el("option", {value: ""}, "all"), docs.names.map((name) => el("option", {value: name, selected: state.doc === name}, text(name))))) : null,
    state.ngram ? el("span", {class: "chip"}, `${state.ngramSide === "a" ? "A" : "B"} matches more often: “`, text(state.ngram), "” ",
      el("button", {type: "button", class: "small", title: "remove this filter", onclick: () => { state.ngram = ""; update(); }}, "×")) : null,
    el("label", null, "sort ", el("select", {"data-control": "sort", onchange: (e) => { state.sort = e.target.value; update(); }},
      Object.entries(sortKeys(d)).map(([k, v]) => el("option", {value: k, selected: state.sort === k}, text(v.label))))),
    el("button", {type: "button", class: "small", "data-control": "dir", onclick: () => { state.dir = -state.dir; update(); }}, state.dir > 0 ? "ascending" : "descending"),
    d.metrics ? segmentListExports(d) : null,                           // 44-metric-exports.js
    isFiltered() ? el("button", {type: "button", class: "small", onclick: () => { Object.assign(state, FILTER_DEFAULTS); update(); }}, "clear filters") : null,
  );
}

// Corpus BLEU of A and B on the filtered segments, and a paired test on them; then
// every metric's scores on them (42-metric-subsets.js).
function renderSubsetSummary(d, indices) {
  if (!bleuShown(d)) {
    return el("div", {class: "subset", id: "subset-summary"},
      el("span", {"data-value": "count"}, `${indices.length} of ${d.n_segments} segments`), renderMetricSubset(d, indices));
  }
  const A = d.systems[state.a], B = d.systems[state.b];
  const all = indices.length === d.n_segments;
  const scoreA = all ? A.corpus.score : corpusBleuOf(d, A, indices).score;
  const scoreB = all ? B.corpus.score : corpusBleuOf(d, B, indices).score;
  const box = el("div", {class: "subset", id: "subset-summary"},
    el("span", {"data-value": "count"}, `${indices.length} of ${d.n_segments} segments`), " · ",
    "BLEU A ", el("b", {"data-value": "bleu-a"}, pyFixed(scoreA, 2)), " · B ", el("b", {"data-value": "bleu-b"}, pyFixed(scoreB, 2)),
    " · Δ ", el("b", {"data-value": "delta"}, signed(scoreB - scoreA, 2)), " ");
  const result = el("span", {class: "test-result", "data-value": "test"});
  box.appendChild(el("button", {type: "button", class: "small", "data-control": "run-test", onclick: () => runSubsetTest(d, indices, result)}, "paired test"));
  box.appendChild(result);
  if (all) showFullTest(d, result);
  if (d.metrics) box.appendChild(renderMetricSubset(d, indices));
  return box;
}

function fullSetPValue(d) {
  const pairs = d.significance.pairs || [];
  for (const [x, y, p] of pairs) if ((x === state.a && y === state.b) || (x === state.b && y === state.a)) return p;
  return null;
}

function showFullTest(d, target) {
  const p = fullSetPValue(d);
  if (p === null) return;
  const sig = d.significance;
  clear(target).appendChild(el("span", {class: p < sig.alpha ? "significant" : "not-significant"},
    ` ${formatPValue(p, sig.alpha)} (${sig.test === "bs" ? "paired bootstrap" : "approximate randomization"}, ${sig.n_samples} samples, seed ${sig.seed}; truebleu API)`));
}

async function runSubsetTest(d, indices, target) {
  if (indices.length === d.n_segments && fullSetPValue(d) !== null) { showFullTest(d, target); return; }
  if (indices.length < 2) { clear(target).appendChild(text(" too few segments")); return; }
  clear(target).appendChild(text(" testing…"));
  let r;
  if (MODE === "serve") {
    const response = await fetch("api/paired", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({a: state.a, b: state.b, segments: Array.from(indices), n_samples: d.significance.n_samples, seed: d.significance.seed})});
    if (!response.ok) { clear(target).appendChild(text(" error: " + (await response.text()))); return; }
    r = await response.json();
  } else {
    r = await pairedBootstrapInPage(d, d.systems[state.a], d.systems[state.b], indices, d.significance.n_samples, d.significance.seed,
      (k) => { clear(target).appendChild(text(` testing… ${k}/${d.significance.n_samples}`)); });
  }
  const where = r.where === "page" ? "in-page resampling" : "truebleu API";
  clear(target).appendChild(el("span", {class: r.p < 0.05 ? "significant" : "not-significant"},
    ` ${formatPValue(r.p, 0.05)} (paired bootstrap, ${r.n} samples, seed ${r.seed}, ${r.segments} segments; ${where})`));
}

function renderSegments(root, d) {
  const indices = currentIndices(d);
  root.appendChild(el("section", {class: "card"}, renderFilters(d),
    filterCache.problems.length ? el("p", {class: "error filter-errors"}, filterCache.problems.map((p) => el("span", null, text(p), el("br")))) : null,
    filterCache.pending ? el("p", {class: "note", "data-value": "matching"}, "matching the regular expression…") : plainTextNote(),
    renderMetricFilters(d), renderSubsetSummary(d, indices)));
  const grid = segmentGrid(d);                                          // 45-metric-segments.js
  const split = el("div", {class: "split" + (grid ? " wide" : "")});
  const list = el("div", {class: "seglist" + (d.documents ? "" : " nodocs") + (grid ? " metric-grid" : ""), id: "segment-list", tabindex: 0, role: "listbox", "aria-label": "segments"});
  if (grid) list.style.setProperty("--segment-grid", grid);
  const spacer = el("div", {class: "spacer"});
  spacer.style.height = indices.length * ROW_HEIGHT + "px";
  const heads = ["#", "doc", "A", "B", "Δ", "contrib.", "len", d.systems.length > 1 ? "output A / output B" : "output"].filter((h) => (h !== "doc" || d.documents)
    && (bleuShown(d) || !["A", "B", "Δ", "contrib."].includes(h)));   // BLEU's columns
  const headCells = heads.map((h) => sortableHead(h, HEAD_SORT[h]));
  headCells.splice(headCells.length - 1, 0, ...metricHeads(d));
  list.appendChild(el("div", {class: "seghead"}, headCells));
  list.appendChild(spacer);
  // the detail of the same segment is kept across re-renders (a filter or sort
  // change does not rebuild its n-gram analysis and tables)
  const detailKey = JSON.stringify([state.seg, state.a, state.b, state.order, state.allsys]);
  const kept = detailCache.key === detailKey ? detailCache.node : null;
  const detail = kept || el("div", {class: "detail", id: "detail"});
  split.append(list, detail);
  root.appendChild(split);
  const pool = [];
  const draw = () => {
    const first = Math.max(0, Math.floor(list.scrollTop / ROW_HEIGHT) - 5);
    const count = Math.ceil(list.clientHeight / ROW_HEIGHT) + 10;
    const last = Math.min(indices.length, first + count);
    while (pool.length < last - first) { const row = el("div", {class: "segrow", role: "option"}); spacer.appendChild(row); pool.push(row); }
    for (let k = 0; k < pool.length; k++) {
      const row = pool[k], pos = first + k;
      if (pos >= last) { row.style.display = "none"; continue; }
      row.style.display = "";
      const i = indices[pos];
      if (row.dataset.segment === String(i) && row.dataset.pos === String(pos) && row.dataset.sel === String(state.seg === i)) continue;
      fillRow(d, row, i, pos);
    }
  };
  list.addEventListener("scroll", () => requestAnimationFrame(draw));
  list.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    const pos = Math.max(0, Math.min(indices.length - 1, indices.indexOf(state.seg) + (e.key === "ArrowDown" ? 1 : -1)));
    if (indices.length) selectSegment(indices[pos], false);
  });
  requestAnimationFrame(() => {
    if (state.seg !== null) {
      const pos = indices.indexOf(state.seg);
      if (pos >= 0 && (pos * ROW_HEIGHT < list.scrollTop || pos * ROW_HEIGHT > list.scrollTop + list.clientHeight - ROW_HEIGHT)) list.scrollTop = Math.max(0, pos * ROW_HEIGHT - list.clientHeight / 3);
    }
    draw();
  });
  segmentListRedraw = draw;
  if (!kept) renderDetail(detail, d);
  detailCache = {key: detailKey, node: detail};
}

let detailCache = {key: null, node: null};

// The list's column heads sort by their column (a second click reverses the order).
const HEAD_SORT = {"#": "index", A: "bleuA", B: "bleuB", "Δ": "delta", "contrib.": "contribution", len: "length"};
function sortableHead(label, key, title) {
  if (!key) return el("span", {title: title || null}, text(label));
  // the arrow of the sorted column is drawn by the style sheet (the head's text stays its label)
  const sorted = state.sort === key && key !== "index" ? (state.dir > 0 ? "ascending" : "descending") : null;
  return el("span", {class: "sortable", "data-sort": key, "aria-sort": sorted, title: (title ? title + "; " : "") + "click to sort",
    onclick: () => {
      if (state.sort === key) state.dir = -state.dir;
      else { state.sort = key; state.dir = key === "index" ? 1 : -1; }
      update();
    }}, text(label));
}

let segmentListRedraw = null;

function fillRow(d, row, i, pos) {
  const A = d.systems[state.a], B = d.systems[state.b];
  row.dataset.segment = i; row.dataset.pos = pos; row.dataset.sel = String(state.seg === i);
  row.style.top = pos * ROW_HEIGHT + "px";
  row.className = "segrow" + (state.seg === i ? " selected" : "");
  row.setAttribute("aria-selected", String(state.seg === i));
  const delta = B.sent[i] - A.sent[i], bleu = bleuShown(d);
  const docName = d.documents ? d.documents.names[d.documents.index[i]] : "";
  append(clear(row), [
    el("span", {class: "num"}, String(i + 1)),
    d.documents ? el("span", {class: "doc", title: docName}, text(docName)) : null,
    bleu ? el("span", {class: "num"}, pyFixed(A.sent[i], 1)) : null,
    bleu ? el("span", {class: "num"}, pyFixed(B.sent[i], 1)) : null,
    bleu ? el("span", {class: "num " + (delta > 0 ? "pos" : delta < 0 ? "neg" : "")}, signed(delta, 1)) : null,
    bleu ? el("span", {class: "num"}, signed(contribution(d, i), 4)) : null,
    el("span", {class: "num"}, String(d.firstRefLen[i])),
    d.metrics ? metricCells(d, i) : null,
    el("span", {class: "texts"}, el("span", {class: "a"}, text(A.text[i])), d.systems.length > 1 ? el("span", {class: "b"}, text(B.text[i])) : null)]);
  row.onclick = () => selectSegment(i, false);
}

function selectSegment(i, jump) {
  state.seg = i;
  if (jump) state.view = "segments";
  if (jump || !segmentListRedraw) { update(); return; }
  writeHash();
  segmentListRedraw();
  const detail = document.getElementById("detail");
  if (detail) renderDetail(detail, DATA);
}
