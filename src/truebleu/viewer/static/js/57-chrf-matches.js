// chrF's matches of one segment, the twin of CHRF.sentence_matches (metrics/chrf/matches.py):
// per order (character n-grams 1..char_order, then word n-grams 1..word_order), the
// n-grams the hypothesis shares with its best reference (highest sentence chrF, the
// first on ties), each occurrence up to the clipped count from the left, with spans
// in code points of the text as given. The browser tests compare it with the Python.
// Run for the one segment shown (the Python, for every segment at build time, would
// cost minutes on a large report; metrics_model._chrf_settings).

// str.isspace() in Python: what str.split() splits on (JavaScript's \s differs)
const PY_SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
const CHRF_PUNCTUATION = new Set(Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"));

// The code points chrF reads (lowercased if asked) and the code point of the text each comes from.
function chrfRead(textLine, cfg) {
  const given = Array.from(textLine);
  const origin = [];
  given.forEach((c, j) => { const n = cfg.lowercase ? Array.from(c.toLowerCase()).length : 1; for (let k = 0; k < n; k++) origin.push(j); });
  const line = Array.from(cfg.lowercase ? textLine.toLowerCase() : textLine);  // context-dependent mappings (final sigma)
  return {line, origin: line.length === origin.length ? origin : null};
}

function chrfWords(line, origin) {
  const words = [];
  const piece = (start, stop) => ({word: line.slice(start, stop).join(""), span: [origin[start], origin[stop - 1] + 1]});
  let p = 0;
  while (p < line.length) {
    if (PY_SPACE.test(line[p])) { p++; continue; }
    const start = p;
    while (p < line.length && !PY_SPACE.test(line[p])) p++;
    const len = p - start;
    if (len > 1 && CHRF_PUNCTUATION.has(line[p - 1])) words.push(piece(start, p - 1), piece(p - 1, p));
    else if (len > 1 && CHRF_PUNCTUATION.has(line[start])) words.push(piece(start, start + 1), piece(start + 1, p));
    else words.push(piece(start, p));
  }
  return words;
}

// Per order, a Map from each n-gram to its spans, in order of occurrence.
function chrfOccurrences(textLine, cfg) {
  const {line, origin} = chrfRead(textLine, cfg);
  if (origin === null) throw new Error("cannot place the characters of this line after lowercasing");
  const kept = [];
  line.forEach((c, k) => { if (cfg.whitespace || !PY_SPACE.test(c)) kept.push(k); });
  const orders = [];
  for (let n = 1; n <= cfg.char_order; n++) {
    const spans = new Map();
    for (let k = 0; k + n <= kept.length; k++) {
      const gram = kept.slice(k, k + n).map((q) => line[q]).join("");
      if (!spans.has(gram)) spans.set(gram, []);
      spans.get(gram).push([origin[kept[k]], origin[kept[k + n - 1]] + 1]);
    }
    orders.push(spans);
  }
  if (cfg.word_order > 0) {
    const words = chrfWords(line, origin);
    for (let n = 1; n <= cfg.word_order; n++) {
      const spans = new Map();
      for (let k = 0; k + n <= words.length; k++) {
        const gram = JSON.stringify(words.slice(k, k + n).map((w) => w.word));  // a key no text can forge
        if (!spans.has(gram)) spans.set(gram, []);
        spans.get(gram).push([words[k].span[0], words[k + n - 1].span[1]]);
      }
      orders.push(spans);
    }
  }
  return orders;
}

// {best, orders: [{kind, n, hyp, ref, matches, ngrams: [{ngram, count, hypSpans, refSpans}]}]}
// for hypothesis hyp against the references refs (strings), or null without a reference;
// the best reference by chrfScore (42-metric-subsets.js: spec.f_score's operations in order).
function chrfMatches(hyp, refs, cfg) {
  if (!refs.length) return null;
  const mine = chrfOccurrences(hyp, cfg);
  let best = -1, bestScore = -1, bestRef = null, bestRow = null;
  refs.forEach((ref, r) => {
    const theirs = chrfOccurrences(ref, cfg);
    const row = [];
    mine.forEach((spans, k) => {
      let nHyp = 0, nRef = 0, nMatch = 0;
      for (const s of spans.values()) nHyp += s.length;
      for (const [gram, s] of theirs[k]) { nRef += s.length; if (spans.has(gram)) nMatch += Math.min(s.length, spans.get(gram).length); }
      row.push(nRef ? nHyp : 0, nRef, nMatch);
    });
    const score = chrfScore(row, cfg.beta, cfg.eps_smoothing);
    if (score > bestScore) { best = r; bestScore = score; bestRef = theirs; bestRow = row; }
  });
  const orders = mine.map((spans, k) => {
    const ngrams = [];
    for (const [gram, s] of spans) {
      const other = bestRef[k].get(gram);
      const count = other ? Math.min(s.length, other.length) : 0;
      if (count > 0) ngrams.push({ngram: k >= cfg.char_order ? JSON.parse(gram).join(" ") : gram, count, hypSpans: s.slice(0, count), refSpans: other.slice(0, count)});
    }
    const word = k >= cfg.char_order;
    return {kind: word ? "word" : "character", n: word ? k + 1 - cfg.char_order : k + 1,
      hyp: bestRow[3 * k], ref: bestRow[3 * k + 1], matches: bestRow[3 * k + 2], ngrams};
  });
  return {best, score: bestScore, orders};
}

// Which code points of a text the matched n-grams of one order cover (whitespace
// between the characters of a character n-gram did not count, unless kept).
function chrfCoverage(textLine, spans, cfg, word) {
  const chars = Array.from(textLine);
  const covered = new Uint8Array(chars.length);
  for (const [start, end] of spans) {
    for (let p = start; p < end; p++) if (word || cfg.whitespace || !PY_SPACE.test(chars[p])) covered[p] = 1;
  }
  return {chars, covered};
}

// The text with its covered code points in runs of <span class="tok chrf-hit">.
function chrfHighlighted(textLine, spans, cfg, word) {
  const {chars, covered} = chrfCoverage(textLine, spans, cfg, word);
  const out = [];
  let start = 0;
  for (let p = 1; p <= chars.length; p++) {
    if (p === chars.length || covered[p] !== covered[start]) {
      const run = chars.slice(start, p).join("");
      out.push(covered[start] ? el("span", {class: "chrf-hit"}, text(run)) : text(run));
      start = p;
    }
  }
  return out;
}
