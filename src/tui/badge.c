/* An environment's verdict on an example as the review screen shows it.
 * Drawing code asks the theme for semantic elements (theme.h), never for
 * colours. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "badge.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paint.h"

/* A verdict's badge in the list, from the table the legend comes from
 * (parity/keys.h; its NONE rows are marks, no verdict's). */
enum { PX_OC_NONE = -1 };
static const char *const badges[] = {
#define PX_BADGE_TEXT(oc, text, help) text,
    PX_BADGE_TABLE(PX_BADGE_TEXT)
#undef PX_BADGE_TEXT
};
static const int badge_oc[] = {
#define PX_BADGE_OC(oc, text, help) PX_OC_##oc,
    PX_BADGE_TABLE(PX_BADGE_OC)
#undef PX_BADGE_OC
};

const char *tui_badge(px_outcome o)
{
    for (size_t i = 0; i < sizeof badge_oc / sizeof *badge_oc; i++)
        if (badge_oc[i] == (int)o)
            return badges[i];
    return "?";
}

int tui_outcome_el(px_outcome o)
{
    switch (o) {
    case PX_OC_PASS: return PX_EL_PASS;
    case PX_OC_PASS_TOL: return PX_EL_PASS_TOL;
    case PX_OC_NUMERIC_DRIFT: return PX_EL_DRIFT;
    case PX_OC_UNSUPPORTED: return PX_EL_UNSUPPORTED;
    case PX_OC_REJECTED_OK: case PX_OC_KNOWN_DEFECT: return PX_EL_REJECTED;
    case PX_OC_NOT_EVALUATED: return PX_EL_NOT_EVALUATED;
    case PX_OC_WRONG_LABEL: case PX_OC_NOT_REJECTED: case PX_OC_WRONGLY_REJECTED: case PX_OC_CONSTRAINT_VIOLATED:
    case PX_OC_WRONG_RANKING: case PX_OC_RANKING_CHANGED: case PX_OC_IMAGE_CHANGED: case PX_OC_NOT_LEARNING:
    case PX_OC_CURVE_CHANGED:
        return PX_EL_FAIL;
    default: return PX_EL_ERROR;
    }
}

const char *tui_waiting(const tui *t, const px_env_result *er, px_sbuf *buf)
{
    if (t->load)
        return "loading…";
    if (!er->selected)
        return "not selected (-e): not evaluated";
    sbuf_reset(buf);
    if (er->origin == PX_ORIGIN_NONE) {
        sbuf_addf(buf, "not evaluated: %s", er->source ? er->source : "no results");
        return sbuf_str(buf);
    }
    if (er->state == PX_ENV_DOWN) {
        sbuf_addf(buf, "not evaluated: down at %s", proto_stage_name(er->down_stage));
        return sbuf_str(buf);
    }
    return "running…";
}

char *tui_verdict_line(const tui *t, int e, size_t k)
{
    if (!t->judged || e < 0)
        return NULL;
    const px_verdict *v = &t->j.envs[e].ex[k];
    char *s = NULL;
    return asprintf(&s, "%s: %s", outcome_name(v->outcome), v->detail ? v->detail : "") < 0 ? NULL : s;
}

int tui_said_more(const px_example_result *r)
{
    if (r->status == PX_ST_OK || r->status == PX_ST_PENDING || r->status == PX_ST_REJECTED)
        return 0;
    int n = 0;
    for (const char *p = r->detail; p && *p; p++)
        n += *p == '\n' && p[1 + strspn(p + 1, " \n")] != '\0';
    return n ? n + 1 : r->stderr_tail && *r->stderr_tail;
}

int tui_draw_verdict(tui *t, int e, size_t k, int y, int x, int w, int rows)
{
    char *v = tui_verdict_line(t, e, k);
    int used = 0;
    if (v && rows > 0) {
        int room = t->verdict_cap && rows > t->verdict_cap ? t->verdict_cap : rows;
        used = tui_put_wrapped(t, y, x, w, room, tui_outcome_el(t->j.envs[e].ex[k].outcome), v);
    }
    int more = v ? tui_said_more(&t->res->envs[e].ex[k]) : 0;
    char key[16];
    if (more > 1 && used < rows)
        tui_putf(t, y + used++, x, w, PX_EL_DIM, "(all %d lines of it: %s)", more,
                 key_first(PX_ACT_WHOLE, key, sizeof key));
    else if (more && used < rows)
        tui_putf(t, y + used++, x, w, PX_EL_DIM, "(its stderr: %s)", key_first(PX_ACT_WHOLE, key, sizeof key));
    free(v);
    return used;
}
