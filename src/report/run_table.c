/* run's table: see include/parity/run_table.h. */
#include "parity/run_table.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "parity/kind.h"
#include "parity/proto.h"
#include "parity/report_kind.h"
#include "parity/sbuf.h"
#include "parity/shard.h"
#include "parity/textcell.h"

enum { CELL_COLS = 40 }; /* the widest a column grows */

/* What a table cell says: the kind's (a label, a text, a first document)
 * for an output, else the status. */
static void cell_text(px_sbuf *b, const px_fixture *f, const px_env_result *e, size_t k)
{
    const px_example_result *x = &e->ex[k];
    sbuf_reset(b);
    if (x->status == PX_ST_OK)
        report_kind_of(f)->run_cell(b, f, e, k);
    else if (x->status == PX_ST_CRASH || x->status == PX_ST_TIMEOUT)
        sbuf_addf(b, "%s: %s", status_name(x->status), x->detail ? x->detail : "");
    else
        sbuf_add(b, status_name(x->status));
}

/* s in cols columns, as a terminal shows it: its controls shown, never
 * sent (a tab as "→", a newline as "↵": textcell_sanitize, as the review
 * screen does), cut between characters (grapheme clusters) with "…" when
 * `cut`, then padded with spaces to the display column. */
static void put_cell(FILE *o, const char *s, int cols, int cut)
{
    char *safe = textcell_excerpt(s, strlen(s), cut ? cols : INT_MAX);
    const char *t = safe ? safe : "?";
    int used = textcell_width(t);
    fputs(t, o);
    if (used < cols)
        fprintf(o, "%*s", cols - used, "");
    free(safe);
}

