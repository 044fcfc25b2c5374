// A versus B: where the corpus-level difference comes from.

let ngramCache = {key: null, result: null, pending: null};

// Per order, the n-grams that A's output matches (clipped) more often than B's
// in the same segment, and the reverse, summed over segments, with the
// segments where each happens (for click-through).
//
// A segment's clipped matches are counted on token ids (ngramSurplus below), not on
// joined strings: on 200,000 segments the string keys of every n-gram of the
// references and both outputs took most of a minute; only the n-grams whose clipped
// counts differ between A and B get their text.
async function computeNgramDiffs(d, onProgress) {
  const key = state.a + ":" + state.b;
  if (ngramCache.key === key && ngramCache.result) return ngramCache.result;
  if (ngramCache.key === key && ngramCache.pending) return ngramCache.pending;
  const A = d.systems[state.a], B = d.systems[state.b];
  const orders = [];
  for (let n = 1; n <= d.max_order; n++) orders.push(ngramTally(n));
  const surplus = ngramSurplus(d.max_order);
  const pending = (async () => {
    await chunked(d.n_segments, (i) => {
      surplus(A, B, d.references, i, (n, ids, p, h, diff) => orders[n].add(ids, p, h, diff, i));
      if (onProgress && i % 2000 === 0) onProgress(i);
    }, 40);
    const top = (list) => list.sort((x, y) => y.count - x.count || (x.gram < y.gram ? -1 : 1));
    const result = orders.map((o) => ({a: top(o.list(0)), b: top(o.list(1))}));
    if (ngramCache.key === key) { ngramCache.result = result; ngramCache.pending = null; }
    return result;
  })();
  ngramCache = {key, result: null, pending};
  return pending;
}

// The slots of an open-addressing table (linear probing; entry k's hash is hashes[k]),
// twice as many, so that the table stays at most half full.
function doubledSlots(slots, hashes, count) {
  const out = new Int32Array(2 * slots.length).fill(-1), mask = out.length - 1;
  for (let k = 0; k < count; k++) {
    let slot = hashes[k] & mask;
    while (out[slot] !== -1) slot = (slot + 1) & mask;
    out[slot] = k;
  }
  return out;
}

// The surplus matches of the n-grams of one order over all segments, on A's side (0:
// clipped matches of A − B, where positive) and B's (1), with the segments where each
// occurs, in order. Keyed by the n-gram's ids (its hash, then id by id); its text and
// its list of segments are made once per n-gram, by list(side): [{gram, count,
// segments}] (segments: an Int32Array). An n-gram is added at most once per segment
// and side (ngramSurplus visits each of a segment's n-grams once), so the segments are
// a log of (n-gram, segment) pairs, grouped at the end.
function ngramTally(n) {
  const pool = [], hashes = [];
  let slots = new Int32Array(1024).fill(-1);
  const sides = [0, 1].map(() => ({counts: [], entries: new Int32Array(1024), segments: new Int32Array(1024), logged: 0}));
  const find = (ids, p, h) => {
    const mask = slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = slots[slot];
      if (e === -1) {
        const fresh = hashes.length;
        hashes.push(h);
        for (let k = 0; k < n; k++) pool.push(ids[p + k]);
        sides[0].counts.push(0); sides[1].counts.push(0);
        slots[slot] = fresh;
        if (2 * hashes.length > slots.length) slots = doubledSlots(slots, hashes, hashes.length);
        return fresh;
      }
      if (hashes[e] !== h) continue;
      let k = 0;
      while (k < n && pool[e * n + k] === ids[p + k]) k++;
      if (k === n) return e;
    }
  };
  return {
    add(ids, p, h, diff, i) {
      const e = find(ids, p, h), side = sides[diff > 0 ? 0 : 1];
      side.counts[e] += Math.abs(diff);
      if (side.logged === side.entries.length) {
        const entries = new Int32Array(2 * side.logged), segments = new Int32Array(2 * side.logged);
        entries.set(side.entries); segments.set(side.segments);
        side.entries = entries; side.segments = segments;
      }
      side.entries[side.logged] = e; side.segments[side.logged++] = i;
    },
    list(which) {
      const side = sides[which], count = hashes.length;
      const start = new Int32Array(count + 1);                          // each n-gram's first slot in grouped
      for (let k = 0; k < side.logged; k++) start[side.entries[k] + 1]++;
      for (let e = 0; e < count; e++) start[e + 1] += start[e];
      const grouped = new Int32Array(side.logged), next = start.slice(0, count);
      for (let k = 0; k < side.logged; k++) grouped[next[side.entries[k]]++] = side.segments[k];
      const out = [];
      for (let e = 0; e < count; e++) {
        if (side.counts[e] === 0) continue;
        let gram = tokenIds.text(pool[e * n]);
        for (let k = 1; k < n; k++) gram += " " + tokenIds.text(pool[e * n + k]);
        out.push({gram, count: side.counts[e], segments: grouped.subarray(start[e], start[e + 1])});
      }
      return out;
    },
  };
}

