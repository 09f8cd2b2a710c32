/* Lookups in the generated tables of src/tokenizer/hf_tables.c. */
#include "parity/hf_tables.h"

int hf_in(const hf_range *r, size_t n, uint32_t cp)
{
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
