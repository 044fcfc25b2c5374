/* chrF and chrF++ statistics: the compiled twin of truebleu/_reference_chrf.py.
 *
 * Per hypothesis and reference, for each character order n = 1..C and then
 * each word order n = 1..W, three counts: [hyp n-grams (0 when the reference
 * has none), ref n-grams, clipped matches]. With several references the row
 * of the reference with the highest f-score is kept (the first on a tie).
 *
 * Counting is exact (chrf/ngrams.h: packed.c and chained.c; chrF++'s word ids:
 * words.c). Symbols are small ids (per segment for characters, per
 * pair of lines for chrF++'s words, which are compared by content: by their
 * characters' symbol ids, read in the same pass as the characters, or by their
 * code points where a line of the pair has no ids), so an
 * n-gram of every order usually fits in one 64-bit key: its symbols packed
 * side by side (count_packed; one pass over each line finds all the orders).
 * Where they do not fit (many distinct symbols, long orders, astral code
 * points), an n-gram of order n is the pair (id of its first n - 1 symbols,
 * its last symbol), and ids are handed out per pair, order by order
 * (count_chained). Either way equal keys mean equal n-grams (a hash collision
 * only costs a probe). Matches are counted by inserting the reference n-grams
 * with their counts and letting each hypothesis n-gram take one from its entry
 * while any is left, which sums min(hyp count, ref count) over the distinct
 * n-grams.
 *
 * Text is read from the PyUnicode storage (1, 2 or 4 bytes per code point)
 * with the GIL released, by chrf/lines.c (whitespace as str.split() sees it).
 * Lowercasing happens in Python (str.lower) before the call.
 */
#include "chrf/chrf.h"
#include "chrf/lines.h"
#include "chrf/ngrams.h"
#include "chrf/words.h"
#include "runtime/memory.h"
#include "runtime/spares.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHRF_EPS 1e-16

/* A line's characters as symbol ids (code points renumbered 1, 2, ... per segment). */
typedef struct {
    uint32_t *a; size_t n, cap;
    int ok;       /* 0: a code point had no id (astral, or the ids ran out): count_chained */
    int decoded;  /* the line's code points are in its chrf_side's chars too (and, for
                     chrF++, its words) */
    int words_decoded;  /* chrF++'s words are in its chrf_side (spans of its code points) */
    int has_words;      /* chrF++'s words are in `words` (tb_chrf_symbols_words) */
    chrf_span *words; size_t nwords, words_cap;  /* spans of a */
} chrf_symbols;

/* The code point -> symbol id map of the current segment: cmap[c] is
 * (stamp << 16) | id for the code points seen in it (the BMP; astral ones have none). */
#define CMAP_SIZE 0x10000u

/* A worker's scratch, kept between jobs (runtime/spares.h): every table in it is
 * left empty for the next pair or segment (stamps, ids that only grow, slots cleared
 * after use), so a job takes it as it was left and resets nothing; allocating and
 * zeroing it for every call cost corpus chrF++ 1.6% of its instructions on 20 WMT21
 * systems (the 256 KB cmap alone, one calloc per call). */
typedef struct {
    chrf_side hyp, ref;
    chrf_symbols hsym, rsym;
    uint32_t *cmap; uint32_t cmap_stamp, nsyms;  /* nsyms: the segment's ids so far */
    tb_chrf_ngrams ngrams;
    tb_chrf_vocab vocab;
    int64_t *row; size_t row_cap;
} chrf_scratch;

/* Start a segment's symbol ids (the map is cleared when its stamps run out). */
static int symbols_start(chrf_scratch *w)
{
    if (!w->cmap) {
        w->cmap = calloc(CMAP_SIZE, sizeof(uint32_t));
        if (!w->cmap)
            return -1;
    }
    if (++w->cmap_stamp > 0xFFFFu) {
        memset(w->cmap, 0, CMAP_SIZE * sizeof(uint32_t));
        w->cmap_stamp = 1;
    }
    w->nsyms = 0;
    return 0;
}

/* Read the line t: its characters as symbol ids (sym) and, for chrF++ without
 * whitespace, its words in the same pass; decoded (side) what has no ids: the characters
 * where a code point had none, the words where they were not read with the ids. */
static int read_line(chrf_scratch *w, const tb_chrf_job *j, const tb_text *t, chrf_side *side,
                     chrf_symbols *sym)
{
    sym->ok = sym->decoded = sym->words_decoded = sym->has_words = 0;
    sym->n = sym->nwords = 0;
    if (j->char_order > 0) {
        size_t room = t->length ? t->length : 1;
        if (GROW(sym->a, sym->cap, room) < 0)
            return -1;
        if (j->word_order > 0 && !j->whitespace) {
            if (GROW(sym->words, sym->words_cap, room) < 0)
                return -1;
            sym->ok = sym->has_words = tb_chrf_symbols_words(
                t, w->cmap, w->cmap_stamp << 16, &w->nsyms, sym->a, &sym->n, sym->words,
                &sym->nwords);
        } else {
            sym->ok = tb_chrf_symbols(t, j->whitespace, w->cmap, w->cmap_stamp << 16, &w->nsyms,
                                      sym->a, &sym->n);
        }
    }
    int chars = j->char_order > 0 && !sym->ok;  /* code points for count_chained */
    int words = j->word_order > 0 && !sym->has_words;
    if (words || chars) {
        if (tb_chrf_decode(side, t, j->whitespace, words, chars) < 0)
            return -1;
        sym->decoded = chars;
        sym->words_decoded = words;
    }
    return 0;
}

