/* tercom's tokenizer in the compiled core: sacreBLEU 2.6.0's TercomTokenizer on
 * UTF-8 bytes (no Python objects; ter/tokenize.c).
 *
 * The specification is truebleu/tokenizers/tokenizer_ter.py; this file computes
 * the same string, rule for rule, so that the words TER's search compares are
 * the specification's without a Python string per segment.
 */
#ifndef TB_TER_TOKENIZE_H
#define TB_TER_TOKENIZE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/status.h"

/* The tokenizer's options (TER's normalized, no_punct, asian_support;
 * case_sensitive is the caller's: the text arrives lowercased or not). */
enum {
    TB_TERCOM_NORMALIZED = 1,
    TB_TERCOM_NO_PUNCT = 2,
    TB_TERCOM_ASIAN = 4,
};

/* Two buffers the steps write into in turn (grown as needed; a zeroed struct
 * is empty; tb_tercom_scratch_free releases it). */
typedef struct {
    uint8_t *buf[2];
    size_t cap[2];
} tb_tercom_scratch;

void tb_tercom_scratch_free(tb_tercom_scratch *w);

/* The tercom tokens of the valid UTF-8 text[0 .. n) (already lowercased as
 * str.lower() does where asked; with ascii_lower the text is ASCII and A-Z are
 * lowered here), after str.rstrip() as sacreBLEU's TER strips every line:
 * *out points at the words joined by single spaces (the specification's
 * string), *out_len bytes, valid until w's next use. `reference`: tokenize the
 * result a second time, as sacreBLEU does to references (ter/kernels.py's
 * ter_reference). TB_OK or TB_NOMEM. */
tb_status tb_tercom_tokenize(tb_tercom_scratch *w, const uint8_t *text, size_t n, int ascii_lower,
                             int options, int reference, const uint8_t **out, size_t *out_len);

#endif
