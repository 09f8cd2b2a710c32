#define _GNU_SOURCE /* strdup, asprintf */
#include "parity/strf.h"
#include "parity/evidence.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Where each environment's results came from so far, to name both places
 * when a second one turns up. */
typedef struct place {
    char *what; /* "FILE (--results)" or "FILE (the fixture's results:)" */
} place;

static int set_none(px_env_result *e, const char *fmt, const char *a, const char *b)
{
    free(e->source);
    if (asprintf(&e->source, fmt, a, b) < 0)
        e->source = NULL;
    e->origin = PX_ORIGIN_NONE;
    return 0;
}

/* Take environment `from` of a loaded file into slot `to` of the gathered
 * results. */
static int adopt(const px_fixture *f, px_results *all, place *places, px_results *loaded, size_t from,
                 const char *where, px_error *err)
{
    px_env_result *src = &loaded->envs[from];
    size_t to = (size_t)src->env_index;
    px_env_result *dst = &all->envs[to];
    if (!dst->selected)
        return 0;
    if (places[to].what)
        return px_error_set(err, PX_ERR_MALFORMED, f->path, f->envs[to].loc.line, f->envs[to].loc.col,
                            "environment '%s' comes from two places: %s and %s (each environment comes from one)",
                            dst->name, places[to].what, where);
    if (!(places[to].what = strdup(where)))
        return px_error_oom(err, NULL);
    env_result_clear(dst, all->n_examples);
    *dst = *src;
    dst->selected = 1;
    memset(src, 0, sizeof *src);
    return 0;
}

static void take_warnings(px_results *all, px_results *loaded, const char *path)
{
    for (size_t i = 0; i < loaded->n_warnings; i++)
        results_warn(all, "%s", loaded->warnings[i]);
    /* A shard alone never passes for a whole run: its other examples are
     * judged not evaluated, and this says why. */
    if (loaded->shard.count)
        results_warn(all, "%s: shard %u/%u of a run: the other shards' examples are not evaluated in it; join the "
                          "shard files with parity merge to judge the whole run",
                     path, loaded->shard.index, loaded->shard.count);
}

/* Files given twice (under any name) are one file imported twice. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) || stat(b, &sb))
        return !strcmp(a, b);
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int select_envs(const px_fixture *f, const px_sources *s, px_results *all, px_error *err)
{
    for (size_t i = 0; i < all->n_envs; i++)
        all->envs[i].selected = s->n_envs == 0;
    for (size_t k = 0; k < s->n_envs; k++) {
        const px_env *e = fixture_env(f, s->envs[k]);
        if (!e)
            return fixture_unknown_env(f, s->envs[k], err);
        all->envs[e - f->envs].selected = 1;
    }
    return 0;
}

static int same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* Another entry of inputs, opened, with environment i's vocabulary (path
 * and pin; the cleaning and the tokenizer's settings are the contract's):
 * -1 when none. */
static long same_vocab(const px_fixture *f, const px_env_input *inputs, size_t n, size_t i)
{
    const px_env *fe = &f->envs[i];
    for (size_t j = 0; j < n; j++)
        if (j != i && inputs[j].examples && same_text(fe->vocab_path, f->envs[j].vocab_path) &&
            same_text(fe->vocab_sha256, f->envs[j].vocab_sha256))
            return (long)j;
    return -1;
}

/* The examples parity's input processing makes for a file's environment:
 * opened (without the model) or shared on first use. */
static const px_prepared *text_inputs(const px_fixture *f, px_env_input *inputs, size_t i, px_error *err)
{
    px_env_input *in = &inputs[i];
    if (in->examples || in->shared)
        return in->examples ? in->examples : in->shared;
    long j = same_vocab(f, inputs, f->n_envs, i);
    if (j >= 0) {
        in->shared_tok = inputs[j].prep.tok;
        return in->shared = inputs[j].examples;
    }
    if (env_input_open_text(in, f, &f->envs[i], err))
        return NULL;
    return in->examples;
}

