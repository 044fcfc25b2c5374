/* chrF++'s word vocabulary (chrf/words.h): open addressing on the words' hashes, words
 * compared by content, a stamp per use instead of clearing. */
#include "chrf/words.h"
#include "runtime/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void tb_chrf_vocab_start(tb_chrf_vocab *v)
{
    if (v->stamp == UINT32_MAX) {  /* the stamps ran out: clear the table */
        if (v->slots)
            memset(v->slots, 0, v->cap * sizeof(chrf_word_slot));
        v->stamp = 0;
    }
    v->stamp++;
    v->nids = 0;
}

/* Double the table (its words kept; the empty table takes 64). 0 ok, -1 out of memory. */
static int grow(tb_chrf_vocab *v)
{
    size_t cap = v->cap ? 2 * v->cap : 64;
    chrf_word_slot *t = calloc(cap, sizeof(chrf_word_slot));
    if (!t)
        return -1;
    for (size_t k = 0; k < v->cap; k++) {
        const chrf_word_slot *e = &v->slots[k];
        if (e->stamp != v->stamp)
            continue;
        size_t s = (uint32_t)e->key & (cap - 1);
        while (t[s].stamp == v->stamp)
            s = (s + 1) & (cap - 1);
        t[s] = *e;
    }
    free(v->slots);
    v->slots = t;
    v->cap = cap;
    return 0;
}

/* Whether the n symbols at a and b are the same (a word is a few symbols: a loop in
 * line, not a call to memcmp), two at a time (one 64-bit compare; memcpy is one load). */
static inline int same_symbols(const uint32_t *a, const uint32_t *b, uint32_t n)
{
    uint32_t k = 0;
    for (; k + 2 <= n; k += 2) {
        uint64_t x, y;
        memcpy(&x, a + k, sizeof(x));
        memcpy(&y, b + k, sizeof(y));
        if (x != y)
            return 0;
    }
    return k == n || a[k] == b[k];
}

int tb_chrf_vocab_ids(tb_chrf_vocab *v, const uint32_t *base, const chrf_span *spans, size_t n,
                      uint32_t *ids)
{
    if (n >= UINT32_MAX - 2 - (size_t)v->nids)
        return -1;
    while (2 * ((size_t)v->nids + n) > v->cap)  /* (at most half full after all n) */
        if (grow(v) < 0)
            return -1;
    chrf_word_slot *slots = v->slots;
    const size_t mask = v->cap - 1;
    const uint32_t stamp = v->stamp;
    uint32_t next_id = v->nids;
    for (size_t i = 0; i < n; i++) {
        const uint32_t *p = base + spans[i].start;
        uint32_t len = spans[i].len;
        uint64_t key = tb_chrf_word_key(len, spans[i].hash);
        size_t k = (uint32_t)key & mask;
        for (;;) {
            chrf_word_slot *e = &slots[k];
            if (e->stamp != stamp) {
                e->stamp = stamp;
                e->p = p;
                e->key = key;
                e->id = ++next_id;
                ids[i] = next_id;
                break;
            }
            if (e->key == key && same_symbols(e->p, p, len)) {
                ids[i] = e->id;
                break;
            }
            k = (k + 1) & mask;
        }
    }
    v->nids = next_id;
    return 0;
}

int tb_chrf_word_ids(tb_chrf_vocab *v, const chrf_word_list *hyp, const chrf_word_list *ref)
{
    const chrf_word_list *sides[2] = {hyp, ref};
    tb_chrf_vocab_start(v);
    for (int s = 0; s < 2; s++) {
        const chrf_word_list *list = sides[s];
        chrf_side *side = list->side;
        if (GROW(side->ids, side->ids_cap, list->n ? list->n : 1) < 0 ||
            tb_chrf_vocab_ids(v, list->base, list->spans, list->n, side->ids) < 0)
            return -1;
    }
    return 0;
}

void tb_chrf_vocab_free(tb_chrf_vocab *v)
{
    free(v->slots);
    memset(v, 0, sizeof(*v));
}

size_t tb_chrf_vocab_footprint(const tb_chrf_vocab *v)
{
    return v->cap * sizeof(chrf_word_slot);
}
