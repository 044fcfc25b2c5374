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

/* tok_zh.py CHINESE_RANGES (text/classes.h: is_chinese, which the zh scanner inlines) */
int tb_is_chinese(uint32_t c)
{
    return is_chinese(c);
}
