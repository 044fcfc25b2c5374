/* truebleu core: an order of a one-pass job's items that puts the items with
 * the same references next to each other (plain C, no Python).
 *
 * The one-pass jobs (TB_BLEU_SENT: stream_statistics, sentence_statistics,
 * stream_statistics_utf8) tokenize an item's references and reuse them for
 * the next item when its references are the same texts (bleu/jobs.c:
 * same_references). Several systems scored in one call (their outputs
 * concatenated, each test set's references repeated once per system), or a
 * trainer's groups of completions that are not consecutive, repeat the
 * references far apart; visiting the items in this order tokenizes each
 * distinct set of references about once, and an item whose hypothesis is the
 * one of the item before takes that item's row. The order changes no result:
 * each item writes its own row, and sums of rows are sums of integers.
 */
#ifndef TB_BLEU_GROUPS_H
#define TB_BLEU_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "text/text.h"

/* One call's grouping: the items' order and their first looks, in a scratch
 * kept between calls (runtime/spares.h). Its arrays (about 64 bytes an item,
 * and a table of 16 to 32) were allocated and freed by every call, and a call
 * of 20,000 sentences then spent about a tenth of its time in the kernel,
 * faulting in fresh pages for them (brk gave them back at each free): kept,
 * the next call finds them mapped, and its table needs no zeroing (stamps). */
typedef struct tb_groups_scratch tb_groups_scratch;

typedef struct {
    const size_t *order;    /* the items in this order, or NULL: the natural order */
    const uint64_t *looks;  /* each item's first look, or NULL (n < 2) */
    tb_groups_scratch *scratch;  /* where they lie (NULL: nothing held) */
} tb_groups;

/* Items 0 .. n-1, item k's hypothesis hyp_texts[k] and its references
 * ref_texts[offsets[k] .. offsets[k+1]). out->looks (n entries; NULL when
 * n < 2): each item's first look at its references (their count, and each
 * one's length and first 8 bytes): two items whose first
 * looks differ do not have the same references, so the job compares the texts
 * only of items whose looks are equal. out->order (n entries) lists the
 * items with those whose references look alike (also the middle and last 8
 * bytes) one after another, each group where its first item was, and within a
 * group the items whose hypotheses look alike one after another too (several
 * systems often give one translation); out->order is NULL when few items repeat
 * an earlier item's references (under 1 in 16: the same str objects, or equal
 * first looks and looks of three words a reference; one test set's few duplicate
 * lines: the natural order costs less than grouping) or none do. Looking alike
 * is a hint: jobs.c compares the texts before it reuses anything. Both stay
 * valid until tb_groups_release(out). 0, or -1: out of memory (nothing held). */
int tb_group_by_references(const tb_text *hyp_texts, const tb_text *ref_texts, const size_t *offsets, size_t n,
                           tb_groups *out);

/* Gives g's scratch back to be kept (or frees it when it grew past
 * TB_SPARE_MAX_BYTES); g holds nothing after. (Any thread, GIL or not.) */
void tb_groups_release(tb_groups *g);

/* Frees the grouping's arrays kept between calls (those of a call running now
 * stay with it); the bytes freed. (Any thread, GIL or not.) */
size_t tb_groups_release_spares(void);

#endif