/* The wider of w and s's columns as put_cell shows it. */
static int widest(int w, const char *s)
{
    char *safe = textcell_sanitize(s, strlen(s));
    int n = safe ? textcell_width(safe) : 1;
    free(safe);
    return n > w ? n : w;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A compiled environment's forwards: the first of each shape compiles
 * (the probe's is the manifest's first forward), timed apart from the warm
 * ones, as the executor said (OUTPUT's compiled). */
static void print_compiled(FILE *o, const px_env_result *e, size_t n)
{
    size_t n_comp = 0, n_warm = 0;
    double comp_ms = 0, *warm = malloc((n ? n : 1) * sizeof *warm);
    for (size_t k = 0; k < n; k++) {
        const px_example_result *x = &e->ex[k];
        if (x->status != PX_ST_OK || x->forward_ms < 0)
            continue;
        if (x->compiled == PX_COMPILED_YES)
            n_comp++, comp_ms += x->forward_ms;
        else if (warm)
            warm[n_warm++] = x->forward_ms;
    }
    char med[48] = "none";
    if (n_warm) {
        qsort(warm, n_warm, sizeof *warm, cmp_double);
        snprintf(med, sizeof med, "median %.3g ms",
                 n_warm % 2 ? warm[n_warm / 2] : (warm[n_warm / 2 - 1] + warm[n_warm / 2]) / 2);
    }
    free(warm);
    fprintf(o, "  %-12s compile %s, mode %s, dynamic %s: the first forward compiled; %zu example forward%s "
               "compiled again (%.1f ms), warm %s\n",
            "", e->m.compile_backend, e->m.compile_mode ? e->m.compile_mode : "?",
            e->m.compile_dynamic ? e->m.compile_dynamic : "?", n_comp, n_comp == 1 ? "" : "s", comp_ms, med);
}

/* Whether any of e's n examples gave an output (a forward's or a
 * generation's, fitting or not). */
static int some_output(const px_env_result *e, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (e->ex[k].status == PX_ST_OK || e->ex[k].status == PX_ST_BAD_SHAPE || e->ex[k].status == PX_ST_EMPTY)
            return 1;
    return 0;
}

static void print_envs(FILE *o, const px_fixture *f, const px_results *r)
{
    for (size_t i = 0; i < r->n_envs; i++) {
        const px_env_result *e = &r->envs[i];
        const px_env *fe = &f->envs[e->env_index];
        fprintf(o, "  %-12s %s %s", e->name, fe->device, fe->dtype);
        if (fe->role)
            fprintf(o, " (%s)", fe->role);
        if (e->state == PX_ENV_DOWN)
            fprintf(o, "  DOWN at %s: %s\n", proto_stage_name(e->down_stage), e->down_msg);
        else {
            /* -1: no first-forward time, said in words, never "-1.0 ms";
             * that no forward gave an output only when none did (a
             * generator's probe may give none where its generations do). */
            char first[64] = "no forward gave an output";
            if (some_output(e, r->n_examples))
                snprintf(first, sizeof first, "no first-forward time (the probe gave no output)");
            if (e->m.first_forward_ms >= 0)
                snprintf(first, sizeof first, "first forward %.1f ms", e->m.first_forward_ms);
            fprintf(o, "  torch %s (%s%s%s%s%s) on %s, load %.0f ms, %s%s\n",
                    e->m.libtorch_version ? e->m.libtorch_version : "?",
                    e->m.executor ? e->m.executor : "?", e->m.runtime ? ", " : "", e->m.runtime ? e->m.runtime : "",
                    e->m.backend_modules ? ", " : "", e->m.backend_modules ? e->m.backend_modules : "",
                    e->m.device_name ? e->m.device_name : "?", e->m.load_ms, first, e->restarts ? " (restarted)" : "");
        }
        if (e->state != PX_ENV_DOWN && e->m.ignored)
            fprintf(o, "  %-12s ignored: %s\n", "", e->m.ignored);
        if (e->state != PX_ENV_DOWN && e->m.compile_backend)
            print_compiled(o, e, r->n_examples);
        if (fe->note)
            fprintf(o, "  %-12s %s\n", "", fe->note);
    }
}

/* The header: id, kind, each environment, then the last column's title
 * against the reference; with more than one candidate and a figure each,
 * the candidates in the order of the cell's figures. */
static void print_head(FILE *o, const px_fixture *f, const px_results *r, int idw, int kw, const int *cw,
                       size_t n_cand)
{
    fputc('\n', o);
    put_cell(o, "id", idw, 0), fputs("  ", o), put_cell(o, "kind", kw, 0);
    for (size_t i = 0; i < r->n_envs; i++)
        fputs("  ", o), put_cell(o, r->envs[i].name, cw[i], 0);
    fprintf(o, "  %s vs %s", kind_of(f)->diff_title,
            r->reference >= 0 ? r->envs[r->reference].name : "(no reference)");
    if (report_kind_of(f)->diff_per_candidate && n_cand > 1) {
        const char *sep = ": ";
        for (size_t i = 0; i < r->n_envs; i++)
            if ((int)i != r->reference) {
                fprintf(o, "%s%s", sep, r->envs[i].name);
                sep = ", ";
            }
    }
    fprintf(o, "\n");
}

static void print_table(FILE *o, const px_fixture *f, const px_results *r)
{
    int idw = 2, kw = 4, *cw = calloc(r->n_envs ? r->n_envs : 1, sizeof *cw);
    px_sbuf cell = PX_SBUF_INIT;
    if (!cw) {
        fprintf(o, "\n(the table: out of memory)\n");
        return;
    }
    for (size_t k = 0; k < f->n_examples; k++)
        if (shard_holds(r->shard, f->examples[k].id))
            idw = widest(idw, f->examples[k].id), kw = widest(kw, f->examples[k].kind);
    for (size_t i = 0; i < r->n_envs; i++) {
        cw[i] = widest(0, r->envs[i].name);
        for (size_t k = 0; k < f->n_examples; k++) {
            if (!shard_holds(r->shard, f->examples[k].id))
                continue;
            cell_text(&cell, f, &r->envs[i], k);
            cw[i] = widest(cw[i], sbuf_str(&cell));
        }
        cw[i] = cw[i] > CELL_COLS ? CELL_COLS : cw[i];
    }
    size_t n_cand = 0;
    for (size_t i = 0; r->reference >= 0 && i < r->n_envs; i++)
        n_cand += (int)i != r->reference;
    print_head(o, f, r, idw, kw, cw, n_cand);
    const px_report_kind *rk = report_kind_of(f);
    for (size_t k = 0; k < f->n_examples; k++) {
        if (!shard_holds(r->shard, f->examples[k].id))
            continue;
        put_cell(o, f->examples[k].id, idw, 0), fputs("  ", o), put_cell(o, f->examples[k].kind, kw, 0);
        for (size_t i = 0; i < r->n_envs; i++) {
            cell_text(&cell, f, &r->envs[i], k);
            fputs("  ", o), put_cell(o, sbuf_str(&cell), cw[i], 1);
        }
        rk->run_diff(o, f, r, k, n_cand);
    }
    sbuf_free(&cell);
    free(cw);
}

/* Counts per outcome and environment: never one "failed". Of a shard, its
 * own examples only. */
static void print_counts(FILE *o, const px_fixture *f, const px_results *r)
{
    fprintf(o, "\n");
    for (size_t i = 0; i < r->n_envs; i++) {
        int n[PX_ST_COUNT] = {0};
        for (size_t k = 0; k < r->n_examples; k++)
            if (shard_holds(r->shard, f->examples[k].id))
                n[r->envs[i].ex[k].status]++;
        fprintf(o, "%s:", r->envs[i].name);
        const char *sep = " ";
        for (int s = 0; s < PX_ST_COUNT; s++)
            if (n[s]) {
                fprintf(o, "%s%d %s", sep, n[s], status_name((px_status)s));
                sep = ", ";
            }
        fprintf(o, "\n");
    }
}

void run_table_print(FILE *o, const px_fixture *f, const px_results *r)
{
    print_envs(o, f, r);
    print_table(o, f, r);
    print_counts(o, f, r);
}
