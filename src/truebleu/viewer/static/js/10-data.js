// The report's data: decoding the embedded (or served) payload, and the few
// computations the page does itself on truebleu's integer statistics.

const LOG_ZERO = -9999999999;  // log(0) as sacreBLEU floors it

async function decodePayload(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return parsePayload(bytes);
}

// The payload as viewer/page.py's encode_payload writes it: one gzip stream of the
// columns' blocks, a newline, then the JSON, whose "blocks" say where each column goes
// back (its path) and its bytes: a text column's UTF-8 with each segment's length in
// code points (-1: null), a token column's counts and offsets, or a number column's
// binary numbers.
async function parsePayload(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const data = new Uint8Array(await new Response(stream).arrayBuffer());
  const split = data.lastIndexOf(10);  // JSON's text holds no newline
  const d = JSON.parse(new TextDecoder().decode(data.subarray(split + 1)));
  for (const column of d.blocks) {
    const path = column.path;
    let at = d;
    for (const key of path.slice(0, -1)) at = at[key];
    at[path[path.length - 1]] = column.kind === "numbers" ? numberColumn(data, column)
      : column.kind === "tokens" ? tokenColumn(data, column) : textColumn(data, column);
  }
  delete d.blocks;
  return d;
}

// One number column, as doubles: its block holds little-endian numbers of its "type"
// (viewer/page.py, NUMBER_TYPES; every browser's typed arrays are little-endian).
const NUMBER_ARRAYS = {uint16: Uint16Array, int32: Int32Array, float64: Float64Array};
function numberColumn(data, column) {
  const numbers = new NUMBER_ARRAYS[column.type](data.slice(column.bytes[0], column.bytes[1]).buffer);  // (a copy: aligned)
  return numbers instanceof Float64Array ? numbers : Float64Array.from(numbers);
}

// One token column (viewer/page.py, _token_block): each segment's count of offsets as
// int32 (-1: null; -2: a string, in the column's "strings"), then all the offsets in
// order, of the column's "type". Each segment's offsets are a view of them.
function tokenColumn(data, column) {
  const n = column.n, split = column.bytes[0] + 4 * n;
  const counts = new Int32Array(data.slice(column.bytes[0], split).buffer);  // (copies: aligned)
  const offsets = new NUMBER_ARRAYS[column.type](data.slice(split, column.bytes[1]).buffer);
  const out = new Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const count = counts[i];
    if (count < 0) { out[i] = null; continue; }
    out[i] = offsets.subarray(at, at + count);
    at += count;
  }
  for (const [i, tokens] of Object.entries(column.strings)) out[Number(i)] = tokens;
  return out;
}

// One text column: its block cut at each segment's length. Lengths count code points; a
// JS string counts UTF-16 units, the same unless a character is beyond U+FFFF (then the
// segment's end is found by walking its characters). ignoreBOM: a leading U+FEFF is text.
function textColumn(data, column) {
  const block = new TextDecoder("utf-8", {ignoreBOM: true}).decode(data.subarray(column.bytes[0], column.bytes[1]));
  const lengths = column.lengths, out = new Array(lengths.length);
  let points = 0;
  for (const n of lengths) if (n > 0) points += n;
  const astral = block.length !== points;
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    const n = lengths[i];
    if (n < 0) { out[i] = null; continue; }
    let end = at + n;
    if (astral) { end = at; for (let c = 0; c < n; c++) end += block.codePointAt(end) > 0xFFFF ? 2 : 1; }
    out[i] = block.slice(at, end);
    at = end;
  }
  for (const [i, text] of Object.entries(column.escaped)) out[Number(i)] = text;
  return out;
}

// Derived columns kept as typed arrays (one per column, not one object per segment).
function prepareData(d) {
  const n = d.n_segments, order = d.max_order, width = 2 + 2 * order;
  d.width = width;
  for (const stream of [...d.references, ...d.systems]) {
    const tokens = stream.tokens;
    for (let i = 0; i < n; i++) tokens[i] = pageTokens(stream.text[i], tokens[i]);
  }
  for (const s of d.systems) {
    s.statsArr = s.stats;                               // int64 counts, exact in a double
    s.sent = s.sentence_bleu;                           // (Float64Arrays: blocks of the payload)
    s.without = s.bleu_without;
    s.hypLen = new Float64Array(n);
    s.refLen = new Float64Array(n);
    for (let i = 0; i < n; i++) { s.hypLen[i] = s.statsArr[i * width]; s.refLen[i] = s.statsArr[i * width + 1]; }
  }
  d.firstRefLen = new Float64Array(n);
  const ref0 = d.references[0];
  for (let i = 0; i < n; i++) d.firstRefLen[i] = tokensOf(ref0, i).length;
  d.lower = {source: null, references: null, systems: null};  // lazily built search columns
  return d;
}

