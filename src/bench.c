#define _GNU_SOURCE /* open_memstream */
#include "parity/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/compare.h"

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
 * label). Fills words. */
static int batch_changed(const px_fixture *f, const px_env_result *e, size_t k, const double *out,
                         const px_example_result *ran, size_t n, char *words, size_t size)
{
    const px_example *ex = &f->examples[k];
    const px_tolerance *t = ex->tol.present ? &ex->tol : &f->logits_tol;
    int label = results_argmax(out, n);
    if (label != ran->label) {
        const char *now = label >= 0 && (size_t)label < e->n_labels ? e->labels[label] : "?",
                   *was = results_label(e, ran);
        snprintf(words, size, "decides %s, not %s", now, was ? was : "?");
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
    snprintf(words, size, "%s |difference| %.3g over %.3g", t->stat ? t->stat : "elementwise", cmp.value,
             cmp.threshold);
    return 1;
}

int bench_judge(const px_fixture *f, const px_results *r, const px_judgement *j, size_t env, size_t bench,
                px_bench_verdict *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    const px_env_result *er = &r->envs[env];
    const px_bench *b = &er->bench[bench];
    /* A shallow copy of the results in which this environment's outputs
     * are the benchmark's, and no environment has benchmarks (so judging it
     * asks nothing of them). */
    px_results copy = *r;
    px_env_result *envs = calloc(r->n_envs ? r->n_envs : 1, sizeof *envs);
    px_example_result *ex = calloc(r->n_examples ? r->n_examples : 1, sizeof *ex);
    if (!envs || !ex) {
        free(envs), free(ex);
        return px_error_oom(err, NULL);
    }
    memcpy(envs, r->envs, r->n_envs * sizeof *envs);
    for (size_t i = 0; i < r->n_envs; i++)
        envs[i].bench = NULL, envs[i].n_bench = 0;
    memcpy(ex, er->ex, r->n_examples * sizeof *ex);
    int changed = 0;
    for (size_t k = 0; b->out && k < r->n_examples; k++) {
        const px_example_result *x = &er->ex[k];
        if (!b->out[k] || x->status != PX_ST_OK || x->n_values != b->n_out || same_values(b->out[k], x->values, b->n_out))
            continue;
        ex[k].values = b->out[k];
        ex[k].label = results_argmax(b->out[k], b->n_out);
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
                char words[200];
                snprintf(words, sizeof words, "%s, not %s as in the run", outcome_name(now->outcome),
                         outcome_name(was->outcome));
                name_one(ob, &nb, f->examples[k].id, words);
            }
        }
        char words[160];
        if (b->batch > 1 && batch_changed(f, er, k, b->out[k], x, b->n_out, words, sizeof words))
            name_one(oc, &nbat, f->examples[k].id, words);
    }
    out->broken = close_list(ob, &broken, nb);
    out->batching = close_list(oc, &batching, nbat);
    out->comparable = rc == 0 && nb == 0;
    judgement_free(&jb);
    free(envs), free(ex);
    return rc;
}

void bench_verdict_free(px_bench_verdict *v)
{
    free(v->broken), free(v->batching);
    memset(v, 0, sizeof *v);
}

char *bench_line(const px_bench *b)
{
    char name[32], *s = NULL;
    bench_endpoint_name(b, name, sizeof name);
    int n;
    if (b->forwards == 0)
        n = asprintf(&s, "%s: not measured%s%s", name, b->stopped ? ": " : "", b->stopped ? b->stopped : "");
    else
        n = asprintf(&s,
                     "%s (%d example%s a forward): warm forward p50 %.3g ms, p90 %.3g, p99 %.3g (min %.3g, max %.3g; "
                     "%zu forwards over %d passes, after %d warm-up), %.4g examples/s; forward and copy to the host "
                     "timed by the executor, cleaning and tokenising outside; %.3g ms a round trip through parity%s%s",
                     name, b->batch, b->batch == 1 ? "" : "s", b->p50_ms, b->p90_ms, b->p99_ms, b->min_ms, b->max_ms,
                     b->forwards, b->passes, b->warmup, b->per_s, b->roundtrip_p50_ms,
                     b->stopped ? "; stopped early: " : "", b->stopped ? b->stopped : "");
    return n < 0 ? NULL : s;
}
