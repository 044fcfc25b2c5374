/* truebleu core: chrF's n-gram counting of one pair of symbol sequences (plain C, no
 * Python objects): [hyp n-grams, ref n-grams, matches] per order. chrf/packed.c counts
 * n-grams as packed keys where the symbols fit; chrf/chained.c, as chained ids where
 * they do not. Both are exact. */
#ifndef TB_CHRF_NGRAMS_H
#define TB_CHRF_NGRAMS_H

#include <stddef.h>
#include <stdint.h>

/* n-gram table entry. An n-gram is known by an exact 64-bit key: the id of
 * its first n - 1 symbols (0 for n = 1) and its last symbol, (id << 32) | sym;
 * every key gets a fresh id (from 1), so keys of different orders differ. */
typedef struct {
    uint64_t key;
    uint32_t id;     /* 0 = empty slot */
    int32_t left;    /* reference occurrences not yet matched by the hypothesis */
} chrf_slot;

/* packed n-gram table entry: key 0 = empty (a packed key never is 0) */
typedef struct {
    uint64_t key;
    uint32_t left;   /* reference occurrences not yet matched by the hypothesis */
    uint32_t at;     /* an anchor's (count_packed): 1 + its one reference position; 0: repeated */
} chrf_packed_slot;

/* What the counters keep from one pair to the next (one per worker; all 0 to start). */
typedef struct {
    chrf_packed_slot *packed; size_t packed_cap;  /* all empty between pairs */
    uint32_t *used; size_t used_cap;              /* the packed slots one pair filled */
    uint16_t *direct;                             /* DIRECT_SIZE (packed.c), all 0 between pairs */
    uint32_t *repeats; size_t repeats_cap;          /* reference positions of repeated anchors */
    uint32_t *low_used; size_t low_used_cap;        /* the bigram keys count_direct set in `direct` */
    unsigned char *best; size_t best_cap;           /* by reference position, all 0 between pairs */
    uint32_t *reached; size_t reached_cap;          /* the positions one pair set in `best` */
    chrf_slot *slots; size_t slots_cap, slots_zeroed;
    uint32_t next_id;  /* ids only grow, so a slot whose id predates the pair is empty */
    uint32_t *hid, *rid; size_t hid_cap, rid_cap;  /* n-gram ids by start position */
    unsigned char *common; size_t common_cap;       /* by id - first: held by both sides */
} tb_chrf_ngrams;

/* A hash table's size for `count` entries: a power of two, at least twice the count. */
static inline size_t tb_chrf_table_size(size_t count)
{
    size_t cap = 16;
    while (cap < 2 * count)
        cap *= 2;
    return cap;
}

/* The orders 1..max_order of symbols h against r (ids up to `largest`; packed: ids
 * exist for both sides) into out[3 * (n - 1) ..]: packed keys where they fit, else
 * chained ids. 0 ok, -1 out of memory. */
int tb_chrf_count_orders(tb_chrf_ngrams *w, const uint32_t *h, size_t hn, const uint32_t *r,
                         size_t rn, int max_order, uint32_t largest, int packed, int64_t *out);

/* The chained counting alone (any symbols: code points, or ids of any size). */
int tb_chrf_count_chained(tb_chrf_ngrams *w, const uint32_t *h, size_t hn, const uint32_t *r,
                          size_t rn, int max_order, int64_t *out);

void tb_chrf_ngrams_free(tb_chrf_ngrams *w);

/* The bytes w's tables hold (packed.c: it knows the direct table's size). */
size_t tb_chrf_ngrams_footprint(const tb_chrf_ngrams *w);

#endif
