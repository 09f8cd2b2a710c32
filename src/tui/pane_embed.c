/* An embedding's pane: a query's searches side by side (the reference,
 * the candidate shown, the twin), each document at its rank with its
 * cosine and where it was in the reference; a document's vectors against
 * the reference's; then the verdicts. Measured by drawing dry, so what is
 * counted is what is drawn. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/sbuf.h"
#include "paint.h"
#include "pane.h"
#include "badge.h"

static const px_embed_verdict *embed_of(const tui *t, int e, size_t k)
{
    return t->judged && e >= 0 ? t->j.envs[e].ex[k].embed : NULL;
}

/* The environments an embedding's pane shows, in their order: the
 * reference, the candidate shown, the twin (which tells precision from
 * the device); each once. Returns how many. */
static int embed_envs(const tui *t, int out[3])
{
    int want[3] = {t->res->reference, t->rv.candidate, t->judged ? t->j.twin : -1}, n = 0;
    for (int i = 0; i < 3; i++) {
        int dup = want[i] < 0;
        for (int j = 0; j < n; j++)
            dup |= out[j] == want[i];
        if (!dup)
            out[n++] = want[i];
    }
    return n;
}

/* One line wrapped at (y, x), or only counted (dry): the rows it takes,
 * at most room. */
static int embed_line(tui *t, int dry, int y, int x, int w, int room, int el, const char *s)
{
    if (!s || !*s || room < 1)
        return 0;
    return dry ? tui_rows_of(s, w, room) : tui_put_wrapped(t, y, x, w, room, el, s);
}

/* A number as the pane writes it, with `digits` decimals (a document's
 * cosine to the query four; a vector against the reference's six, where
 * the floor is 0.999): "—" when none. */
static void cosine_words(double c, int digits, char *buf, size_t size)
{
    if (isnan(c))
        snprintf(buf, size, "—");
    else
        snprintf(buf, size, "%.*f", digits, c);
}

/* Each shown environment's verdict on example k, its name and outcome
 * first; a candidate's move in the judge's words when the verdict's do
 * not say it; why there is no ranking. Returns the rows. */
static int embed_verdicts(tui *t, size_t k, const int *envs, int n, int y, int x, int w, int end, int dry)
{
    int y0 = y;
    for (int i = 0; i < n && y < end; i++) {
        int e = envs[i];
        const px_env_result *er = &t->res->envs[e];
        const px_verdict *v = t->judged ? &t->j.envs[e].ex[k] : NULL;
        char *s = NULL;
        if (!v) {
            px_sbuf why = PX_SBUF_INIT;
            if (asprintf(&s, "%s: %s", er->name, tui_waiting(t, er, &why)) < 0)
                s = NULL;
            sbuf_free(&why);
        } else if (asprintf(&s, "%s: %s: %s", er->name, outcome_name(v->outcome), v->detail ? v->detail : "") < 0)
            s = NULL;
        int room = t->verdict_cap && end - y > t->verdict_cap ? t->verdict_cap : end - y;
        y += embed_line(t, dry, y, x, w, room, v ? tui_outcome_el(v->outcome) : PX_EL_RUNNING, s);
        free(s);
        const px_embed_verdict *em = v ? v->embed : NULL;
        if (em && em->moved && !(v->detail && strstr(v->detail, em->moved)) && y < end) {
            char *m = NULL;
            if (asprintf(&m, "  moved: %s", em->moved) >= 0)
                y += embed_line(t, dry, y, x, w, end - y < t->line_cap ? end - y : t->line_cap, PX_EL_CHANGED, m);
            free(m);
        }
        if (em && em->rank_note && !(v->detail && strstr(v->detail, em->rank_note)) && y < end) {
            char *m = NULL;
            if (asprintf(&m, "  no ranking: %s", em->rank_note) >= 0)
                y += embed_line(t, dry, y, x, w, end - y < t->line_cap ? end - y : t->line_cap, PX_EL_NOT_EVALUATED,
                                m);
            free(m);
        }
    }
    return y - y0;
}

/* A query's searches: one column per environment shown (as many side by
 * side as fit, the rest below), one row per rank, each document with its
 * cosine to the query; in a candidate, a document at another rank than in
 * the reference marked with the reference's rank (↑3: it was third), one
 * new to the first k "new"; ranks beyond the window k dimmed; then each
 * column's query against the reference's query ("vs ref"), and the
 * verdicts. Returns the rows (dry: only counts them). */
