/* parity bench's verdicts (bench.h): each benchmark's outputs judged in
 * place of the run's, its loss curve against the reference's, and the
 * performance rung, all from the run's judgement. */
#define _GNU_SOURCE /* open_memstream */
#include "parity/bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/compare.h"
#include "parity/judge_kind.h"
#include "parity/strf.h"
#include "judge_int.h"

static int same_values(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* Appends ", id (words)" to a growing list; at most 5 named, then a count. */
static void name_one(FILE *o, size_t *n, const char *id, const char *words)
{
    if (*n < 5)
        fprintf(o, "%s%s (%s)", *n ? ", " : "", id, words);
    (*n)++;
}

static char *close_list(FILE *o, char **text, size_t n)
{
    if (n > 5)
        fprintf(o, " and %zu more", n - 5);
    fclose(o);
    if (!n) {
        free(*text);
        return NULL;
    }
    return *text;
}

/* Whether the stacked output of example k differs from the run's own beyond
 * the tolerance that example is judged with (or, with none, decides another
 * label). Sets *words (malloc'd; labels and statistics' names have no
 * bound). */
static int batch_changed(const px_fixture *f, const px_env_result *e, size_t k, const double *out,
                         const px_example_result *ran, size_t n, char **words)
{
    const px_example *ex = &f->examples[k];
    const px_tolerance *t = numbers_tolerance(f, ex);
    int label = judge_kind_of(f)->bench_label(out, n); /* a vector decides no label */
    if (label != ran->label) {
        const char *now = label >= 0 && (size_t)label < e->n_labels ? e->labels[label] : "?",
                   *was = results_label(e, ran);
        *words = strf("decides %s, not %s", now, was ? was : "?");
        return 1;
    }
    if (!t->present)
        return 0;
    int stat = compare_stat_from_name(t->stat);
    px_cmp cmp;
    if (compare_values(out, ran->values, n, stat < 0 ? PX_STAT_ELEMENTWISE : (px_stat)stat, t->q, t->atol, t->rtol,
                       &cmp))
        return 0;
    if (cmp.pass)
        return 0;
    *words = strf("%s |difference| %.3g over %.3g", t->stat ? t->stat : "elementwise", cmp.value, cmp.threshold);
    return 1;
}

/* Benchmark `bench` of environment `env`: each example's farthest output
 * (px_bench.out) takes the place of the run's and the whole is judged as
 * check judges it (a bit-identical output is the run's own and changes
 * nothing); what it changed against the run's judgement j, in words. */
static int judge_one(const px_fixture *f, const px_results *r, const px_judgement *j, size_t env, size_t bench,
                     px_bench_verdict *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    const px_env_result *er = &r->envs[env];
    const px_bench *b = &er->bench[bench];
    /* A shallow copy of the results in which this environment's outputs
     * are the benchmark's (the judge asks nothing of benchmarks). */
    px_results copy = *r;
    px_env_result *envs = calloc(r->n_envs ? r->n_envs : 1, sizeof *envs);
    px_example_result *ex = calloc(r->n_examples ? r->n_examples : 1, sizeof *ex);
    if (!envs || !ex) {
        free(envs), free(ex);
        return px_error_oom(err, NULL);
    }
    memcpy(envs, r->envs, r->n_envs * sizeof *envs);
    memcpy(ex, er->ex, r->n_examples * sizeof *ex);
    int changed = 0;
    for (size_t k = 0; b->out && k < r->n_examples; k++) {
        const px_example_result *x = &er->ex[k];
        if (!b->out[k] || x->status != PX_ST_OK || x->n_values != b->n_out || same_values(b->out[k], x->values, b->n_out))
            continue;
        ex[k].values = b->out[k];
        ex[k].label = judge_kind_of(f)->bench_label(b->out[k], b->n_out);
        changed = 1;
    }
    envs[env].ex = ex;
    copy.envs = envs;
    px_judgement jb = {0};
    int rc = 0;
    if (changed && judge_results(f, &copy, &jb, err))
        rc = -1;
    char *broken = NULL, *batching = NULL;
    size_t bl = 0, cl = 0, nb = 0, nbat = 0;
    FILE *ob = open_memstream(&broken, &bl), *oc = open_memstream(&batching, &cl);
    if (!ob || !oc) {
        if (ob)
            fclose(ob), free(broken);
        if (oc)
            fclose(oc), free(batching);
        free(envs), free(ex), judgement_free(&jb);
        return px_error_oom(err, NULL);
    }
    for (size_t k = 0; rc == 0 && b->out && k < r->n_examples; k++) {
        const px_example_result *x = &er->ex[k];
        if (!b->out[k] || x->status != PX_ST_OK || x->n_values != b->n_out)
            continue;
        if (changed) {
            const px_verdict *was = &j->envs[env].ex[k], *now = &jb.envs[env].ex[k];
            if (outcome_met(was->outcome) != outcome_met(now->outcome)) {
                char *words = strf("%s, not %s as in the run", outcome_name(now->outcome),
                                   outcome_name(was->outcome));
                name_one(ob, &nb, f->examples[k].id, words ? words : "");
                free(words);
            }
        }
        char *words = NULL;
        if (b->batch > 1 && batch_changed(f, er, k, b->out[k], x, b->n_out, &words))
            name_one(oc, &nbat, f->examples[k].id, words ? words : "");
        free(words);
    }
    out->broken = close_list(ob, &broken, nb);
    out->batching = close_list(oc, &batching, nbat);
    out->comparable = rc == 0 && nb == 0;
    judgement_free(&jb);
    free(envs), free(ex);
    if (rc == 0 && bench_judge_curve(f, r, env, bench, out, err))
        rc = -1;
    return rc;
}

static void set_perf(px_env_verdict *ev, px_rung_state s, char *detail)
{
    ev->rung[PX_RUNG_PERF] = s;
    free(ev->rung_detail[PX_RUNG_PERF]);
    ev->rung_detail[PX_RUNG_PERF] = detail;
}

/* The performance rung, and each benchmark's verdict (ev->bench): measured
 * when a benchmark ran and none of its outputs changed a verdict; it never changes whether the contract is met
 * (the two questions stay apart). Reached only when the contract is
 * satisfied: figures of a path that gives wrong answers are not a result. */
static int perf_rung(const px_fixture *f, const px_results *r, px_judgement *out, size_t e, px_error *err)
{
    px_env_verdict *ev = &out->envs[e];
    const px_env_result *er = &r->envs[e];
    if (!er->n_bench || !ev->selected)
        return 0;
    char *figures = NULL, *why = NULL, *cut = NULL;
    size_t fl = 0, wl = 0, cl = 0;
    FILE *fo = open_memstream(&figures, &fl), *wo = open_memstream(&why, &wl), *co = open_memstream(&cut, &cl);
    if (!fo || !wo || !co) {
        if (fo)
            fclose(fo), free(figures);
        if (wo)
            fclose(wo), free(why);
        if (co)
            fclose(co), free(cut);
        return px_error_oom(err, NULL);
    }
    int measured = 0, broken = 0, stopped = 0;
    if (!(ev->bench = calloc(er->n_bench, sizeof *ev->bench))) {
        fclose(fo), fclose(wo), fclose(co), free(figures), free(why), free(cut);
        return px_error_oom(err, NULL);
    }
    for (size_t b = 0; b < er->n_bench; b++) {
        const px_bench *pb = &er->bench[b];
        px_bench_verdict *v = &ev->bench[b];
        if (judge_one(f, r, out, e, b, v, err)) {
            fclose(fo), fclose(wo), fclose(co), free(figures), free(why), free(cut);
            return -1;
        }
        ev->n_bench = b + 1;
        char name[32];
        bench_endpoint_name(pb, name, sizeof name);
        /* A benchmark stopped before its passes (a budget, an interrupt, a
         * crash) measured part of what it was asked: never "ok". */
        if (pb->stopped)
            fprintf(co, "%s%s (%s)", stopped++ ? ", " : "", name, pb->stopped);
        if (!v->comparable && v->curve) {
            fprintf(wo, "%s%s loss curve %s: %s", broken++ ? "; " : "", name,
                    ev->is_reference ? "not finite" : "parts from the reference's", v->curve);
        } else if (!v->comparable) {
            fprintf(wo, "%s%s outputs broke the contract: %s", broken++ ? "; " : "", name, v->broken);
        } else if (pb->forwards && pb->train_steps) {
            fprintf(fo, "%s%s p50 %.3g ms a step, %.4g examples/s", measured++ ? ", " : "", name, pb->p50_ms,
                    pb->per_s);
        } else if (pb->forwards) {
            fprintf(fo, "%s%s p50 %.3g ms, %.4g examples/s", measured++ ? ", " : "", name, pb->p50_ms, pb->per_s);
        }
    }
    fclose(fo), fclose(wo), fclose(co);
    if (stopped)
        set_perf(ev, PX_RS_NOT_REACHED,
                 strf("cut short: not measured in full: %s%s%s", cut, measured ? "; timed before it stopped: " : "",
                     measured ? figures : ""));
    else if (broken)
        set_perf(ev, PX_RS_NOT_MEASURED, strf("figures not comparable: %s", why));
    else if (!measured)
        set_perf(ev, PX_RS_NOT_MEASURED, strf("the benchmark timed no forward"));
    else if (ev->rung[PX_RUNG_CONTRACT] != PX_RS_PASSED && ev->incomplete)
        set_perf(ev, PX_RS_NOT_REACHED,
                 strf("timed (%s), but the contract is not judged in full here (%s): not yet a result", figures,
                     ev->rung_detail[PX_RUNG_CONTRACT] ? ev->rung_detail[PX_RUNG_CONTRACT] : "not reached"));
    else if (ev->rung[PX_RUNG_CONTRACT] != PX_RS_PASSED)
        set_perf(ev, PX_RS_NOT_REACHED,
                 strf("timed (%s), but the contract is not met here: not a result", figures));
    else
        set_perf(ev, PX_RS_PASSED, strf("measured: %s", figures));
    free(figures), free(why), free(cut);
    return 0;
}

int bench_judge(const px_fixture *f, const px_results *r, px_judgement *j, px_error *err)
{
    for (size_t e = 0; e < r->n_envs; e++)
        if (perf_rung(f, r, j, e, err)) {
            judgement_free(j);
            return -1;
        }
    return 0;
}

/* The reference environment's train-step benchmark of as many steps that
 * gave a curve; NULL when none. */
static const px_bench *reference_curve(const px_results *r, const px_bench *b)
{
    if (r->reference < 0 || (size_t)r->reference >= r->n_envs)
        return NULL;
    const px_env_result *re = &r->envs[r->reference];
    for (size_t i = 0; i < re->n_bench; i++)
        if (re->bench[i].train_steps == b->train_steps && re->bench[i].n_steps)
            return &re->bench[i];
    return NULL;
}

int bench_judge_curve(const px_fixture *f, const px_results *r, size_t env, size_t bench, px_bench_verdict *v,
                      px_error *err)
{
    const px_bench *b = &r->envs[env].bench[bench];
    const px_train *t = &f->train;
    int n = -1;
    if (!b->train_steps)
        return 0;
    if (!b->n_steps)
        return 0; /* nothing ran: its stopped says why */
    if ((int)env == r->reference) {
        for (size_t s = 0; s < b->n_steps; s++)
            if (!isfinite(b->loss[s])) {
                n = asprintf(&v->curve, "the reference's own loss is %g at step %zu of %zu: no curve to compare "
                                        "with",
                             b->loss[s], s + 1, b->n_steps);
                v->comparable = 0;
                return n < 0 ? px_error_oom(err, NULL) : 0;
            }
        n = asprintf(&v->curve_note, "the reference's own curve, every loss finite: the others are judged "
                                     "against it");
        return n < 0 ? px_error_oom(err, NULL) : 0;
    }
    const px_bench *ref = reference_curve(r, b);
    if (!t->present)
        n = asprintf(&v->curve_note, "loss curve not compared: the contract has no train: tolerance");
    else if (!ref)
        n = asprintf(&v->curve_note, "loss curve not compared: the reference has no train-step:%d curve",
                     b->train_steps);
    else {
        size_t steps = b->n_steps < ref->n_steps ? b->n_steps : ref->n_steps;
        for (size_t s = 0; s < ref->n_steps; s++)
            if (!isfinite(ref->loss[s])) {
                n = asprintf(&v->curve_note, "loss curve not compared: the reference's own is not finite");
                return n < 0 ? px_error_oom(err, NULL) : 0;
            }
        for (size_t s = 0; s < steps; s++) {
            double a = b->loss[s], want = ref->loss[s], d = fabs(a - want), limit = t->atol + t->rtol * fabs(want);
            if (d <= limit) /* NaN or an infinity never passes */
                continue;
            n = asprintf(&v->curve,
                         "step %zu: loss %.6g against the reference's %.6g, |difference| %.3g over %.3g (atol %g + "
                         "rtol %g x |reference|); the contract's why: %s",
                         s + 1, a, want, d, limit, t->atol, t->rtol, t->why ? t->why : "(none written)");
            v->comparable = 0;
            break;
        }
        if (n < 0 && b->n_steps != ref->n_steps)
            n = asprintf(&v->curve_note, "loss curve compared over %zu steps: the reference did %zu, this %zu",
                         steps, ref->n_steps, b->n_steps);
        else if (n < 0)
            return 0;
    }
    return n < 0 ? px_error_oom(err, NULL) : 0;
}

char *bench_train_words(const px_bench *b)
{
    char *s = NULL;
    if (!b->train_steps)
        return NULL;
    return asprintf(&s, "train step, %d example%s per step, SGD lr %g, preparation outside", b->batch,
                    b->batch == 1 ? "" : "s", b->lr) < 0
               ? NULL
               : s;
}

char *bench_line(const px_bench *b)
{
    char name[32], *s = NULL;
    bench_endpoint_name(b, name, sizeof name);
    int n;
    char *words = bench_train_words(b);
    if (words) {
        if (b->forwards == 0)
            n = asprintf(&s, "%s (%s): %s%s%s", name, words, b->n_steps ? "one step, timed apart as a first (no warm step)"
                                                                        : "not measured",
                         b->stopped ? ": " : "", b->stopped ? b->stopped : "");
        else
            n = asprintf(&s,
                         "%s (%s): warm step p50 %.3g ms, p90 %.3g, p99 %.3g (min %.3g, max %.3g; %zu steps after "
                         "the first, %.3g ms, which holds any compilation), %.4g examples/s; forward, cross-entropy, "
                         "backward, update and the copy of the loss to the host timed by the executor%s%s",
                         name, words, b->p50_ms, b->p90_ms, b->p99_ms, b->min_ms, b->max_ms, b->forwards,
                         b->new_shapes_ms, b->per_s, b->stopped ? "; stopped early: " : "",
                         b->stopped ? b->stopped : "");
        free(words);
        /* The curve itself: what was judged. */
        for (size_t i = 0; n >= 0 && i < b->n_steps && i < 12; i++) {
            char *t = NULL;
            n = asprintf(&t, "%s%s%.4g%s", s, i ? ", " : "; loss by step ", b->loss[i],
                         i == 11 && b->n_steps > 12 ? " and more" : "");
            free(s);
            s = n < 0 ? NULL : t;
        }
        return n < 0 ? NULL : s;
    }
    if (b->forwards == 0)
        n = asprintf(&s, "%s: not measured%s%s", name, b->stopped ? ": " : "", b->stopped ? b->stopped : "");
    else
        n = asprintf(&s,
                     "%s (%d example%s a forward): warm forward p50 %.3g ms, p90 %.3g, p99 %.3g (min %.3g, max %.3g; "
                     "%zu forwards over %d passes of the %zu example%s that ran, after %d warm-up), %.4g examples/s; "
                     "forward and copy to the host timed by the executor, cleaning and tokenising outside; %.3g ms a "
                     "round trip through parity%s%s",
                     name, b->batch, b->batch == 1 ? "" : "s", b->p50_ms, b->p90_ms, b->p99_ms, b->min_ms, b->max_ms,
                     b->forwards, b->passes, b->examples, b->examples == 1 ? "" : "s", b->warmup, b->per_s,
                     b->roundtrip_p50_ms,
                     b->stopped ? "; stopped early: " : "", b->stopped ? b->stopped : "");
    return n < 0 ? NULL : s;
}
