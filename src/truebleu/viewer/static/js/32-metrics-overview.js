// Every metric of a report built with -m or --scores: one column group per
// metric (score, 95% interval, significance cluster: the metric's own tests),
// sortable by any column, and the metrics' agreement (pairwise accuracy and
// Kendall's tau over systems; with a gold metric, WMT's figures against it).
// Every number is the Python API's (viewer/metrics_model.py); none is computed here.

// An external metric's scores are often in [0, 1]: four decimals; BLEU, chrF, TER: two.
function metricDigits(m) { return m.external ? 4 : 2; }

function metricLabel(m) { return m.name + (m.higher_is_better ? " \u2191" : " \u2193"); }

// Columns: System, then per metric its score, interval half-width and cluster.
function metricColumns(d) {
  const columns = [{key: "name", label: "System", value: (k) => d.systems[k].name}];
  d.metrics.list.forEach((m, j) => {
    columns.push(
      {key: `m${j}`, label: metricLabel(m), numeric: true, metric: j, value: (k) => m.score[k],
        title: (m.higher_is_better ? "higher is better" : "lower is better") + (m.signature ? " · " + m.signature : "")},
      {key: `m${j}ci`, label: m.name + " 95% CI ±", numeric: true, value: (k) => m.ci[k], title: "half-width of the bootstrap 95% interval"},
      {key: `m${j}cl`, label: m.name + " cluster", numeric: true, value: (k) => m.cluster[k],
        title: "systems in one cluster are not significantly different by this metric"});
  });
  return columns;
}

function metricRows(d, columns) {
  const col = columns.find((c) => c.key === state.mSort) || columns[1];
  const order = d.systems.map((s, k) => k);
  order.sort((x, y) => {
    const a = col.value(x), b = col.value(y);
    const c = typeof a === "string" ? compareText(a, b) : (a === null) - (b === null) || (a - b);
    return (c || x - y) * state.mDir;
  });
  return order;
}

function metricTable(d, columns, order) {
  return {
    columns,
    rows: order.map((k) => [d.systems[k].name, ...d.metrics.list.flatMap((m) =>
      [pyFixed(m.score[k], metricDigits(m)), pyFixed(m.ci[k], metricDigits(m)), String(m.cluster[k])])]),
  };
}

// The direction of a first click: best first for a score, smallest first otherwise.
function firstDirection(d, column) {
  if (column.metric === undefined) return column.key === "name" ? 1 : column.key.endsWith("ci") ? -1 : 1;
  return d.metrics.list[column.metric].higher_is_better ? -1 : 1;
}

// With `picks` (a page without BLEU, whose own table has them) each name has the A and B
// pickers; returns the systems in the table's order.
function renderMetricsOverview(root, d, picks) {
  const columns = metricColumns(d);
  const order = metricRows(d, columns);
  const table = metricTable(d, columns, order);
  const info = d.metrics;
  const testName = info.test === "bs" ? "paired bootstrap" : "approximate randomization";
  const nodes = order.map((k, r) => table.rows[r].map((cell, c) => {
    if (c === 0) return el("span", {class: "name"}, picks ? systemPicks(k, order) : null, text(cell));
    if (c % 3 === 0) return el("span", {class: "cluster c" + (Number(cell) % 6)}, cell);
    return cell;
  }));
  const colIndex = columns.findIndex((c) => c.key === state.mSort);
  const tableEl = renderTable({columns, rows: table.rows, nodes}, {
    sortable: true, sortKey: colIndex < 0 ? 1 : colIndex, sortDir: state.mDir, class: "metrics",
    rowAttrs: (i) => ({class: (order[i] === state.a ? "is-a " : "") + (order[i] === state.b ? "is-b" : ""), "data-system": order[i]}),
    onSort: (c) => {
      const key = columns[c].key;
      state.mDir = state.mSort === key || (state.mSort === "" && c === 1) ? -state.mDir : firstDirection(d, columns[c]);
      state.mSort = key; update();
    },
  });
  root.appendChild(el("section", {class: "card", id: "metrics-card"},
    el("h2", null, "Every metric"),
    el("p", {class: "note"}, `Each metric ranks the systems with its own tests (${testName}, ${info.n_samples} samples, seed ${info.seed}); `
      + "a cluster holds systems that metric does not separate significantly. \u2191: higher is better, \u2193: lower is better. Click a column to sort."),
    el("div", {class: "toolbar"}, exportButtons(() => metricTable(d, columns, metricRows(d, columns)), "metrics", "Every metric of each system")),
    el("div", {class: "scroll-x"}, tableEl)));
  if (info.agreement) renderAgreement(root, info.agreement);
  return order;
}

