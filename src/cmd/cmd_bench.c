/* parity bench: the second question, on its own page. The fixture's
 * environments run as for `run` (every example, judged later), then each
 * endpoint is timed over the examples that ran; every output the benchmark
 * produced is judged against the contract before any figure is shown as a
 * result. */
#define _GNU_SOURCE /* vasprintf, open_memstream */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_check.h"
#include "parity/bench.h"
#include "parity/cli.h"
#include "parity/judge.h"
#include "parity/kind.h"
#include "parity/results.h"
#include "parity/textcell.h"

/* --endpoint, as given: 1 single, N batch:N, -N train-step:N. */
typedef struct bench_endpoints {
    int batches[5];
    int n;
} bench_endpoints;

/* --warmup: given, 0 included, or not. */
typedef struct bench_warmup {
    long n;
    int given;
} bench_warmup;

/* "%.3g ms", or "not measured" for a figure that is not (-1). */
static const char *ms(double v, char *buf, size_t size)
{
    if (v < 0)
        snprintf(buf, size, "not measured");
    else
        snprintf(buf, size, "%.3g ms", v);
    return buf;
}

/* One line of text (no newline) after a 17-column gutter (head in the
 * first line's), word-wrapped so that every line fits 80 columns. */
static void print_wrapped_line(FILE *o, const char *head, const char *text)
{
    int n = textcell_wrap(text, 80 - 17, NULL, 0);
    size_t *starts = n > 0 ? malloc((size_t)n * sizeof *starts) : NULL;
    if (!starts) {
        fprintf(o, "  %-14s %s\n", head, text);
        return;
    }
    textcell_wrap(text, 80 - 17, starts, (size_t)n);
    for (int i = 0; i < n; i++) {
        size_t end = i + 1 < n ? starts[i + 1] : strlen(text);
        while (end > starts[i] && text[end - 1] == ' ')
            end--;
        fprintf(o, "  %-14s %.*s\n", i ? "" : head, (int)(end - starts[i]), text + starts[i]);
    }
    free(starts);
}

/* text as print_wrapped_line prints a line, each of its lines (an
 * exception's traceback has several) wrapped apart, blank ones left out. */
static void print_wrapped(FILE *o, const char *head, const char *text)
{
    char *copy = strdup(text);
    if (!copy) {
        fprintf(o, "  %-14s %s\n", head, text);
        return;
    }
    int first = 1;
    for (char *line = copy, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!line[strspn(line, " \t\r")])
            continue;
        print_wrapped_line(o, first ? head : "", line);
        first = 0;
    }
    free(copy);
}

/* print_wrapped of a printf-style text. */
static void printf_wrapped(FILE *o, const char *head, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void printf_wrapped(FILE *o, const char *head, const char *fmt, ...)
{
    char *t = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&t, fmt, ap);
    va_end(ap);
    if (n >= 0)
        print_wrapped(o, head, t);
    free(t);
}

/* The losses of a curve, ", "-separated (at most 12, then how many more). */
static void put_losses(FILE *o, const px_bench *b)
{
    for (size_t s = 0; s < b->n_steps && s < 12; s++)
        fprintf(o, "%s%.4g", s ? ", " : "", b->loss[s]);
    if (b->n_steps > 12)
        fprintf(o, " and %zu more", b->n_steps - 12);
}

/* train-step:N: the finding first, the endpoint in words, the step
 * figures, the loss curve and what it was judged against. */
static void print_train(FILE *o, const px_bench *b, const px_bench_verdict *v, int is_reference)
{
    char name[32], *text = NULL, *words = bench_train_words(b);
    size_t len = 0;
    bench_endpoint_name(b, name, sizeof name);
    if (v->curve)
        printf_wrapped(o, name, "%s, these figures are not comparable: %s",
                       is_reference ? "LOSS CURVE NOT FINITE" : "LOSS CURVE PARTS FROM THE REFERENCE'S", v->curve);
    print_wrapped(o, name, words ? words : "train step");
    free(words);
    if (b->forwards) {
        printf_wrapped(o, "", "warm step p50 %.3g ms, p90 %.3g, p99 %.3g", b->p50_ms, b->p90_ms, b->p99_ms);
        printf_wrapped(o, "", "min %.3g ms, max %.3g; %.4g examples/s", b->min_ms, b->max_ms, b->per_s);
    }
    if (b->n_steps)
        printf_wrapped(o, "", "%zu step%s after the first (%.3g ms: any compilation is in it)", b->forwards,
                       b->forwards == 1 ? "" : "s", b->new_shapes_ms);
    FILE *m = b->n_steps ? open_memstream(&text, &len) : NULL;
    if (m) {
        fprintf(m, "loss by step: ");
        put_losses(m, b);
        fclose(m);
        if (text)
            print_wrapped(o, "", text);
    }
    free(text);
    if (b->stopped)
        printf_wrapped(o, "", "%s: %s", b->n_steps ? "stopped early" : "not measured", b->stopped);
    if (v->curve_note)
        print_wrapped(o, "", v->curve_note);
    else if (!v->curve && b->n_steps)
        print_wrapped(o, "", "within contract.train's tolerance of the reference's curve");
}