typedef struct lazy {
    const px_fixture *f;
    const px_results *all;
    px_env_input *inputs;
    int only; /* the one environment the file is read for (-1: any) */
} lazy;

/* While a file is read: only for an environment the file will provide
 * (selected, and the one it is read for), so that one that runs here is
 * never opened without its model. A failure here is said by
 * evidence_inputs, in its turn, as without sharing. */
static const px_prepared *lazy_inputs(void *arg, int env_index)
{
    lazy *l = arg;
    px_error err = {0};
    if (env_index < 0 || (size_t)env_index >= l->f->n_envs || !l->all->envs[env_index].selected ||
        (l->only >= 0 && env_index != l->only))
        return NULL;
    return text_inputs(l->f, l->inputs, (size_t)env_index, &err);
}

static px_results *load_file(const char *path, const px_fixture *f, const px_results *all, int only,
                             px_env_input *inputs, px_error *err)
{
    lazy l = {f, all, inputs, only};
    return inputs ? results_load_with(path, f, lazy_inputs, &l, err) : results_load(path, f, err);
}

static int gather_files(const px_fixture *f, const px_sources *s, px_results *all, place *places,
                        px_env_input *inputs, px_error *err)
{
    for (size_t i = 0; i < s->n_results; i++) {
        for (size_t j = 0; j < i; j++)
            if (same_file(s->results[i], s->results[j]))
                return px_error_set(err, PX_ERR_USAGE, s->results[i], 0, 0,
                                    "the same results file is given twice (as %s too): each environment comes from "
                                    "one place",
                                    s->results[j]);
        px_results *loaded = load_file(s->results[i], f, all, -1, inputs, err);
        if (!loaded)
            return -1;
        char *where = strf("%s (--results)", s->results[i]);
        int rc = where ? 0 : px_error_oom(err, s->results[i]);
        for (size_t e = 0; !rc && e < loaded->n_envs; e++)
            rc = adopt(f, all, places, loaded, e, where, err);
        free(where);
        take_warnings(all, loaded, s->results[i]);
        results_free(loaded);
        if (rc)
            return -1;
    }
    return 0;
}

/* A fixture environment with results: FILE takes that environment (only)
 * from the file. A file not there yet leaves it without results. */
static int gather_imports(const px_fixture *f, px_results *all, place *places, px_env_input *inputs, px_error *err)
{
    for (size_t i = 0; i < f->n_envs; i++) {
        const px_env *fe = &f->envs[i];
        px_env_result *e = &all->envs[i];
        if (!fe->results || !e->selected)
            continue;
        struct stat st;
        if (stat(fe->results, &st) && errno == ENOENT) {
            if (!places[i].what)
                set_none(e, "no results yet: %s does not exist (the fixture's results: for '%s')", fe->results,
                         fe->name);
            continue;
        }
        px_results *loaded = load_file(fe->results, f, all, (int)i, inputs, err);
        if (!loaded)
            return -1;
        char *where = strf("%s (the fixture's results: for '%s')", fe->results, fe->name);
        int rc = where ? 0 : px_error_oom(err, fe->results), found = 0;
        for (size_t k = 0; !rc && k < loaded->n_envs; k++)
            if ((size_t)loaded->envs[k].env_index == i) {
                found = 1;
                rc = adopt(f, all, places, loaded, k, where, err);
            }
        free(where);
        if (!found && !places[i].what)
            set_none(e, "%s holds no environment '%s'", fe->results, fe->name);
        take_warnings(all, loaded, fe->results);
        results_free(loaded);
        if (rc)
            return -1;
    }
    return 0;
}

