/* parity bench's timings in the runner (runner_opts.h: n_bench): after an
 * environment's examples, each endpoint (batch:N forwards of stacked
 * examples, train-step:N) timed in its live executor into the environment's
 * px_env_result.bench; what the figures mean is judged in bench.h. */
#include "bench_run.h"

#include "child.h"
#include "parity/strf.h"
#include "parity/kind.h"
#include "parity/tokenizer.h"
#include "wire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Growable samples of one endpoint's timed forwards. */
typedef struct samples {
    double *fwd, *rt;
    size_t n, cap;
} samples;

static int samples_push(samples *s, double fwd, double rt)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        double *a = realloc(s->fwd, cap * sizeof *a);
        if (!a)
            return -1;
        s->fwd = a;
        double *b = realloc(s->rt, cap * sizeof *b);
        if (!b)
            return -1;
        s->rt = b, s->cap = cap;
    }
    s->fwd[s->n] = fwd, s->rt[s->n] = rt;
    s->n++;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of n sorted values, interpolated as numpy's default. */
static double quantile_sorted(const double *v, size_t n, double q)
{
    if (!n)
        return -1;
    double at = q * (double)(n - 1);
    size_t lo = (size_t)at;
    return lo + 1 < n ? v[lo] + (at - (double)lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* Keeps, per example, the benchmark's output farthest from the run's: a
 * changed label first (a classifier's; an embedding's vector decides none),
 * then the largest max |difference|. */
static void keep_farthest(px_bench *b, double *score, size_t k, const double *row, const px_example_result *ran,
                          int labelled)
{
    double d = 0;
    for (size_t i = 0; i < b->n_out && i < ran->n_values; i++) {
        double x = fabs(row[i] - ran->values[i]);
        d = x > d || x != x ? x : d;
    }
    if (labelled && results_argmax(row, b->n_out) != ran->label)
        d = INFINITY;
    if (b->out[k] && !(d > score[k]))
        return;
    if (!b->out[k] && !(b->out[k] = malloc(b->n_out * sizeof *row)))
        return;
    memcpy(b->out[k], row, b->n_out * sizeof *row);
    score[k] = d;
}

/* What a benchmark's request (`what`: "a forward", "a training step")
 * came to when it did not answer: its words in b->stopped; reaps a child
 * that is gone. */
static void bench_failed(px_runner *r, child *c, px_bench *b, const char *what, enum wait_result w, uint32_t type,
                         px_buf *p, double timeout)
{
    char text[1400], how[64];
    if (w == W_FRAME && type == PX_FRAME_FAIL) {
        buf_get_u32(p), buf_get_u32(p);
        char *msg = state_scrub(r, buf_get_str(p));
        snprintf(text, sizeof text, "%s raised: %.1200s", what, msg ? msg : "(malformed FAIL frame)");
        free(msg);
    } else if (w == W_FRAME) {
        snprintf(text, sizeof text, "protocol: unexpected frame");
    } else if (w == W_STOPPED) {
        snprintf(text, sizeof text, "%s", state_stop_words(r));
    } else {
        child_reap(r, c, w == W_EOF ? 5 : 0, 1, how, sizeof how);
        if (w == W_TIMEOUT)
            snprintf(text, sizeof text, "%s gave no answer within %g s", what, timeout);
        else
            snprintf(text, sizeof text, "the executor ended during %s (%s)", what, how);
    }
    if (w == W_STOPPED) {
        child_reap(r, c, 0, 1, how, sizeof how);
        b->cut = 1;
    }
    free(b->stopped);
    b->stopped = strdup(text);
}

/* A benchmark's executor that ended (a crash, a timeout) is started again
 * before its next request; -1 with the reason in b->stopped when it cannot. */
static int bench_restart(px_runner *r, px_env_result *er, child *c, px_bench *b)
{
    if (c->pid != 0)
        return 0;
    int stage;
    char *msg = NULL;
    er->restarts++;
    if (!child_start(r, er, 1, &stage, &msg))
        return 0;
    char *text = strf("the executor could not start again: %s", msg ? msg : state_stop_words(r));
    free(msg);
    free(b->stopped);
    b->stopped = text;
    return -1;
}

/* The figures of a benchmark from its samples (warm forwards or steps). */
static void bench_figures(px_bench *b, samples *sm)
{
    b->forwards = sm->n;
    b->p50_ms = b->p90_ms = b->p99_ms = b->min_ms = b->max_ms = -1;
    if (!sm->n)
        return;
    qsort(sm->fwd, sm->n, sizeof *sm->fwd, cmp_double);
    b->p50_ms = quantile_sorted(sm->fwd, sm->n, 0.5);
    b->p90_ms = quantile_sorted(sm->fwd, sm->n, 0.9);
    b->p99_ms = quantile_sorted(sm->fwd, sm->n, 0.99);
    b->min_ms = sm->fwd[0], b->max_ms = sm->fwd[sm->n - 1];
}

/* One forward of the stack xs (n examples) into x, its round trip in *rt
 * (ms): -1 with the words in b->stopped when it gave no [n, labels] output
 * (an embedding's: [n, dim], each row pooled with its own mask by the
 * executor) (bench_failed). */
static int forward_stack(px_runner *r, child *c, px_bench *b, const px_prepared *const *xs, size_t n, int64_t pad,
                         double timeout, px_example_result *x, double *rt)
{
    px_buf p = {0};
    uint32_t type = 0;
    double t0 = state_now();
    enum wait_result w = wire_send_run_stack(r->f, c->to, xs, n, pad) ? W_EOF : child_wait_frame(r, c, timeout, &type, &p);
    *rt = (state_now() - t0) * 1000;
    if (w != W_FRAME || type != PX_FRAME_OUTPUT) {
        bench_failed(r, c, b, "a forward", w, type, &p, timeout);
        buf_free(&p);
        return -1;
    }
    if (wire_decode_output(&p, x) || x->ndim != 2 || x->shape[0] != (int64_t)n ||
        x->shape[1] != (int64_t)b->n_out) {
        char text[200];
        snprintf(text, sizeof text, "the output of %zu stacked examples is not [%zu, %zu]", n, n, b->n_out);
        b->stopped = strdup(text);
        example_result_clear(x);
        buf_free(&p);
        return -1;
    }
    buf_free(&p);
    return 0;
}

/* One endpoint: warmup passes, then timed passes over the examples that ran
 * (status ok), n at a time (the last stack filled from the first examples
 * again, so every forward has the endpoint's shape). */
static void bench_endpoint(px_runner *r, px_env_result *er, px_bench *b, const size_t *ok, size_t n_ok)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    const px_env_input *ein = &r->inputs[er - r->res->envs];
    size_t n = (size_t)b->batch, n_stacks = (n_ok + n - 1) / n;
    int64_t pad = tokenizer_id(ein->prep.tok, "[PAD]");
    pad = pad < 0 ? 0 : pad;
    const px_prepared **xs = calloc(n, sizeof *xs);
    size_t *which = calloc(n, sizeof *which);
    double *score = calloc(r->res->n_examples, sizeof *score);
    b->out = calloc(r->res->n_examples, sizeof *b->out);
    const px_kind *kind = kind_of(r->f);
    b->n_out = kind->pools ? (size_t)r->f->dim : e->n_labels;
    b->examples = n_ok;
    samples sm = {0};
    double timed_s = 0, started = 0;
    size_t timed_examples = 0;
    if (!xs || !which || !score || !b->out)
        goto out;
    for (int pass = 0;; pass++) {
        int timed = pass >= b->warmup;
        if (timed && !started)
            started = state_now();
        int passes = pass - b->warmup;
        if (timed && (r->opts.bench_passes > 0 ? passes >= r->opts.bench_passes
                                               : passes >= 5 && state_now() - started >= r->opts.bench_min_time_s))
            break;
        for (size_t st = 0; st < n_stacks; st++) {
            if (state_must_stop(r)) {
                b->stopped = strdup(state_stop_words(r));
                b->cut = 1;
                goto out;
            }
            if (bench_restart(r, er, c, b))
                goto out;
            size_t len = 0;
            for (size_t j = 0; j < n; j++) {
                which[j] = ok[(st * n + j) % n_ok];
                xs[j] = &ein->examples[which[j]];
                len = xs[j]->enc.n > len ? xs[j]->enc.n : len;
            }
            int first = !child_shape_seen(c, len + (n - 1) * ((size_t)1 << 32));
            double timeout = first ? e->first_forward_timeout_s : e->timeout_s;
            double rt;
            px_example_result x = {.label = -1};
            if (forward_stack(r, c, b, xs, n, pad, timeout, &x, &rt))
                goto out;
            for (size_t j = 0; j < n; j++)
                keep_farthest(b, score, which[j], x.values + j * b->n_out, &er->ex[which[j]], kind->decides_label);
            /* A new shape, or a forward the backend says compiled (a lazy
             * device may recompile a shape it saw): timed apart. */
            if (first || x.compiled == PX_COMPILED_YES) {
                b->new_shapes++;
                b->new_shapes_ms += x.forward_ms;
            } else if (timed) {
                if (samples_push(&sm, x.forward_ms, rt)) {
                    example_result_clear(&x);
                    b->stopped = strdup("out of memory");
                    goto out;
                }
                timed_s += rt / 1000;
                timed_examples += n;
            }
            example_result_clear(&x);
        }
        if (timed)
            b->passes = passes + 1;
    }
out:
    bench_figures(b, &sm);
    b->roundtrip_p50_ms = b->per_s = -1;
    if (sm.n) {
        qsort(sm.rt, sm.n, sizeof *sm.rt, cmp_double);
        b->roundtrip_p50_ms = quantile_sorted(sm.rt, sm.n, 0.5);
        b->per_s = timed_s > 0 ? (double)timed_examples / timed_s : -1;
    }
    free(sm.fwd), free(sm.rt), free(xs), free(which), free(score);
}

/* What train-step:N trains on: of the examples that ran ok (ok, n_ok), the
 * fixture's labelled ones, in fixture order, into xs with each one's
 * target in targets; returns how many. */
static size_t train_set(px_runner *r, px_env_result *er, const size_t *ok, size_t n_ok, const px_prepared **xs,
                        int64_t *targets)
{
    const px_env_input *ein = &r->inputs[er - r->res->envs];
    size_t n = 0;
    for (size_t i = 0; i < n_ok; i++) {
        const px_example *x = &r->f->examples[ok[i]];
        if (x->expect.kind != PX_EXPECT_LABEL)
            continue;
        /* The target is the expected label's place in this environment's
         * own label map (its outputs' order), which may differ from the
         * contract's; a label it lacks leaves the example out. */
        const char *want = r->f->labels[x->expect.label];
        size_t at = 0;
        while (at < er->n_labels && strcmp(er->labels[at], want))
            at++;
        if (at == er->n_labels)
            continue;
        xs[n] = &ein->examples[ok[i]];
        targets[n++] = (int64_t)at;
    }
    return n;
}

/* train-step:N: one TRAIN (proto.h) of the fixture's labelled examples
 * that ran ok here, in fixture order, stacked and padded as batch:N stacks
 * them, each one's target its label's index in the contract's order. The
 * executor trains a copy of its module: the one loaded answers as before.
 * Step 1 is timed apart (new_shapes: it holds any compilation); the figures
 * are of steps 2 to N. */
static void bench_train(px_runner *r, px_env_result *er, px_bench *b, const size_t *ok, size_t n_ok)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    const px_env_input *ein = &r->inputs[er - r->res->envs];
    int64_t pad = tokenizer_id(ein->prep.tok, "[PAD]");
    pad = pad < 0 ? 0 : pad;
    const px_prepared **xs = calloc(n_ok, sizeof *xs);
    int64_t *targets = calloc(n_ok, sizeof *targets);
    samples sm = {0};
    px_buf p = {0};
    size_t n = 0, steps = (size_t)b->train_steps;
    if (!xs || !targets) {
        b->stopped = strdup("out of memory");
        goto out;
    }
    if (!kind_of(r->f)->decides_label) { /* a generator's bench is refused before */
        b->stopped = strdup("an embedding has no labels to train on (train-step:N trains a classifier)");
        goto out;
    }
    n = train_set(r, er, ok, n_ok, xs, targets);
    b->batch = (int)n, b->examples = n, b->passes = 1;
    if (!n) {
        b->stopped = strdup("no example with an expected label ran in this environment: nothing to train on");
        goto out;
    }
    if (bench_restart(r, er, c, b))
        goto out;
    double timeout = e->first_forward_timeout_s + (double)steps * e->timeout_s;
    uint32_t type = 0;
    enum wait_result w = wire_send_train(r->f, c->to, (uint32_t)steps, b->lr, xs, n, pad, targets)
                             ? W_EOF
                             : child_wait_frame(r, c, timeout, &type, &p);
    if (w != W_FRAME || type != PX_FRAME_TRAINED) {
        bench_failed(r, c, b, "a training step", w, type, &p, timeout);
        goto out;
    }
    if (buf_get_u32(&p) != steps || p.bad || p.len - p.pos != 16 * steps) {
        b->stopped = strdup("protocol: malformed TRAINED frame");
        goto out;
    }
    b->loss = malloc(steps * sizeof *b->loss);
    b->step_ms = malloc(steps * sizeof *b->step_ms);
    if (!b->loss || !b->step_ms) {
        b->stopped = strdup("out of memory");
        goto out;
    }
    for (size_t i = 0; i < steps; i++)
        b->loss[i] = buf_get_f64(&p);
    for (size_t i = 0; i < steps; i++)
        b->step_ms[i] = buf_get_f64(&p);
    b->n_steps = steps;
    b->new_shapes = 1, b->new_shapes_ms = b->step_ms[0];
    double total = 0;
    for (size_t i = 1; i < steps; i++) {
        if (samples_push(&sm, b->step_ms[i], -1)) {
            b->stopped = strdup("out of memory");
            goto out;
        }
        total += b->step_ms[i];
    }
    b->per_s = total > 0 ? (double)(n * (steps - 1)) / (total / 1000) : -1;
out:
    bench_figures(b, &sm);
    b->roundtrip_p50_ms = -1;
    buf_free(&p);
    free(sm.fwd), free(sm.rt), free(xs), free(targets);
}

