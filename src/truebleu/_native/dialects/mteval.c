/* truebleu core, dialects: mteval's corpus sums on token ids (see mteval.h). */
#include "dialects/mteval.h"
#include "dialects/exact_sum.h"
#include "runtime/memory.h"

#include <stdlib.h>
#include <string.h>

int64_t tb_count_lines(const int32_t *ids, size_t length)
{
    int64_t lines = 0;
    for (size_t i = 0; i < length; i++)
        lines += ids[i] == TB_LINE_END;
    return length == 0 || ids[length - 1] == TB_LINE_END ? lines : -1;
}

typedef struct {
    int64_t *count;   /* n-gram number -> count, 0 outside the touched list */
    int32_t *touched; /* the numbers with a count, in order of first occurrence */
    size_t n;
} counter;

static int counter_open(counter *c, size_t size)
{
    c->count = calloc(size ? size : 1, sizeof *c->count);
    c->touched = malloc((size ? size : 1) * sizeof *c->touched);
    c->n = 0;
    return c->count && c->touched ? 0 : -1;
}

static void counter_close(counter *c)
{
    free(c->count);
    free(c->touched);
}

/* The n-grams of the line at *pos into c (each start, orders 1..max_order, as long
 * as the table holds the n-gram); *pos moves past the line's end. The line's tokens. */
static int64_t count_line(const tb_ngram_table *t, const int32_t *ids, size_t *pos, int max_order,
                          counter *c)
{
    size_t start = *pos, end = start;
    while (ids[end] != TB_LINE_END)
        end++;
    for (size_t i = start; i < end; i++) {
        int32_t prefix = -1;
        for (int n = 1; n <= max_order && i + (size_t)n <= end; n++) {
            int32_t token = ids[i + (size_t)n - 1];
            int32_t g = token < 0 ? -1 : tb_ngram_table_find(t, prefix, token);
            if (g < 0)
                break;  /* no longer n-gram from here is in the table either */
            if (c->count[g]++ == 0)
                c->touched[c->n++] = g;
            prefix = g;
        }
    }
    *pos = end + 1;
    return (int64_t)(end - start);
}

/* The segment's n-grams (clip's touched ones) appended to c with their clip counts, keys
 * and orders; clip's counts zeroed again. */
static tb_status add_entries(const tb_ngram_table *table, counter *clip, tb_mteval_clips *c)
{
    size_t need = c->n + clip->n, caps[4] = {c->cap, c->cap, c->cap, c->cap};  /* (all grow alike) */
    if (GROW(c->ids, caps[0], need) < 0 || GROW(c->counts, caps[1], need) < 0 || GROW(c->keys, caps[2], need) < 0
        || GROW(c->orders, caps[3], need) < 0)
        return TB_NOMEM;
    c->cap = caps[0];
    for (int k = 1; k < 4; k++)
        c->cap = caps[k] < c->cap ? caps[k] : c->cap;
    for (size_t k = 0; k < clip->n; k++) {
        int32_t g = clip->touched[k];
        c->ids[c->n] = g;
        c->counts[c->n] = clip->count[g];
        c->keys[c->n] = tb_ngram_key(table->prefix[g], table->token[g]);
        c->orders[c->n++] = table->order[g];
        clip->count[g] = 0;
    }
    if (clip->n > c->most)
        c->most = clip->n;
    return TB_OK;
}

/* Segment s's hash table of its n-grams (c->ids[c->starts[s] ..), just added): a power of
 * two of slots, at least twice its n-grams (none for a segment without n-grams). */
static tb_status add_segment_slots(tb_mteval_clips *c, size_t s)
{
    size_t first = c->starts[s], m = c->n - first, size = 4;
    if (m == 0)
        return TB_OK;  /* (c->slots may still be NULL: no memset on it) */
    while (size < 2 * m)
        size *= 2;
    if (GROW(c->slots, c->slots_cap, c->slots_n + size) < 0)
        return TB_NOMEM;
    uint32_t *slots = c->slots + c->slots_n;
    memset(slots, 0, size * sizeof *slots);
    for (size_t j = 0; j < m; j++) {
        size_t at = tb_ngram_slot_of(c->keys[first + j], size);
        while (slots[at] != 0)
            at = (at + 1) & (size - 1);
        slots[at] = (uint32_t)(j + 1);
    }
    c->slots_n += size;
    return TB_OK;
}

