/* truebleu core: the n-gram profiles of many lines, made once for a chrF matrix
 * (plain C, no Python objects; see chrf/profile.c).
 *
 * A profile is, per order (character orders 1..C, then word orders 1..W), the
 * number of n-grams of the line and its distinct n-grams with their counts.
 * n-grams get exact ids in one vocabulary over every line, so two lines share
 * an n-gram exactly when their profiles share its id. Only the entries that can
 * match another line are kept (the rest only matter on a line against itself,
 * where every n-gram matches), renumbered 1..nids densely, and indexed by
 * n-gram: the references that hold each one (its postings).
 */
#ifndef TB_CHRF_PROFILE_H
#define TB_CHRF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/status.h"
#include "text/text.h"

/* A distinct n-gram of a line: its (dense) id and how often it occurs there. */
typedef struct {
    uint32_t id, count;
} tb_chrf_entry;

/* A reference holding an n-gram, and how often (a posting of the n-gram). */
typedef struct {
    uint32_t ref, count;
} tb_chrf_posting;

typedef struct {
    size_t nprofiles;
    int orders;              /* char_order + word_order */
    int64_t *totals;         /* [p * orders + o]: n-grams of order o + 1 in line p */
    size_t *start;           /* entries of line p, order o: [start[p*orders+o], start[p*orders+o+1]) */
    tb_chrf_entry *entries;  /* the kept entries */
    size_t nids;             /* dense ids are 1 .. nids */
    /* the inverted index of the references' kept entries: the postings of dense id d are
     * postings[post_start[d] .. post_start[d + 1]), by reference; order_of[d]: its order slot */
    size_t *post_start;
    tb_chrf_posting *postings;
    uint32_t *order_of;
} tb_chrf_profiles;

/* The profiles of hyps[0 .. nh) (profiles 0 .. nh - 1) and, unless refs_are_hyps
 * (the references are the hypotheses: MBR; refs and nr are then ignored), of
 * refs[0 .. nr) (profiles nh ..);
 * an entry of a reference is kept when some hypothesis profile other than its
 * own holds its n-gram, one of a hypothesis when a reference keeps it.
 * TB_OK, or TB_NOMEM (also when the ids would run out). */
tb_status tb_chrf_profiles_build(tb_chrf_profiles *pr, const tb_text *hyps, size_t nh,
                                 const tb_text *refs, size_t nr, int refs_are_hyps,
                                 int char_order, int word_order, int whitespace);

void tb_chrf_profiles_free(tb_chrf_profiles *pr);

#endif
