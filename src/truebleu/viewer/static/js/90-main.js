// Start-up, the view state (kept in the URL's #fragment so that a link
// re-opens the same view), and the page frame.

const FILTER_DEFAULTS = {src: "", ref: "", hyp: "", minLen: "", maxLen: "", doc: "", minScore: "", maxScore: "", ngram: "",
  fcol: "", fmin: "", fmax: "", disagree: ""};
const STATE_DEFAULTS = Object.assign({view: "overview", a: 0, b: 1, sort: "index", dir: 1, seg: null, order: 1,
  ngramOrder: 1, ngramSide: "a", ovSort: "bleu", ovDir: -1, mSort: "", mDir: -1, allsys: 0, mChart: 0, cm: 0, corder: 1}, FILTER_DEFAULTS);
const NUMERIC_STATE = ["a", "b", "dir", "seg", "order", "ngramOrder", "ovDir", "mDir", "allsys", "mChart", "cm", "corder"];
const VIEWS = [["overview", "Systems"], ["segments", "Segments"], ["compare", "A vs B"]];

const state = Object.assign({}, STATE_DEFAULTS);
let DATA = null;
const MODE = document.getElementById("app").dataset.mode;

function readHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  Object.assign(state, STATE_DEFAULTS);
  for (const [key, value] of params) {
    if (!Object.hasOwn(STATE_DEFAULTS, key)) continue;  // not "__proto__", "constructor", ...
    if (NUMERIC_STATE.includes(key)) { const v = Number(value); if (Number.isInteger(v)) state[key] = v; }
    else state[key] = value;
  }
  const n = DATA.systems.length;
  if (!(state.a >= 0 && state.a < n)) state.a = 0;
  if (!(state.b >= 0 && state.b < n)) state.b = Math.min(1, n - 1);
  if (!VIEWS.some(([v]) => v === state.view) || (state.view === "compare" && n < 2)) state.view = "overview";
  if (state.seg !== null && !(state.seg >= 0 && state.seg < DATA.n_segments)) state.seg = null;
  if (!(state.order >= 1 && state.order <= DATA.max_order)) state.order = 1;
  if (!(state.ngramOrder >= 1 && state.ngramOrder <= DATA.max_order)) state.ngramOrder = 1;
  if (state.dir !== 1 && state.dir !== -1) state.dir = 1;
  if (state.ovDir !== 1 && state.ovDir !== -1) state.ovDir = -1;
  if (state.mDir !== 1 && state.mDir !== -1) state.mDir = STATE_DEFAULTS.mDir;
  if (!(state.corder >= 1 && state.corder <= 99)) state.corder = 1;  // beyond a metric's orders: its first
  if (!(DATA.metrics && state.cm >= 0 && state.cm < DATA.metrics.list.length)) state.cm = 0;
}

function writeHash() {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) {
    if (value !== STATE_DEFAULTS[key] && value !== null) params.set(key, String(value));
  }
  const hash = "#" + params.toString();
  if (location.hash !== hash) {
    try { history.replaceState(null, "", hash); } catch (e) { /* a sandboxed frame may refuse */ }
  }
}

function renderHeader(d) {
  const systemSelect = (which) => el("select", {"data-control": "system-" + which, title: `system ${which.toUpperCase()}`,
    onchange: (e) => { state[which] = Number(e.target.value); filterCache.key = null; update(); }},
    d.systems.map((s, k) => el("option", {value: k, selected: state[which] === k}, text(s.name))));
  return el("header", null,
    el("div", {class: "title"}, el("b", null, text(d.title)), el("span", {class: "muted"}, ` · ${counted(d.n_segments, "segment")} · ${counted(d.systems.length, "system")} · ${counted(d.references.length, "reference")} · ${d.tool}`)),
    // one system: nothing to compare it with (no A vs B view)
    el("nav", null, VIEWS.filter(([v]) => v !== "compare" || d.systems.length > 1).map(([v, label]) => el("button", {type: "button", class: "tab" + (state.view === v ? " active" : ""), "data-view": v,
      onclick: () => { state.view = v; update(); }}, label)),
    el("span", {class: "pickers"}, "A ", systemSelect("a"), " B ", systemSelect("b"),
      el("button", {type: "button", class: "small", title: "swap A and B", onclick: () => { [state.a, state.b] = [state.b, state.a]; filterCache.key = null; update(); }}, "⇄"))));
}