// The tokens of every segment of the page as ids (equal ids <=> equal tokens), read
// straight from the space-joined token strings tokensOf splits (10-data.js): no token
// string is made except the first time a token is seen.
const tokenIds = (() => {
  const texts = [];
  let hashes = new Int32Array(1 << 12), lengths = new Int32Array(1 << 12);
  let slots = new Int32Array(1 << 13).fill(-1);
  const lookup = (s, begin, end, h) => {
    const mask = slots.length - 1, length = end - begin;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const id = slots[slot];
      if (id === -1) {
        const fresh = texts.length;
        texts.push(s.slice(begin, end));
        if (fresh === hashes.length) {
          const h2 = new Int32Array(2 * fresh), l2 = new Int32Array(2 * fresh);
          h2.set(hashes); l2.set(lengths); hashes = h2; lengths = l2;
        }
        hashes[fresh] = h; lengths[fresh] = length;
        slots[slot] = fresh;
        if (2 * texts.length > slots.length) slots = doubledSlots(slots, hashes, texts.length);
        return fresh;
      }
      if (hashes[id] === h && lengths[id] === length && s.startsWith(texts[id], begin)) return id;
    }
  };
  return {
    text: (id) => texts[id],
    // segment i's space-joined tokens, as tokensOf reads them ("" when it has none)
    string(stream, i) {
      const tok = stream.tokens[i];
      const s = tok === null ? stream.text[i] : tok;
      return s === null || s === undefined ? "" : s;
    },
    // The ids of the tokens of s into out from position at (room for s.length + 1 of
    // them); returns how many (as tokensOf's split: "" has none).
    read(s, out, at) {
      if (s === "") return 0;
      let h = 0x811c9dc5 | 0, begin = 0, k = at;
      for (let c = 0; c < s.length; c++) {
        const code = s.charCodeAt(c);
        if (code === 32) { out[k++] = lookup(s, begin, c, h); h = 0x811c9dc5 | 0; begin = c + 1; }
        else h = Math.imul(h ^ code, 16777619);
      }
      out[k++] = lookup(s, begin, s.length, h);
      return k - at;
    },
  };
})();

