/* parity run and parity check: prepare every example, run it through each
 * environment in executor children (background thread); run prints the table
 * and writes the results, check judges them against the contract. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_check.h"
#include "parity/bench.h"
#include "parity/cli.h"
#include "parity/compare.h"
#include "parity/evidence.h"
#include "parity/fixture.h"
#include "parity/history.h"
#include "parity/judge.h"
#include "parity/prepare.h"
#include "parity/check_report.h"
#include "parity/results.h"
#include "parity/runner.h"
#include "parity/session.h"

/* What a table cell says: the label, or the outcome when there is none. */
/* An embedding's query: the document its search puts first in the same
 * environment (what the search returns, at a glance; the judge ranks them
 * all). "" when a document has no vector there. */
static void first_document(const px_fixture *f, const px_env_result *e, const px_example_result *x, char *buf,
                           size_t size)
{
    double best = -2;
    long at = -1;
    for (size_t d = 0; d < f->n_examples; d++) {
        if (f->examples[d].role != PX_ROLE_DOCUMENT)
            continue;
        const px_example_result *y = &e->ex[d];
        if (y->status != PX_ST_OK || y->n_values != x->n_values) {
            snprintf(buf, size, "(no vector for %s)", f->examples[d].id);
            return;
        }
        double c = compare_cosine(x->values, y->values, x->n_values);
        if (c > best)
            best = c, at = (long)d;
    }
    if (at >= 0)
        snprintf(buf, size, "%s %.3f", f->examples[at].id, best);
    else
        snprintf(buf, size, "ok");
}