double tb_chrf_f_score(const int64_t *row, int order, double factor, double one_plus_factor,
                       int eps_smoothing)
{
    /* _reference_chrf.f_score, operation by operation (Python's int / int and
     * int * float are the double operations on the converted integers). */
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
    int effective_order = 0;
    for (int i = 0; i < order; i++) {
        int64_t n_hyp = row[3 * i], n_ref = row[3 * i + 1], n_match = row[3 * i + 2];
        double prec = n_hyp > 0 ? (double)n_match / (double)n_hyp : CHRF_EPS;
        double rec = n_ref > 0 ? (double)n_match / (double)n_ref : CHRF_EPS;
        double denom = factor * prec + rec;
        score += denom > 0 ? one_plus_factor * prec * rec / denom : CHRF_EPS;
        if (n_hyp > 0 && n_ref > 0) {
            avg_prec += prec;
            avg_rec += rec;
            effective_order++;
        }
    }
    if (eps_smoothing)
        return 100.0 * score / (double)order;
    if (effective_order == 0) {
        avg_prec = avg_rec = 0.0;
    } else {
        avg_prec /= (double)effective_order;
        avg_rec /= (double)effective_order;
    }
    if (avg_prec + avg_rec != 0.0) {
        score = one_plus_factor * avg_prec * avg_rec;
        score /= (factor * avg_prec) + avg_rec;
        return 100.0 * score;
    }
    return 0.0;
}

/* Work units of hypothesis i and its references (about one per code point), for the
 * poll (runtime/poll.h). */
static long segment_units(const tb_chrf_job *j, size_t i)
{
    size_t units = j->hyps[i].length + 1;
    for (size_t k = j->ref_start[i]; k < j->ref_start[i + 1]; k++)
        units += j->refs[k].length + 1;
    return tb_poll_units_of(units);
}

/* Line t's code points (and chrF++'s words) into side, if read_line did not read them. */
static int decoded(const tb_chrf_job *j, const tb_text *t, chrf_side *side, chrf_symbols *sym)
{
    if (sym->decoded)
        return 0;
    if (tb_chrf_decode(side, t, j->whitespace, j->word_order > 0, 1) < 0)
        return -1;
    sym->decoded = 1;
    sym->words_decoded |= j->word_order > 0;
    return 0;
}

/* The words of a line for word_ids: spans of its symbol ids where both lines of the pair
 * were read so (ids stand for the same code points in both), else (`symbols` 0) spans of
 * its code points. */
static chrf_word_list word_list(int symbols, chrf_side *side, const chrf_symbols *sym)
{
    chrf_word_list list;
    list.side = side;
    if (symbols) {
        list.base = sym->a;
        list.spans = sym->words;
        list.n = sym->nwords;
    } else {
        list.base = side->all.a;
        list.spans = side->words;
        list.n = side->nwords;
    }
    return list;
}

static int pair_row(chrf_scratch *w, const tb_chrf_job *j, const tb_text *hyp, const tb_text *ref,
                    int64_t *row)
{
    if (j->char_order > 0) {
        int packed = w->hsym.ok && w->rsym.ok;
        if (!packed && (decoded(j, hyp, &w->hyp, &w->hsym) < 0 || decoded(j, ref, &w->ref, &w->rsym) < 0))
            return -1;  /* (one side had ids, the other not: count_chained reads both decoded) */
        int rc = packed ? tb_chrf_count_orders(&w->ngrams, w->hsym.a, w->hsym.n, w->rsym.a,
                                               w->rsym.n, j->char_order, w->nsyms, 1, row)
                        : tb_chrf_count_orders(&w->ngrams, w->hyp.chars.a, w->hyp.chars.n,
                                               w->ref.chars.a, w->ref.chars.n, j->char_order, 0,
                                               0, row);
        if (rc < 0)
            return -1;
    }
    if (j->word_order > 0) {
        int symbols = w->hsym.has_words && w->rsym.has_words;
        if (!symbols && ((!w->hsym.words_decoded && decoded(j, hyp, &w->hyp, &w->hsym) < 0) ||
                         (!w->rsym.words_decoded && decoded(j, ref, &w->ref, &w->rsym) < 0)))
            return -1;  /* (one side's words read with ids, the other's not: both decoded) */
        chrf_word_list hw = word_list(symbols, &w->hyp, &w->hsym);
        chrf_word_list rw = word_list(symbols, &w->ref, &w->rsym);
        if (tb_chrf_word_ids(&w->vocab, &hw, &rw) < 0)
            return -1;
        if (tb_chrf_count_orders(&w->ngrams, w->hyp.ids, hw.n, w->ref.ids, rw.n, j->word_order,
                                 w->vocab.nids, 1, row + 3 * j->char_order) < 0)
            return -1;
    }
    return 0;
}

