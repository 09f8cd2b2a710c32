#define _GNU_SOURCE /* strdup */
#include "parity/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/bench.h"
#include "parity/evidence.h"
#include "parity/sbuf.h"

/* run and bench: the environments to run, as indices into the fixture, in
 * the order -e names them (all runnable ones when none is named). */
static int pick_envs(const px_fixture *f, const px_session_opts *o, int *idx, size_t *n, px_error *err)
{
    *n = 0;
    for (size_t k = 0; k < o->n_envs; k++) {
        const px_env *e = fixture_env(f, o->envs[k]);
        if (!e)
            return fixture_unknown_env(f, o->envs[k], err);
        if (!e->device)
            return px_error_set(err, PX_ERR_USAGE, f->path, e->loc.line, e->loc.col,
                                "environment '%s' is imported from %s and cannot run here", e->name, e->results);
        int i = (int)(e - f->envs), dup = 0;
        for (size_t j = 0; j < *n; j++)
            dup |= idx[j] == i;
        if (!dup)
            idx[(*n)++] = i;
    }
    for (size_t i = 0; o->n_envs == 0 && i < f->n_envs; i++)
        if (f->envs[i].device)
            idx[(*n)++] = (int)i;
    if (*n == 0)
        return px_error_set(err, PX_ERR_USAGE, f->path, 0, 0, "no environment can run here (all are imported results)");
    return 0;
}

static int open_run(px_check *s, const px_fixture *f, const px_session_opts *o, px_error *err)
{
    int *idx = malloc((f->n_envs ? f->n_envs : 1) * sizeof *idx);
    size_t n = 0;
    if (!idx)
        return px_error_oom(err, NULL);
    if (pick_envs(f, o, idx, &n, err)) {
        free(idx);
        return -1;
    }
    s->inputs = calloc(n, sizeof *s->inputs);
    s->res = s->inputs ? results_new(f, idx, n) : NULL;
    if (!s->res) {
        free(idx);
        return px_error_oom(err, NULL);
    }
    s->res->shard = o->shard; /* only its examples are run and written */
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++)
        if (env_input_open(&s->inputs[i], f, &f->envs[idx[i]], err))
            rc = -1;
    free(idx);
    return rc;
}

/* What an environment that is to run here needs and this machine lacks:
 * NULL when it has it. An environment whose executor is not here is not
 * evaluated, with these words, instead of stopping the others. */
static char *missing_executor(const px_runner_opts *ro, const px_env *e)
{
    const char *path;
    int why = runner_executor_absent(ro, e, &path);
    if (!why)
        return NULL;
    px_sbuf b = PX_SBUF_INIT;
    sbuf_addf(&b,
              e->python ? "not run here: cannot read the Python executor %s (%s); build it with make, or give this "
                          "environment's results with --results"
                        : "not run here: cannot run the libtorch executor %s (%s); build it with make, pass "
                          "--executor, or give this environment's results with --results",
              path ? path : "(none)", path ? strerror(why) : "not found");
    return sbuf_take(&b);
}

static int open_judge(px_check *s, const px_fixture *f, const px_session_opts *o, px_error *err)
{
    px_sources src = {o->results, o->n_results, o->envs, o->n_envs, o->no_run};
    if (!(s->inputs = calloc(f->n_envs ? f->n_envs : 1, sizeof *s->inputs)))
        return px_error_oom(err, NULL);
    if (!(s->res = evidence_gather(f, &src, s->inputs, err))) {
        evidence_inputs_close_all(f, s->inputs);
        return -1;
    }
    /* Before the inputs are made: one that will not run is never opened
     * with its model. */
    for (size_t i = 0; i < s->res->n_envs; i++) {
        px_env_result *e = &s->res->envs[i];
        char *miss = e->selected && e->origin == PX_ORIGIN_RUN ? missing_executor(&s->ropts, &f->envs[e->env_index])
                                                                 : NULL;
        if (miss) {
            free(e->source);
            e->source = miss;
            e->origin = PX_ORIGIN_NONE;
        }
    }
    return evidence_inputs(f, s->res, s->inputs, err);
}

/* The last good configurations, before anything else is read: check
 * refuses one it cannot read as it refuses any other file. */
static int open_history(px_check *s, const px_fixture *f, px_session_history how, px_error *err)
{
    if (how == PX_HISTORY_NONE)
        return 0;
    char path[4096];
    history_path(f->path, path, sizeof path);
    px_error *to = how == PX_HISTORY_REFUSE ? err : &s->history_err;
    if (history_load(path, &s->history, to))
        return how == PX_HISTORY_REFUSE ? -1 : 0;
    s->history_read = 1;
    return 0;
}