static void print_endpoint(FILE *o, const px_bench *b, const px_bench_verdict *v, int is_reference)
{
    if (b->train_steps) {
        print_train(o, b, v, is_reference);
        return;
    }
    char name[32], a[32];
    bench_endpoint_name(b, name, sizeof name);
    if (!v->comparable)
        fprintf(o, "  %-14s OUTPUTS BROKE THE CONTRACT: %s; these figures are not comparable\n", name, v->broken);
    if (v->batching)
        fprintf(o, "  %-14s batching changed the numbers (against one example a forward): %s\n", name,
                v->batching);
    if (!b->forwards) {
        printf_wrapped(o, name, "not measured: %s", b->stopped ? b->stopped : "no forward was timed");
        return;
    }
    printf_wrapped(o, name, "warm forward p50 %.3g ms, p90 %.3g, p99 %.3g", b->p50_ms, b->p90_ms, b->p99_ms);
    printf_wrapped(o, "", "min %.3g ms, max %.3g; %.4g examples/s; round trip %s", b->min_ms, b->max_ms, b->per_s,
                   ms(b->roundtrip_p50_ms, a, sizeof a));
    /* How many examples a forward holds is not how many there are: a
     * stack is filled from the first examples again (bench_run.c), so say
     * both, as the results file counts them (examples: those that ran). */
    printf_wrapped(o, "", "%zu forward%s of %d example%s%s, over the %zu example%s that ran%s: %d pass%s after %d warm-up",
                   b->forwards, b->forwards == 1 ? "" : "s", b->batch, b->batch == 1 ? "" : "s",
                   b->batch > 1 ? " stacked" : "", b->examples, b->examples == 1 ? "" : "s",
                   b->batch > 1 && (size_t)b->batch > b->examples ? " (a stack repeats them to fill it)"
                   : b->batch > 1 && b->examples % (size_t)b->batch ? " (the last stack refilled from the first)"
                                                                     : "",
                   b->passes, b->passes == 1 ? "" : "es", b->warmup);
    if (b->new_shapes)
        printf_wrapped(o, "", "%zu first forward%s of a new shape apart: %.3g ms in all", b->new_shapes,
                       b->new_shapes == 1 ? "" : "s", b->new_shapes_ms);
    if (b->stopped)
        printf_wrapped(o, "", "stopped early: %s", b->stopped);
}

/* 1 when every endpoint of every environment gave comparable figures of a
 * path that meets the contract, without a batching finding. */