tb_status tb_mteval_clips_build(const tb_ngram_table *table, const int32_t *refs, size_t nrefs,
                                size_t segments, int max_order, tb_mteval_clips *c)
{
    memset(c, 0, sizeof *c);
    c->segments = segments;
    size_t n = table->n;
    counter ref, clip;  /* one reference's counts; the segment's largest (clip.count) */
    int ref_open = counter_open(&ref, n) == 0;
    int clip_open = counter_open(&clip, n) == 0;
    c->starts = malloc((segments + 1) * sizeof *c->starts);
    c->slot_starts = malloc((segments + 1) * sizeof *c->slot_starts);
    tb_status status = ref_open && clip_open && c->starts && c->slot_starts ? TB_OK : TB_NOMEM;
    size_t pos = 0;
    for (size_t s = 0; s < segments && status == TB_OK; s++) {
        c->starts[s] = c->n;
        c->slot_starts[s] = c->slots_n;
        for (size_t r = 0; r < nrefs; r++) {
            count_line(table, refs, &pos, max_order, &ref);
            for (size_t k = 0; k < ref.n; k++) {
                int32_t g = ref.touched[k];
                if (clip.count[g] == 0)
                    clip.touched[clip.n++] = g;
                if (ref.count[g] > clip.count[g])
                    clip.count[g] = ref.count[g];
                ref.count[g] = 0;
            }
            ref.n = 0;
        }
        if (add_entries(table, &clip, c) != TB_OK || add_segment_slots(c, s) != TB_OK) {
            status = TB_NOMEM;
            break;
        }
        clip.n = 0;
    }
    if (status == TB_OK) {
        c->starts[segments] = c->n;
        c->slot_starts[segments] = c->slots_n;
    }
    counter_close(&ref);
    counter_close(&clip);
    if (status != TB_OK)
        tb_mteval_clips_free(c);
    return status;
}

void tb_mteval_clips_free(tb_mteval_clips *c)
{
    free(c->ids);
    free(c->counts);
    free(c->keys);
    free(c->orders);
    free(c->starts);
    free(c->slots);
    free(c->slot_starts);
    memset(c, 0, sizeof *c);
}

tb_status tb_mteval_pairs_build(const tb_ngram_table *table, int32_t no_context, uint64_t ref_words,
                                tb_mteval_pairs *p)
{
    size_t n = table->n, size = 4;
    while (size < 2 * n)
        size *= 2;
    uint32_t *slots = calloc(size, sizeof *slots);  /* 0, or 1 + an index in p->pairs */
    p->pairs = malloc((n ? n : 1) * sizeof *p->pairs);
    p->pair_of = malloc((n ? n : 1) * sizeof *p->pair_of);
    p->n = 0;
    if (!slots || !p->pairs || !p->pair_of) {
        free(slots);
        tb_mteval_pairs_free(p);
        return TB_NOMEM;
    }
    for (size_t g = 0; g < n; g++) {
        int32_t prefix = table->prefix[g];
        int no_ctx = prefix < 0 || (table->order[g] == 2 && table->token[prefix] == no_context);
        uint64_t context = no_ctx ? ref_words : (uint64_t)table->count[prefix];
        uint64_t pair = (uint64_t)table->count[g] << 32 | context;  /* (a count is at least 1: never 0) */
        size_t at = tb_ngram_slot_of(pair, size);
        while (slots[at] != 0 && p->pairs[slots[at] - 1] != pair)
            at = (at + 1) & (size - 1);
        if (slots[at] == 0) {
            p->pairs[p->n++] = pair;
            slots[at] = (uint32_t)p->n;
        }
        p->pair_of[g] = (int32_t)(slots[at] - 1);
    }
    free(slots);
    return TB_OK;
}

