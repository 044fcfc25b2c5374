/* truebleu core: BLEU on token ids (plain C, no Python).
 *
 * A batch of segments whose tokens are already integers (a model's token ids,
 * gathered by bleu/bindings_ids.c with pads and skipped ids removed) needs no
 * tokenizer: each segment's references get a vocabulary of their own, every
 * distinct id the next local index through a small open-addressing hash of the
 * ids, and the hypothesis is looked up in it (TB_ABSENT: in no reference).
 * bleu/ngram.c's matcher then counts and clips exactly as for tokenized text.
 *
 * These are the rows of the ids' written form (decimal ids separated by
 * single spaces, tokenized with "none"): that tokenizer makes each id one
 * token, and two written ids are the same token exactly when the ids are equal.
 */
#ifndef TB_BLEU_IDS_H
#define TB_BLEU_IDS_H

#include <stddef.h>
#include <stdint.h>

#include "text/tokenize.h"

/* The gathered ids of a batch. Sequence s is ids[seq_off[s] .. seq_off[s + 1]);
 * item k owns sequences first[k] .. first[k + 1] - 1: its hypothesis, then its
 * references (at least one). Read-only while a job runs. */
typedef struct {
    const int64_t *ids;
    const size_t *seq_off;
    const size_t *first;
    size_t nitems;
} tb_id_batch;

/* One slot of the id -> local index hash: live while its era is the vocabulary's. */
typedef struct {
    int64_t id;
    uint32_t local, era;
} tb_id_slot;

/* Scratch state of one thread: the vocabulary of one segment's references,
 * those references in local indexes, and a hypothesis looked up in them. */
typedef struct {
    tb_id_slot *slots; size_t slots_cap;
    uint32_t era;                              /* the era of the live slots (1, 2, ...) */
    size_t mask;                               /* the segment's table: slots[0 .. mask] */
    uint32_t nvocab;
    uint32_t *ref_ids; size_t ref_ids_cap;     /* the references, one after another */
    uint32_t *seq_len; size_t seq_len_cap;     /* the length of each reference */
    uint32_t *hyp_ids; size_t hyp_ids_cap;     /* the hypothesis in reference indexes */
} tb_id_vocab;

void tb_id_vocab_init(tb_id_vocab *v);
void tb_id_vocab_free(tb_id_vocab *v);
/* The heap memory a vocabulary holds (its tables), in bytes. */
size_t tb_id_vocab_footprint(const tb_id_vocab *v);

/* Item k's references as a segment over a new vocabulary (v's; *ref is valid
 * until v changes). 0, or -1 when out of memory. */
int tb_id_references(tb_id_vocab *v, const tb_id_batch *b, size_t k, tb_seg *ref);

/* Item k's hypothesis in the ids of v's vocabulary (TB_ABSENT: in none of the
 * references): *hyp, *hlen (valid until v changes). 0, or -1 when out of memory. */
int tb_id_hypothesis(tb_id_vocab *v, const tb_id_batch *b, size_t k, const uint32_t **hyp, uint32_t *hlen);

/* Whether items a and k have the same references, id for id, in the same order
 * (an RL trainer scores the completions of one prompt one after another). */
int tb_id_same_references(const tb_id_batch *b, size_t a, size_t k);

/* The ids item k holds: its hypothesis and references (the work of its row). */
size_t tb_id_item_size(const tb_id_batch *b, size_t k);

#endif
