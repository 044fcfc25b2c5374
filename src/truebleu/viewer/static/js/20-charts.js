// Charts as plain SVG built with createElementNS (exportable as .svg files).

const PALETTE = ["#3b6fb6", "#d1722e", "#4a9b5a", "#8e5ba8", "#b8a13a", "#5aa5b8"];

function niceMax(x) {
  if (!(x > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(x)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

// Grouped vertical bars with 95% whiskers: labels on x, one series per system.
function groupedBarChart({labels, series, yLabel, height = 220}) {
  const left = 44, right = 10, top = 18, bottom = 42;
  const group = Math.max(28, series.length * 16 + 12);
  const width = left + right + labels.length * group;
  let max = 0;
  for (const s of series) s.values.forEach((v, k) => { if (v !== null) max = Math.max(max, v + (s.ci && s.ci[k] ? s.ci[k] : 0)); });
  max = niceMax(max);
  const y = (v) => top + (height - top - bottom) * (1 - v / max);
  const svg = svgEl("svg", {width, height, viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img"});
  for (let t = 0; t <= 4; t++) {
    const v = max * t / 4;
    svg.appendChild(svgEl("line", {x1: left, x2: width - right, y1: y(v), y2: y(v), stroke: "#e3e3e3"}));
    svg.appendChild(svgEl("text", {x: left - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 10, fill: "#555"}, pyFixed(v, max < 10 ? 1 : 0)));
  }
  svg.appendChild(svgEl("text", {x: 10, y: 12, "font-size": 10, fill: "#555"}, yLabel || ""));
  const bar = (group - 12) / series.length;
  labels.forEach((label, k) => {
    const x0 = left + k * group + 6;
    series.forEach((s, j) => {
      const v = s.values[k];
      if (v === null || v === undefined) return;
      const x = x0 + j * bar;
      const r = svgEl("rect", {x, y: y(v), width: Math.max(1, bar - 2), height: y(0) - y(v), fill: s.color || PALETTE[j % PALETTE.length]});
      r.appendChild(svgEl("title", null, `${s.name}: ${pyFixed(v, 2)}` + (s.ci && s.ci[k] !== null ? ` ± ${pyFixed(s.ci[k], 2)}` : "")));
      svg.appendChild(r);
      if (s.ci && s.ci[k]) {
        const cx = x + (bar - 2) / 2;
        svg.appendChild(svgEl("line", {x1: cx, x2: cx, y1: y(v + s.ci[k]), y2: y(Math.max(0, v - s.ci[k])), stroke: "#222"}));
      }
    });
    svg.appendChild(svgEl("text", {x: x0 + (group - 12) / 2, y: height - bottom + 14, "text-anchor": "middle", "font-size": 10, fill: "#333"}, label));
  });
  series.forEach((s, j) => {
    const x = left + j * 150;
    svg.appendChild(svgEl("rect", {x, y: height - 16, width: 10, height: 10, fill: s.color || PALETTE[j % PALETTE.length]}));
    svg.appendChild(svgEl("text", {x: x + 14, y: height - 7, "font-size": 10, fill: "#333"}, s.name.length > 22 ? s.name.slice(0, 21) + "\u2026" : s.name));
  });
  return svg;
}

// Horizontal bars (one per row) around zero or from zero, with optional whiskers.
function horizontalBarChart({rows, valueLabel, onClick}) {
  const rowH = 18, left = 300, right = 60, top = 20;
  const width = 900, height = top + rows.length * rowH + 10;
  let lo = 0, hi = 0;
  for (const r of rows) { lo = Math.min(lo, r.value - (r.ci || 0)); hi = Math.max(hi, r.value + (r.ci || 0)); }
  const span = Math.max(hi - lo, 1e-9);
  const x = (v) => left + (width - left - right) * (v - lo) / span;
  const svg = svgEl("svg", {width, height, viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img"});
  svg.appendChild(svgEl("text", {x: left, y: 12, "font-size": 10, fill: "#555"}, valueLabel || ""));
  svg.appendChild(svgEl("line", {x1: x(0), x2: x(0), y1: top - 4, y2: height - 6, stroke: "#999"}));
  rows.forEach((r, k) => {
    const yy = top + k * rowH;
    const label = r.label.length > 44 ? r.label.slice(0, 43) + "\u2026" : r.label;
    svg.appendChild(svgEl("text", {x: left - 6, y: yy + 12, "text-anchor": "end", "font-size": 11, fill: "#222"}, markInvisible(label)));
    const x0 = Math.min(x(0), x(r.value)), w = Math.max(1, Math.abs(x(r.value) - x(0)));
    // r.attrs (data-* attributes) mark the bar and its number, for tests and the curious
    const rect = svgEl("rect", {x: x0, y: yy + 3, width: w, height: rowH - 6, fill: r.color || (r.value >= 0 ? COLOR_B : COLOR_A), class: onClick ? "clickable" : null, ...r.attrs});
    rect.appendChild(svgEl("title", null, markInvisible(r.label) + ": " + pyFixed(r.value, 3)));
    if (onClick) rect.addEventListener("click", () => onClick(r));
    svg.appendChild(rect);
    if (r.ci) {
      svg.appendChild(svgEl("line", {x1: x(r.value - r.ci), x2: x(r.value + r.ci), y1: yy + rowH / 2, y2: yy + rowH / 2, stroke: "#222"}));
    }
    svg.appendChild(svgEl("text", {x: width - right + 4, y: yy + 12, "font-size": 10, fill: "#333", class: "value", ...r.attrs}, r.text || pyFixed(r.value, 2)));
  });
  return svg;
}
