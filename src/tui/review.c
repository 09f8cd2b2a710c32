#define _GNU_SOURCE /* strdup */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "parity/review.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "parity/decision.h"
#include "parity/journal.h"
#include "parity/session.h"

const char *filter_name(px_filter f)
{
    static const char *const n[PX_FILTER_COUNT] = {"all", "failures", "differences", "undecided", "flagged"};
    return f < PX_FILTER_COUNT ? n[f] : "?";
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* Every helper below walks the review record's table, so a field added to
 * it is held, copied, undone and journaled by the session too. */
static void mark_clear(px_mark *m)
{
#define PX_MARK_FREE(e, f, k) free(m->f);
    PX_REVIEW_RECORD(PX_MARK_FREE)
#undef PX_MARK_FREE
    memset(m, 0, sizeof *m);
}

/* A review's fields as a mark (NULL ones: none), not unwritten. */
static px_mark mark_of(const px_review *d)
{
    px_mark m = {0};
#define PX_MARK_DUP(e, f, k) m.f = dup_or_null(d->f);
    PX_REVIEW_RECORD(PX_MARK_DUP)
#undef PX_MARK_DUP
    return m;
}

/* The mark's fields as a review (borrowed). */
static px_review review_of(const px_mark *m)
{
    px_review r = {0};
#define PX_MARK_LEND(e, f, k) r.f = m->f;
    PX_REVIEW_RECORD(PX_MARK_LEND)
#undef PX_MARK_LEND
    return r;
}

static px_mark mark_copy(const px_mark *m)
{
    px_review r = review_of(m);
    px_mark c = mark_of(&r);
    c.unwritten = m->unwritten;
    return c;
}

static px_decision decision_of(const char *id, const px_mark *m)
{
    px_decision d = {id, review_of(m)};
    if (!d.review.decision)
        d.review.decision = px_decision_table[PX_DEC_CLEAR].name;
    return d;
}

static long example_index(const px_fixture *f, const char *id) { return fixture_example_index(f, id); }

static void count_unwritten(px_session *rv)
{
    rv->n_unwritten = 0;
    for (size_t k = 0; k < rv->f->n_examples; k++)
        rv->n_unwritten += rv->marks[k].unwritten;
}

/* Decisions a killed session left in the journal come back as unwritten. */
static void adopt_journal(px_session *rv)
{
    px_journal j;
    px_error err = {0};
    if (!rv->store || journal_read(rv->store->journal, &j, &err))
        return;
    for (size_t i = 0; i < j.n; i++) {
        long k = example_index(rv->f, j.d[i].id);
        if (k < 0)
            continue;
        px_mark *m = &rv->marks[k];
        /* A journal line names every field the mark had (absent: none);
         * a version-1 line carries no note author: the note keeps its own. */
        px_mark next = decision_kind(j.d[i].review.decision) != PX_DEC_CLEAR ? mark_of(&j.d[i].review) : (px_mark){0};
        if (next.decision && !next.note && !j.d[i].review.note_by && m->note) {
            next.note = strdup(m->note);
            next.note_by = dup_or_null(m->note_by), next.note_at = dup_or_null(m->note_at);
        }
        mark_clear(m);
        *m = next;
        m->unwritten = 1;
    }
    journal_free(&j);
    count_unwritten(rv);
}

int review_init(px_session *rv, const px_fixture *f, const px_results *res, px_writeback *store, const char *reviewer)
{
    memset(rv, 0, sizeof *rv);
    rv->f = f, rv->res = res, rv->store = store;
    rv->reviewer = reviewer && *reviewer ? reviewer : "unknown";
    rv->marks = calloc(f->n_examples ? f->n_examples : 1, sizeof *rv->marks);
    rv->visible = calloc(f->n_examples ? f->n_examples : 1, sizeof *rv->visible);
    if (!rv->marks || !rv->visible)
        return -1;
    for (size_t k = 0; k < f->n_examples; k++) {
        const px_example *x = &f->examples[k];
        const px_review *r = &x->review;
        rv->marks[k] = mark_of(r);
    }
    /* What was carried home first (--results), not the twin. */
    rv->candidate = session_first_candidate(res);
    adopt_journal(rv);
    review_refilter(rv);
    return 0;
}

void review_free(px_session *rv)
{
    for (size_t k = 0; rv->marks && k < rv->f->n_examples; k++)
        mark_clear(&rv->marks[k]);
    for (size_t i = 0; i < rv->n_undo; i++)
        mark_clear(&rv->undo[i].before);
    free(rv->marks), free(rv->undo), free(rv->visible);
    memset(rv, 0, sizeof *rv);
}

static int passes_filter(const px_session *rv, size_t k)
{
    const px_judgement *j = rv->j;
    const char *d = rv->marks[k].decision;
    switch (rv->filter) {
    case PX_FILTER_UNDECIDED:
        return d == NULL;
    case PX_FILTER_FLAGGED:
        return decision_kind(d) == PX_DEC_FLAG;
    case PX_FILTER_FAILURES:
        /* An environment left out or without results fails no example of
         * its own: the header says so once. An example judged without the
         * reference's (its task checks only) is not a pass either: its
         * numbers were never compared (the summary says "not judged in
         * full"). */
        for (size_t e = 0; j && e < j->n_envs; e++)
            if (j->envs[e].selected && !j->envs[e].absent &&
                (!outcome_met(j->envs[e].ex[k].outcome) || j->envs[e].ex[k].not_compared))
                return 1;
        return 0;
    case PX_FILTER_DIFFERENCES:
        for (size_t e = 0; j && e < j->n_envs; e++)
            if (j->envs[e].ex[k].div != PX_DIV_NONE)
                return 1;
        return 0;
    default:
        return 1;
    }
}

/* The cursor stays on its example while it is listed; when it leaves (a
 * decision under "undecided"), the cursor stays on the same row, which now
 * holds the next example: working down a list never jumps to the top. */
void review_refilter(px_session *rv)
{
    long keep = review_current(rv);
    size_t row = rv->cursor;
    rv->n_visible = 0;
    for (size_t k = 0; k < rv->f->n_examples; k++)
        if (passes_filter(rv, k))
            rv->visible[rv->n_visible++] = k;
    rv->cursor = row < rv->n_visible ? row : rv->n_visible ? rv->n_visible - 1 : 0;
    for (size_t i = 0; keep >= 0 && i < rv->n_visible; i++)
        if (rv->visible[i] == (size_t)keep)
            rv->cursor = i;
}

void review_set_filter(px_session *rv, px_filter f)
{
    rv->filter = f;
    review_refilter(rv);
}

long review_current(const px_session *rv)
{
    return rv->n_visible && rv->cursor < rv->n_visible ? (long)rv->visible[rv->cursor] : -1;
}

void review_move(px_session *rv, long delta)
{
    if (!rv->n_visible)
        return;
    long c = (long)rv->cursor + delta;
    rv->cursor = c < 0 ? 0 : c >= (long)rv->n_visible ? rv->n_visible - 1 : (size_t)c;
}

void review_move_to(px_session *rv, size_t i)
{
    if (rv->n_visible)
        rv->cursor = i < rv->n_visible ? i : rv->n_visible - 1;
}

void review_next_candidate(px_session *rv)
{
    if (!rv->res || !rv->res->n_envs)
        return;
    for (size_t step = 1; step <= rv->res->n_envs; step++) {
        int e = (int)((size_t)(rv->candidate + (long)step + (long)rv->res->n_envs) % rv->res->n_envs);
        if (e != rv->res->reference && rv->res->envs[e].selected) {
            rv->candidate = e;
            return;
        }
    }
}

/* Journal first; only then does the model change. */
static int record(px_session *rv, size_t k, const px_mark *m, px_error *err)
{
    if (!rv->store)
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "read-only: decisions are off here");
    px_decision d = decision_of(rv->f->examples[k].id, m);
    if (journal_append(rv->store->journal, &d, err))
        return -1;
    return 0;
}