int session_open(px_check *s, const px_fixture *f, const px_session_opts *o, px_error *err)
{
    memset(s, 0, sizeof *s);
    s->f = f, s->kind = o->kind;
    if (open_history(s, f, o->history, err))
        return -1;
    if (!f->model_sha256) {
        history_free(&s->history);
        return px_error_set(err, PX_ERR_MISMATCH, f->path, f->model_loc.line, f->model_loc.col,
                            "contract.model has no %s: pin the model revision before %s",
                            f->model_format == PX_FORMAT_TRANSFORMERS ? "files: (each file's sha256)" : "sha256",
                            o->doing ? o->doing : "judging anything against it");
    }
    s->ropts = o->runner;
    runner_locate(&s->ropts, o->executor, o->python);
    int rc = o->kind == PX_SESSION_RUN ? open_run(s, f, o, err) : open_judge(s, f, o, err);
    if (!rc && s->res->shard.count && o->kind == PX_SESSION_RUN) {
        /* --shard: the other shards' examples are left alone (pending). */
        if (!(s->skip = shard_skip_mask(f, s->res->shard)))
            rc = px_error_oom(err, NULL);
        s->ropts.skip = s->skip;
    }
    if (rc) {
        /* evidence_inputs closed what it opened; a run's inputs are ours. */
        if (o->kind == PX_SESSION_JUDGE)
            free(s->inputs), s->inputs = NULL;
        session_close(s);
        return -1;
    }
    return 0;
}

int session_runs(const px_check *s) { return s->res && evidence_runs(s->res); }

int session_start(px_check *s, px_error *err)
{
    if (!session_runs(s))
        return 0;
    if (runner_check(&s->ropts, s->f, s->res, err))
        return -1;
    s->run = runner_start(s->f, s->inputs, s->res, &s->ropts, err);
    return s->run ? 0 : -1;
}

int session_wait(px_check *s, px_error *err) { return s->run ? runner_wait(s->run, err) : 0; }

int session_rerun(px_check *s, int all, size_t example, px_error *err)
{
    if (s->run && runner_rerun(s->run, all, example) == 0)
        return 0;
    runner_free(s->run);
    s->ropts.one_example = !all;
    s->ropts.example = all ? 0 : example;
    s->run = runner_start(s->f, s->inputs, s->res, &s->ropts, err);
    return s->run ? 0 : -1;
}

int session_judge(const px_check *s, px_verdicts *v, px_error *err)
{
    memset(v, 0, sizeof *v);
    if (judge_results(s->f, s->res, &v->j, err) || bench_judge(s->f, s->res, &v->j, err))
        return -1;
    if (!s->history_read)
        return 0;
    v->since = calloc(s->res->n_envs ? s->res->n_envs : 1, sizeof *v->since);
    if (!v->since || history_since(&s->history, s->f, s->res, &v->j, v->since, err)) {
        if (!v->since)
            px_error_oom(err, NULL);
        verdicts_free(v);
        return -1;
    }
    return 0;
}

void verdicts_free(px_verdicts *v)
{
    free(v->since);
    judgement_free(&v->j);
    memset(v, 0, sizeof *v);
}

void session_close(px_check *s)
{
    runner_free(s->run);
    s->run = NULL;
    if (s->inputs && s->kind == PX_SESSION_JUDGE && s->res)
        evidence_inputs_close(s->f, s->res, s->inputs);
    else if (s->inputs && s->kind == PX_SESSION_JUDGE)
        evidence_inputs_close_all(s->f, s->inputs);
    else
        for (size_t i = 0; s->inputs && s->res && i < s->res->n_envs; i++)
            env_input_close(&s->inputs[i], s->f->n_examples);
    free(s->inputs);
    results_free(s->res);
    runner_locate_free(&s->ropts);
    free(s->skip);
    history_free(&s->history);
    memset(s, 0, sizeof *s);
}

int session_exit(const px_results *r, const px_judgement *j, const px_since *since, int since_good)
{
    if (!since_good)
        return j->any_incomplete ? PX_EXIT_ENV : j->all_met ? PX_EXIT_OK : PX_EXIT_FAILED;
    /* Only regressions fail. An environment that met the contract before
     * (it has a last good configuration) and does not now is one, whatever
     * the cause, down included (1); one without any results leaves the
     * check incomplete (3), as does one down or judged only in part (not
     * compared: no reference; a shard) that never met it; an environment
     * that never met the contract does not count. */
    int rc = PX_EXIT_OK;
    for (size_t e = 0; e < r->n_envs; e++) {
        const px_env_verdict *ev = &j->envs[e];
        if (!ev->selected)
            continue;
        if (ev->absent)
            rc = px_exit_worse(rc, PX_EXIT_ENV);
        else if (since && since[e].regressed)
            rc = px_exit_worse(rc, PX_EXIT_FAILED);
        else if (judgement_env_incomplete(ev))
            rc = px_exit_worse(rc, PX_EXIT_ENV);
    }
    return rc;
}

int session_first_candidate(const px_results *res)
{
    int first = -1, with = -1;
    for (size_t e = 0; res && e < res->n_envs; e++) {
        const px_env_result *er = &res->envs[e];
        if ((int)e == res->reference || !er->selected)
            continue;
        if (er->origin == PX_ORIGIN_FILE)
            return (int)e;
        if (first < 0)
            first = (int)e;
        if (with < 0 && er->origin != PX_ORIGIN_NONE)
            with = (int)e;
    }
    return with >= 0 ? with : first;
}
