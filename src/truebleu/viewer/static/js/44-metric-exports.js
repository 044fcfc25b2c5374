// Exports of every metric's views (TSV, LaTeX and SVG, with the page's helpers in
// 00-util.js): any metric's scores with their intervals as a chart, the metrics'
// pairwise agreement as a heat map, and the filtered segment list with every
// metric's columns. Each export is built from the same data as what the page shows.

// One metric's score of every system with its 95% interval (state.mChart picks the
// metric; the first chosen by default), in the systems view's order.
function renderMetricChart(root, d, order) {
  const j = state.mChart >= 0 && state.mChart < d.metrics.list.length ? state.mChart : 0;
  const m = d.metrics.list[j];
  const chart = horizontalBarChart({
    valueLabel: `${m.name} with 95% interval`,
    rows: order.map((k) => ({label: d.systems[k].name, value: m.score[k], ci: m.ci[k], text: pyFixed(m.score[k], metricDigits(m)),
      color: k === state.a ? "#d1722e" : k === state.b ? "#4a9b5a" : "#3b6fb6"})),
  });
  const choose = el("select", {"data-control": "metric-chart", onchange: (e) => { state.mChart = Number(e.target.value); update(); }},
    d.metrics.list.map((x, i) => el("option", {value: i, selected: i === j}, text(x.name))));
  root.appendChild(el("section", {class: "card", id: "metric-chart"}, el("h2", null, text(m.name), " and confidence intervals"),
    el("div", {class: "toolbar"}, el("label", null, "metric ", choose), " ", svgExportButton(() => chart, "metric-systems")), chart));
}

// The agreement panel's pairs as a metrics × metrics grid of pairwise accuracy (τ below it).
function agreementHeatmap(a) {
  const names = a.metrics, n = names.length, cell = 64, left = 130, top = 24;
  const width = left + n * cell + 10, height = top + n * cell + 10;
  const svg = svgEl("svg", {width, height, viewBox: `0 0 ${width} ${height}`, class: "chart heatmap", role: "img"});
  const at = new Map(a.pairs.map((p) => [p.a + "\u0000" + p.b, p]).concat(a.pairs.map((p) => [p.b + "\u0000" + p.a, p])));
  names.forEach((name, c) => {
    const label = name.length > 12 ? name.slice(0, 11) + "\u2026" : name;
    svg.appendChild(svgEl("text", {x: left + c * cell + cell / 2, y: 14, "text-anchor": "middle", "font-size": 11, fill: "#222"}, markInvisible(label)));
    svg.appendChild(svgEl("text", {x: left - 6, y: top + c * cell + cell / 2 + 4, "text-anchor": "end", "font-size": 11, fill: "#222"}, markInvisible(label)));
  });
  names.forEach((row, r) => names.forEach((col, c) => {
    const pair = r === c ? null : at.get(row + "\u0000" + col);
    const accuracy = pair ? pair.accuracy : null;
    const shade = accuracy === null ? "#f2f2f2" : `hsl(${Math.round(120 * accuracy)}, 55%, ${Math.round(88 - 30 * accuracy)}%)`;
    const x = left + c * cell, y = top + r * cell;
    const rect = svgEl("rect", {x, y, width: cell - 2, height: cell - 2, fill: shade});
    if (pair) rect.appendChild(svgEl("title", null, markInvisible(`${row} and ${col}: ${pair.agreeing}/${pair.system_pairs} system pairs ordered alike`)));
    svg.appendChild(rect);
    if (pair) {
      svg.appendChild(svgEl("text", {x: x + cell / 2 - 1, y: y + cell / 2 - 2, "text-anchor": "middle", "font-size": 12, fill: "#111", "data-value": "accuracy"}, pyFixed(accuracy, 3)));
      svg.appendChild(svgEl("text", {x: x + cell / 2 - 1, y: y + cell / 2 + 13, "text-anchor": "middle", "font-size": 10, fill: "#444"}, "\u03c4 " + pyFixed(pair.tau, 2)));
    }
  }));
  return svg;
}

// The filtered segment list as a table: what each row of the list shows, every metric's columns.
function segmentListTable(d, indices) {
  const A = d.systems[state.a], B = d.systems[state.b], bleu = bleuShown(d), disagree = !!sortKeys(d).disagree;
  const columns = [{label: "segment", numeric: true}];
  if (d.documents) columns.push({label: "document"});
  if (bleu) columns.push({label: "BLEU A", numeric: true}, {label: "BLEU B", numeric: true}, {label: "\u0394BLEU", numeric: true}, {label: "contribution", numeric: true});
  columns.push({label: "reference length", numeric: true});
  const listed = listedMetrics(d);                                     // 45-metric-segments.js
  const single = singleSystem(d);                                      // one system: its scores, no B
  for (const {m} of listed) {
    if (single) columns.push({label: m.name, numeric: true});
    else columns.push({label: `${m.name} A`, numeric: true}, {label: `${m.name} B`, numeric: true}, {label: `\u0394${m.name}`, numeric: true});
  }
  if (disagree) columns.push({label: "disagreement", numeric: true});
  columns.push(...(single ? [{label: "output"}] : [{label: "output A"}, {label: "output B"}]));
  const rows = Array.from(indices, (i) => {
    const row = [String(i + 1)];
    if (d.documents) row.push(d.documents.names[d.documents.index[i]]);
    if (bleu) row.push(pyFixed(A.sent[i], 1), pyFixed(B.sent[i], 1), signed(B.sent[i] - A.sent[i], 1), signed(contribution(d, i), 4));
    row.push(String(d.firstRefLen[i]));
    for (const {m} of listed) {
      const digits = sentenceDigits(m);
      if (single) row.push(pyFixed(sentenceOf(m, state.a, i), digits));
      else row.push(pyFixed(sentenceOf(m, state.a, i), digits), pyFixed(sentenceOf(m, state.b, i), digits), signed(metricDelta(m, i), digits));
    }
    if (disagree) row.push(pyFixed(disagreement(d, i), 2));
    row.push(...(single ? [A.text[i]] : [A.text[i], B.text[i]]));
    return row;
  });
  return {columns, rows};
}

function segmentListExports(d) {
  return el("span", {class: "segment-exports"}, "export the list ",
    exportButtons(() => segmentListTable(d, currentIndices(d)), "segments", "The filtered segments of A and B"));
}
