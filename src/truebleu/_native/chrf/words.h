/* truebleu core: chrF++'s word vocabulary (plain C, no Python objects): equal words,
 * equal ids. One body for the corpus path (a vocabulary per pair of lines,
 * tb_chrf_word_ids) and the matrix's profiles (one vocabulary over every line,
 * chrf/profile.c). */
#ifndef TB_CHRF_WORDS_H
#define TB_CHRF_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "chrf/lines.h"

/* A word of the vocabulary: its symbols (code points or a segment's symbol ids), its
 * length and hash as one key (tb_chrf_word_key: one compare, one store) and its id; a
 * slot whose stamp is not the vocabulary's is empty (no clearing between uses). */
typedef struct {
    const uint32_t *p;
    uint64_t key;
    uint32_t id;
    uint32_t stamp;
} chrf_word_slot;

/* A word's slot key: its hash (low half, which places it in the table) and length. */
static inline uint64_t tb_chrf_word_key(uint32_t len, uint32_t hash)
{
    return (uint64_t)len << 32 | hash;
}

/* The vocabulary, kept from one use to the next (one per worker; all 0 to start). */
typedef struct {
    chrf_word_slot *slots; size_t cap;
    uint32_t stamp;  /* the current use's, from 1 */
    uint32_t nids;   /* the current use's word ids are 1 .. nids */
} tb_chrf_vocab;

/* Start a new use: empty, ids from 1 again (the slots are cleared only when the stamps
 * run out). */
void tb_chrf_vocab_start(tb_chrf_vocab *v);

/* The ids of n words, spans of base (with their hashes), in v's current use into ids[]:
 * a word the use holds keeps its id, a new one takes the next. The new words' slots
 * point into base: the caller keeps those symbols as they are while the use lasts. 0 ok,
 * -1 out of memory or ids. */
int tb_chrf_vocab_ids(tb_chrf_vocab *v, const uint32_t *base, const chrf_span *spans, size_t n,
                      uint32_t *ids);

/* A line's words as tb_chrf_word_ids reads them: spans of `base`, the ids going to
 * side->ids. */
typedef struct {
    const uint32_t *base;
    const chrf_span *spans;
    size_t n;
    chrf_side *side;
} chrf_word_list;

/* Give the words of both lines of a pair ids in one new use of v (equal words, equal
 * ids) into each list's side->ids; v->nids: how many. 0 ok, -1 out of memory. */
int tb_chrf_word_ids(tb_chrf_vocab *v, const chrf_word_list *hyp, const chrf_word_list *ref);

void tb_chrf_vocab_free(tb_chrf_vocab *v);

/* The bytes v's table holds. */
size_t tb_chrf_vocab_footprint(const tb_chrf_vocab *v);

#endif
