/* parity merge: N shard files of one run into the results file that run
 * would have written whole (merge.h). Each shard was read strictly already
 * (results_load, against the fixture: an example of another shard in a
 * shard file is refused there); here the shards are checked against each
 * other and the fixture, then each example is taken from the shard it
 * belongs to. */
#define _POSIX_C_SOURCE 200809L
#include "parity/merge.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/fingerprint.h"
#include "parity/shard.h"
#include "parity/ydoc.h"

/* Where environments.ENV[.SECTION[.KEY[.NAME]]] is in the file: the value when it
 * is a scalar, else its key; as deep as the file goes (0 when unreadable).
 * Only for an error message, so the file is read again. */
static void locate(const char *path, const char *env, const char *section, const char *key, int *line, int *col)
{
    *line = *col = 0;
    size_t len = 0;
    px_error e = {0};
    char *data = ydoc_read(path, "results file", &len, &e);
    yaml_document_t doc;
    if (!data || ydoc_load(path, data, len, "results file", &doc, &e)) {
        free(data);
        return;
    }
    /* key may go one deeper: "env.XLA_FLAGS" (a variable's name has no '.'). */
    char first[128];
    const char *dot = key ? strchr(key, '.') : NULL;
    if (dot)
        snprintf(first, sizeof first, "%.*s", (int)(dot - key), key);
    const char *steps[] = {"environments", env, section, dot ? first : key, dot ? dot + 1 : NULL};
    yaml_node_t *n = yaml_document_get_root_node(&doc);
    for (int i = 0; i < 5 && steps[i] && n && n->type == YAML_MAPPING_NODE; i++) {
        yaml_node_t *k = NULL, *v = NULL;
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top && !v; p++) {
            yaml_node_t *pk = yaml_document_get_node(&doc, p->key);
            if (pk && pk->type == YAML_SCALAR_NODE && !strcmp((const char *)pk->data.scalar.value, steps[i]))
                k = pk, v = yaml_document_get_node(&doc, p->value);
        }
        if (!v)
            break;
        yaml_node_t *at = v->type == YAML_SCALAR_NODE || (v->type == YAML_SEQUENCE_NODE &&
                                                            v->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE)
                              ? v
                              : k;
        *line = (int)at->start_mark.line + 1, *col = (int)at->start_mark.column + 1;
        n = v;
    }
    yaml_document_delete(&doc);
    free(data);
}

static int refuse_at(px_error *err, const char *path, const char *env, const char *section, const char *key,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int refuse_at(px_error *err, const char *path, const char *env, const char *section, const char *key,
                     const char *fmt, ...)
{
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = 0, col = 0;
    if (env)
        locate(path, env, section, key, &line, &col);
    return px_error_set(err, PX_ERR_MALFORMED, path, line, col, "%s", msg);
}

static px_env_result *env_named(px_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, name))
            return &r->envs[i];
    return NULL;
}

/* An executor started and said what it is (the manifest is filled). */
static int has_manifest(const px_env_result *e) { return e->m.libtorch_version != NULL; }

#define S(field) {#field, offsetof(px_manifest, field)}
/* What defines a configuration: two shards that differ in one of these are
 * not one run cut in pieces. */
static const struct {
    const char *name;
    size_t off;
} config_fields[] = {
    S(parity_version), S(executor), S(runtime), S(libtorch_version), S(backend_modules), S(backend_versions),
    S(device), S(device_name), S(dtype), S(load), S(tf32), S(matmul_precision), S(ignored),
    S(compile_backend), S(compile_mode), S(compile_dynamic),
};
#undef S

static const char *field(const px_manifest *m, size_t off)
{
    const char *s = *(char *const *)((const char *)m + off);
    return s ? s : "null";
}

