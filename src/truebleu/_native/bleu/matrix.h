/* truebleu core: n-gram profiles for pairwise matrices of single-reference
 * sentence BLEU (plain C, no Python; see bleu/matrix.c). */
#ifndef TB_BLEU_MATRIX_H
#define TB_BLEU_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/poll.h"
#include "text/tokenize.h"

typedef struct tb_profiles tb_profiles;
/* NULL: out of memory, or poll (may be NULL) said stop. */
tb_profiles *tb_profiles_build(const tb_seg *seg, int max_order, tb_poll *poll);
void tb_profiles_free(tb_profiles *p);
/* Index the sequences s with chosen[s] != 0 (the references) by n-gram. 0 ok, -1 out of
 * memory or stopped by poll (may be NULL). */
int tb_profiles_index(tb_profiles *p, const uint8_t *chosen, tb_poll *poll);
/* acc[r * N + n - 1] += clipped matches of order n of h against each indexed r
 * (acc: N int64 per sequence, zero at the indexed ones before the call).
 * Returns the work done: h's n-grams plus the postings visited. */
size_t tb_profiles_matches(const tb_profiles *p, uint32_t h, int64_t *acc);
/* The statistics row of h against the single reference r (indexed), from h's acc. */
void tb_profiles_row(const tb_profiles *p, uint32_t h, uint32_t r, const int64_t *acc, int64_t *row);

#endif