// A segment's tokens as the payload carries them (viewer/tokens.py, page_token_column):
// null (the text itself), the UTF-16 offsets into the text before which a space goes
// (the usual case: a space before punctuation; a typed array, tokenColumn), or the tokens
// joined by single spaces. Returns null or the joined tokens, the form the rest of the
// page reads.
function pageTokens(text, item) {
  if (item === null || typeof item === "string") return item;
  let joined = "", from = 0;
  for (const at of item) { joined += text.slice(from, at) + " "; from = at; }
  return joined + text.slice(from);
}

// Tokens of segment i of a stream, exactly as truebleu counted them: the
// tokenized text joined by single spaces (no token contains whitespace), or the
// text itself where the two are equal.
function tokensOf(stream, i) {
  const tok = stream.tokens[i];
  const s = tok === null ? stream.text[i] : tok;
  if (s === null || s === undefined || s === "") return [];
  return s.split(" ");
}

// Python's sum() of floats: left to right before 3.12, Neumaier-compensated since.
function pySum(values, compensated) {
  if (!compensated) { let t = 0; for (const v of values) t += v; return t; }
  if (values.length === 0) return 0;
  let f = 0 + values[0], c = 0.0;
  for (let k = 1; k < values.length; k++) {
    const x = values[k], t = f + x;
    if (Math.abs(f) >= Math.abs(x)) c += (f - t) + x; else c += (x - t) + f;
    f = t;
  }
  if (c && Number.isFinite(c)) f += c;
  return f;
}

// truebleu.score.compute_bleu on summed statistics, with the same operations
// in the same order (exp and log are the browser's, which may differ from the
// C library's in the last bit; the tests measure the agreement).
function computeBleu(sums, order, smoothing, effectiveOrder, compensated) {
  const sysLen = sums[0], refLen = sums[1];
  const correct = Array.from(sums.slice(2, 2 + order));
  const total = Array.from(sums.slice(2 + order, 2 + 2 * order));
  const bp = sysLen < refLen ? (sysLen > 0 ? Math.exp(1 - refLen / sysLen) : 0.0) : 1.0;
  const precisions = new Array(order).fill(0);
  const result = {score: 0, precisions, bp, sysLen, refLen, ratio: refLen ? sysLen / refLen : 0, counts: correct, totals: total};
  if (!correct.some((c) => c !== 0)) return result;
  let divisor = 1.0, eff = order;
  for (let n = 1; n <= order; n++) {
    const i = n - 1;
    if (smoothing.method === "add-k" && n > 1) { correct[i] += smoothing.value; total[i] += smoothing.value; }
    if (total[i] === 0) break;
    if (effectiveOrder) eff = n;
    if (correct[i] === 0) {
      if (smoothing.method === "exp") { divisor *= 2; precisions[i] = 100 / (divisor * total[i]); }
      else if (smoothing.method === "floor") precisions[i] = 100 * smoothing.value / total[i];
    } else precisions[i] = 100 * correct[i] / total[i];
  }
  const logs = precisions.slice(0, eff).map((p) => p === 0 ? LOG_ZERO : Math.log(p));
  result.score = bp * Math.exp(pySum(logs, compensated) / eff);
  return result;
}

function sumRows(statsArr, width, indices) {
  const sums = new Float64Array(width);
  for (const i of indices) { const base = i * width; for (let c = 0; c < width; c++) sums[c] += statsArr[base + c]; }
  return sums;
}

function corpusBleuOf(d, s, indices) {
  return computeBleu(sumRows(s.statsArr, d.width, indices), d.max_order, d.smoothing, false, d.python_sum === "compensated");
}

// -- n-grams -----------------------------------------------------------------

// Counts of every n-gram of orders 1..maxOrder, one Map per order. Keys are
// the tokens joined by single spaces (no token holds whitespace), built by
// extending the keys of the order below instead of slicing and joining.
function allNgramCounts(tokens, maxOrder) {
  const out = [];
  let keys = tokens;
  for (let n = 1; n <= maxOrder; n++) {
    const counts = new Map();
    if (n > 1) {
      const next = new Array(Math.max(0, keys.length - 1));
      for (let i = 0; i + 1 < keys.length; i++) next[i] = keys[i] + " " + tokens[i + n - 1];
      keys = next;
    }
    for (const key of keys) counts.set(key, (counts.get(key) || 0) + 1);
    out.push(counts);
  }
  return out;
}

// Per order, the largest count of each n-gram in any one reference.
function maxReferenceCounts(refLists, maxOrder) {
  const out = [];
  for (let n = 0; n < maxOrder; n++) out.push(new Map());
  for (const ref of refLists) {
    const counts = allNgramCounts(ref, maxOrder);
    for (let n = 0; n < maxOrder; n++) {
      const best = out[n];
      for (const [g, c] of counts[n]) if (c > (best.get(g) || 0)) best.set(g, c);
    }
  }
  return out;
}