static int segment(chrf_scratch *w, const tb_chrf_job *j, size_t i)
{
    int order = j->char_order + j->word_order;
    size_t width = 3 * (size_t)order;
    int64_t *out = j->out + i * width;
    if (GROW(w->row, w->row_cap, width) < 0)
        return -1;
    if ((j->char_order > 0 && symbols_start(w) < 0) ||
        read_line(w, j, &j->hyps[i], &w->hyp, &w->hsym) < 0)
        return -1;
    double best = -1.0;
    size_t first = j->ref_start[i], last = j->ref_start[i + 1];
    memset(out, 0, width * sizeof(int64_t));
    for (size_t k = first; k < last; k++) {
        if (read_line(w, j, &j->refs[k], &w->ref, &w->rsym) < 0 ||
            pair_row(w, j, &j->hyps[i], &j->refs[k], w->row) < 0)
            return -1;
        if (last - first == 1 && !j->scores) {
            memcpy(out, w->row, width * sizeof(int64_t));
            break;
        }
        double f = tb_chrf_f_score(w->row, order, j->factor, j->one_plus_factor, j->eps_smoothing);
        if (f > best) {
            best = f;
            memcpy(out, w->row, width * sizeof(int64_t));
        }
    }
    if (j->scores)
        j->scores[i] = best < 0 ? 0.0 : best;
    return 0;
}

static size_t symbols_footprint(const chrf_symbols *s)
{
    return s->cap * sizeof(uint32_t) + s->words_cap * sizeof(chrf_span);
}

/* The bytes w holds, which a kept scratch pins. */
static size_t scratch_footprint(const chrf_scratch *w)
{
    return tb_chrf_side_footprint(&w->hyp) + tb_chrf_side_footprint(&w->ref) + symbols_footprint(&w->hsym) +
           symbols_footprint(&w->rsym) + (w->cmap ? CMAP_SIZE * sizeof(uint32_t) : 0) +
           tb_chrf_ngrams_footprint(&w->ngrams) + tb_chrf_vocab_footprint(&w->vocab) +
           w->row_cap * sizeof(int64_t);
}

static void scratch_free(chrf_scratch *w)
{
    tb_chrf_side_free(&w->hyp);
    tb_chrf_side_free(&w->ref);
    tb_chrf_ngrams_free(&w->ngrams);
    tb_chrf_vocab_free(&w->vocab);
    free(w->row);
    free(w->hsym.a);
    free(w->rsym.a);
    free(w->hsym.words);
    free(w->rsym.words);
    free(w->cmap);
}

static tb_spares chrf_spares;

/* A kept scratch, or a new one (all 0: every table empty). NULL: out of memory. */
static chrf_scratch *scratch_take(void)
{
    chrf_scratch *w = tb_spares_take(&chrf_spares);
    return w ? w : calloc(1, sizeof(chrf_scratch));
}

/* Keeps w for the next job, unless `clean` is 0 (a segment failed part-way: its tables
 * may not be empty) or w grew past TB_SPARE_MAX_BYTES (one huge line must not pin its
 * tables for the rest of the process; a scratch of ordinary lines holds a few hundred KB). */
static void scratch_give(chrf_scratch *w, int clean)
{
    if (clean && scratch_footprint(w) <= TB_SPARE_MAX_BYTES && tb_spares_give(&chrf_spares, w))
        return;
    scratch_free(w);
    free(w);
}

static size_t release_kept(void *p)
{
    size_t bytes = scratch_footprint(p) + sizeof(chrf_scratch);
    scratch_free(p);
    free(p);
    return bytes;
}

size_t tb_chrf_release_spares(void) { return tb_spares_drain(&chrf_spares, release_kept); }

static void chrf_worker(tb_job *base)
{
    tb_chrf_job *j = (tb_chrf_job *)base;
    chrf_scratch *w = NULL;
    int clean = 1;
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    size_t start, stop;
    while (tb_job_claim(base, &start, &stop)) {
        if (!w && !(w = scratch_take())) {  /* only after a claim: a helper with nothing to do takes nothing */
            tb_job_fail(base, TB_NOMEM, start);
            break;
        }
        for (size_t i = start; i < stop; i++) {
            if (tb_poll_spend(&poll.base, segment_units(j, i)))
                break;
            if (segment(w, j, i) < 0) {
                tb_job_fail(base, TB_NOMEM, i);
                clean = 0;
                break;
            }
        }
    }
    if (w)
        scratch_give(w, clean);
}

void tb_chrf_job_init(tb_chrf_job *job, size_t nitems)
{
    memset(job, 0, sizeof(*job));
    tb_job_init(&job->base, chrf_worker, nitems, TB_CHRF_CHUNK);
}
