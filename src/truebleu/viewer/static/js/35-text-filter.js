// The text filters of the segment browser (source, references, outputs A|B).
//
// A link carries the filters in its #fragment, and anyone can send a link: a regular
// expression such as (\w+\s?)+$ backtracks for ever on a long word followed by "!", and
// froze the tab when the page ran it. So a filter matches plain text (a substring, ignoring
// case) unless the user switches regular expressions on in this page load; the switch is
// never read from the URL, and a link followed in the page (the fragment changes) switches it
// off. A regular expression runs in a Web Worker with a time budget: the worker is stopped when
// the budget is spent, the page stays responsive, and the filter says the pattern was too slow.
// The worker is this page's own code (regexWorkerMain below), started from a blob: URL, which
// the CSP allows as a worker and for nothing else (worker-src blob:).

let regexOn = false;

// The budget: 200 ms, and 50 ms more per million characters searched (a pattern that
// finishes runs in linear time or close to it; one that backtracks does not finish at all).
const REGEX_BUDGET_MS = 200;
const REGEX_MS_PER_CHAR = 50e-6;

// The texts a filter searches, by column name: "source", "ref:K", "sys:K".
function filterColumn(d, name) {
  if (name === "source") return d.source;
  const [kind, k] = name.split(":");
  return kind === "ref" ? d.references[Number(k)].text : d.systems[Number(k)].text;
}

function filterColumns(d, key) {
  if (key === "src") return d.source ? ["source"] : [];
  if (key === "ref") return d.references.map((r, k) => "ref:" + k);
  return ["sys:" + state.a, "sys:" + state.b];
}

const loweredColumns = new Map();
function loweredColumn(d, name) {
  if (!loweredColumns.has(name)) loweredColumns.set(name, filterColumn(d, name).map((t) => (t === null ? null : t.toLowerCase())));
  return loweredColumns.get(name);
}

const columnChars = new Map();
function charsOf(d, name) {
  if (!columnChars.has(name)) { let n = 0; for (const t of filterColumn(d, name)) if (t !== null) n += t.length; columnChars.set(name, n); }
  return columnChars.get(name);
}

function regexBudgetMs(chars) { return REGEX_BUDGET_MS + chars * REGEX_MS_PER_CHAR; }

// One filter, as the segment loop uses it: {test(i)}, or null (no pattern), or why it
// filters nothing: {error} (invalid pattern), {slow: ms} (stopped), {pending: true}.
function textFilter(d, key) {
  const pattern = state[key];
  const columns = filterColumns(d, key);
  if (!pattern || !columns.length) return null;
  if (!regexOn) {
    const needle = pattern.toLowerCase(), texts = columns.map((c) => loweredColumn(d, c));
    return {test: (i) => texts.some((t) => t[i] !== null && t[i].includes(needle))};
  }
  try { new RegExp(pattern, "iu"); } catch (e) { return {error: e.message}; }  // syntax only: compiling never backtracks
  const result = regexResult(d, pattern, columns);
  return result.mask ? {test: (i) => result.mask[i] === 1} : result;
}

// -- regular expressions in a worker ---------------------------------------------------

// The worker's code (stringified into a blob: it shares nothing with the page's scope).
function regexWorkerMain() {
  const columns = new Map();
  self.onmessage = (event) => {
    const {pattern, names, send} = event.data;
    for (const name of Object.keys(send)) columns.set(name, send[name]);
    let re;
    try { re = new RegExp(pattern, "iu"); } catch (e) { self.postMessage({error: String(e.message)}); return; }
    const n = columns.get(names[0]).length, mask = new Uint8Array(n);
    for (const name of names) {
      const texts = columns.get(name);
      for (let i = 0; i < n; i++) if (!mask[i] && texts[i] !== null && re.test(texts[i])) mask[i] = 1;
    }
    self.postMessage({mask}, [mask.buffer]);
  };
}