static int same_config(const px_env_result *a, const char *apath, const px_env_result *b, const char *bpath,
                       px_error *err)
{
    char here[64], there[64];
    for (size_t i = 0; i < sizeof config_fields / sizeof *config_fields; i++) {
        const char *x = field(&b->m, config_fields[i].off), *y = field(&a->m, config_fields[i].off);
        if (strcmp(x, y))
            return refuse_at(err, bpath, b->name, "manifest", config_fields[i].name,
                             "environment '%s': manifest.%s is '%.200s' here but '%.200s' in %.300s: shards of "
                             "another configuration",
                             b->name, config_fields[i].name, x, y, apath);
    }
    const struct {
        const char *name, *x, *y;
    } more[] = {{"model_sha256", b->m.model_sha256, a->m.model_sha256},
                {"vocab_sha256", b->m.vocab_sha256, a->m.vocab_sha256}};
    for (size_t i = 0; i < 2; i++)
        if (strcmp(more[i].x, more[i].y))
            return refuse_at(err, bpath, b->name, "manifest", more[i].name,
                             "environment '%s': manifest.%s is '%s' here but '%s' in %.300s: shards of another "
                             "configuration",
                             b->name, more[i].name, more[i].x, more[i].y, apath);
    /* The environment variables that change numerics, by name. */
    const char *var = envrec_diff(&b->m.env, &a->m.env);
    if (var && !*var)
        return refuse_at(err, bpath, b->name, "manifest", b->m.env.recorded ? "env" : NULL,
                         "environment '%s': the environment variables that change numerics (manifest.env) are %s "
                         "here but %s in %.300s: shards of another configuration",
                         b->name, b->m.env.recorded ? "recorded" : "not recorded",
                         b->m.env.recorded ? "not recorded" : "recorded", apath);
    if (var) {
        char key[160], x[300], y[300];
        snprintf(key, sizeof key, "env.%s", var);
        envrec_show(envrec_get(&b->m.env, var), 120, x, sizeof x);
        envrec_show(envrec_get(&a->m.env, var), 120, y, sizeof y);
        return refuse_at(err, bpath, b->name, "manifest", envrec_get(&b->m.env, var) ? key : "env",
                         "environment '%s': environment variable %s is %s here but %s in %.300s: shards of "
                         "another configuration (it changes numerics)",
                         b->name, var, x, y, apath);
    }
    if (a->m.threads != b->m.threads) {
        snprintf(here, sizeof here, "%d", b->m.threads);
        snprintf(there, sizeof there, "%d", a->m.threads);
        return refuse_at(err, bpath, b->name, "manifest", "threads",
                         "environment '%s': manifest.threads is %s here but %s in %.300s: shards of another "
                         "configuration",
                         b->name, here, there, apath);
    }
    return 0;
}

static int same_labels(const px_env_result *a, const char *apath, const px_env_result *b, const char *bpath,
                       px_error *err)
{
    int same = a->n_labels == b->n_labels;
    for (size_t l = 0; same && l < a->n_labels; l++)
        same = !strcmp(a->labels[l], b->labels[l]);
    return same ? 0
                : refuse_at(err, bpath, b->name, "labels", NULL,
                            "environment '%s' decided its labels with another label map than in %.300s: shards of "
                            "another configuration",
                            b->name, apath);
}

/* The environment was run under the fixture's contract as it is now. */
static int same_contract(const px_fixture *f, const px_fingerprint *now, const px_env_result *e, const char *path,
                         px_error *err)
{
    for (int p = 0; p < PX_PART_COUNT; p++) {
        const char *part = fingerprint_part_name((px_part)p);
        if (!e->recorded.part[p][0])
            return refuse_at(err, path, e->name, "contract", NULL,
                             "environment '%s' records no contract.%s fingerprint: which fixture it ran cannot be "
                             "told",
                             e->name, part);
        if (strcmp(e->recorded.part[p], now->part[p]))
            return refuse_at(err, path, e->name, "contract", part,
                             "environment '%s' was run under another contract than %.300s's now (contract.%s "
                             "differs: %s): a shard of another fixture, or of this one before it changed; merge "
                             "with the fixture the shards ran",
                             e->name, f->path, part, fingerprint_part_meaning((px_part)p));
    }
    return 0;
}

/* Each file a shard of the same N, each index once; the shard file of
 * each index in *by_index (count entries). */
static int check_shards(px_results *const *shards, const char *const *paths, size_t n, size_t **by_index,
                        px_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!shards[i]->shard.count)
            return px_error_set(err, PX_ERR_MALFORMED, paths[i], 0, 0,
                                "not a shard file (no shard:): %s, nothing to merge",
                                shards[i]->n_merged_from ? "it is merged already" : "the results of a whole run");
    unsigned count = shards[0]->shard.count;
    for (size_t i = 1; i < n; i++)
        if (shards[i]->shard.count != count)
            return px_error_set(err, PX_ERR_MALFORMED, paths[i], shards[i]->shard.line, shards[i]->shard.col,
                                "shard %u/%u, but %.300s is shard %u/%u: the shards of one run are all cut in the "
                                "same N",
                                shards[i]->shard.index, shards[i]->shard.count, paths[0], shards[0]->shard.index,
                                count);
    size_t *at = malloc(count * sizeof *at);
    if (!at)
        return px_error_oom(err, NULL);
    for (unsigned s = 0; s < count; s++)
        at[s] = n;
    for (size_t i = 0; i < n; i++) {
        unsigned s = shards[i]->shard.index;
        if (at[s] < n) {
            px_error_set(err, PX_ERR_MALFORMED, paths[i], shards[i]->shard.line, shards[i]->shard.col,
                         "shard %u/%u again: %.300s is shard %u/%u too, and one example's results cannot come "
                         "from two files",
                         s, count, paths[at[s]], s, count);
            free(at);
            return -1;
        }
        at[s] = i;
    }
    *by_index = at;
    return 0;
}

