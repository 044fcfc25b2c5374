/* truebleu core: the pair -> id table of one segment's n-grams (internal to
 * bleu/ngram.c, which gives an n-gram of order n >= 2 the id of the pair (id of
 * its (n-1)-gram prefix, common id of its last token)).
 *
 * For most segments (ids) x (C + 1) is small, and the table is an array indexed
 * by prefix * (C + 1) + last + 1, exact by construction; a cell written for an
 * earlier segment is told apart by its era tag, so nothing is cleared between
 * segments. The first cell of each row is never written: a hypothesis's token
 * outside the references (TB_ABSENT) lands there (the index is computed modulo
 * 2**32, where TB_ABSENT + 1 is 0) and finds no id, so pair_find needs no test
 * of its own for it. A larger segment uses an open-addressing hash of the whole 64-bit
 * pair, compared in full, so a collision costs time but never changes a count.
 * The lookups are inlined into ngram.c's loops (a header of static inline
 * functions, specialized there for each kind of table).
 */
#ifndef TB_BLEU_PAIRS_H
#define TB_BLEU_PAIRS_H

#include <stdint.h>
#include <string.h>

#include "runtime/memory.h"
#include "runtime/portable.h"
#include "bleu/ngram.h"

/* The direct table is used while it needs at most DIRECT_MAX_CELLS cells (4 bytes
 * each); a cell holds an id (below DIRECT_MAX_CELLS, as ids < C + bound <= cells)
 * tagged with the era (the segment) that wrote it in the bits above. */
#ifndef TB_DIRECT_ID_BITS  /* (a build may set it: small to test the hash table, large the eras) */
#define TB_DIRECT_ID_BITS 18
#endif
#define DIRECT_ID_BITS TB_DIRECT_ID_BITS
#define DIRECT_MAX_CELLS (1u << DIRECT_ID_BITS)

static inline size_t pow2_at_least(size_t n)
{
    size_t c = 16;
    while (c < n)
        c *= 2;
    return c;
}

static inline size_t key_slot(uint64_t key, size_t mask)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* Reserve `need` direct cells (new ones 0: of no era). */
static inline int cells_reserve(tb_matcher *m, size_t need)
{
    if (need <= m->cells_cap)
        return 0;
    size_t old = m->cells_cap;
    if (GROW(m->cells, m->cells_cap, need) < 0)
        return -1;
    memset(m->cells + old, 0, (m->cells_cap - old) * sizeof(uint32_t));
    return 0;
}

/* The pair -> id table of one segment, and the counts of its ids. */
typedef struct {
    uint32_t C, next_id;
    tb_counts *counts;
    uint32_t *cells, era_tag;            /* direct: cells[prefix * stride + last + 1] = era_tag | id */
    uint32_t stride;                     /* direct: C + 1, a row's cells */
    uint32_t *slots; uint64_t *keys;     /* hash: slots hold id + 1 (0: empty), keys[id - C] */
    size_t mask;
} pair_table;

/* The direct cell of a pair; last may be TB_ABSENT (see above: a cell never
 * written). Every index fits in 32 bits (below DIRECT_MAX_CELLS). */
static TB_ALWAYS_INLINE uint32_t *direct_cell(const pair_table *t, uint32_t prefix, uint32_t last)
{
    return &t->cells[(uint32_t)(prefix * t->stride + last + 1)];
}

/* Whether the pair has an id, and its id in *id. last may be TB_ABSENT (no id). */
static TB_ALWAYS_INLINE int
pair_find(const pair_table *t, uint32_t prefix, uint32_t last, uint32_t *id, const int direct)
{
    if (direct) {
        *id = *direct_cell(t, prefix, last) ^ t->era_tag;
        return *id < DIRECT_MAX_CELLS;
    }
    /* (a key with last TB_ABSENT is never stored: not found) */
    const uint64_t key = (uint64_t)prefix << 32 | last;
    for (size_t j = key_slot(key, t->mask);; j = (j + 1) & t->mask) {
        const uint32_t s = t->slots[j];
        if (!s)
            return 0;
        if (t->keys[s - 1 - t->C] == key) {
            *id = s - 1;
            return 1;
        }
    }
}

/* The id of the pair in *id: 0 if it had one; 1 if it is new (the next free
 * id, its counts for the caller to set: they hold an earlier segment's). */
static TB_ALWAYS_INLINE int
pair_add(pair_table *t, uint32_t prefix, uint32_t last, uint32_t *id, const int direct)
{
    if (direct) {
        uint32_t *cell = direct_cell(t, prefix, last);
        *id = *cell ^ t->era_tag;
        if (*id < DIRECT_MAX_CELLS)
            return 0;
        *id = t->next_id++;
        *cell = *id | t->era_tag;
    } else {
        const uint64_t key = (uint64_t)prefix << 32 | last;
        size_t j = key_slot(key, t->mask);
        for (uint32_t s; (s = t->slots[j]) != 0; j = (j + 1) & t->mask)
            if (t->keys[s - 1 - t->C] == key) {
                *id = s - 1;
                return 0;
            }
        *id = t->next_id++;
        t->slots[j] = *id + 1;
        t->keys[*id - t->C] = key;
    }
    return 1;
}

/* The pair table of C common ids and at most `bound` longer n-grams: t's
 * tables, counts zero for the common ids, a new era (direct) or emptied slots
 * (hash). 0, or -1: out of memory. */
static TB_ALWAYS_INLINE int table_start(tb_matcher *m, pair_table *t, uint32_t C, size_t bound, int *direct)
{
    if ((uint64_t)C + bound >= TB_ABSENT)
        return -1;
    if (GROW(m->counts, m->counts_cap, C + bound + 1) < 0 || GROW(m->touched, m->touched_cap, C + bound + 1) < 0)
        return -1;
    *t = (pair_table){.C = C, .next_id = C, .counts = m->counts, .stride = C + 1};
    memset(t->counts, 0, C * sizeof(tb_counts));
    /* every cell (the hypothesis looks up pairs the references may lack), and
     * each row's cell for TB_ABSENT */
    const uint64_t ncells = ((uint64_t)C + bound) * ((uint64_t)C + 1);
    *direct = ncells <= DIRECT_MAX_CELLS;
    if (*direct) {
        if (cells_reserve(m, (size_t)ncells) < 0)
            return -1;
        /* a new era: the cells of earlier segments are stale without clearing them */
        if (++m->cells_era == 1u << (32 - DIRECT_ID_BITS)) {
            if (m->cells_cap)
                memset(m->cells, 0, m->cells_cap * sizeof(uint32_t));
            m->cells_era = 1;
        }
        t->cells = m->cells;
        t->era_tag = m->cells_era << DIRECT_ID_BITS;
    } else {
        /* load at most 2/3 */
        const size_t ncap = pow2_at_least(bound + bound / 2 + 2);
        if (GROW(m->ng_slots, m->ng_slots_cap, ncap) < 0 || GROW(m->ng_keys, m->ng_keys_cap, bound + 1) < 0)
            return -1;
        t->slots = m->ng_slots;
        t->keys = m->ng_keys;
        t->mask = ncap - 1;
        memset(t->slots, 0, ncap * sizeof(uint32_t));
    }
    return 0;
}

#endif
