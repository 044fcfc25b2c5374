/* truebleu core: a line as chrF reads it (plain C, no Python objects): its code
 * points, the ones that enter character n-grams, and chrF++'s words. One
 * decoder for the statistics (chrf.c) and the matrix profiles (profile.c). */
#ifndef TB_CHRF_LINES_H
#define TB_CHRF_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/memory.h"
#include "text/text.h"

/* A piece of a code point (or symbol id) buffer: a word, with its hash (tb_chrf_hash_run
 * of its symbols), which the vocabulary (chrf/words.h) looks it up by. */
typedef struct {
    uint32_t start, len, hash;
} chrf_span;

/* One line, decoded; its buffers are reused from one line to the next. */
typedef struct {
    tb_u32buf all;            /* every code point (only when words are read) */
    tb_u32buf chars;          /* the code points that enter character n-grams */
    chrf_span *words; size_t nwords, words_cap;  /* chrF++'s words, spans of `all` */
    uint32_t *ids; size_t ids_cap;  /* word ids (filled by the caller's vocabulary) */
} chrf_side;

/* Decode a line (PyUnicode storage): if `chars`, its character sequence (whitespace
 * dropped unless `whitespace`) and, if `words`, chrF++'s words (whitespace split, one
 * punctuation mark split off the end, else the start, of words longer than one
 * character). 0 ok, -1 out of memory or a line of 2^32 code points or more. */
int tb_chrf_decode(chrf_side *s, const tb_text *t, int whitespace, int words, int chars);

/* The characters of t that enter character n-grams (as tb_chrf_decode keeps them), as
 * symbol ids into out[0 .. *n) (room for t->length): map[c] is (tag | id) for the code
 * points c < 0x10000 already numbered under `tag` (a multiple of 0x10000, not 0; id 0:
 * whitespace, dropped), and new ones get *next + 1, .... 1 ok; 0 when t holds an astral
 * code point or the ids would pass 0xFFFF (then the caller decodes the line instead). */
int tb_chrf_symbols(const tb_text *t, int whitespace, uint32_t *map, uint32_t tag, uint32_t *next,
                    uint32_t *out, size_t *n);

/* tb_chrf_symbols for chrF++ without whitespace in character n-grams, in the same pass:
 * also the line's words (as tb_chrf_decode splits them) as spans of out[] (hashed over
 * their symbol ids); words has room for t->length entries (a line splits into at most
 * one word per character). The symbol ids of a segment stand for its code points one to
 * one, so two words of its lines are equal exactly when their spans of ids are. Returns
 * as tb_chrf_symbols. */
int tb_chrf_symbols_words(const tb_text *t, uint32_t *map, uint32_t tag, uint32_t *next,
                          uint32_t *out, size_t *n, chrf_span *words, size_t *nwords);

/* The hash of n code points or symbol ids (a word's, for a vocabulary). */
uint32_t tb_chrf_hash_run(const uint32_t *p, uint32_t n);

void tb_chrf_side_free(chrf_side *s);

/* The bytes s's buffers hold (what a kept scratch pins: runtime/spares.h). */
size_t tb_chrf_side_footprint(const chrf_side *s);

#endif