// A function (A, B, references, i, visit) that calls visit(order - 1, ids, start, hash,
// clipped matches of A − clipped matches of B) for every n-gram (ids[start..start+n),
// its hash) of segment i where
// the two differ (clipped: min(count in the output, largest count in any one
// reference), as BLEU counts matches). The segment's tokens become ids in one buffer
// (A, then B, then the references); per order, A's and B's n-grams go into a small
// open-addressing table keyed by a hash of their ids and compared id by id on a hash
// hit, so a collision never merges two n-grams. The buffers are reused across segments.
function ngramSurplus(maxOrder) {
  let ids = new Int32Array(256), hashes = new Int32Array(256), entryAt = new Int32Array(256);
  let table = new Int32Array(512);
  let start = new Int32Array(256), hashOf = new Int32Array(256), countA = new Int32Array(256),
    countB = new Int32Array(256), refMax = new Int32Array(256), refRun = new Int32Array(256),
    refStamp = new Int32Array(256);
  const grow = (array, size) => { let n = array.length; while (n < size) n *= 2; return n === array.length ? array : new Int32Array(n); };
  const refStart = [], refEnd = [], refTexts = [];
  let used = 0, mask = 0;
  // the entry of the n-gram at p in this order's table; a new one if insert, else -1
  const find = (p, n, insert) => {
    const h = hashes[p];
    let slot = h & mask;
    for (;;) {
      const e = table[slot];
      if (e === -1) break;
      if (hashOf[e] === h) {
        const q = start[e];
        let k = 0;
        while (k < n && ids[q + k] === ids[p + k]) k++;
        if (k === n) return e;
      }
      slot = (slot + 1) & mask;
    }
    if (!insert) return -1;
    const e = used++;
    start[e] = p; hashOf[e] = h; countA[e] = 0; countB[e] = 0; refMax[e] = 0; refStamp[e] = -1;
    table[slot] = e;
    return e;
  };
  return function surplus(A, B, references, i, visit) {
    const sa = tokenIds.string(A, i), sb = tokenIds.string(B, i);
    let bound = sa.length + sb.length + 2;
    refTexts.length = 0;
    for (const r of references) {                                       // as referenceTokenLists (10-data.js)
      if (r.text[i] === null) continue;
      const sr = tokenIds.string(r, i);
      refTexts.push(sr);
      bound += sr.length + 1;
    }
    if (ids.length < bound) { ids = grow(ids, bound); hashes = grow(hashes, bound); entryAt = grow(entryAt, bound); }
    const la = tokenIds.read(sa, ids, 0), lb = tokenIds.read(sb, ids, la);
    const entries = la + lb;
    if (start.length < entries) {
      start = grow(start, entries); hashOf = grow(hashOf, entries); countA = grow(countA, entries); countB = grow(countB, entries);
      refMax = grow(refMax, entries); refRun = grow(refRun, entries); refStamp = grow(refStamp, entries);
    }
    let size = 16;
    while (size < 2 * entries) size *= 2;
    table = grow(table, size);
    mask = size - 1;
    refStart.length = 0; refEnd.length = 0;
    let total = entries;
    for (const sr of refTexts) { refStart.push(total); total += tokenIds.read(sr, ids, total); refEnd.push(total); }
    // An n-gram can be matched only where its (n-1)-gram prefix is: a position takes
    // part in order n only if its (n-1)-gram is in some reference and in A or B
    // (entryAt >= 0), and every occurrence of an n-gram shares that prefix, so no
    // count is missed.
    for (let p = 0; p < total; p++) { hashes[p] = 0; entryAt[p] = 0; }
    for (let n = 1; n <= maxOrder; n++) {
      for (let p = 0; p + n <= total; p++) {                            // the n-gram's hash from the (n-1)-gram's
        if (entryAt[p] < 0) continue;
        const h = Math.imul(hashes[p] ^ ids[p + n - 1], 0x9e3779b1);
        hashes[p] = h ^ (h >>> 15);
      }
      table.fill(-1, 0, size);
      used = 0;
      for (let p = 0; p + n <= la; p++) if (entryAt[p] >= 0) countA[entryAt[p] = find(p, n, true)]++;
      for (let p = la; p + n <= entries; p++) if (entryAt[p] >= 0) countB[entryAt[p] = find(p, n, true)]++;
      if (used === 0) return;                                           // nothing of A or B left to match
      for (let r = 0; r < refStart.length; r++) {
        for (let p = refStart[r]; p + n <= refEnd[r]; p++) {
          if (entryAt[p] < 0) continue;
          const e = entryAt[p] = find(p, n, false);
          if (e < 0) continue;
          if (refStamp[e] !== r) { refStamp[e] = r; refRun[e] = 0; }
          if (++refRun[e] > refMax[e]) refMax[e] = refRun[e];
        }
      }
      for (let p = 0; p < entries; p++) if (entryAt[p] >= 0 && refMax[entryAt[p]] === 0) entryAt[p] = -1;
      for (let e = 0; e < used; e++) {
        const diff = Math.min(countA[e], refMax[e]) - Math.min(countB[e], refMax[e]);
        if (diff !== 0) visit(n - 1, ids, start[e], hashOf[e], diff);
      }
    }
  };
}

