/* truebleu core: a line of text as the kernels read it without the GIL, and
 * UTF-8 read as bytes (plain C, no Python objects).
 *
 * The bindings fill tb_text from a Python str (runtime/gather.h: its PyUnicode
 * storage of 1, 2 or 4 bytes per code point, or its UTF-8) or point it at
 * valid UTF-8 bytes of a file the command line read (TB_KIND_UTF8).
 */
#ifndef TB_TEXT_TEXT_H
#define TB_TEXT_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* A line of text: PyUnicode storage (read without the GIL) or valid UTF-8 bytes. */
typedef struct {
    const void *data;
    size_t length;     /* in code points; for TB_KIND_UTF8 in bytes */
    int kind;          /* 1, 2 or 4 bytes per code point (PyUnicode kinds), or TB_KIND_UTF8 */
    int ascii_lower;   /* lowercase ASCII letters while reading (the text is ASCII) */
} tb_text;

/* tb_text.kind of a line given as valid UTF-8 (13a and intl read it as it is; the other
 * tokenizers read it as bytes when it is ASCII, else decode it to code points). */
#define TB_KIND_UTF8 0

/* text/utf8.c: UTF-8 read as bytes, deciding as Python's strict decoder */
typedef struct {
    size_t valid;      /* bytes of whole valid characters from the start */
    size_t chars;      /* characters in them */
    size_t newlines;   /* "\n" bytes in them */
    int error;         /* 1: the bytes at `valid` are not UTF-8; 0: valid, or an unfinished
                        * character from `valid` to the end */
} tb_utf8_scan_result;
void tb_utf8_scan(const uint8_t *d, size_t n, tb_utf8_scan_result *r);
/* The characters of valid UTF-8 d[0 .. n). */
size_t tb_utf8_chars(const uint8_t *d, size_t n);
/* The index of the first line ("\n"-ended) of d[0 .. n) longer than `limit`
 * characters, the first one having `first_chars` more before d; -1 if none. */
long tb_utf8_first_long_line(const uint8_t *d, size_t n, size_t first_chars, size_t limit);
/* The length of d[0 .. n) without the trailing whitespace str.rstrip() strips. */
size_t tb_utf8_rstrip(const uint8_t *d, size_t n);

/* The code point at d (n > 0 bytes left) into *cp; its length in bytes (1 and
 * U+FFFD for bytes that are not valid UTF-8, never reading past d + n). */
static inline size_t tb_utf8_decode(const uint8_t *d, size_t n, uint32_t *cp)
{
    uint8_t c = d[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (len > n || c < 0xC0) {  /* not valid UTF-8: never read past the end */
        *cp = 0xFFFD;
        return 1;
    }
    uint32_t v = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t i = 1; i < len; i++)
        v = (v << 6) | (d[i] & 0x3F);
    *cp = v;
    return len;
}

#endif