// Radio buttons choosing system k as A or B (the other moves to the next system of `order`).
function systemPicks(k, order) {
  const pick = (which) => el("input", {type: "radio", name: "pick-" + which, title: `use as system ${which.toUpperCase()}`,
    checked: state[which] === k, onchange: () => { state[which] = k; if (state.a === state.b) state[which === "a" ? "b" : "a"] = order.find((x) => x !== k); update(); }});
  return el("span", {class: "picks"}, pick("a"), pick("b"));
}

function fraction(part, whole) { return `${part}/${whole}`; }

function agreementTable(a) {
  return {
    columns: [{label: "Metric"}, {label: "Metric"}, {label: "Pairwise accuracy", numeric: true},
      {label: "System pairs ordered alike", numeric: true}, {label: "Kendall \u03c4", numeric: true}],
    rows: a.pairs.map((p) => [p.a, p.b, pyFixed(p.accuracy, 3), fraction(p.agreeing, p.system_pairs), pyFixed(p.tau, 3)]),
  };
}

function goldTable(a) {
  return {
    columns: [{label: "Metric"}, {label: "Accuracy (pairs the gold separates)", numeric: true}, {label: "Pairs", numeric: true},
      {label: "Accuracy (all pairs)", numeric: true}, {label: "Kendall \u03c4 (systems)", numeric: true},
      {label: "Kendall \u03c4 (segments)", numeric: true}, {label: "acc23 (segments)", numeric: true}],
    rows: a.against_gold.map((g) => [g.metric, pyFixed(g.accuracy_significant, 3), fraction(g.agreeing_significant, g.significant_pairs),
      pyFixed(g.accuracy, 3), pyFixed(g.tau, 3), pyFixed(g.segment_tau, 3), pyFixed(g.acc23, 3)]),
  };
}

function agreementTestsTable(a) {
  return {
    columns: [{label: "Better"}, {label: "Worse"}, {label: "Statistic"}, {label: "Better's", numeric: true},
      {label: "Worse's", numeric: true}, {label: "p", numeric: true}],
    rows: a.tests.map((t) => [t.better, t.worse, t.statistic, pyFixed(t.better_value, 3), pyFixed(t.worse_value, 3), pyFixed(t.p, 4)]),
  };
}

function renderAgreement(root, a) {
  const card = el("section", {class: "card", id: "agreement"},
    el("h2", null, "Metric agreement"),
    el("p", {class: "note"}, "For every pair of metrics: the share of system pairs both order the same way (pairwise accuracy) and Kendall's \u03c4 over the systems' scores."),
    el("div", {class: "toolbar"}, exportButtons(() => agreementTable(a), "metric-agreement", "Agreement of the metrics over systems")),
    el("div", {class: "scroll-x"}, renderTable(agreementTable(a), {class: "agreement"})));
  const heatmap = agreementHeatmap(a);                                  // 44-metric-exports.js
  card.appendChild(el("div", {class: "toolbar"}, "pairwise accuracy (Kendall τ below) ", svgExportButton(() => heatmap, "metric-agreement")));
  card.appendChild(heatmap);
  if (a.gold !== null) {
    card.appendChild(el("h3", null, "Against the gold: ", text(a.gold)));
    card.appendChild(el("p", {class: "note"}, "WMT's pairwise accuracy counts only the system pairs the gold's own test separates significantly; "
      + `segment-level Kendall \u03c4 and WMT23's tie-calibrated accuracy (acc23) compare segment scores (grouped by ${a.grouping}).`));
    card.appendChild(el("div", {class: "toolbar"}, exportButtons(() => goldTable(a), "gold-agreement", "Agreement of each metric with the gold")));
    card.appendChild(el("div", {class: "scroll-x"}, renderTable(goldTable(a), {class: "gold"})));
    if (a.tests.length) {
      card.appendChild(el("p", {class: "note"}, `Does one metric agree with the gold significantly better than another? Permutation tests (${a.n_permutations} permutations, \u03b1 = ${a.alpha}).`));
      card.appendChild(el("div", {class: "toolbar"}, exportButtons(() => agreementTestsTable(a), "agreement-tests", "Permutation tests between metrics")));
      card.appendChild(el("div", {class: "scroll-x"}, renderTable(agreementTestsTable(a), {class: "agreement-tests"})));
    }
  }
  root.appendChild(card);
}
