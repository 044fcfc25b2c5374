/* truebleu core: the character classes that are functions (see text/classes.h):
 * intl's classes of any code point, zh's Chinese ranges, the regex release. */
#include "text/classes.h"
#include "text/tokenize.h"

const char *tb_regex_version(void)
{
    return TB_REGEX_VERSION;
}

int tb_char_class(uint32_t cp)
{
    if (cp < 256)
        return tb_latin1_class[cp];
    size_t lo = 0, hi = TB_N_CLASS_RANGES;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < tb_class_ranges[mid].first)
            hi = mid;
        else if (cp > tb_class_ranges[mid].last)
            lo = mid + 1;
        else
            return tb_class_ranges[mid].cls;
    }
    return 0;
}

/* tok_zh.py CHINESE_RANGES, including sacreBLEU's two mistyped ranges */
int tb_is_chinese(uint32_t c)
{
    if (c < 0x2001 || c > 0xFFEF)
        return 0;
    return (c >= 0x3400 && c <= 0x4DB5) || (c >= 0x4E00 && c <= 0x9FA5) ||
           (c >= 0x9FA6 && c <= 0x9FBB) || (c >= 0xF900 && c <= 0xFA2D) ||
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
