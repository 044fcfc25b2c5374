/* truebleu core: the character classes of the tokenizers (constant tables).
 *
 * Lookups the scanners make per character or byte: whitespace as str.split()
 * sees it, 13a's byte classes, and intl's \p{P}, \p{S}, \p{N} (generated at
 * build time from the regex module: unicode_tables.h, see gen_tables.py). Every
 * table is constant: built by the compiler (ascii_class) or by the generator.
 * Python.h is included for Py_UNICODE_ISSPACE alone: whitespace is the running
 * interpreter's, as in str.split().
 */
#ifndef TB_TEXT_CLASSES_H
#define TB_TEXT_CLASSES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "runtime/portable.h"
#include "unicode_tables.h"

static inline int is_space(uint32_t c)
{
    /* exactly the set of str.split() / str.strip() / str.isspace() */
    return Py_UNICODE_ISSPACE((Py_UCS4)c);
}

static inline int is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

static inline int is_period_or_comma(uint32_t c) { return c == '.' || c == ','; }

/* Byte classes for the scanners: one lookup per character of an ASCII line,
 * per byte of a UTF-8 line (A_HIGH: a byte of a non-ASCII character;
 * A_TRIGGER: a character 13a's replacements look for) */
enum { A_SPACE = 1, A_SYMBOL = 2, A_HARD = 4, A_HIGH = 8, A_TRIGGER = 16 };

/* The class of byte c, a constant expression (the compiler builds the table):
 * ASCII whitespace is Py_UNICODE_ISSPACE's (\t \n \v \f \r, 0x1C-0x1F, ' '),
 * the 13a symbols those of its rule 1 (' ' among them). */
#define TB_ASCII_SPACE(c) (((c) >= 0x09 && (c) <= 0x0D) || ((c) >= 0x1C && (c) <= 0x20))
#define TB_13A_SYMBOL(c) (((c) >= 0x20 && (c) <= 0x26) || ((c) >= 0x28 && (c) <= 0x2B) || (c) == 0x2F || \
                          ((c) >= 0x3A && (c) <= 0x40) || ((c) >= 0x5B && (c) <= 0x60) || ((c) >= 0x7B && (c) <= 0x7E))
#define TB_ASCII_CLASS(c)                                                                                     \
    ((c) >= 0x80 ? A_HIGH                                                                                     \
                 : (TB_ASCII_SPACE(c) ? A_SPACE : 0) | (TB_13A_SYMBOL(c) ? A_SYMBOL : 0) |                    \
                       ((c) == '.' || (c) == ',' || (c) == '-' ? A_HARD : 0) |                                \
                       ((c) == '<' || (c) == '&' || (c) == '\n' ? A_TRIGGER : 0))
#define TB_AC4(c) TB_ASCII_CLASS(c), TB_ASCII_CLASS((c) + 1), TB_ASCII_CLASS((c) + 2), TB_ASCII_CLASS((c) + 3)
#define TB_AC16(c) TB_AC4(c), TB_AC4((c) + 4), TB_AC4((c) + 8), TB_AC4((c) + 12)
#define TB_AC64(c) TB_AC16(c), TB_AC16((c) + 16), TB_AC16((c) + 32), TB_AC16((c) + 48)
static const uint8_t ascii_class[256] = {TB_AC64(0), TB_AC64(64), TB_AC64(128), TB_AC64(192)};

/* 13a rule 1: the ASCII symbols that get a space on both sides (c < 128) */
static inline int is_13a_symbol(uint32_t c) { return ascii_class[c] & A_SYMBOL; }

/* intl's classes and whitespace in one look-up: tb_char_class's bits (1 \p{P},
 * 2 \p{S}, 4 \p{N}) and I_SPACE, tabulated by gen_tables.py for the code points
 * of European text: Latin-1 and General Punctuation (quotes, dashes, spaces).
 * Other code points are looked up in the class ranges each time. */
enum { I_PUNCT = 1, I_SYMBOL = 2, I_NUMBER = 4, I_SPACE = 8 };

int tb_char_class(uint32_t cp);  /* (text/tokenize.h) */

static inline uint8_t intl_class_slow(uint32_t c) { return (uint8_t)((is_space(c) ? I_SPACE : 0) | tb_char_class(c)); }

/* c's classes and I_SPACE */
static inline int intl_class(uint32_t c)
{
    if (c < 0x100)
        return tb_intl_latin1[c];
    if (c - 0x2000 < 0x70)
        return tb_intl_general_punctuation[c - 0x2000];
    return intl_class_slow(c);
}

/* c's classes alone, as tb_char_class gives them */
static TB_ALWAYS_INLINE int cls(uint32_t c)
{
    if (c < 0x100)
        return tb_intl_latin1[c] & ~I_SPACE;
    if (c - 0x2000 < 0x70)
        return tb_intl_general_punctuation[c - 0x2000] & ~I_SPACE;
    return tb_char_class(c);
}

/* zh: whether c is one of tokenizers/tokenizer_zh.py's CHINESE_RANGES (sacreBLEU's two
 * mistyped ranges included), inline in the scanner; tb_is_chinese (text/classes.c, what
 * class_table() reports for every code point) is this function. The CJK Unified
 * Ideographs, nearly every character of Chinese text, are tested first: two ranges of
 * the table that adjoin (U+4E00-U+9FA5, U+9FA6-U+9FBB), one comparison. */
static inline int is_cjk_ideograph(uint32_t c) { return c - 0x4E00u <= 0x9FBBu - 0x4E00u; }

static inline int is_chinese(uint32_t c)
{
    if (is_cjk_ideograph(c))
        return 1;
    if (c < 0x2001 || c > 0xFFEF)
        return 0;
    return (c >= 0x3400 && c <= 0x4DB5) || (c >= 0xF900 && c <= 0xFA2D) ||
           (c >= 0xFA30 && c <= 0xFA6A) || (c >= 0xFA70 && c <= 0xFAD9) ||
           (c >= 0x2001 && c <= 0x2A6D) || (c >= 0x2F81 && c <= 0x2FA1) ||
           (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x2E80 && c <= 0x2EFF) ||
           (c >= 0x3000 && c <= 0x303F) || (c >= 0x31C0 && c <= 0x31EF) ||
           (c >= 0x2F00 && c <= 0x2FDF) || (c >= 0x2FF0 && c <= 0x2FFF) ||
           (c >= 0x3100 && c <= 0x312F) || (c >= 0x31A0 && c <= 0x31BF) ||
           (c >= 0xFE10 && c <= 0xFE1F) || (c >= 0xFE30 && c <= 0xFE4F) ||
           (c >= 0x2600 && c <= 0x26FF) || (c >= 0x2700 && c <= 0x27BF) ||
           (c >= 0x3200 && c <= 0x32FF) || (c >= 0x3300 && c <= 0x33FF);
}

#endif