/* Every shard runs the environments of the first, and the first every
 * shard's; the same reference; each environment the fixture's contract,
 * the same labels and configuration. */
static int check_envs(const px_fixture *f, px_results *const *shards, const char *const *paths, size_t n,
                      px_error *err)
{
    px_fingerprint now;
    fingerprint_contract(f, &now);
    px_results *a = shards[0];
    const char *aref = a->reference >= 0 ? a->envs[a->reference].name : "null";
    for (size_t i = 0; i < n; i++) {
        px_results *b = shards[i];
        for (size_t e = 0; e < b->n_envs; e++)
            if (!env_named(a, b->envs[e].name))
                return refuse_at(err, paths[i], b->envs[e].name, NULL, NULL,
                                 "environment '%s' is not in %.300s: shards of another configuration (every shard "
                                 "runs the same environments)",
                                 b->envs[e].name, paths[0]);
        for (size_t e = 0; e < a->n_envs; e++)
            if (!env_named(b, a->envs[e].name))
                return px_error_set(err, PX_ERR_MALFORMED, paths[i], 0, 0,
                                    "has no environment '%s', which %.300s has: shards of another configuration "
                                    "(every shard runs the same environments)",
                                    a->envs[e].name, paths[0]);
        const char *bref = b->reference >= 0 ? b->envs[b->reference].name : "null";
        if (strcmp(aref, bref))
            return px_error_set(err, PX_ERR_MALFORMED, paths[i], 0, 0,
                                "the reference is '%s' here but '%s' in %.300s: shards of another configuration",
                                bref, aref, paths[0]);
        for (size_t e = 0; e < b->n_envs; e++)
            if (b->envs[e].n_bench)
                return refuse_at(err, paths[i], b->envs[e].name, "bench", NULL,
                                 "environment '%s' holds benchmark figures (bench:), which a shard never does "
                                 "(parity bench runs whole): merging would drop them",
                                 b->envs[e].name);
        for (size_t e = 0; e < b->n_envs; e++) {
            px_env_result *be = &b->envs[e], *ae = env_named(a, be->name);
            if (same_contract(f, &now, be, paths[i], err) || same_labels(ae, paths[0], be, paths[i], err))
                return -1;
        }
    }
    /* Configurations: each shard's against the first one that recorded a
     * manifest for the environment (a shard where it did not start has
     * none to compare). */
    for (size_t e = 0; e < a->n_envs; e++) {
        const px_env_result *first = NULL;
        const char *first_path = NULL;
        for (size_t i = 0; i < n; i++) {
            const px_env_result *be = env_named(shards[i], a->envs[e].name);
            if (!has_manifest(be))
                continue;
            if (!first)
                first = be, first_path = paths[i];
            else if (same_config(first, first_path, be, paths[i], err))
                return -1;
        }
    }
    return 0;
}

static int check_coverage(const px_results *const *shards, const size_t *by_index, size_t n, px_error *err)
{
    unsigned count = shards[0]->shard.count, missing = 0;
    char list[300] = "";
    for (unsigned s = 0; s < count; s++)
        if (by_index[s] == n && missing++ < 5 && strlen(list) < 200)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%u/%u", missing > 1 ? ", " : "", s, count);
    if (!missing)
        return 0;
    return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                        "shard%s %s%s %s missing: %zu of %u shard files given, and each of 0/%u to %u/%u is needed "
                        "once",
                        missing > 1 ? "s" : "", list, missing > 5 ? ", ..." : "", missing > 1 ? "are" : "is", n,
                        count, count, count - 1, count);
}

