/* The n-gram profiles of a chrF matrix (chrf/profile.h).
 *
 * Ids are exact, as in chrf.c: an n-gram of order n is the key (id of its first
 * n - 1 symbols, its last symbol), and each new key gets the next id, so equal
 * ids mean equal n-grams. Unigrams take the prefix 0 (characters) or
 * UINT32_MAX (words), which no id reaches, so character and word n-grams never
 * share an id. Words are symbols by content (one vocabulary of their code
 * points). Everything is built once, on one thread, before the matrix runs.
 */
#include "chrf/profile.h"
#include "chrf/lines.h"
#include "chrf/words.h"
#include "runtime/memory.h"

#include <stdlib.h>
#include <string.h>

#define WORD_PREFIX UINT32_MAX

typedef struct {
    uint64_t key;
    uint32_t id;  /* 0 = empty */
} key_slot;

/* A block of lines' code points: the vocabulary's slots point into blocks, which never
 * move (a line's decoded words are overwritten by the next line's). */
typedef struct word_block {
    struct word_block *next;
    size_t used, cap;
    uint32_t a[];
} word_block;

#define WORD_BLOCK 16384

typedef struct {
    key_slot *keys; size_t keys_cap, nkeys;       /* n-gram key -> id */
    tb_chrf_vocab vocab;                          /* word -> word id (one use) */
    word_block *blocks;                           /* the lines that brought new words */
    uint32_t *last; size_t last_cap;              /* by id: the last line holding it, + 1 */
    size_t *at; size_t at_cap;                    /* by id: its entry in that line */
    uint32_t *hdf; size_t hdf_cap;                /* by id: hypothesis lines holding it */
    uint32_t *dense; size_t dense_cap;            /* by id: its dense id, 0 = not kept */
    uint32_t *pid; size_t pid_cap;                /* n-gram ids by start position */
    size_t entries_cap, start_cap;
    chrf_side side;
} builder;

static inline size_t mix(uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32);
}

static int grow_keys(builder *b)
{
    size_t cap = b->keys_cap ? 2 * b->keys_cap : 1024;
    key_slot *t = calloc(cap, sizeof(key_slot));
    if (!t)
        return -1;
    for (size_t k = 0; k < b->keys_cap; k++) {
        if (!b->keys[k].id)
            continue;
        size_t s = mix(b->keys[k].key) & (cap - 1);
        while (t[s].id)
            s = (s + 1) & (cap - 1);
        t[s] = b->keys[k];
    }
    free(b->keys);
    b->keys = t;
    b->keys_cap = cap;
    return 0;
}

/* The id of `key`, a new one if unseen; 0 when out of memory or ids. */
static uint32_t key_id(builder *b, uint64_t key)
{
    if (2 * (b->nkeys + 1) > b->keys_cap && grow_keys(b) < 0)
        return 0;
    size_t mask = b->keys_cap - 1, s = mix(key) & mask;
    while (b->keys[s].id) {
        if (b->keys[s].key == key)
            return b->keys[s].id;
        s = (s + 1) & mask;
    }
    if (b->nkeys >= UINT32_MAX - 2)
        return 0;
    uint32_t id = (uint32_t)++b->nkeys;
    if (GROW(b->last, b->last_cap, id + 1) < 0 || GROW(b->at, b->at_cap, id + 1) < 0 ||
        GROW(b->hdf, b->hdf_cap, id + 1) < 0)
        return 0;
    b->last[id] = 0;
    b->hdf[id] = 0;
    b->keys[s].key = key;
    b->keys[s].id = id;
    return id;
}

/* A copy of the n code points at p that stays where it is. */
static uint32_t *keep(builder *b, const uint32_t *p, size_t n)
{
    word_block *blk = b->blocks;
    if (!blk || blk->cap - blk->used < n) {
        size_t cap = n > WORD_BLOCK ? n : WORD_BLOCK;
        blk = malloc(sizeof(word_block) + cap * sizeof(uint32_t));
        if (!blk)
            return NULL;
        blk->next = b->blocks;
        blk->used = 0;
        blk->cap = cap;
        b->blocks = blk;
    }
    uint32_t *copy = blk->a + blk->used;
    if (n)
        memcpy(copy, p, n * sizeof(uint32_t));
    blk->used += n;
    return copy;
}