// For one hypothesis against its references, per order: every n-gram with its
// count, the reference maximum, the clipped count, and the status of each
// occurrence (in order of appearance: the first `clip` ones are counted).
function ngramAnalysis(hypTokens, refTokenLists, order) {
  const orders = [];
  const maxRefs = maxReferenceCounts(refTokenLists, order);
  for (let n = 1; n <= order; n++) {
    const maxRef = maxRefs[n - 1];
    const seen = new Map(), occurrences = [], grams = new Map();
    for (let i = 0; i + n <= hypTokens.length; i++) {
      const g = hypTokens.slice(i, i + n).join(" ");
      const k = (seen.get(g) || 0) + 1;
      seen.set(g, k);
      const ref = maxRef.get(g) || 0;
      const status = ref === 0 ? "unmatched" : (k <= ref ? "matched" : "clipped");
      occurrences.push({start: i, gram: g, status});
      if (!grams.has(g)) grams.set(g, {gram: g, count: 0, ref, first: i});
      grams.get(g).count++;
    }
    let matches = 0;
    for (const info of grams.values()) { info.clipped = Math.min(info.count, info.ref); matches += info.clipped; }
    orders.push({n, occurrences, grams: Array.from(grams.values()), matches, total: occurrences.length, maxRef});
  }
  return orders;
}

function referenceTokenLists(d, i) {
  const lists = [];
  for (const r of d.references) if (r.text[i] !== null) lists.push(tokensOf(r, i));
  return lists;
}

// -- resampling in the page (filtered subsets; the full set uses truebleu's API) --

// xoshiro128** seeded by splitmix32: small, fast, reproducible across browsers.
function makeRng(seed) {
  let s = seed >>> 0;
  const next32 = () => { s = (s + 0x9e3779b9) >>> 0; let z = s; z = Math.imul(z ^ (z >>> 16), 0x85ebca6b); z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35); return (z ^ (z >>> 16)) >>> 0; };
  const st = [next32(), next32(), next32(), next32()];
  const rotl = (x, k) => (x << k) | (x >>> (32 - k));
  return function nextUint32() {
    const result = Math.imul(rotl(Math.imul(st[1], 5), 7), 9) >>> 0;
    const t = st[1] << 9;
    st[2] ^= st[0]; st[3] ^= st[1]; st[1] ^= st[2]; st[0] ^= st[3]; st[2] ^= t; st[3] = rotl(st[3], 11);
    return result;
  };
}

function randomBelow(rng, n) {  // unbiased integer in [0, n)
  const limit = Math.floor(0x100000000 / n) * n;
  let x;
  do { x = rng(); } while (x >= limit);
  return x % n;
}

// Paired bootstrap of B against A on the given segments, with the statistic of
// truebleu's paired_bootstrap (centered: d = B - A per resample,
// p = (#{|d_i - mean(d)| >= |observed|} + 1) / (n + 1)); the random stream is
// the page's own, so p differs from the API's by resampling noise only.
async function pairedBootstrapInPage(d, a, b, indices, nSamples, seed, onProgress) {
  const width = d.width, comp = d.python_sum === "compensated";
  const observed = corpusBleuOf(d, b, indices).score - corpusBleuOf(d, a, indices).score;
  const rng = makeRng(seed);
  const m = indices.length;
  const deltas = new Float64Array(nSamples);
  for (let k = 0; k < nSamples; k++) {
    const sa = new Float64Array(width), sb = new Float64Array(width);
    for (let j = 0; j < m; j++) {
      const i = indices[randomBelow(rng, m)], base = i * width;
      for (let c = 0; c < width; c++) { sa[c] += a.statsArr[base + c]; sb[c] += b.statsArr[base + c]; }
    }
    deltas[k] = computeBleu(sb, d.max_order, d.smoothing, false, comp).score - computeBleu(sa, d.max_order, d.smoothing, false, comp).score;
    if (k % 25 === 24) { if (onProgress) onProgress(k + 1); await nextFrame(); }
  }
  let mean = 0;
  for (const x of deltas) mean += x;
  mean /= nSamples;
  let extreme = 0;
  for (const x of deltas) if (Math.abs(x - mean) >= Math.abs(observed)) extreme++;
  const sorted = Array.from(deltas).sort((x, y) => x - y);
  const lower = Math.floor(nSamples / 40), upper = nSamples - lower - 1;
  return {delta: observed, p: (extreme + 1) / (nSamples + 1), low: sorted[lower], high: sorted[upper], n: nSamples, seed, segments: m, where: "page"};
}
