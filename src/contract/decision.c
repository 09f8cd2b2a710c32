#include "parity/decision.h"

#include <string.h>

const px_decision_info px_decision_table[PX_DEC_COUNT] = {
#define PX_DEC_ROW(e, n, s, d, st) [PX_DEC_##e] = {n, s, d, st},
    PX_DECISIONS(PX_DEC_ROW)
#undef PX_DEC_ROW
};

px_decision_kind decision_kind(const char *name)
{
    for (int i = 0; name && i < PX_DEC_COUNT; i++)
        if (!strcmp(px_decision_table[i].name, name))
            return (px_decision_kind)i;
    return PX_DEC_NONE;
}

const char *decision_list(int with_clear)
{
    static char lists[2][160];
    char *out = lists[with_clear != 0];
    if (!out[0]) {
        int n = with_clear ? PX_DEC_COUNT : PX_DEC_CLEAR; /* clear is last: never stored */
        for (int i = 0; i < n; i++)
            strcat(strcat(out, i == 0 ? "" : i + 1 == n ? " or " : ", "), px_decision_table[i].name);
    }
    return out;
}