void tb_mteval_pairs_free(tb_mteval_pairs *p)
{
    free(p->pairs);
    free(p->pair_of);
    memset(p, 0, sizeof *p);
}

/* The index (within its segment) of the n-gram `key` in segment s's table, or -1. */
static inline int64_t segment_find(const tb_mteval_clips *c, size_t s, uint64_t key)
{
    size_t size = c->slot_starts[s + 1] - c->slot_starts[s];
    if (size == 0)
        return -1;
    const uint32_t *slots = c->slots + c->slot_starts[s];
    const uint64_t *keys = c->keys + c->starts[s];
    for (size_t at = tb_ngram_slot_of(key, size);; at = (at + 1) & (size - 1)) {
        uint32_t j = slots[at];
        if (j == 0)
            return -1;
        if (keys[j - 1] == key)
            return (int64_t)j - 1;
    }
}

/* The hypothesis line at *pos counted against segment s's n-grams (as count_line, but only
 * the n-grams its references hold: the others match nothing) into c, indexed within the
 * segment; *pos moves past the line's end. The line's tokens. */
static int64_t count_segment_line(const tb_mteval_clips *clips, size_t s, const int32_t *ids, size_t *pos,
                                  int max_order, counter *c)
{
    size_t start = *pos, end = start;
    while (ids[end] != TB_LINE_END)
        end++;
    const int32_t *numbers = clips->ids + clips->starts[s];
    for (size_t i = start; i < end; i++) {
        int32_t prefix = -1;
        for (int n = 1; n <= max_order && i + (size_t)n <= end; n++) {
            int32_t token = ids[i + (size_t)n - 1];
            int64_t j = token < 0 ? -1 : segment_find(clips, s, tb_ngram_key(prefix, token));
            if (j < 0)
                break;  /* no longer n-gram from here is in the segment's references either */
            if (c->count[j]++ == 0)
                c->touched[c->n++] = (int32_t)j;
            prefix = numbers[j];
        }
    }
    *pos = end + 1;
    return (int64_t)(end - start);
}

tb_status tb_mteval_sums_compute(const tb_mteval_clips *clips, const tb_mteval_pairs *pairs,
                                 const double *weights, const int32_t *hyps, int max_order,
                                 int64_t *hyp_sizes, tb_mteval_sums *out)
{
    memset(out, 0, sizeof *out);
    counter hyp;
    tb_exact_sum sums[TB_MTEVAL_MAX_ORDER];
    memset(sums, 0, sizeof sums);
    tb_status status = counter_open(&hyp, clips->most) == 0 ? TB_OK : TB_NOMEM;
    size_t pos = 0;
    for (size_t s = 0; s < clips->segments && status == TB_OK; s++) {
        int64_t size = count_segment_line(clips, s, hyps, &pos, max_order, &hyp);
        hyp_sizes[s] = size;
        for (int o = 0; o < max_order; o++)
            if (size > o)
                out->totals[o] += size - o;
        size_t first = clips->starts[s];
        for (size_t k = 0; k < hyp.n && status == TB_OK; k++) {
            int32_t j = hyp.touched[k];
            int64_t clip = clips->counts[first + (size_t)j];
            int64_t matched = hyp.count[j] < clip ? hyp.count[j] : clip;
            int o = clips->orders[first + (size_t)j] - 1;
            out->matches[o] += matched;
            double info = weights[pairs->pair_of[clips->ids[first + (size_t)j]]];
            status = tb_exact_sum_add(&sums[o], info * (double)matched);
        }
        for (size_t k = 0; k < hyp.n; k++)  /* after a failure too */
            hyp.count[hyp.touched[k]] = 0;
        hyp.n = 0;
        for (int o = 0; o < max_order; o++)
            out->info[o] += tb_exact_sum_take(&sums[o]);
    }
    for (int o = 0; o < TB_MTEVAL_MAX_ORDER; o++)
        tb_exact_sum_free(&sums[o]);
    counter_close(&hyp);
    return status;
}