// Re-render after the current event has been handled (never inside it: a
// re-render removes the focused input, whose blur may fire another change).
let renderPending = false;
function update() {
  if (renderPending) return;
  renderPending = true;
  queueMicrotask(render);
}

function render() {
  renderPending = false;
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.filter : null;
  writeHash();
  const app = clear(document.getElementById("app"));
  const d = DATA;
  app.appendChild(renderHeader(d));
  const main = el("main", {"data-view": state.view});
  app.appendChild(main);
  segmentListRedraw = null;
  if (state.view === "overview") renderOverview(main, d);
  else if (state.view === "segments") renderSegments(main, d);
  else renderCompare(main, d);
  if (focused) { const again = document.querySelector(`[data-filter="${focused}"]`); if (again) again.focus(); }
  markReadyAfterPaint();
}

// body[data-ready], which tests and screenshots wait for, is set once the view just rendered
// has been painted: two frames on, after the segment list's own requestAnimationFrame has drawn
// its rows, never while the page still shows "Loading the report…" or an empty list. Only the
// latest render sets it, and none while a regular expression is still being matched (its
// answer renders again).
let readyTicket = 0;
function markReadyAfterPaint() {
  const ticket = ++readyTicket;
  requestAnimationFrame(() => requestAnimationFrame(() => {
    if (ticket === readyTicket && !regexPending) document.body.dataset.ready = "1";
  }));
}

// The access token of a server other machines can reach comes in the URL (?token=...) and is
// a cookie once the page has loaded: take it out of the address bar, bookmarks and screenshots.
function forgetTokenInAddress() {
  if (MODE !== "serve" || !location.search) return;
  try { history.replaceState(null, "", location.pathname + location.hash); } catch (e) { /* a sandboxed frame may refuse */ }
}

async function start() {
  const app = document.getElementById("app");
  forgetTokenInAddress();
  try {
    let payload;
    if (MODE === "serve") {
      const response = await fetch("api/report");
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      payload = await parsePayload(new Uint8Array(await response.arrayBuffer()));
    } else {
      payload = await decodePayload(document.getElementById("truebleu-payload").textContent.trim());
    }
    DATA = prepareData(payload);
    // by default A is the best system and B the runner-up, by the primary metric (the first chosen)
    const rankOf = DATA.metrics ? (k) => DATA.metrics.list[0].rank[k] : (k) => DATA.systems[k].corpus.rank;
    const byRank = DATA.systems.map((s, k) => k).sort((x, y) => rankOf(x) - rankOf(y) || x - y);
    STATE_DEFAULTS.a = byRank[0];
    STATE_DEFAULTS.b = byRank.length > 1 ? byRank[1] : byRank[0];
    // every metric's table starts sorted by its first metric, best first
    if (DATA.metrics) STATE_DEFAULTS.mDir = DATA.metrics.list[0].higher_is_better ? -1 : 1;
    document.title = DATA.title;
    readHash();
    // a link followed in the page switches regular expressions off (35-text-filter.js)
    window.addEventListener("hashchange", () => { readHash(); regexOn = false; filterCache.key = null; update(); });
    update();
  } catch (e) {
    clear(app).appendChild(el("p", {class: "error"}, "This report could not be opened: ", text(String(e && e.message || e))));
    document.body.dataset.ready = "error";
  }
}

// read-only hooks for tests and the curious: the data and the state
window.truebleuViewer = {get data() { return DATA; }, get state() { return Object.assign({}, state); },
  computeBleu, pyFixed, formatPValue, ngramAnalysis, tokensOf, pageTokens, referenceTokenLists, chrfMatches,
  regexBudgetMs: regexBudgetOfOutputs, metricSubsetScore: (j, k, indices) => metricSubsetScore(DATA, DATA.metrics.list[j], k, indices)};

start();