static int push_undo(px_session *rv, size_t k)
{
    if (rv->n_undo == rv->cap_undo) {
        size_t cap = rv->cap_undo ? rv->cap_undo * 2 : 16;
        px_undo *u = realloc(rv->undo, cap * sizeof *u);
        if (!u)
            return -1;
        rv->undo = u, rv->cap_undo = cap;
    }
    rv->undo[rv->n_undo].example = k;
    rv->undo[rv->n_undo++].before = mark_copy(&rv->marks[k]);
    return 0;
}

static int set_mark(px_session *rv, size_t k, px_mark *m, px_error *err)
{
    if (record(rv, k, m, err)) {
        mark_clear(m);
        return -1;
    }
    if (push_undo(rv, k)) {
        mark_clear(m);
        return px_error_oom(err, NULL);
    }
    mark_clear(&rv->marks[k]);
    rv->marks[k] = *m;
    rv->marks[k].unwritten = 1;
    count_unwritten(rv);
    review_refilter(rv);
    return 0;
}

/* The environment a decision is made on: the candidate shown beside the
 * reference (the reference itself when there is none), with the hash of its
 * results for the example when it has any. */
static void made_on(const px_session *rv, size_t k, px_mark *m)
{
    int e = rv->candidate >= 0 ? rv->candidate : rv->res ? rv->res->reference : -1;
    if (!rv->res || e < 0)
        return;
    const px_env_result *er = &rv->res->envs[e];
    m->env = strdup(er->name);
    const px_example_result *x = &er->ex[k];
    if (er->origin != PX_ORIGIN_NONE && x->status != PX_ST_PENDING && x->status != PX_ST_NOT_EVALUATED) {
        char h[PX_SHA256_HEX];
        results_example_sha256(er, x, rv->f->examples[k].id, h);
        m->results = strdup(h);
    }
}