function ngramSegments(d) {
  const r = ngramCache.key === state.a + ":" + state.b ? ngramCache.result : null;
  if (!r) { computeNgramDiffs(d).then(() => { filterCache.key = null; update(); }); return new Set(); }
  const side = r[state.ngramOrder - 1][state.ngramSide === "b" ? "b" : "a"];
  const entry = side.find((e) => e.gram === state.ngram);
  return new Set(entry ? entry.segments : []);
}

function renderCompare(root, d) {
  const A = d.systems[state.a], B = d.systems[state.b];
  const indices = currentIndices(d);
  const metric = compareMetric(d);                                      // 62-compare-metrics.js
  const name = markInvisible(metric.name), digits = metric.digits;  // a metric name may be any text
  const delta = metric.score(state.b) - metric.score(state.a);
  root.appendChild(el("section", {class: "card"}, el("h2", null, "A versus B"),
    el("p", null, "A = ", el("b", {class: "sys-a"}, text(A.name)), ` (${name} ${pyFixed(metric.score(state.a), digits)}), B = `,
      el("b", {class: "sys-b"}, text(B.name)), ` (${name} ${pyFixed(metric.score(state.b), digits)}): corpus Δ${name} (B − A) = `,
      el("b", {"data-value": "corpus-delta"}, signed(delta, digits)), " ", metricSelector(d)),
    isFiltered() ? el("p", {class: "note"}, "A filter is active (see Segments); the tables below follow it where they say so.") : null,
    // BLEU's page: BLEU of the filter; several metrics: every metric's (42-metric-subsets.js)
    d.metrics ? (isFiltered() ? renderMetricSubset(d, indices) : null) : renderSubsetSummary(d, indices)));
  renderMetricDeltas(root, d);

  // contributions
  const {best, worst} = extremeContributions(d, metric, indices, 12);
  const contributionTable = () => ({columns: [{label: "segment", numeric: true}, {label: "contribution to Δ", numeric: true},
    {label: `sentence ${name} A`, numeric: true}, {label: `sentence ${name} B`, numeric: true}, {label: "output B"}],
  rows: best.concat(worst).map(({i, c}) => [String(i + 1), signed(c, digits + 2), pyFixed(metric.sentence(state.a, i), digits), pyFixed(metric.sentence(state.b, i), digits), B.text[i]])});
  const chart = horizontalBarChart({valueLabel: `Δ corpus ${name} explained by the segment (Δ with it − Δ without it)`,
    rows: best.concat(worst.filter((w) => !best.includes(w))).map(({i, c}) => ({label: `#${i + 1} ${B.text[i]}`, value: c, text: signed(c, digits + 1), i,
      color: deltaColor(metric, c), attrs: {"data-segment": i}})),
    onClick: (r) => selectSegment(r.i, true)});
  chart.setAttribute("data-chart", "contributions");
  root.appendChild(el("section", {class: "card", id: "contributions", "data-metric": name}, el("h2", null, `Segments that move the corpus difference most (${name})`),
    el("p", {class: "note"}, COMPARE_HELP + ` Bars in B's colour favour B (${metric.higherIsBetter ? "higher" : "lower"} ${name} is better), in A's colour favour A. Click a bar to open the segment.` + (isFiltered() ? " Among the filtered segments." : "")),
    el("div", {class: "toolbar"}, svgExportButton(() => chart, "contributions"), exportButtons(contributionTable, "contributions", `Segments with the largest contributions to the corpus ${name} difference`)),
    chart));

  // documents
  if (d.documents && metric.document) {
    const docs = d.documents;
    const order = docs.names.map((_, k) => k);
    const counts = new Array(docs.names.length).fill(0);
    for (const k of docs.index) counts[k]++;
    const docDelta = (k) => metric.document(state.b, k) - metric.document(state.a, k);
    const magnitude = (k) => { const v = Math.abs(docDelta(k)); return Number.isNaN(v) ? -1 : v; };
    order.sort((x, y) => magnitude(y) - magnitude(x) || x - y);
    const docTable = () => ({columns: [{label: "document"}, {label: "segments", numeric: true}, {label: `${name} A`, numeric: true}, {label: `${name} B`, numeric: true}, {label: "Δ (B − A)", numeric: true}],
      rows: order.map((k) => [docs.names[k], String(counts[k]), pyFixed(metric.document(state.a, k), digits), pyFixed(metric.document(state.b, k), digits), signed(docDelta(k), digits)])});
    const t = docTable();
    const nodes = order.map((k, r) => [el("button", {type: "button", class: "link", onclick: () => { state.doc = docs.names[k]; state.view = "segments"; state.seg = null; update(); }}, text(docs.names[k])), ...t.rows[r].slice(1)]);
    root.appendChild(el("section", {class: "card", id: "documents", "data-metric": name}, el("h2", null, `Documents ranked by |Δ${name}|`),
      el("p", {class: "note"}, `A document's ${name} is the corpus ${name} of its segments. Click a document to browse its segments.`),
      el("div", {class: "toolbar"}, exportButtons(docTable, "documents", `Documents ranked by ${name} difference`)),
      el("div", {class: "scroll-y"}, renderTable({columns: t.columns, rows: t.rows, nodes}, {class: "documents", rowAttrs: (r) => ({"data-doc": order[r]})}))));
  }
  if (!metric.isBleu) {
    if (!bleuShown(d)) return;                                          // a page without BLEU says nothing of it
    root.appendChild(el("p", {class: "note", id: "bleu-only"}, "BLEU's n-gram differences and its length and frequency buckets are shown with BLEU chosen above."));
    return;
  }

  // n-gram differences
  const ngramSection = el("section", {class: "card", id: "ngram-diffs"}, el("h2", null, "N-grams one system matches and the other misses"),
    el("p", {class: "note"}, "Per segment, the clipped matches of each n-gram by A and by B; the table adds up the surplus over all segments. Click an n-gram to see its segments."),
    el("p", {class: "muted"}, "computing…"));
  root.appendChild(ngramSection);
  computeNgramDiffs(d, (i) => { const p = ngramSection.querySelector(".muted"); if (p) p.textContent = `computing… ${i} / ${d.n_segments}`; })
    .then((diffs) => { if (document.body.contains(ngramSection)) fillNgramSection(ngramSection, d, diffs); });

  // buckets
  root.appendChild(bucketSection(d, "length", "BLEU by reference length (tokens of the first reference)", "BLEU", d.buckets.length.bleu, d.buckets.length.ci, d.buckets.length.segments, "segments"));
  root.appendChild(bucketSection(d, "frequency", "Word F-measure by frequency in the references (compare-mt's analysis)", "F1 (%)", d.buckets.frequency.f, d.buckets.frequency.ci, d.buckets.frequency.ref_words, "reference words"));
}