static int bench_finish(const void *opts, px_check *s)
{
    const check_args *a = opts;
    const px_fixture *f = s->f;
    const px_results *res = s->res;
    px_error err = {0};
    px_verdicts v;
    if (session_judge(s, &v, &err))
        return cli_error(&err);
    const px_judgement *j = &v.j;
    /* With the results on stdout, the figures go to stderr. */
    FILE *o = a->output && !strcmp(a->output, "-") ? stderr : stdout;
    fprintf(o, "%s: parity bench, %zu examples, %zu environment%s\n", f->path, f->n_examples, res->n_envs,
           res->n_envs == 1 ? "" : "s");
    fprintf(o, "Every figure times the forward and the copy of its output to the host, as the\n"
               "executor measures it; cleaning and tokenising are outside them (done once,\n"
               "before). Every output the benchmark produces is judged against the contract.\n");
    int train = 0;
    for (size_t i = 0; i < res->n_envs; i++)
        for (size_t b = 0; b < res->envs[i].n_bench; b++)
            train |= res->envs[i].bench[b].train_steps > 0;
    if (train)
        fprintf(o, "A training step's figures time the forward, the loss, the backward pass, the\n"
                   "update and the copy of the loss to the host, on a copy of the model.\n");
    int rc = PX_EXIT_OK;
    for (size_t i = 0; i < res->n_envs; i++) {
        const px_env_result *e = &res->envs[i];
        const px_env_verdict *ev = &j->envs[i];
        char a1[32], a2[32];
        fprintf(o, "\n%s  %s %s%s%s%s\n", e->name, results_env_device(f, e), results_env_dtype(f, e),
               f->envs[e->env_index].role ? " (" : "", f->envs[e->env_index].role ? f->envs[e->env_index].role : "",
               f->envs[e->env_index].role ? ")" : "");
        if (e->state == PX_ENV_DOWN) {
            fprintf(o, "  DOWN at %s: %s\n", proto_stage_name(e->down_stage), e->down_msg ? e->down_msg : "");
            rc = px_exit_worse(rc, PX_EXIT_ENV);
            continue;
        }
        /* Every line fits 80 columns, whatever the device's name or a slow
         * load's figure (1.05e+03 ms). */
        printf_wrapped(o, "runs", "torch %s (%s) on %s, %d thread%s%s%s",
                       e->m.libtorch_version ? e->m.libtorch_version : "?", e->m.executor ? e->m.executor : "?",
                       e->m.device_name ? e->m.device_name : "?", e->m.threads, e->m.threads == 1 ? "" : "s",
                       e->m.tf32 ? ", tf32 " : "", e->m.tf32 ? e->m.tf32 : "");
        if (e->m.compile_backend)
            printf_wrapped(o, "compiled",
                           "torch.compile %s, mode %s, dynamic %s: a forward that compiled is timed apart with "
                           "the new shapes, never as a warm one",
                           e->m.compile_backend, e->m.compile_mode ? e->m.compile_mode : "?",
                           e->m.compile_dynamic ? e->m.compile_dynamic : "?");
        printf_wrapped(o, "model load", "%s (reading the TorchScript file, moving it to the device)",
                       ms(e->m.load_ms, a1, sizeof a1));
        printf_wrapped(o, "first forward",
                       "%s (the probe input: any lazy compilation, JIT profiling or graph capture happen here)",
                       ms(e->m.first_forward_ms, a2, sizeof a2));
        if (judgement_env_incomplete(ev))
            printf_wrapped(o, "contract",
                           "not judged in full in this run (%s): the figures below are not yet of a path known to "
                           "give the answers asked for",
                           ev->rung_detail[PX_RUNG_CONTRACT] ? ev->rung_detail[PX_RUNG_CONTRACT] : "not reached");
        else if (!ev->met)
            print_wrapped(o, "contract",
                          "NOT met in this run: the figures below are of a path that does not give the answers "
                          "asked for");
        /* Judged with the run (bench_judge): one verdict per benchmark. */
        for (size_t b = 0; b < ev->n_bench; b++) {
            const px_bench_verdict *v = &ev->bench[b];
            print_endpoint(o, &e->bench[b], v, ev->is_reference);
            /* Not judged in full (no reference here): incomplete, 3. */
            if (!v->comparable || v->batching || (!ev->met && !judgement_env_incomplete(ev)))
                rc = px_exit_worse(rc, PX_EXIT_FAILED);
            else if (judgement_env_incomplete(ev))
                rc = px_exit_worse(rc, PX_EXIT_ENV);
            if (e->bench[b].cut)
                rc = px_exit_worse(rc, PX_EXIT_CUT_SHORT);
        }
        /* The figures are above: the rung's verdict, and its why when it
         * is not measured. */
        if (ev->rung[PX_RUNG_PERF] == PX_RS_PASSED)
            fprintf(o, "  %-14s measured: no output of the benchmark changed a verdict\n", "performance");
        else
            printf_wrapped(o, "performance", "%s: %s", rung_state_name(ev->rung[PX_RUNG_PERF]),
                           ev->rung_detail[PX_RUNG_PERF] ? ev->rung_detail[PX_RUNG_PERF] : "");
    }
    verdicts_free(&v);
    fprintf(o, "\n");
    rc = px_exit_worse(rc, check_write_results(a, f, res));
    return check_cut_short_exit(res, rc);
}

/* bench's own options. */
typedef struct bench_opts {
    check_args a;
    bench_endpoints endpoints; /* --endpoint, repeatable; none: single */
    bench_warmup warmup;       /* --warmup; not given: 2 */
    long iters;                /* --iters; 0: as many as --min-time allows */
    double min_time_s;         /* --min-time; 0: 1s */
} bench_opts;