static int draw_query(tui *t, size_t k, int y, int x, int w, int end, int dry)
{
    int envs[3], n = embed_envs(t, envs), y0 = y;
    const px_example *ex = &t->f->examples[k];
    const px_embed_verdict *ref = embed_of(t, t->res->reference, k);
    int win = ex->expect.retrieval ? ex->expect.retrieval->k : ref ? ref->k : 0;
    int per = (w - 4) / 24, cols = n < (per > 0 ? per : 1) ? n : per > 0 ? per : 1, cw = (w - 4) / (cols ? cols : 1);
    size_t ids = 4; /* the widest document id, for the columns */
    for (size_t i = 0; i < t->f->n_examples; i++)
        if (t->f->examples[i].role == PX_ROLE_DOCUMENT && strlen(t->f->examples[i].id) > ids)
            ids = strlen(t->f->examples[i].id);
    /* a column: the id, its cosine, its mark ("↑3", "new") and a gap */
    int iw = cw - 12 < (int)ids ? cw - 12 : (int)ids;
    cw = cw > iw + 14 ? iw + 14 : cw;
    for (int b = 0; b < n && y < end; b += cols) {
        int m = n - b < cols ? n - b : cols;
        size_t rows = 1;
        for (int c = 0; c < m; c++) {
            const px_embed_verdict *em = embed_of(t, envs[b + c], k);
            rows = em && em->n_ranked > rows ? em->n_ranked : rows;
        }
        if (!dry) {
            tui_put(t, y, x, 4, PX_EL_DIM, "rank");
            for (int c = 0; c < m; c++) {
                int e = envs[b + c];
                tui_put(t, y, x + 5 + c * cw, cw - 1, e == t->res->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE,
                        t->res->envs[e].name);
            }
        }
        y++;
        for (size_t i = 0; i < rows && y < end; i++, y++) {
            if (dry)
                continue;
            int beyond = win > 0 && (long)i >= win;
            tui_putf(t, y, x, 4, PX_EL_DIM, "%3zu", i + 1);
            for (int c = 0; c < m; c++) {
                int e = envs[b + c], cx = x + 5 + c * cw;
                const px_embed_verdict *em = embed_of(t, e, k);
                const px_example_result *r = &t->res->envs[e].ex[k];
                char cell[64];
                if (!em || !em->n_ranked) {
                    px_sbuf why = PX_SBUF_INIT;
                    if (i == 0)
                        tui_put(t, y, cx, cw - 1, PX_EL_NOT_EVALUATED,
                                r->status == PX_ST_PENDING ? tui_waiting(t, &t->res->envs[e], &why) : "no ranking");
                    sbuf_free(&why);
                    continue;
                }
                if (i >= em->n_ranked)
                    continue;
                tui_put(t, y, cx, iw, beyond ? PX_EL_DIM : PX_EL_NORMAL, t->f->examples[em->doc[i]].id);
                cosine_words(em->score[i], 4, cell, sizeof cell);
                tui_put(t, y, cx + iw + 1, 7, PX_EL_DIM, cell);
                long was = e == t->res->reference ? (long)i : embed_rank_of(ref, em->doc[i], SIZE_MAX);
                if (was == (long)i || !ref || !ref->n_ranked)
                    continue;
                int entered = (long)i < win && (was < 0 || was >= win);
                if (entered)
                    snprintf(cell, sizeof cell, "new");
                else
                    snprintf(cell, sizeof cell, "%s%ld", was > (long)i ? "↑" : "↓", was + 1);
                /* a reordering an order: set query forgives is shown, not alarmed */
                int held = em->held == 1;
                tui_put(t, y, cx + iw + 8, 3, held || beyond ? PX_EL_DIM : PX_EL_CHANGED, cell);
            }
        }
        if (y < end && !dry) {
            tui_put(t, y, x, 4, PX_EL_DIM, "vs");
            for (int c = 0; c < m; c++) {
                int e = envs[b + c];
                const px_embed_verdict *em = embed_of(t, e, k);
                char cell[64], cos[32];
                cosine_words(em ? em->cosine : NAN, 6, cos, sizeof cos);
                if (e == t->res->reference)
                    snprintf(cell, sizeof cell, "(the reference)");
                else
                    snprintf(cell, sizeof cell, "ref cos %s", cos);
                int low = em && !isnan(em->min_cosine) && !isnan(em->cosine) && em->cosine < em->min_cosine;
                tui_put(t, y, x + 5 + c * cw, cw - 1, low ? PX_EL_DRIFT : PX_EL_DIM, cell);
            }
        }
        y += y < end;
    }
    return y - y0 + embed_verdicts(t, k, envs, n, y, x, w, end, dry);
}

/* A document: per environment its vector's cosine to the reference's and
 * its norm, then which queries rank it in their first k in the
 * reference, and the verdicts. Returns the rows (dry: only counts). */
