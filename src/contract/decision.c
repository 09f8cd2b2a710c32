#include "parity/decision.h"

#include <stdlib.h>
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

const char *const px_review_keys[PX_REVIEW_FIELDS + 1] = {
#define PX_RV_KEY(e, m, k) [PX_RV_##e] = k,
    PX_REVIEW_RECORD(PX_RV_KEY)
#undef PX_RV_KEY
    [PX_REVIEW_FIELDS] = NULL,
};

const char **review_slot(px_review *r, int i)
{
    switch (i) {
#define PX_RV_SLOT(e, m, k) \
    case PX_RV_##e:         \
        return &r->m;
        PX_REVIEW_RECORD(PX_RV_SLOT)
#undef PX_RV_SLOT
    default:
        return NULL;
    }
}

const char *review_field(const px_review *r, int i)
{
    switch (i) {
#define PX_RV_FIELD(e, m, k) \
    case PX_RV_##e:          \
        return r->m;
        PX_REVIEW_RECORD(PX_RV_FIELD)
#undef PX_RV_FIELD
    default:
        return NULL;
    }
}

int review_empty(const px_review *r)
{
    for (int i = 0; i < PX_REVIEW_FIELDS; i++)
        if (review_field(r, i))
            return 0;
    return 1;
}

void review_clear(px_review *r)
{
    for (int i = 0; i < PX_REVIEW_FIELDS; i++)
        free((char *)review_field(r, i));
    memset(r, 0, sizeof *r);
}