static int opt_endpoint(const px_command *c, const char *v, void *field)
{
    bench_endpoints *e = field;
    char *end = NULL;
    long n = !strncmp(v, "batch:", 6) && v[6] >= '0' && v[6] <= '9' ? strtol(v + 6, &end, 10) : 0;
    int train = !strncmp(v, "train-step:", 11);
    if (train)
        n = v[11] >= '0' && v[11] <= '9' ? strtol(v + 11, &end, 10) : 0;
    if (strcmp(v, "single") && !(end && !*end && n >= (train ? 1 : 2) && n <= (train ? 10000 : 4096)))
        return cli_usage_error(c,
                               "--endpoint must be single, batch:N with N from 2 to 4096 or train-step:N with "
                               "N from 1 to 10000, not '%s'",
                               v);
    e->batches[e->n++] = !strcmp(v, "single") ? 1 : train ? -(int)n : (int)n;
    return 0;
}

static int opt_warmup(const px_command *c, const char *v, void *field)
{
    bench_warmup *w = field;
    if (strcmp(v, "0") && cli_count(v, 100000L, &w->n))
        return cli_usage_error(c, "--warmup must be a whole number from 0 to 100000, not '%s'", v);
    if (!strcmp(v, "0"))
        w->n = 0;
    w->given = 1;
    return 0;
}

static int opt_iters(const px_command *c, const char *v, void *field)
{
    if (cli_count(v, 1000000L, field))
        return cli_usage_error(c, "--iters must be a whole number from 1 to 1000000, not '%s'", v);
    return 0;
}

static int opt_min_time(const px_command *c, const char *v, void *field)
{
    if (cli_duration(v, field))
        return cli_usage_error(c, "--min-time must be a duration above 0 such as 2s or 500ms, not '%s'", v);
    return 0;
}

/* What bench cannot measure, refused before anything runs; the
 * endpoints and their passes for the runner. */
static int bench_prepare(void *opts, const px_fixture *f, px_session_opts *o)
{
    bench_opts *b = opts;
    const bench_endpoints *e = &b->endpoints;
    if (kind_of(f)->generates)
        return cli_usage_error(b->a.command,
                               "%s is a generator's contract: parity bench measures a classifier's forwards and "
                               "training steps, and has no generation endpoint yet (parity run times each "
                               "generation: forward_ms)",
                               f->path);
    if (kind_of(f)->denoises)
        return cli_usage_error(b->a.command,
                               "%s is an image pipeline's contract: parity bench measures a classifier's forwards "
                               "and training steps, and has no denoising endpoint yet (parity run times each "
                               "picture, noise to image: forward_ms)",
                               f->path);
    if (kind_of(f)->trains)
        return cli_usage_error(b->a.command,
                               "%s is a training contract: parity bench measures a classifier's forwards and "
                               "training steps; parity run times each run's steps (step_ms) and its start-up "
                               "(startup_ms) apart",
                               f->path);
    for (int i = 0; i < e->n; i++)
        if (e->batches[i] < 0 && !f->train.present)
            return cli_usage_error(b->a.command,
                                   "--endpoint train-step:%d needs the training step in %s: add contract.train: "
                                   "{lr: 0.05, atol: A, rtol: R, why: \"...\"}",
                                   -e->batches[i], f->path);
    static const int single = 1;
    o->runner.bench_batches = e->n ? e->batches : &single;
    o->runner.n_bench = e->n ? (size_t)e->n : 1;
    o->runner.bench_warmup = b->warmup.given ? (int)b->warmup.n : 2;
    o->runner.bench_passes = b->iters > 0 ? (int)b->iters : 0;
    o->runner.bench_min_time_s = b->min_time_s > 0 ? b->min_time_s : 1.0;
    return 0;
}

static const opt_bind bench_own[] = {
    {PX_OPT_ENDPOINT, offsetof(bench_opts, endpoints), opt_endpoint},
    {PX_OPT_WARMUP, offsetof(bench_opts, warmup), opt_warmup},
    {PX_OPT_ITERS, offsetof(bench_opts, iters), opt_iters},
    {PX_OPT_MIN_TIME, offsetof(bench_opts, min_time_s), opt_min_time},
    {PX_OPT_COUNT, 0, NULL},
};

/* bench runs the fixture's environments, as run does. */
static const check_cmd bench_cmd = {"bench", sizeof(bench_opts), bench_own, 0, PX_SESSION_RUN, PX_HISTORY_NONE,
                                    "running it", NULL, bench_prepare, bench_finish};

int cmd_bench(int argc, char **argv) { return check_command(&bench_cmd, argc, argv); }