static int draw_document(tui *t, size_t k, int y, int x, int w, int end, int dry)
{
    int envs[3], n = embed_envs(t, envs), y0 = y;
    int nw = 12;
    if (!dry && y < end) {
        tui_put(t, y, x, nw, PX_EL_DIM, "environment");
        tui_put(t, y, x + nw + 1, w - nw - 1, PX_EL_DIM, "cos to ref  norm");
    }
    y += y < end;
    for (int i = 0; i < n && y < end; i++, y++) {
        if (dry)
            continue;
        int e = envs[i];
        const px_embed_verdict *em = embed_of(t, e, k);
        char cos[32], norm[32], cell[96];
        cosine_words(em ? em->cosine : NAN, 6, cos, sizeof cos);
        cosine_words(em ? em->norm : NAN, 4, norm, sizeof norm);
        tui_put(t, y, x, nw, e == t->res->reference ? PX_EL_REFERENCE : PX_EL_CANDIDATE, t->res->envs[e].name);
        snprintf(cell, sizeof cell, "%-10s  %s", e == t->res->reference ? "(the ref)" : cos, norm);
        int low = em && !isnan(em->min_cosine) && !isnan(em->cosine) && em->cosine < em->min_cosine;
        tui_put(t, y, x + nw + 1, w - nw - 1, low ? PX_EL_DRIFT : PX_EL_NORMAL, cell);
    }
    /* the queries that find it, in the reference */
    px_sbuf in = PX_SBUF_INIT;
    size_t nq = 0;
    for (size_t q = 0; q < t->f->n_examples; q++) {
        const px_embed_verdict *em = embed_of(t, t->res->reference, q);
        if (t->f->examples[q].role != PX_ROLE_QUERY || !em)
            continue;
        long r = embed_rank_of(em, (long)k, SIZE_MAX);
        if (r >= 0 && r < em->k)
            sbuf_addf(&in, "%s%s (%ld)", nq++ ? ", " : "", t->f->examples[q].id, r + 1);
    }
    char *s = NULL;
    if (t->judged && t->res->reference >= 0 &&
        asprintf(&s, "the reference ranks it in the first k of: %s", nq ? sbuf_str(&in) : "no query") < 0)
        s = NULL;
    sbuf_free(&in);
    if (y < end)
        y += embed_line(t, dry, y, x, w, end - y < t->line_cap ? end - y : t->line_cap, PX_EL_DIM, s);
    free(s);
    return y - y0 + embed_verdicts(t, k, envs, n, y, x, w, end, dry);
}

/* An embedding's example: a query's searches, or a document's vectors
 * (dry: only counted). */
static int draw_embedding(tui *t, size_t k, int y, int x, int w, int end, int dry)
{
    return t->f->examples[k].role == PX_ROLE_QUERY ? draw_query(t, k, y, x, w, end, dry)
                                                    : draw_document(t, k, y, x, w, end, dry);
}

static int rows(tui *t, size_t k, int w) { return draw_embedding(t, k, 0, 0, w, TUI_PAD_ROWS, 1); }

static int draw(tui *t, size_t k, int y, int x, int w, int end) { return draw_embedding(t, k, y, x, w, end, 0); }

/* The searches in environment e, from the verdicts: in the reference, how
 * many queries find what they expect; in a candidate, how many queries'
 * first k hold against the reference's and which changed. */
static char *summary(const tui *t, size_t e, int *el)
{
    if (!t->judged || e >= t->j.n_envs || !t->j.envs[e].selected)
        return NULL;
    const px_env_verdict *ev = &t->j.envs[e];
    px_sbuf names = PX_SBUF_INIT;
    size_t queries = 0, good = 0, held = 0, changed = 0, other = 0;
    for (size_t k = 0; k < t->f->n_examples; k++) {
        const px_embed_verdict *em = ev->ex[k].embed;
        if (t->f->examples[k].role != PX_ROLE_QUERY || !em)
            continue;
        queries++;
        int bad = ev->is_reference ? ev->ex[k].outcome == PX_OC_WRONG_RANKING : em->held == 0;
        good += ev->is_reference && em->n_ranked && !bad;
        held += !ev->is_reference && em->held == 1;
        changed += bad;
        other += ev->is_reference ? !em->n_ranked : em->held < 0;
        if (bad)
            sbuf_addf(&names, "%s%s", changed > 1 ? ", " : " (", t->f->examples[k].id);
    }
    char *s = NULL;
    if (!queries) {
        sbuf_free(&names);
        return NULL;
    }
    if (names.len)
        sbuf_add(&names, ")");
    char rest[96] = "";
    if (other)
        snprintf(rest, sizeof rest, "; %zu not compared (no ranking here%s)", other,
                 ev->is_reference ? "" : " or in the reference");
    *el = changed ? PX_EL_FAIL : PX_EL_DIM;
    int n = ev->is_reference
                ? asprintf(&s, "searches: %zu of %zu queries find what they expect; %zu miss%s%s", good, queries,
                           changed, sbuf_str(&names), rest)
                : asprintf(&s, "first k against the reference's: %zu of %zu queries held, %zu changed%s%s", held,
                           queries, changed, sbuf_str(&names), rest);
    sbuf_free(&names);
    return n < 0 ? NULL : s;
}

const tui_pane tui_pane_embed = {rows, draw, NULL, summary};