px_results *evidence_gather(const px_fixture *f, const px_sources *s, px_env_input *inputs, px_error *err)
{
    int *idx = malloc((f->n_envs ? f->n_envs : 1) * sizeof *idx);
    place *places = calloc(f->n_envs ? f->n_envs : 1, sizeof *places);
    px_results *all = NULL;
    if (!idx || !places) {
        px_error_oom(err, NULL);
        goto out;
    }
    for (size_t i = 0; i < f->n_envs; i++)
        idx[i] = (int)i;
    if (!(all = results_new(f, idx, f->n_envs))) {
        px_error_oom(err, NULL);
        goto out;
    }
    /* A file's environment brings its own examples: the empty ones are
     * made after, for those that have none (10 000 examples: 2.5 MiB each). */
    for (size_t i = 0; i < f->n_envs; i++)
        free(all->envs[i].ex), all->envs[i].ex = NULL;
    if (select_envs(f, s, all, err) || gather_files(f, s, all, places, inputs, err) ||
        gather_imports(f, all, places, inputs, err)) {
        results_free(all);
        all = NULL;
        goto out;
    }
    for (size_t i = 0; i < f->n_envs; i++) {
        px_env_result *e = &all->envs[i];
        if (places[i].what || e->origin == PX_ORIGIN_NONE)
            continue;
        if (!f->envs[i].device)
            set_none(e, "no results%s%s", "", "");
        else if (s->no_run)
            set_none(e, "not run here (--no-run), and no results file given provides it%s%s", "", "");
    }
    for (size_t i = 0; i < f->n_envs; i++) {
        px_env_result *e = &all->envs[i];
        if (e->ex)
            continue;
        if (!(e->ex = calloc(f->n_examples ? f->n_examples : 1, sizeof *e->ex))) {
            results_free(all);
            all = NULL;
            px_error_oom(err, NULL);
            goto out;
        }
        for (size_t k = 0; k < f->n_examples; k++)
            e->ex[k].label = -1, e->ex[k].forward_ms = -1;
    }
    all->reference = fixture_reference(f);
out:
    for (size_t i = 0; places && i < f->n_envs; i++)
        free(places[i].what);
    free(places);
    free(idx);
    return all;
}

int evidence_runs(const px_results *res)
{
    for (size_t i = 0; i < res->n_envs; i++)
        if (res->envs[i].selected && res->envs[i].origin == PX_ORIGIN_RUN)
            return 1;
    return 0;
}

int evidence_inputs(const px_fixture *f, px_results *res, px_env_input *inputs, px_error *err)
{
    for (size_t i = 0; i < res->n_envs; i++) {
        px_env_result *e = &res->envs[i];
        const px_env *fe = &f->envs[e->env_index];
        if (!e->selected || e->origin == PX_ORIGIN_NONE)
            continue;
        /* Results from a file are only compared with what parity makes of
         * each example: an environment with the same vocabulary as another
         * shares what that one made instead of making it again (10 000
         * examples hold 6 MiB of it per environment). A run here checks
         * its model's pin too, and sends its own. */
        if (e->origin == PX_ORIGIN_FILE) {
            if (!(e->expect = text_inputs(f, inputs, i, err))) {
                evidence_inputs_close(f, res, inputs);
                return -1;
            }
            e->tok = inputs[i].shared ? inputs[i].shared_tok : inputs[i].prep.tok;
            continue;
        }
        /* Never opened while a file was read (lazy_inputs opens only what
         * a file provides), so nothing borrows from it yet. */
        if (env_input_open(&inputs[i], f, fe, err)) {
            evidence_inputs_close(f, res, inputs);
            return -1;
        }
        e->expect = inputs[i].examples;
        e->tok = inputs[i].prep.tok;
    }
    return 0;
}

void evidence_inputs_close_all(const px_fixture *f, px_env_input *inputs)
{
    for (size_t i = 0; i < f->n_envs; i++) {
        if (inputs[i].examples || inputs[i].prep.tok)
            env_input_close(&inputs[i], f->n_examples);
        inputs[i].shared = NULL, inputs[i].shared_tok = NULL;
    }
}

void evidence_inputs_close(const px_fixture *f, const px_results *res, px_env_input *inputs)
{
    for (size_t i = 0; i < res->n_envs; i++) {
        if (inputs[i].examples || inputs[i].prep.tok)
            env_input_close(&inputs[i], f->n_examples);
        inputs[i].shared = NULL, inputs[i].shared_tok = NULL;
        res->envs[i].expect = NULL;
        res->envs[i].tok = NULL;
    }
}