/* The word ids of the decoded line's words into side.ids (equal words, equal ids): the
 * corpus path's vocabulary (chrf/words.h), in one use over every line. Its new words
 * point into a copy of the line, kept only if the line brought one. */
static int word_ids(builder *b)
{
    chrf_side *side = &b->side;
    uint32_t before = b->vocab.nids;
    const uint32_t *copy = keep(b, side->all.a, side->all.n);
    if (!copy || GROW(side->ids, side->ids_cap, side->nwords ? side->nwords : 1) < 0 ||
        tb_chrf_vocab_ids(&b->vocab, copy, side->words, side->nwords, side->ids) < 0)
        return -1;
    if (b->vocab.nids == before)
        b->blocks->used -= side->all.n;  /* (no new word: the copy is not needed) */
    return 0;
}

/* The entries of line p for orders 1..max_order of the symbols seq[0 .. len), from
 * order slot `first_order`; unigram keys take `prefix`. */
static int add_orders(builder *b, tb_chrf_profiles *pr, size_t p, int is_hyp, const uint32_t *seq,
                      size_t len, int max_order, int first_order, uint32_t prefix)
{
    if (GROW(b->pid, b->pid_cap, len ? len : 1) < 0)
        return -1;
    for (int n = 1; n <= max_order; n++) {
        size_t slot = p * (size_t)pr->orders + (size_t)(first_order + n - 1);
        size_t count = len >= (size_t)n ? len - (size_t)n + 1 : 0;
        pr->totals[slot] = (int64_t)count;
        size_t nent = pr->start[slot];  /* where the previous order (or line) ended */
        if (GROW(pr->entries, b->entries_cap, nent + count) < 0)
            return -1;
        for (size_t i = 0; i < count; i++) {
            uint64_t key = ((uint64_t)(n == 1 ? prefix : b->pid[i]) << 32) | seq[i + (size_t)n - 1];
            uint32_t id = key_id(b, key);
            if (!id)
                return -1;
            b->pid[i] = id;
            if (b->last[id] == p + 1) {
                pr->entries[b->at[id]].count++;
                continue;
            }
            b->last[id] = (uint32_t)(p + 1);
            b->at[id] = nent;
            pr->entries[nent].id = id;
            pr->entries[nent].count = 1;
            nent++;
            if (is_hyp)
                b->hdf[id]++;
        }
        pr->start[slot + 1] = nent;
    }
    return 0;
}

static int add_line(builder *b, tb_chrf_profiles *pr, size_t p, int is_hyp, const tb_text *t,
                    int char_order, int word_order, int whitespace)
{
    if (p >= UINT32_MAX - 1 || tb_chrf_decode(&b->side, t, whitespace, word_order > 0, 1) < 0)
        return -1;
    if (char_order > 0 &&
        add_orders(b, pr, p, is_hyp, b->side.chars.a, b->side.chars.n, char_order, 0, 0) < 0)
        return -1;
    if (word_order > 0 && (word_ids(b) < 0 ||
                           add_orders(b, pr, p, is_hyp, b->side.ids, b->side.nwords, word_order,
                                      char_order, WORD_PREFIX) < 0))
        return -1;
    return 0;
}

/* Keep the entries whose n-gram can match another line, with dense ids. */
static int keep_shared(builder *b, tb_chrf_profiles *pr, size_t first_ref, uint32_t need)
{
    if (GROW(b->dense, b->dense_cap, b->nkeys + 1) < 0)
        return -1;
    memset(b->dense, 0, (b->nkeys + 1) * sizeof(uint32_t));
    size_t orders = (size_t)pr->orders;
    uint32_t next = 0;
    for (size_t e = pr->start[first_ref * orders]; e < pr->start[pr->nprofiles * orders]; e++) {
        uint32_t id = pr->entries[e].id;
        if (b->hdf[id] >= need && !b->dense[id])
            b->dense[id] = ++next;
    }
    size_t out = 0, slots = pr->nprofiles * orders;
    for (size_t s = 0; s < slots; s++) {
        size_t lo = pr->start[s], hi = pr->start[s + 1];
        pr->start[s] = out;
        for (size_t e = lo; e < hi; e++) {
            uint32_t d = b->dense[pr->entries[e].id];
            if (d) {
                pr->entries[out].id = d;
                pr->entries[out].count = pr->entries[e].count;
                out++;
            }
        }
    }
    pr->start[slots] = out;
    pr->nids = next;
    return 0;
}