// The k segments with the largest and the k with the smallest contribution, in
// one pass (no sort of the whole list: a corpus may have 200k segments).
function extremeContributions(d, metric, indices, k) {
  const best = [], worst = [];
  const insert = (list, item, before) => {
    let pos = list.length;
    while (pos > 0 && before(item, list[pos - 1])) pos--;
    if (pos < k) { list.splice(pos, 0, item); if (list.length > k) list.pop(); }
  };
  for (const i of indices) {
    const item = {i, c: metricContribution(metric, i)};
    if (Number.isNaN(item.c)) continue;
    if (best.length < k || item.c > best[best.length - 1].c) insert(best, item, (x, y) => x.c > y.c || (x.c === y.c && x.i < y.i));
    if (worst.length < k || item.c < worst[worst.length - 1].c) insert(worst, item, (x, y) => x.c < y.c || (x.c === y.c && x.i > y.i));
  }
  return {best, worst};
}

function fillNgramSection(section, d, diffs) {
  const muted = section.querySelector(".muted");
  if (muted) muted.remove();
  const n = state.ngramOrder;
  const tabs = el("div", {class: "orders"}, "order: ");
  for (let k = 1; k <= d.max_order; k++) tabs.appendChild(el("button", {type: "button", class: "small" + (k === n ? " active" : ""), "data-ngram-order": k,
    onclick: () => { state.ngramOrder = k; writeHash(); rerenderNgrams(section, d, diffs); }}, String(k)));
  const A = d.systems[state.a], B = d.systems[state.b];
  const side = (key, label) => {
    const rows = diffs[n - 1][key].slice(0, 25);
    const table = () => ({columns: [{label: `${n}-gram`}, {label: "surplus matches", numeric: true}, {label: "segments", numeric: true}],
      rows: rows.map((e) => [e.gram, String(e.count), String(e.segments.length)])});
    const nodes = rows.map((e) => [el("button", {type: "button", class: "link", "data-ngram": e.gram, onclick: () => {
      Object.assign(state, {ngram: e.gram, ngramOrder: n, ngramSide: key, view: "segments", seg: e.segments[0]}); update(); }}, text(e.gram)), String(e.count), String(e.segments.length)]);
    return el("div", {class: "half"}, el("h3", null, label), el("div", {class: "toolbar"}, exportButtons(table, `ngrams-${key}-${n}`, label)),
      renderTable({columns: table().columns, rows: table().rows, nodes}, {class: "compact ngrams-" + key}));
  };
  section.append(tabs, el("div", {class: "halves"},
    side("a", `matched by A (${A.name}) more often than by B`), side("b", `matched by B (${B.name}) more often than by A`)));
}

