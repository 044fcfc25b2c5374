/* truebleu core: chrF++'s word ids for one pair of lines (plain C, no Python
 * objects): equal words, equal ids, in one vocabulary per pair. */
#ifndef TB_CHRF_WORDS_H
#define TB_CHRF_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "chrf/lines.h"

/* word vocabulary entry: a word of one of the two sides, and its id; a slot
 * whose stamp is not the current pair's is empty (no clearing between pairs) */
typedef struct {
    const uint32_t *p;
    uint32_t len, hash, id1;  /* id1 = id + 1 */
    uint32_t stamp;
} chrf_word_slot;

/* A line's words as word_ids reads them: spans of `base` with their hashes (NULL: to be
 * computed), the ids going to side->ids. */
typedef struct {
    const uint32_t *base;
    const chrf_span *spans;
    const uint32_t *hashes;
    size_t n;
    chrf_side *side;
} chrf_word_list;

/* The vocabulary, kept from one pair to the next (one per worker; all 0 to start). */
typedef struct {
    chrf_word_slot *vocab; size_t vocab_cap, vocab_zeroed;
    uint32_t vocab_stamp;  /* the current pair's, from 1 */
    uint32_t nword_ids;    /* the pair's word ids are 1 .. nword_ids */
} tb_chrf_vocab;

/* Give the words of both sides ids in one vocabulary (equal words, equal ids) into
 * each list's side->ids; w->nword_ids: how many. 0 ok, -1 out of memory. */
int tb_chrf_word_ids(tb_chrf_vocab *w, const chrf_word_list *hyp, const chrf_word_list *ref);

void tb_chrf_vocab_free(tb_chrf_vocab *w);

#endif