int review_decide(px_session *rv, const char *decision, const char *note, px_error *err)
{
    long k = review_current(rv);
    if (k < 0)
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "no example here");
    if (!splice_is_decision(decision))
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "not a decision: %s", decision);
    char at[32];
    writeback_now(at, sizeof at);
    const px_mark *old = &rv->marks[k];
    px_mark m = {0};
    if (decision_kind(decision) != PX_DEC_CLEAR) {
        m.decision = strdup(decision), m.by = strdup(rv->reviewer), m.at = strdup(at);
        if (note) {
            m.note = strdup(note), m.note_by = strdup(rv->reviewer), m.note_at = strdup(at);
        } else if (old->note) {
            /* The note stays with its author: one reviewer's note is never
             * signed by the next one's decision. */
            m.note = strdup(old->note);
            m.note_by = dup_or_null(old->note_by ? old->note_by : old->by);
            m.note_at = dup_or_null(old->note_by ? old->note_at : old->at);
        }
        made_on(rv, (size_t)k, &m);
    }
    return set_mark(rv, (size_t)k, &m, err);
}

/* A note edit is the note author's: the decision keeps its own by, at and
 * what it was made on. */
int review_note(px_session *rv, const char *note, px_error *err)
{
    long k = review_current(rv);
    if (k < 0 || !rv->marks[k].decision)
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "decide first: a note goes with a decision");
    char at[32];
    writeback_now(at, sizeof at);
    px_mark m = mark_copy(&rv->marks[k]);
    free(m.note), free(m.note_by), free(m.note_at);
    m.note = strdup(note), m.note_by = strdup(rv->reviewer), m.note_at = strdup(at);
    return set_mark(rv, (size_t)k, &m, err);
}

int review_undo(px_session *rv, px_error *err)
{
    if (!rv->n_undo)
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "nothing to undo");
    px_undo *u = &rv->undo[rv->n_undo - 1];
    if (record(rv, u->example, &u->before, err))
        return -1;
    mark_clear(&rv->marks[u->example]);
    rv->marks[u->example] = u->before;
    rv->marks[u->example].unwritten = 1;
    rv->n_undo--;
    count_unwritten(rv);
    review_refilter(rv);
    return 0;
}

int review_write(px_session *rv, px_error *err)
{
    if (!rv->store)
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "read-only: nothing to write");
    px_decision *d = calloc(rv->f->n_examples ? 2 * rv->f->n_examples : 1, sizeof *d);
    size_t n = 0;
    for (size_t k = 0; d && k < rv->f->n_examples; k++) {
        const px_mark *m = &rv->marks[k];
        if (!m->unwritten)
            continue;
        /* A mark holds the whole review: what it lacks must not survive
         * from the fixture's old one, so clear first unless it names every
         * field (then the review is updated in place). */
        int whole = m->decision != NULL;
        for (int i = 0; whole && i < PX_REVIEW_FIELDS; i++) {
            px_decision full = decision_of(NULL, m);
            whole = review_field(&full.review, i) != NULL;
        }
        if (!whole)
            d[n++] = (px_decision){.id = rv->f->examples[k].id,
                                   .review.decision = px_decision_table[PX_DEC_CLEAR].name};
        if (m->decision)
            d[n++] = decision_of(rv->f->examples[k].id, m);
    }
    int rc = 0;
    size_t len = 0;
    char *out = n ? writeback_edit(rv->store, d, n, &len, err) : NULL;
    if (n && (!out || writeback_commit(rv->store, out, len, err)))
        rc = -1;
    free(d);
    for (size_t k = 0; rc == 0 && k < rv->f->n_examples; k++)
        rv->marks[k].unwritten = 0;
    count_unwritten(rv);
    return rc;
}

int review_search(px_session *rv, const char *pattern, int dir, px_error *err)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP | PCRE2_CASELESS,
                                   &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "/%s: %s at offset %zu", pattern, (char *)msg, (size_t)off);
    }
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(mc, 1000000);
    pcre2_set_depth_limit(mc, 10000);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int found = 1;
    for (size_t step = 1; found == 1 && step <= rv->n_visible; step++) {
        size_t i = dir < 0 ? (rv->cursor + rv->n_visible - step % rv->n_visible) % rv->n_visible
                           : (rv->cursor + step) % rv->n_visible;
        const px_example *x = &rv->f->examples[rv->visible[i]];
        if (pcre2_match(re, (PCRE2_SPTR)x->id, PCRE2_ZERO_TERMINATED, 0, 0, md, mc) >= 0 ||
            pcre2_match(re, (PCRE2_SPTR)x->text, x->text_len, 0, 0, md, mc) >= 0) {
            rv->cursor = i;
            found = 0;
        }
    }
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(re);
    return found;
}