const regexResults = new Map();   // JSON [pattern, columns] -> {mask} | {slow} | {error} | {pending}
let regexWorker = null, workerURL = null, workerColumns = new Set(), regexQueue = Promise.resolve(), regexPending = 0;

function regexResult(d, pattern, columns) {
  const key = JSON.stringify([pattern, columns]);
  if (regexResults.has(key)) return regexResults.get(key);
  while (regexResults.size >= 64) regexResults.delete(regexResults.keys().next().value);
  regexResults.set(key, {pending: true});
  regexPending++;
  // one pattern at a time: each budget starts when its pattern is sent, not while another runs
  regexQueue = regexQueue.then(() => runInWorker(d, pattern, columns)).then((result) => {
    regexResults.set(key, result);
    regexPending--;
    filterCache.key = null;
    update();
  });
  return regexResults.get(key);
}

function stopWorker() {
  if (regexWorker) regexWorker.terminate();
  regexWorker = null;
  workerColumns = new Set();
}

function runInWorker(d, pattern, columns) {
  return new Promise((resolve) => {
    try {
      if (!workerURL) workerURL = URL.createObjectURL(new Blob([`"use strict";(${regexWorkerMain.toString()})();`], {type: "text/javascript"}));
      if (!regexWorker) regexWorker = new Worker(workerURL);
    } catch (e) {
      resolve({error: "regular expressions need a Web Worker, which this page cannot start here (" + e.message + ")"});
      return;
    }
    const send = {};
    let chars = 0;
    for (const name of columns) {
      chars += charsOf(d, name);
      if (!workerColumns.has(name)) { send[name] = filterColumn(d, name); workerColumns.add(name); }
    }
    let timer = null;
    regexWorker.onmessage = (event) => { clearTimeout(timer); resolve(event.data.error ? {error: event.data.error} : {mask: event.data.mask}); };
    regexWorker.onerror = (event) => { event.preventDefault(); clearTimeout(timer); stopWorker(); resolve({error: "the worker failed: " + (event.message || "unknown error")}); };
    regexWorker.postMessage({pattern, names: columns, send});   // copies the texts (once per worker)
    const budget = regexBudgetMs(chars);                        // counted from here: the pattern's time
    timer = setTimeout(() => { stopWorker(); resolve({slow: Math.round(budget)}); }, budget);
  });
}

// For the page's tests: the budget of the output filter on the current systems.
function regexBudgetOfOutputs() {
  return regexBudgetMs(filterColumns(DATA, "hyp").reduce((n, c) => n + charsOf(DATA, c), 0));
}

// -- the controls ------------------------------------------------------------------

const FILTER_LABELS = {src: "source", ref: "reference", hyp: "output A|B"};

function regexSwitch() {
  return el("label", {title: "Read the text filters as regular expressions (each runs with a time budget, in a worker). Links never switch this on."},
    el("input", {type: "checkbox", "data-control": "regex", checked: regexOn,
      onchange: (e) => { regexOn = e.target.checked; filterCache.key = null; update(); }}), " regular expressions");
}

// Why a text filter filters nothing, for the lines under the filters.
function textFilterProblems(filters) {
  const problems = [];
  for (const [key, f] of Object.entries(filters)) {
    if (!f) continue;
    if (f.error) problems.push(`${FILTER_LABELS[key]}: invalid regular expression (${f.error}); this filter is not applied`);
    if (f.slow) problems.push(`${FILTER_LABELS[key]}: the regular expression is too slow (stopped after ${f.slow} ms); this filter is not applied`);
  }
  return problems;
}

const REGEX_SYNTAX = /[\\^$.|?*+()[\]{}]/;
function plainTextNote() {
  if (regexOn || !["src", "ref", "hyp"].some((k) => REGEX_SYNTAX.test(state[k]))) return null;
  return el("p", {class: "note filters-note"}, "The text filters match plain text (ignoring case); switch on “regular expressions” to read them as patterns.");
}
