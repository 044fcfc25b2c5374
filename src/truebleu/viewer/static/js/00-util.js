// Small helpers shared by every view. Text from the inputs only ever enters
// the page through document.createTextNode (el() and text()), never as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";
// A's and B's colours wherever the page draws them (app.css has the same as --a and --b)
const COLOR_A = "#d1722e", COLOR_B = "#4a9b5a";

// Control, bidi and other invisible characters are shown as visible marks so
// that a segment reads literally (and an override cannot reorder the page).
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function markInvisible(s) {
  return s.replace(INVISIBLE, (c) => "\u27e8U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "\u27e9");
}

// el("div", {class: "x", onclick: fn}, child, "text", ...)
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  for (const child of children) append(node, child);
  return node;
}

function svgEl(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  for (const child of children) append(node, child);
  return node;
}

function setAttrs(node, attrs) {
  if (!attrs) return;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") Object.assign(node.style, value);  // CSSOM: allowed under the CSP
    else node.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(node, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) { for (const c of child) append(node, c); return; }
  node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
}

// A text node for input text, with invisible characters made visible.
function text(s) {
  return document.createTextNode(s === null || s === undefined ? "" : markInvisible(String(s)));
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

// Python's format(x, ".{digits}f"): round half to even on the exact binary
// value (JavaScript's toFixed rounds exact ties up), so the page shows the
// digits that Python would print for the same double.
function pyFixed(x, digits) {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const negative = x < 0 || Object.is(x, -0);
  const exact = Math.abs(x).toFixed(100);           // exact decimal expansion of the double
  const dot = exact.indexOf(".");
  const intPart = exact.slice(0, dot);
  const frac = exact.slice(dot + 1);
  let kept = intPart + frac.slice(0, digits);
  const rest = frac.slice(digits);
  const first = rest.charCodeAt(0) - 48;
  const tail = rest.slice(1).replace(/0+$/, "");
  const lastKept = kept.charCodeAt(kept.length - 1) - 48;
  const roundUp = first > 5 || (first === 5 && (tail.length > 0 || lastKept % 2 === 1));
  if (roundUp) kept = incrementDecimal(kept);
  const cut = kept.length - digits;
  let out = digits > 0 ? kept.slice(0, cut) + "." + kept.slice(cut) : kept;
  out = out.replace(/^0+(?=\d)/, "");
  return (negative ? "-" : "") + out;
}

// "p = 0.0123": the twin of truebleu.significance.pvalues.format_p_value. Four
// decimals, more when rounding would put the number on the other side of alpha
// than p itself (p = 0.04995 is "0.04995", never "0.0500" beside a significance mark).
function formatPValue(p, alpha, digits = 4, label = "p") {
  const significant = p < alpha;
  let shown = digits;
  while (shown < 30 && (Number(pyFixed(p, shown)) < alpha) !== significant) shown++;
  return `${label} = ${pyFixed(p, shown)}`;
}

function incrementDecimal(digits) {
  const chars = digits.split("");
  let i = chars.length - 1;
  while (i >= 0) {
    if (chars[i] === "9") { chars[i] = "0"; i--; }
    else { chars[i] = String.fromCharCode(chars[i].charCodeAt(0) + 1); return chars.join(""); }
  }
  return "1" + chars.join("");
}

function signed(x, digits) {
  const s = pyFixed(x, digits);
  return x > 0 && s !== pyFixed(0, digits) ? "+" + s : s;
}

function download(filename, mime, content) {
  const blob = new Blob([content], {type: mime});
  const url = URL.createObjectURL(blob);
  const a = el("a", {href: url, download: filename});
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Tables as data: {columns: [{label, latex?}], rows: [[cell, ...]]} with cells as shown.
function tableTSV(table) {
  // every character that may end a line somewhere (a NEL or U+2028 in a name must not split a row)
  const clean = (c) => String(c).replace(/[\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/g, " ");
  return [table.columns.map((c) => clean(c.label)), ...table.rows.map((r) => r.map(clean))]
    .map((r) => r.join("\t")).join("\n") + "\n";
}

function latexEscape(s) {
  return String(s).replace(/[\\{}$&#^_%~]/g, (c) => ({
    "\\": "\\textbackslash{}", "{": "\\{", "}": "\\}", "$": "\\$", "&": "\\&", "#": "\\#",
    "^": "\\textasciicircum{}", "_": "\\_", "%": "\\%", "~": "\\textasciitilde{}"}[c]));
}

function tableLaTeX(table, caption) {
  const align = table.columns.map((c) => c.numeric ? "r" : "l").join("");
  const lines = ["\\begin{table}", "\\centering", `\\begin{tabular}{${align}}`, "\\hline",
    table.columns.map((c) => latexEscape(c.label)).join(" & ") + " \\\\", "\\hline"];
  for (const row of table.rows) lines.push(row.map(latexEscape).join(" & ") + " \\\\");
  lines.push("\\hline", "\\end{tabular}");
  if (caption) lines.push(`\\caption{${latexEscape(caption)}}`);
  lines.push("\\end{table}");
  return lines.join("\n") + "\n";
}

function exportButtons(getTable, basename, caption) {
  return el("span", {class: "exports"},
    el("button", {type: "button", class: "small", onclick: () => download(basename + ".tsv", "text/tab-separated-values", tableTSV(getTable()))}, "TSV"),
    el("button", {type: "button", class: "small", onclick: () => download(basename + ".tex", "application/x-tex", tableLaTeX(getTable(), caption))}, "LaTeX"));
}

function svgExportButton(getSvg, basename) {
  return el("button", {type: "button", class: "small", onclick: () => {
    const svg = getSvg().cloneNode(true);
    svg.setAttribute("xmlns", SVG_NS);
    download(basename + ".svg", "image/svg+xml", new XMLSerializer().serializeToString(svg));
  }}, "SVG");
}

// A table element from the same data as the exports; cells may be nodes.
function renderTable(table, options = {}) {
  const head = el("tr", null, table.columns.map((c, k) => el("th", {
    class: (c.numeric ? "num " : "") + (options.sortable ? "sortable" : ""),
    title: c.title || null,
    onclick: options.sortable ? () => options.onSort(k) : null,
    "aria-sort": options.sortKey === k ? (options.sortDir > 0 ? "ascending" : "descending") : null,
  }, text(c.label), options.sortKey === k ? (options.sortDir > 0 ? " \u25b2" : " \u25bc") : "")));
  const body = (table.nodes || table.rows).map((row, i) => el("tr", options.rowAttrs ? options.rowAttrs(i) : null,
    row.map((cell, k) => el("td", {class: table.columns[k].numeric ? "num" : null}, cell instanceof Node ? cell : text(cell)))));
  return el("table", {class: "data " + (options.class || "")}, el("thead", null, head), el("tbody", null, body));
}

// Yield to the browser between chunks of a long computation (no long tasks).
function nextFrame() { return new Promise((resolve) => setTimeout(resolve, 0)); }

// Run fn(0..n-1), yielding to the browser whenever ~12 ms have passed, so that
// no task is long whatever the size of the corpus or the speed of the machine.
async function chunked(n, fn, budgetMs = 12) {
  let deadline = performance.now() + budgetMs;
  for (let i = 0; i < n; i++) {
    fn(i);
    if ((i & 31) === 31 && performance.now() > deadline) {
      await nextFrame();
      deadline = performance.now() + budgetMs;
    }
  }
}

// "1 reference", "3 references": a count as a person writes it.
function counted(n, noun, plural) {
  return `${n} ${n === 1 ? noun : (plural || noun + "s")}`;
}