static int take_env(px_results *m, size_t j, px_results *const *shards, const char *const *paths,
                    const size_t *by_index, const px_fixture *f)
{
    px_env_result *dst = &m->envs[j];
    unsigned count = shards[0]->shard.count;
    px_env_result *own = NULL;
    /* The manifest: the lowest shard whose executor started, else shard 0's. */
    for (unsigned s = 0; s < count && !own; s++) {
        px_env_result *e = env_named(shards[by_index[s]], dst->name);
        if (has_manifest(e))
            own = e;
    }
    if (!own)
        own = env_named(shards[by_index[0]], dst->name);
    for (size_t l = 0; l < dst->n_labels; l++)
        free(dst->labels[l]);
    free(dst->labels);
    dst->labels = own->labels, dst->n_labels = own->n_labels;
    own->labels = NULL, own->n_labels = 0;
    dst->m = own->m;
    memset(&own->m, 0, sizeof own->m);
    dst->recorded = own->recorded;
    dst->origin = PX_ORIGIN_FILE;
    dst->state = PX_ENV_UP;
    dst->restarts = 0;
    for (unsigned s = 0; s < count; s++) {
        px_env_result *e = env_named(shards[by_index[s]], dst->name);
        dst->restarts += e->restarts;
        if (e->state == PX_ENV_DOWN && dst->state != PX_ENV_DOWN) {
            dst->state = PX_ENV_DOWN;
            dst->down_stage = e->down_stage;
            size_t len = (e->down_msg ? strlen(e->down_msg) : 7) + 64;
            if (!(dst->down_msg = malloc(len)))
                return -1;
            snprintf(dst->down_msg, len, "in shard %u/%u: %s", s, count, e->down_msg ? e->down_msg : "unknown");
        }
        /* A shard cut short leaves the whole cut short: never merged into
         * what reads as a whole run. */
        if (e->cut_short && !dst->cut_short) {
            size_t len = strlen(e->cut_short) + 64;
            if (!(dst->cut_short = malloc(len)))
                return -1;
            snprintf(dst->cut_short, len, "in shard %u/%u: %s", s, count, e->cut_short);
        }
    }
    if (!(dst->source = strdup(paths[by_index[0]])))
        return -1;
    for (size_t k = 0; k < m->n_examples; k++) {
        unsigned s = shard_of(f->examples[k].id, count);
        px_env_result *e = env_named(shards[by_index[s]], dst->name);
        example_result_clear(&dst->ex[k]);
        dst->ex[k] = e->ex[k];
        memset(&e->ex[k], 0, sizeof e->ex[k]);
    }
    return 0;
}

static int take_sources(px_results *m, px_results *const *shards, const char *const *paths, const size_t *by_index)
{
    unsigned count = shards[0]->shard.count;
    if (!(m->merged_from = calloc(count, sizeof *m->merged_from)))
        return -1;
    for (unsigned s = 0; s < count; s++) {
        const px_results *r = shards[by_index[s]];
        px_merged_from *src = &m->merged_from[m->n_merged_from++];
        src->shard = (px_shard){s, count, 0, 0};
        if (!(src->file = strdup(paths[by_index[s]])))
            return -1;
        for (size_t e = 0; e < r->n_envs; e++)
            if (has_manifest(&r->envs[e]) || r->envs[e].m.host) {
                if (r->envs[e].m.host && !(src->host = strdup(r->envs[e].m.host)))
                    return -1;
                memcpy(src->started_at, r->envs[e].m.started_at, sizeof src->started_at);
                break;
            }
    }
    return 0;
}

px_results *merge_shards(const px_fixture *f, px_results *const *shards, const char *const *paths, size_t n,
                         px_error *err)
{
    size_t *by_index = NULL;
    if (n == 0) {
        px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "no shard files to merge");
        return NULL;
    }
    /* Sources are read before they are taken apart (take_env moves the
     * manifests). */
    if (check_shards(shards, paths, n, &by_index, err) || check_envs(f, shards, paths, n, err) ||
        check_coverage((const px_results *const *)shards, by_index, n, err)) {
        free(by_index);
        return NULL;
    }
    px_results *a = shards[by_index[0]];
    int *idx = malloc((a->n_envs ? a->n_envs : 1) * sizeof *idx);
    px_results *m = NULL;
    for (size_t j = 0; idx && j < a->n_envs; j++)
        idx[j] = a->envs[j].env_index;
    int bad = !idx || !(m = results_new(f, idx, a->n_envs)) || take_sources(m, shards, paths, by_index);
    for (size_t j = 0; !bad && j < m->n_envs; j++)
        bad = take_env(m, j, shards, paths, by_index, f);
    if (!bad) {
        m->reference = -1;
        for (size_t j = 0; a->reference >= 0 && j < m->n_envs; j++)
            if (!strcmp(m->envs[j].name, a->envs[a->reference].name))
                m->reference = (int)j;
        for (size_t i = 0; i < n; i++)
            for (size_t w = 0; w < shards[i]->n_warnings; w++)
                results_warn(m, "%s", shards[i]->warnings[w]);
    }
    free(idx);
    free(by_index);
    if (bad) {
        results_free(m);
        px_error_oom(err, NULL);
        return NULL;
    }
    return m;
}