function rerenderNgrams(section, d, diffs) {
  const keep = Array.from(section.children).slice(0, 2);
  clear(section).append(...keep);
  fillNgramSection(section, d, diffs);
}

function bucketSection(d, key, title, yLabel, values, cis, sizes, sizeLabel) {
  const labels = d.buckets[key].labels;
  const series = [state.a, state.b].map((k, j) => ({name: (j ? "B: " : "A: ") + d.systems[k].name, values: values[k], ci: cis[k], color: j ? COLOR_B : COLOR_A}));
  const chart = groupedBarChart({labels, series, yLabel});
  const table = () => ({columns: [{label: "bucket"}, {label: sizeLabel, numeric: true},
    ...d.systems.map((s) => ({label: s.name, numeric: true}))],
  rows: labels.map((label, b) => [label, String(sizes[b]), ...d.systems.map((s, k) => values[k][b] === null ? "–" : `${pyFixed(values[k][b], 2)} ± ${pyFixed(cis[k][b], 2)}`)])});
  return el("section", {class: "card", id: "buckets-" + key}, el("h2", null, title),
    el("p", {class: "note"}, `Bars: A and B; whiskers: 95% bootstrap interval (${d.significance.n_samples} samples, seed ${d.significance.seed}). The table lists every system.`),
    el("div", {class: "toolbar"}, svgExportButton(() => chart, "buckets-" + key), exportButtons(table, "buckets-" + key, title)),
    chart, el("div", {class: "scroll-x"}, renderTable(table(), {class: "compact"})));
}