static void cell_text(const px_fixture *f, const px_env_result *e, size_t k, char *buf, size_t size)
{
    char *const *labels = f->envs[e->env_index].labels;
    const px_example_result *x = &e->ex[k];
    if (x->status == PX_ST_OK && f->kind == PX_MODEL_EMBEDDING) {
        if (f->examples[k].role == PX_ROLE_QUERY)
            first_document(f, e, x, buf, size);
        else
            snprintf(buf, size, "vector");
    } else if (x->status == PX_ST_OK && x->gen) {
        /* A generator's text, on one line. */
        size_t o = 0;
        buf[o++] = '"';
        for (const char *t = x->gen->text ? x->gen->text : ""; *t && o + 4 < size; t++)
            o += (size_t)(*t == '\n' ? snprintf(buf + o, size - o, "\\n") : snprintf(buf + o, size - o, "%c", *t));
        snprintf(buf + o, size - o, "\"");
    } else if (x->status == PX_ST_OK)
        snprintf(buf, size, "%s", x->label >= 0 ? labels[x->label] : "?");
    else if (x->status == PX_ST_CRASH || x->status == PX_ST_TIMEOUT)
        snprintf(buf, size, "%s: %s", status_name(x->status), x->detail ? x->detail : "");
    else
        snprintf(buf, size, "%s", status_name(x->status));
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
            /* -1: no forward gave an output, said in words, never "-1.0 ms" */
            char first[64] = "no forward gave an output";
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

static void print_table(FILE *o, const px_fixture *f, const px_results *r)
{
    int idw = 2, kw = 4, cw[64] = {0};
    char cell[256];
    for (size_t k = 0; k < f->n_examples; k++) {
        if (!shard_holds(r->shard, f->examples[k].id))
            continue;
        idw = (int)strlen(f->examples[k].id) > idw ? (int)strlen(f->examples[k].id) : idw;
        kw = (int)strlen(f->examples[k].kind) > kw ? (int)strlen(f->examples[k].kind) : kw;
    }
    size_t ne = r->n_envs < 64 ? r->n_envs : 64;
    for (size_t i = 0; i < ne; i++) {
        cw[i] = (int)strlen(r->envs[i].name);
        for (size_t k = 0; k < f->n_examples; k++) {
            if (!shard_holds(r->shard, f->examples[k].id))
                continue;
            cell_text(f, &r->envs[i], k, cell, sizeof cell);
            cw[i] = (int)strlen(cell) > cw[i] ? (int)strlen(cell) : cw[i];
        }
        cw[i] = cw[i] > 40 ? 40 : cw[i];
    }
    fprintf(o, "\n%-*s  %-*s", idw, "id", kw, "kind");
    for (size_t i = 0; i < ne; i++)
        fprintf(o, "  %-*s", cw[i], r->envs[i].name);
    /* The last column compares each candidate with the reference; with
     * more than one, the header names them in the order of the cell's
     * figures. */
    size_t n_cand = 0;
    for (size_t i = 0; r->reference >= 0 && i < ne; i++)
        n_cand += (int)i != r->reference;
    fprintf(o, "  %s vs %s",
            f->kind == PX_MODEL_GENERATOR   ? "first other token"
            : f->kind == PX_MODEL_EMBEDDING ? "max|Δ|"
                                            : "max|Δlogit|",
            r->reference >= 0 ? r->envs[r->reference].name : "(no reference)");
    if (f->kind != PX_MODEL_GENERATOR && n_cand > 1) {
        const char *sep = ": ";
        for (size_t i = 0; i < ne; i++)
            if ((int)i != r->reference) {
                fprintf(o, "%s%s", sep, r->envs[i].name);
                sep = ", ";
            }
    }
    fprintf(o, "\n");
    for (size_t k = 0; k < f->n_examples; k++) {
        if (!shard_holds(r->shard, f->examples[k].id))
            continue;
        fprintf(o, "%-*s  %-*s", idw, f->examples[k].id, kw, f->examples[k].kind);
        for (size_t i = 0; i < ne; i++) {
            cell_text(f, &r->envs[i], k, cell, sizeof cell);
            fprintf(o, "  %-*.*s", cw[i], cw[i], cell);
        }
        if (f->kind == PX_MODEL_GENERATOR) {
            /* Where the first candidate's tokens part from the reference's. */
            long at = -1;
            const px_example_result *a = r->reference >= 0 ? &r->envs[r->reference].ex[k] : NULL;
            for (size_t i = 0; a && a->gen && at < 0 && i < ne; i++) {
                const px_generated *b = r->envs[i].ex[k].gen;
                for (size_t t = 0; (int)i != r->reference && b && at < 0 && (t < a->gen->n || t < b->n); t++)
                    if (t >= a->gen->n || t >= b->n || a->gen->ids[t] != b->ids[t])
                        at = (long)t;
            }
            if (at >= 0)
                fprintf(o, "  token %ld\n", at);
            else
                fprintf(o, "  -\n");
            continue;
        }
        /* One figure per candidate ("-": nothing to compare) */
        const char *sep = "  ";
        for (size_t i = 0; r->reference >= 0 && i < ne; i++) {
            if ((int)i == r->reference)
                continue;
            double d = results_max_abs_diff(&r->envs[r->reference].ex[k], &r->envs[i].ex[k]);
            if (d >= 0)
                fprintf(o, "%s%.4g", sep, d);
            else
                fprintf(o, "%s-", sep);
            sep = ", ";
        }
        fprintf(o, "%s\n", n_cand ? "" : "  -");
    }
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

/* An environment up whose every forward failed (raised, unsupported,
 * crashed, timed out, or gave an output that is not the contract's) ran
 * nothing the contract can judge: said on stderr with the first failure,
 * and run's status is PX_EXIT_ENV, as for an environment that could not
 * start. Rejected examples never reached a forward; an environment with no
 * forward at all (every example rejected or cut short) is not this. */
static int every_forward_failed(const px_fixture *f, const px_results *res, const px_env_result *e)
{
    size_t failed = 0, ran = 0, first = 0;
    for (size_t k = 0; k < res->n_examples; k++) {
        px_status st = e->ex[k].status;
        if (!shard_holds(res->shard, f->examples[k].id) || st == PX_ST_REJECTED || st == PX_ST_NOT_EVALUATED ||
            st == PX_ST_PENDING)
            continue;
        ran++;
        if (st != PX_ST_OK && !failed++)
            first = k;
    }
    if (!ran || failed < ran)
        return 0;
    /* A traceback's last line says what was raised */
    const char *detail = e->ex[first].detail ? e->ex[first].detail : "no detail", *end = detail + strlen(detail);
    while (end > detail && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    const char *line = end;
    while (line > detail && line[-1] != '\n')
        line--;
    fprintf(stderr, "parity: %s: every forward failed (%zu of %zu; the first, '%s': %s: %.*s): nothing to judge; "
                    "the results file keeps each one whole\n",
            e->name, failed, ran, f->examples[first].id, status_name(e->ex[first].status), (int)(end - line), line);
    return 1;
}

/* run's own options. */
typedef struct run_opts {
    check_args a;
    px_shard shard; /* --shard I/N; count 0: every example */
} run_opts;

static int opt_shard(const px_command *c, const char *v, void *field)
{
    char why[200];
    if (shard_parse(v, field, why, sizeof why))
        return cli_usage_error(c, "--shard '%s': %s", v, why);
    return 0;
}

static int run_prepare(void *opts, const px_fixture *f, px_session_opts *o)
{
    (void)f;
    o->shard = ((run_opts *)opts)->shard;
    return 0;
}

/* What `run` does with the results: table, counts, results file. */
static int run_finish(const void *opts, px_check *s)
{
    const check_args *a = opts;
    const px_fixture *f = s->f;
    const px_results *res = s->res;
    /* With the results on stdout, the table goes to stderr. */
    FILE *tty = a->output && !strcmp(a->output, "-") ? stderr : stdout;
    if (res->shard.count) {
        size_t mine = 0;
        for (size_t k = 0; k < f->n_examples; k++)
            mine += (size_t)shard_holds(res->shard, f->examples[k].id);
        fprintf(tty, "%s: shard %u/%u: %zu of %zu examples, %zu environments\n", f->path, res->shard.index,
                res->shard.count, mine, f->n_examples, res->n_envs);
    } else {
        fprintf(tty, "%s: %zu examples, %zu environments\n", f->path, f->n_examples, res->n_envs);
    }
    print_envs(tty, f, res);
    print_table(tty, f, res);
    print_counts(tty, f, res);
    int rc = check_write_results(a, f, res);
    for (size_t i = 0; rc == PX_EXIT_OK && i < res->n_envs; i++)
        if (res->envs[i].state == PX_ENV_DOWN)
            rc = PX_EXIT_ENV;
    for (size_t i = 0; i < res->n_envs; i++)
        if (res->envs[i].state != PX_ENV_DOWN && every_forward_failed(f, res, &res->envs[i]))
            rc = px_exit_worse(rc, PX_EXIT_ENV);
    return check_cut_short_exit(res, rc);
}

/* Record the environments that met the contract as their last good
 * configuration. The verdict stands whatever happens here: a history that
 * cannot be written (a read-only directory, a full disk) is said in one
 * line on stderr and changes no exit status. */
static void record_good(const px_fixture *f, px_history *h, const px_results *res, const px_judgement *j)
{
    px_error err = {0};
    char path[4096], line[2048];
    history_path(f->path, path, sizeof path);
    char *name = strdup(f->path);
    int n = name ? history_record(h, res, j, &err) : px_error_oom(&err, NULL);
    if (n > 0)
        n = history_write(h, path, basename(name), &err) ? -1 : n;
    if (n < 0) {
        px_error_format(&err, line, sizeof line);
        fprintf(stderr, "parity: warning: %s (the last good configuration is not recorded; the verdict stands)\n",
                line);
    }
    free(name);
}

/* check's own options. */
typedef struct check_opts {
    check_args a;
    const char *format; /* text (default), json, tap */
    int since_good;     /* --since-good */
} check_opts;

/* What `check` does with the results: judge, compare with the last good
 * configurations, report, record, and the exit code, the worst that
 * applies (px_exit_worse: an environment without results leaves the check
 * incomplete, which is worse than a known failure). */
static int check_finish(const void *opts, px_check *s)
{
    const check_opts *c = opts;
    const px_fixture *f = s->f;
    const px_results *res = s->res;
    px_error err = {0};
    px_verdicts v;
    if (session_judge(s, &v, &err))
        return cli_error(&err);
    int rc = session_exit(res, &v.j, v.since, c->since_good);
    if (c->a.output && results_write(res, f, c->a.output, &err))
        rc = px_exit_worse(rc, cli_error(&err));
    rc = check_cut_short_exit(res, rc);
    const char *format = c->format ? c->format : "text";
    if (!strcmp(format, "json"))
        check_report_json(stdout, f, res, &v.j, v.since, rc);
    else if (!strcmp(format, "tap"))
        check_report_tap(stdout, f, res, &v.j, v.since);
    else
        check_report_text(stdout, f, res, &v.j, v.since);
    fflush(stdout);
    free(v.since), v.since = NULL; /* it borrowed from the history, which recording changes */
    record_good(f, &s->history, res, &v.j);
    verdicts_free(&v);
    return rc;
}

static const opt_bind run_own[] = {
    {PX_OPT_SHARD, offsetof(run_opts, shard), opt_shard},
    {PX_OPT_COUNT, 0, NULL},
};

static const opt_bind check_own[] = {
    {PX_OPT_FORMAT, offsetof(check_opts, format), opt_text},
    {PX_OPT_SINCE_GOOD, offsetof(check_opts, since_good), opt_flag},
    {PX_OPT_COUNT, 0, NULL},
};

/* run runs the fixture's environments; check judges what the contract
 * names, from wherever its results come, against the last good
 * configurations (refused, before anything runs, when they cannot be
 * read). */
static const check_cmd run_cmd = {"run", sizeof(run_opts), run_own, 0, PX_SESSION_RUN, PX_HISTORY_NONE,
                                  "running it", NULL, run_prepare, run_finish};
static const check_cmd check_cmd_ = {"check", sizeof(check_opts), check_own, 0, PX_SESSION_JUDGE, PX_HISTORY_REFUSE,
                                     "judging anything against it", NULL, NULL, check_finish};

int cmd_run(int argc, char **argv) { return check_command(&run_cmd, argc, argv); }
int cmd_check(int argc, char **argv) { return check_command(&check_cmd_, argc, argv); }