/* parity bench: each endpoint over the examples this environment ran. */
void bench_run(px_runner *r, px_env_result *er)
{
    size_t *ok = calloc(r->res->n_examples ? r->res->n_examples : 1, sizeof *ok), n_ok = 0;
    px_bench *bench = calloc(r->opts.n_bench, sizeof *bench);
    if (!ok || !bench) {
        free(ok), free(bench);
        return;
    }
    for (size_t k = 0; k < r->res->n_examples; k++)
        if (er->ex[k].status == PX_ST_OK)
            ok[n_ok++] = k;
    for (size_t i = 0; i < r->opts.n_bench; i++) {
        bench[i].batch = r->opts.bench_batches[i] > 0 ? r->opts.bench_batches[i] : 1;
        bench[i].warmup = r->opts.bench_warmup;
        if (r->opts.bench_batches[i] < 0) { /* train-step:N */
            bench[i].train_steps = -r->opts.bench_batches[i];
            bench[i].lr = r->f->train.lr;
            bench[i].warmup = 0;
        }
        bench[i].p50_ms = bench[i].p90_ms = bench[i].p99_ms = bench[i].min_ms = bench[i].max_ms = -1;
        bench[i].roundtrip_p50_ms = bench[i].per_s = -1;
        state_set_progress(r, (int)(er - r->res->envs), -1);
        if (!n_ok)
            bench[i].stopped = strdup("no example ran in this environment: nothing to time");
        else if (state_must_stop(r))
            bench[i].stopped = strdup(state_stop_words(r)), bench[i].cut = 1;
        else if (bench[i].train_steps)
            bench_train(r, er, &bench[i], ok, n_ok);
        else
            bench_endpoint(r, er, &bench[i], ok, n_ok);
    }
    /* A benchmark cut short (a budget, an interrupt) cuts the environment's
     * run short: the results file says so, so that a check of it at home
     * exits 5 as the run here did, never "performance ok". */
    char cut[256] = "";
    for (size_t i = 0; i < r->opts.n_bench && !cut[0]; i++)
        if (bench[i].cut) {
            char name[32];
            snprintf(cut, sizeof cut, "%s, in the benchmark %s", bench[i].stopped ? bench[i].stopped : "stopped",
                     bench_endpoint_name(&bench[i], name, sizeof name));
        }
    pthread_mutex_lock(&r->mu);
    er->bench = bench;
    er->n_bench = r->opts.n_bench;
    if (cut[0] && !er->cut_short)
        er->cut_short = strdup(cut);
    pthread_mutex_unlock(&r->mu);
    free(ok);
    state_notify(r);
}
