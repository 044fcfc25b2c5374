/* chrF++'s word vocabulary (chrf/words.h): words compared by content (spans of code
 * points or of a segment's symbol ids), with a stamp per pair instead of clearing. */
#include "chrf/words.h"
#include "chrf/ngrams.h"
#include "runtime/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether the n symbols at a and b are the same (a word is a few symbols: a loop in
 * line, not a call to memcmp). */
static inline int same_symbols(const uint32_t *a, const uint32_t *b, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

int tb_chrf_word_ids(tb_chrf_vocab *w, const chrf_word_list *hyp, const chrf_word_list *ref)
{
    const chrf_word_list *sides[2] = {hyp, ref};
    size_t cap = tb_chrf_table_size(hyp->n + ref->n);
    if (GROW(w->vocab, w->vocab_cap, cap) < 0)
        return -1;
    if (w->vocab_stamp == UINT32_MAX) {  /* the stamps ran out: clear what was used */
        memset(w->vocab, 0, w->vocab_zeroed * sizeof(chrf_word_slot));
        w->vocab_stamp = 0;
    }
    if (cap > w->vocab_zeroed) {
        memset(w->vocab + w->vocab_zeroed, 0, (cap - w->vocab_zeroed) * sizeof(chrf_word_slot));
        w->vocab_zeroed = cap;
    }
    const uint32_t stamp = ++w->vocab_stamp;
    size_t mask = cap - 1;
    uint32_t next_id = 0;
    for (int s = 0; s < 2; s++) {
        const chrf_word_list *list = sides[s];
        chrf_side *side = list->side;
        if (GROW(side->ids, side->ids_cap, list->n ? list->n : 1) < 0)
            return -1;
        for (size_t i = 0; i < list->n; i++) {
            const uint32_t *p = list->base + list->spans[i].start;
            uint32_t len = list->spans[i].len;
            uint32_t hv = list->hashes ? list->hashes[i] : tb_chrf_hash_run(p, len);
            size_t k = hv & mask;
            for (;;) {
                chrf_word_slot *e = &w->vocab[k];
                if (e->stamp != stamp) {
                    e->stamp = stamp;
                    e->p = p;
                    e->len = len;
                    e->hash = hv;
                    e->id1 = ++next_id;
                    side->ids[i] = e->id1;
                    break;
                }
                if (e->hash == hv && e->len == len && same_symbols(e->p, p, len)) {
                    side->ids[i] = e->id1;
                    break;
                }
                k = (k + 1) & mask;
            }
        }
    }
    w->nword_ids = next_id;
    return 0;
}

void tb_chrf_vocab_free(tb_chrf_vocab *w)
{
    free(w->vocab);
    memset(w, 0, sizeof(*w));
}