/* The postings of every kept n-gram over the reference profiles (reference r is
 * profile first_ref + r), by reference. */
static int index_references(tb_chrf_profiles *pr, size_t first_ref)
{
    size_t orders = (size_t)pr->orders;
    size_t lo = pr->start[first_ref * orders], hi = pr->start[pr->nprofiles * orders];
    pr->post_start = calloc(pr->nids + 2, sizeof(size_t));
    pr->postings = malloc((hi - lo ? hi - lo : 1) * sizeof(tb_chrf_posting));
    pr->order_of = calloc(pr->nids + 1, sizeof(uint32_t));
    if (!pr->post_start || !pr->postings || !pr->order_of)
        return -1;
    for (size_t e = lo; e < hi; e++)
        pr->post_start[pr->entries[e].id + 1]++;
    for (size_t d = 1; d <= pr->nids + 1; d++)
        pr->post_start[d] += pr->post_start[d - 1];
    /* fill in reference order; post_start[d] runs ahead and is moved back after */
    for (size_t p = first_ref; p < pr->nprofiles; p++) {
        for (size_t o = 0; o < orders; o++) {
            for (size_t e = pr->start[p * orders + o]; e < pr->start[p * orders + o + 1]; e++) {
                uint32_t d = pr->entries[e].id;
                tb_chrf_posting *post = &pr->postings[pr->post_start[d]++];
                post->ref = (uint32_t)(p - first_ref);
                post->count = pr->entries[e].count;
                pr->order_of[d] = (uint32_t)o;
            }
        }
    }
    for (size_t d = pr->nids + 1; d > 0; d--)
        pr->post_start[d] = pr->post_start[d - 1];
    pr->post_start[0] = 0;
    return 0;
}

static void builder_free(builder *b)
{
    free(b->keys);
    tb_chrf_vocab_free(&b->vocab);
    while (b->blocks) {
        word_block *next = b->blocks->next;
        free(b->blocks);
        b->blocks = next;
    }
    free(b->last);
    free(b->at);
    free(b->hdf);
    free(b->dense);
    free(b->pid);
    tb_chrf_side_free(&b->side);
}

tb_status tb_chrf_profiles_build(tb_chrf_profiles *pr, const tb_text *hyps, size_t nh,
                                 const tb_text *refs, size_t nr, int refs_are_hyps,
                                 int char_order, int word_order, int whitespace)
{
    memset(pr, 0, sizeof(*pr));
    pr->orders = char_order + word_order;
    pr->nprofiles = nh + (refs_are_hyps ? 0 : nr);
    size_t slots = pr->nprofiles * (size_t)pr->orders;
    pr->totals = calloc(slots ? slots : 1, sizeof(int64_t));
    pr->start = calloc(slots + 1, sizeof(size_t));
    builder b;
    memset(&b, 0, sizeof(b));
    tb_chrf_vocab_start(&b.vocab);
    int rc = pr->totals && pr->start ? 0 : -1;
    for (size_t p = 0; rc == 0 && p < pr->nprofiles; p++) {
        const tb_text *t = p < nh ? &hyps[p] : &refs[p - nh];
        rc = add_line(&b, pr, p, p < nh, t, char_order, word_order, whitespace);
    }
    if (rc == 0)
        rc = keep_shared(&b, pr, refs_are_hyps ? 0 : nh, refs_are_hyps ? 2 : 1);
    if (rc == 0)
        rc = index_references(pr, refs_are_hyps ? 0 : nh);
    builder_free(&b);
    if (rc < 0) {
        tb_chrf_profiles_free(pr);
        return TB_NOMEM;
    }
    return TB_OK;
}

void tb_chrf_profiles_free(tb_chrf_profiles *pr)
{
    free(pr->totals);
    free(pr->start);
    free(pr->entries);
    free(pr->post_start);
    free(pr->postings);
    free(pr->order_of);
    memset(pr, 0, sizeof(*pr));
}
