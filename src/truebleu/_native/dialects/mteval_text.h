/* truebleu core, dialects: mteval-v13a's tokens of lines as token ids (plain C, no Python).
 *
 * mteval-v13a (and v14 without --international-tokenization) tokenizes a line in steps
 * (dialects/mteval.py, the specification): the SGML step (& < > escaped, Perl whitespace
 * squeezed), then its tokenizer (entities un-escaped, ASCII letters lowercased unless -c,
 * the four 13a rules, a split on Perl whitespace). Composed, the SGML escape and the
 * un-escape leave a line as it was but for "&lt;" and "&gt;", which become "<" and ">";
 * and '&', '<' and '>' are 13a symbols, which the rules surround with spaces anyway.
 *
 * So each line is rewritten once (tb_mteval_13a_text): "&lt;" and '<' as " < ", "&gt;"
 * and '>' as " > ", any other '&' as " & ", ASCII whitespace as ' ', A-Z lowercased if
 * asked. Spaces added around a character the rules pad anyway change no token, and the
 * core's 13a (text/tokenize.h) then finds nothing of its own to un-escape or remove
 * (every '&' and '<' is followed by a space, no '\n' is left): its tokens are mteval's.
 * The one difference left is the split: Python's whitespace, which the core splits on,
 * has U+001C..U+001F, Perl's has not; a line holding one of them (or U+0000) is refused,
 * and the caller takes the specification's path.
 */
#ifndef TB_DIALECTS_MTEVAL_TEXT_H
#define TB_DIALECTS_MTEVAL_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/signals.h"
#include "runtime/status.h"
#include "text/tokenize.h"

/* The result of tb_mteval_13a_ids when a line holds a character the core cannot take. */
#define TB_MTEVAL_REFUSED 1
/* ... when a signal handler raised while the lines were tokenized (its exception is set). */
#define TB_MTEVAL_INTERRUPTED 2

/* Scratch of one caller: the rewritten line and the builder that tokenizes it. */
typedef struct {
    void *line;
    size_t line_cap;  /* in bytes (lines of every kind share it) */
    tb_builder builder;
} tb_mteval_text;

void tb_mteval_text_init(tb_mteval_text *m);
void tb_mteval_text_free(tb_mteval_text *m);

/* The rewritten line of t (kind 1, 2 or 4, not ascii_lower) into m->line, as a tb_text
 * of the same kind in *out (valid until the next call); 0, -1 when out of memory, or
 * TB_MTEVAL_REFUSED. */
int tb_mteval_13a_text(tb_mteval_text *m, const tb_text *t, int lowercase, tb_text *out);

/* The ids of every line of lines[0..n), each line's followed by TB_LINE_END, into *ids
 * (malloc'ed, *length ids). With lookup NULL the lines make a new vocabulary (ids from 0, in
 * order of first occurrence, on the calling thread), frozen into *vocabulary (free() it); else
 * the ids are lookup's, TB_UNKNOWN_TOKEN for a token it does not hold, and the lines are
 * tokenized on up to `threads` threads (runtime/pool.h: call without the GIL, `watch` the
 * caller's, may be NULL), in chunks joined in line order: the same ids on any number of
 * threads. 0, -1 when out of memory (or past INT32_MAX tokens), TB_MTEVAL_REFUSED, or
 * TB_MTEVAL_INTERRUPTED (a signal handler raised: its exception is set); *ids and
 * *vocabulary are NULL unless 0. */
int tb_mteval_13a_ids(const tb_text *lines, size_t n, int lowercase, const tb_seg *lookup, int threads,
                      tb_signal_watch *watch, int32_t **ids, size_t *length, tb_seg **vocabulary);

#endif
