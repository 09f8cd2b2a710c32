/* Lookups in the generated tables of src/tokenizer/hf_tables.c. Each table
 * is sorted, so a code point outside its first and last entries is answered
 * before the binary search: the normalizers and pre-tokenizers ask several
 * tables about every code point, and most text (ASCII) lies below the
 * tables of marks, decompositions, CJK and combining classes. */
#include "parity/hf_tables.h"

int hf_in(const hf_range *r, size_t n, uint32_t cp)
{
    if (!n || cp < r[0].lo || cp > r[n - 1].hi)
        return 0;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < r[mid].lo)
            hi = mid;
        else if (cp > r[mid].hi)
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

const char *hf_map(const hf_mapping *m, size_t n, uint32_t cp)
{
    if (!n || cp < m[0].cp || cp > m[n - 1].cp)
        return NULL;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < m[mid].cp)
            hi = mid;
        else if (cp > m[mid].cp)
            lo = mid + 1;
        else
            return m[mid].utf8;
    }
    return NULL;
}

unsigned hf_ccc(uint32_t cp)
{
    if (!hf_ccc_count || cp < hf_ccc_ranges[0].lo || cp > hf_ccc_ranges[hf_ccc_count - 1].hi)
        return 0;
    size_t lo = 0, hi = hf_ccc_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < hf_ccc_ranges[mid].lo)
            hi = mid;
        else if (cp > hf_ccc_ranges[mid].hi)
            lo = mid + 1;
        else
            return hf_ccc_ranges[mid].ccc;
    }
    return 0;
}
