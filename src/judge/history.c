/* The last good configuration of each environment (history.h): read
 * strictly, compared, recorded, written atomically. The file:
 *
 *     parity_history: 1
 *     environments:
 *       - name: "reference"
 *         host: "build-7"
 *         started_at: "2026-12-02T14:34:04Z"
 *         results: null
 *         configuration:
 *           device: "cpu"
 *           ...
 *           threads: 1
 *
 * Environments are a list (names as values, never as keys: a key is
 * limited in length, a name is not), each once. */
#define _POSIX_C_SOURCE 200809L
#include "parity/history.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "parity/atomic.h"
#include "parity/emit.h"
#include "parity/hash.h"
#include "parity/recipe.h"
#include "parity/sbuf.h"
#include "parity/strf.h"
#include "parity/strmap.h"
#include "parity/ydoc.h"

static const struct {
    const char *key, *name;
} fields[PX_CF_COUNT] = {
    [PX_CF_DEVICE] = {"device", "device"},
    [PX_CF_DEVICE_NAME] = {"device_name", "device name"},
    [PX_CF_DTYPE] = {"dtype", "dtype"},
    [PX_CF_THREADS] = {"threads", "threads"},
    [PX_CF_TF32] = {"tf32", "tf32"},
    [PX_CF_MATMUL_PRECISION] = {"matmul_precision", "matmul precision"},
    [PX_CF_COMPILE] = {"compile", "compile"},
    [PX_CF_EXECUTOR] = {"executor", "executor"},
    [PX_CF_RUNTIME] = {"runtime", "runtime"},
    [PX_CF_TORCH] = {"libtorch_version", "torch"},
    [PX_CF_BACKEND_MODULES] = {"backend_modules", "backend modules"},
    [PX_CF_BACKEND_VERSIONS] = {"backend_versions", "backend versions"},
    [PX_CF_MODEL] = {"model_sha256", "model"},
    [PX_CF_VOCAB] = {"vocab_sha256", "vocab"},
    [PX_CF_PARITY] = {"parity_version", "parity"},
    [PX_CF_ENV] = {"env", "environment variables"},
    [PX_CF_RECIPE] = {"train_recipe", "training recipe"},
    [PX_CF_RECIPE_SHA] = {"train_recipe_sha256", "training recipe's digest"},
};

const char *history_field_key(px_cfg_field c) { return c < PX_CF_COUNT ? fields[c].key : "?"; }
const char *history_field_name(px_cfg_field c) { return c < PX_CF_COUNT ? fields[c].name : "?"; }

static char *dup_or_null(const char *s, int *oom)
{
    if (!s || !*s)
        return NULL;
    char *d = strdup(s);
    *oom |= !d;
    return d;
}

void history_config_clear(px_config *c)
{
    for (int i = 0; i < PX_CF_COUNT; i++)
        free(c->v[i]);
    envrec_clear(&c->env);
    memset(c, 0, sizeof *c);
}

int history_config_of(const px_manifest *m, px_config *out)
{
    int oom = 0;
    memset(out, 0, sizeof *out);
    const char *from[PX_CF_COUNT] = {
        [PX_CF_DEVICE] = m->device,
        [PX_CF_DEVICE_NAME] = m->device_name,
        [PX_CF_DTYPE] = m->dtype,
        [PX_CF_TF32] = m->tf32,
        [PX_CF_MATMUL_PRECISION] = m->matmul_precision,
        [PX_CF_EXECUTOR] = m->executor,
        [PX_CF_RUNTIME] = m->runtime,
        [PX_CF_TORCH] = m->libtorch_version,
        [PX_CF_BACKEND_MODULES] = m->backend_modules,
        [PX_CF_BACKEND_VERSIONS] = m->backend_versions,
        [PX_CF_MODEL] = m->model_sha256,
        [PX_CF_VOCAB] = m->vocab_sha256,
        [PX_CF_PARITY] = m->parity_version,
    };
    char threads[24], *compile = NULL;
    if (m->compile_backend) {
        /* The backend's and mode's names have no bound. */
        compile = strf("%s, mode %s, dynamic %s", m->compile_backend, m->compile_mode ? m->compile_mode : "?",
                       m->compile_dynamic ? m->compile_dynamic : "?");
        oom |= !compile;
        from[PX_CF_COMPILE] = compile;
    }
    if (m->threads >= 0) {
        snprintf(threads, sizeof threads, "%d", m->threads);
        from[PX_CF_THREADS] = threads;
    }
    for (int i = 0; i < PX_CF_COUNT; i++)
        out->v[i] = dup_or_null(from[i], &oom);
    free(compile);
    oom |= envrec_copy(&out->env, &m->env) != 0;
    if (!oom && m->env.recorded)
        oom |= !(out->v[PX_CF_ENV] = envrec_text(&m->env));
    if (oom)
        history_config_clear(out);
    return oom ? -1 : 0;
}

/* A recipe's settings in words: "adamw lr 0.0003 (betas 0.9, 0.999, eps
 * 1e-08, weight decay 0.01), warm-up 5, cosine decay to 0.1 of it, clip 1;
 * 50 steps, batch 8 x 64 tokens". */
static void recipe_words(px_sbuf *b, const px_recipe *r)
{
    sbuf_addf(b, "%s lr %g", recipe_optimizer_name(r->optimizer), r->lr);
    if (r->optimizer == PX_OPT_SGD)
        sbuf_addf(b, " (momentum %g)", r->momentum);
    else
        sbuf_addf(b, " (betas %g, %g, eps %g, weight decay %g)", r->beta1, r->beta2, r->eps, r->weight_decay);
    if (r->warmup_steps > 0)
        sbuf_addf(b, ", warm-up %d", r->warmup_steps);
    if (r->decay != PX_DECAY_NONE)
        sbuf_addf(b, ", %s decay to %g of it", recipe_decay_name(r->decay), r->decay_min);
    if (r->clip_grad_norm > 0)
        sbuf_addf(b, ", clip %g", r->clip_grad_norm);
    sbuf_addf(b, "; %d steps, batch %d x %d tokens", r->steps, r->batch_size, r->seq_len);
}

/* Every number of a recipe, exactly (the digest's text). */
static void recipe_exact(px_sbuf *b, const px_recipe *r)
{
    sbuf_addf(b, "%d %d %d %d %.17g %.17g %.17g %.17g %.17g %.17g %d %d %.17g %.17g %llu\n", r->steps,
              r->batch_size, r->seq_len, (int)r->optimizer, r->lr, r->beta1, r->beta2, r->eps, r->weight_decay,
              r->momentum, r->warmup_steps, (int)r->decay, r->decay_min, r->clip_grad_norm, r->seed);
}

static int same_recipe(const px_recipe *a, const px_recipe *b)
{
    px_sbuf x = PX_SBUF_INIT, y = PX_SBUF_INIT;
    recipe_exact(&x, a), recipe_exact(&y, b);
    int same = !sbuf_failed(&x) && !sbuf_failed(&y) && !strcmp(sbuf_str(&x), sbuf_str(&y));
    sbuf_free(&x), sbuf_free(&y);
    return same;
}

int history_recipe(const px_fixture *f, const px_env *env, char **words, char hex[PX_SHA256_HEX])
{
    *words = NULL;
    hex[0] = '\0';
    if (!f->n_examples || !f->examples[0].recipe)
        return 0; /* no training runs */
    px_sbuf w = PX_SBUF_INIT, d = PX_SBUF_INIT;
    recipe_words(&w, &f->recipe);
    size_t own = 0;
    for (size_t k = 0; k < f->n_examples; k++)
        own += f->examples[k].recipe && !same_recipe(f->examples[k].recipe, &f->recipe);
    sbuf_addf(&w, "; %zu run%s", f->n_examples, f->n_examples == 1 ? "" : "s");
    if (own)
        sbuf_addf(&w, " (%zu with %s own recipe)", own, own == 1 ? "its" : "their");
    /* The environment's precision recipe and parallel plan. */
    const char *param = env ? env->mixed_precision_param : NULL, *reduce = env ? env->mixed_precision_reduce : NULL;
    if (param || reduce)
        sbuf_addf(&w, "; mixed precision param %s, reduce %s", param ? param : "not said", reduce ? reduce : "not said");
    else
        sbuf_add(&w, "; no mixed precision");
    const px_parallel *par = env ? &env->parallel : NULL;
    if (par && par->processes > 0)
        sbuf_addf(&w, "; %d processes, %s, %s", par->processes, recipe_strategy_name(par->strategy),
                  par->backend ? par->backend : "the device's backend");
    else
        sbuf_add(&w, "; one process");
    /* The digest: every run's recipe in full, the data's pin, the plan. */
    sbuf_addf(&d, "data %s\n", f->train_data.sha256 ? f->train_data.sha256 : "-");
    for (size_t k = 0; k < f->n_examples; k++) {
        sbuf_addf(&d, "%s ", f->examples[k].id ? f->examples[k].id : "");
        recipe_exact(&d, f->examples[k].recipe ? f->examples[k].recipe : &f->recipe);
    }
    sbuf_addf(&d, "%s\n", sbuf_str(&w));
    int oom = sbuf_failed(&w) || sbuf_failed(&d);
    if (!oom) {
        hash_buffer(sbuf_str(&d), d.len, hex);
        *words = sbuf_take(&w);
        oom = !*words;
    }
    sbuf_free(&w), sbuf_free(&d);
    if (oom)
        hex[0] = '\0';
    return oom ? -1 : 0;
}

int history_config_for(const px_fixture *f, const px_env_result *er, px_config *out)
{
    if (history_config_of(&er->m, out))
        return -1;
    if (!f)
        return 0;
    const px_env *env = er->env_index >= 0 && (size_t)er->env_index < f->n_envs ? &f->envs[er->env_index] : NULL;
    char hex[PX_SHA256_HEX];
    if (history_recipe(f, env, &out->v[PX_CF_RECIPE], hex)) {
        history_config_clear(out);
        return -1;
    }
    if (out->v[PX_CF_RECIPE] && !(out->v[PX_CF_RECIPE_SHA] = strdup(hex))) {
        history_config_clear(out);
        return -1;
    }
    return 0;
}

static int same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

unsigned history_compare(const px_config *last, const px_config *now)
{
    unsigned changed = 0;
    for (int i = 0; i < PX_CF_COUNT; i++)
        if (!same(last->v[i], now->v[i]))
            changed |= 1u << i;
    return changed;
}

static const char *shown(px_cfg_field c, const char *v, char *buf, size_t size)
{
    if (!v)
        return "not recorded";
    if ((c == PX_CF_MODEL || c == PX_CF_VOCAB || c == PX_CF_RECIPE_SHA) && strlen(v) > 12) {
        snprintf(buf, size, "%.12s…", v);
        return buf;
    }
    return v;
}

void history_change_text(px_cfg_field c, const px_config *last, const px_config *now, char *buf, size_t size)
{
    char a[32], b[32];
    if (c == PX_CF_ENV) {
        size_t at = (size_t)snprintf(buf, size, "%s: ", history_field_name(c));
        if (last->env.recorded && now->env.recorded)
            at = 0; /* each by its own name */
        if (at < size)
            envrec_changes(&last->env, &now->env, buf + at, size - at);
        return;
    }
    snprintf(buf, size, "%s: %s → %s", history_field_name(c), shown(c, last->v[c], a, sizeof a),
             shown(c, now->v[c], b, sizeof b));
}

void history_path(const char *fixture, char *buf, size_t size)
{
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s", fixture);
    snprintf(b, sizeof b, "%s", fixture);
    snprintf(buf, size, "%s/.%s.parity-history.yaml", dirname(a), basename(b));
}

static void entry_clear(px_history_entry *e)
{
    free(e->env), free(e->host), free(e->started_at), free(e->results);
    history_config_clear(&e->config);
    memset(e, 0, sizeof *e);
}

void history_free(px_history *h)
{
    for (size_t i = 0; i < h->n; i++)
        entry_clear(&h->v[i]);
    free(h->v);
    memset(h, 0, sizeof *h);
}

const px_history_entry *history_find(const px_history *h, const char *env)
{
    for (size_t i = 0; h && i < h->n; i++)
        if (!strcmp(h->v[i].env, env))
            return &h->v[i];
    return NULL;
}

static px_history_entry *add_entry(px_history *h)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 8;
        px_history_entry *v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return NULL;
        h->v = v, h->cap = cap;
    }
    px_history_entry *e = &h->v[h->n++];
    memset(e, 0, sizeof *e);
    return e;
}

/* Reading. */

typedef struct rd {
    const char *path;
    yaml_document_t doc;
    px_error *err;
} rd;

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static int fail_at(rd *c, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(rd *c, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[sizeof c->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return px_error_set(c->err, PX_ERR_MALFORMED, c->path, (int)n->start_mark.line + 1,
                        (int)n->start_mark.column + 1, "%s", msg);
}

static int want(rd *c, const yaml_node_t *n, yaml_node_type_t t, const char *what)
{
    return ydoc_want(c->path, n, t, what, c->err);
}

static int is_null(const yaml_node_t *n) { return ydoc_is_null(n); }

/* A string (no control characters: it is printed to a terminal) into
 * *out, malloc'd; null gives NULL unless required. */
static int read_str(rd *c, yaml_node_t *n, const char *what, int required, char **out)
{
    if (is_null(n)) {
        if (required)
            return fail_at(c, n, "%s must not be null", what);
        return 0;
    }
    if (want(c, n, YAML_SCALAR_NODE, what))
        return -1;
    const unsigned char *s = n->data.scalar.value;
    for (size_t i = 0; i < n->data.scalar.length; i++)
        if (s[i] < 0x20 || s[i] == 0x7f)
            return fail_at(c, n, "%s contains a control character (byte 0x%02X)", what, s[i]);
    if (required && !n->data.scalar.length)
        return fail_at(c, n, "%s must not be empty", what);
    if (!(*out = strdup(scalar(n))))
        return px_error_oom(c->err, c->path);
    return 0;
}

static int read_threads(rd *c, yaml_node_t *n, char **out)
{
    if (is_null(n))
        return 0;
    if (want(c, n, YAML_SCALAR_NODE, "configuration.threads"))
        return -1;
    const char *s = scalar(n);
    size_t len = n->data.scalar.length;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !len || len > 9 || strspn(s, "0123456789") != len ||
        (len > 1 && s[0] == '0'))
        return fail_at(c, n, "configuration.threads must be a whole number of 0 or more (up to 9 digits), not '%.200s'",
                       s);
    if (!(*out = strdup(s)))
        return px_error_oom(c->err, c->path);
    return 0;
}

static int read_config(rd *c, yaml_node_t *m, px_config *cfg)
{
    const char *keys[PX_CF_COUNT + 1];
    for (int i = 0; i < PX_CF_COUNT; i++)
        keys[i] = fields[i].key;
    keys[PX_CF_COUNT] = NULL;
    if (want(c, m, YAML_MAPPING_NODE, "configuration") ||
        ydoc_check_keys(&c->doc, c->path, m, "configuration", keys, c->err))
        return -1;
    for (int i = 0; i < PX_CF_COUNT; i++) {
        yaml_node_t *v = ydoc_get(&c->doc, m, fields[i].key);
        if (!v)
            continue;
        char what[64];
        snprintf(what, sizeof what, "configuration.%s", fields[i].key);
        if (i == PX_CF_ENV) {
            /* Absent (a history from before they were recorded) or null:
             * not recorded, not the same as none set ({}). */
            if (envrec_read_yaml(&c->doc, v, c->path, what, &cfg->env, c->err))
                return -1;
            if (cfg->env.recorded && !(cfg->v[i] = envrec_text(&cfg->env)))
                return px_error_oom(c->err, c->path);
            continue;
        }
        if (i == PX_CF_THREADS ? read_threads(c, v, &cfg->v[i]) : read_str(c, v, what, 0, &cfg->v[i]))
            return -1;
        if ((i == PX_CF_MODEL || i == PX_CF_VOCAB || i == PX_CF_RECIPE_SHA) && cfg->v[i] &&
            !hash_is_sha256(cfg->v[i]))
            return fail_at(c, v, "%s must be 64 hex digits, not '%.200s'", what, cfg->v[i]);
        if (cfg->v[i] && !*cfg->v[i]) { /* "" is how a manifest says not recorded */
            free(cfg->v[i]);
            cfg->v[i] = NULL;
        }
    }
    return 0;
}

static int read_entry(rd *c, yaml_node_t *m, px_history_entry *e, px_strmap *seen)
{
    static const char *const keys[] = {"name", "host", "started_at", "results", "configuration", NULL};
    if (want(c, m, YAML_MAPPING_NODE, "an environment of the history") ||
        ydoc_check_keys(&c->doc, c->path, m, "an environment of the history", keys, c->err))
        return -1;
    yaml_node_t *name = ydoc_require(&c->doc, c->path, m, "name", "an environment of the history", c->err);
    if (!name || read_str(c, name, "name", 1, &e->env))
        return -1;
    long old;
    int put = strmap_put(seen, e->env, (long)0, &old);
    if (put < 0)
        return px_error_oom(c->err, c->path);
    if (put)
        return fail_at(c, name, "environment '%.200s' is in the history twice", e->env);
    static const char *const strs[] = {"host", "started_at", "results"};
    char **to[] = {&e->host, &e->started_at, &e->results};
    for (int i = 0; i < 3; i++) {
        yaml_node_t *v = ydoc_get(&c->doc, m, strs[i]);
        if (v && read_str(c, v, strs[i], 0, to[i]))
            return -1;
    }
    yaml_node_t *cfg = ydoc_require(&c->doc, c->path, m, "configuration", "an environment of the history", c->err);
    return !cfg || read_config(c, cfg, &e->config) ? -1 : 0;
}

static int read_root(rd *c, px_history *h)
{
    static const char *const keys[] = {"parity_history", "environments", NULL};
    yaml_node_t *root = yaml_document_get_root_node(&c->doc);
    if (want(c, root, YAML_MAPPING_NODE, "a parity history file") ||
        ydoc_check_keys(&c->doc, c->path, root, "a parity history file", keys, c->err))
        return -1;
    yaml_node_t *v = ydoc_require(&c->doc, c->path, root, "parity_history", "a parity history file", c->err);
    if (!v)
        return -1;
    if (v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        strspn(scalar(v), "0123456789") != v->data.scalar.length || !v->data.scalar.length ||
        v->data.scalar.length > 6)
        return fail_at(c, v, "parity_history must be a format number, such as %d", PX_HISTORY_VERSION);
    if (atoi(scalar(v)) != PX_HISTORY_VERSION)
        return fail_at(c, v, "a history of format %s: this parity reads format %d%s", scalar(v), PX_HISTORY_VERSION,
                       atoi(scalar(v)) > PX_HISTORY_VERSION ? " (written by a newer parity)" : "");
    yaml_node_t *envs = ydoc_require(&c->doc, c->path, root, "environments", "a parity history file", c->err);
    if (!envs || want(c, envs, YAML_SEQUENCE_NODE, "environments"))
        return -1;
    size_t n = (size_t)(envs->data.sequence.items.top - envs->data.sequence.items.start);
    px_strmap *seen = strmap_new(n ? n : 1);
    if (!seen)
        return px_error_oom(c->err, c->path);
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        px_history_entry *e = add_entry(h);
        rc = e ? read_entry(c, yaml_document_get_node(&c->doc, envs->data.sequence.items.start[i]), e, seen)
               : px_error_oom(c->err, c->path);
    }
    strmap_free(seen); /* it borrowed the names, still held by h */
    return rc;
}

int history_parse(const char *path, const char *data, size_t len, px_history *h, px_error *err)
{
    memset(h, 0, sizeof *h);
    rd c = {.path = path, .err = err};
    if (ydoc_load(path, data, len, "history file", &c.doc, err))
        return -1;
    int rc = read_root(&c, h);
    yaml_document_delete(&c.doc);
    if (rc)
        history_free(h);
    return rc;
}

int history_load(const char *path, px_history *h, px_error *err)
{
    memset(h, 0, sizeof *h);
    FILE *probe = fopen(path, "rb");
    if (!probe && errno == ENOENT)
        return 0;
    if (probe)
        fclose(probe);
    size_t len;
    char *data = ydoc_read(path, "history file", &len, err);
    if (!data)
        return -1;
    int rc = history_parse(path, data, len, h, err);
    free(data);
    return rc;
}

/* Comparing and recording. */

/* Whether the environment has a configuration now: it ran up, here or in a
 * results file. */
static int has_config(const px_env_result *er)
{
    return er->selected && er->origin != PX_ORIGIN_NONE && er->state == PX_ENV_UP;
}

/* Met now, every example judged. */
static int met_now(const px_env_result *er, const px_env_verdict *ev, size_t n_examples)
{
    if (!has_config(er) || !ev->selected || !ev->met || ev->down || ev->absent || ev->not_compared)
        return 0;
    for (size_t k = 0; k < n_examples; k++)
        if (er->ex[k].status == PX_ST_PENDING || er->ex[k].status == PX_ST_NOT_EVALUATED)
            return 0;
    return 1;
}

/* A last good configuration: met now, and the run whole (one cut short,
 * by its examples or its benchmark, never counts). */
static int good(const px_env_result *er, const px_env_verdict *ev, size_t n_examples)
{
    return met_now(er, ev, n_examples) && !er->cut_short;
}

void history_where(const px_history_entry *l, char *buf, size_t size)
{
    snprintf(buf, size, "%s on %s%s%s", l->started_at ? l->started_at : "time not recorded",
             l->host ? l->host : "host not recorded", l->results ? ", from " : "", l->results ? l->results : "");
}

int history_since(const px_history *h, const px_fixture *f, const px_results *r, const px_judgement *j, px_since *out, px_error *err)
{
    for (size_t e = 0; e < r->n_envs; e++) {
        const px_env_result *er = &r->envs[e];
        px_since *s = &out[e];
        memset(s, 0, sizeof *s);
        s->last = history_find(h, er->name);
        if (!s->last)
            continue;
        /* No results at all is not a regression: nothing is known; nor is
         * a judgement only partial (one shard's file, a run cut short, no
         * reference to compare with) while nothing judged failed. */
        s->regressed = er->selected && er->origin != PX_ORIGIN_NONE && !j->envs[e].incomplete &&
                       !met_now(er, &j->envs[e], r->n_examples);
        if (!has_config(er))
            continue;
        px_config now;
        if (history_config_for(f, er, &now))
            return px_error_oom(err, NULL);
        s->compared = 1;
        s->changed = history_compare(&s->last->config, &now);
        history_config_clear(&now);
    }
    return 0;
}

static int same_entry(const px_history_entry *a, const px_history_entry *b)
{
    if (!same(a->host, b->host) || !same(a->started_at, b->started_at) || !same(a->results, b->results))
        return 0;
    return history_compare(&a->config, &b->config) == 0;
}

int history_record(px_history *h, const px_fixture *f, const px_results *r, const px_judgement *j, px_error *err)
{
    int changed = 0;
    for (size_t e = 0; e < r->n_envs; e++) {
        const px_env_result *er = &r->envs[e];
        if (!good(er, &j->envs[e], r->n_examples))
            continue;
        px_history_entry now = {0};
        int oom = 0;
        now.env = dup_or_null(er->name, &oom);
        now.host = dup_or_null(er->m.host, &oom);
        now.started_at = dup_or_null(er->m.started_at, &oom);
        now.results = er->origin == PX_ORIGIN_FILE ? dup_or_null(er->source, &oom) : NULL;
        if (oom || !now.env || history_config_for(f, er, &now.config)) {
            entry_clear(&now);
            return px_error_oom(err, NULL);
        }
        px_history_entry *at = (px_history_entry *)history_find(h, er->name);
        if (at && same_entry(at, &now)) {
            entry_clear(&now);
            continue;
        }
        if (!at && !(at = add_entry(h))) {
            entry_clear(&now);
            return px_error_oom(err, NULL);
        }
        entry_clear(at);
        *at = now;
        changed++;
    }
    return changed;
}

/* Writing. */

static void kv(FILE *o, int ind, const char *k, const char *v)
{
    fprintf(o, "%*s%s: ", ind, "", k);
    if (v)
        emit_yaml_string(o, v);
    else
        fputs("null", o);
    fputc('\n', o);
}

char *history_text(const px_history *h, const char *fixture_name, size_t *len)
{
    char *text = NULL;
    FILE *o = open_memstream(&text, len);
    if (!o)
        return NULL;
    fprintf(o, "# parity history: the last configuration with which each environment met the\n"
               "# contract of ");
    /* A comment holds no escapes: the name, with anything odd as '?'. */
    for (const char *p = fixture_name; *p; p++)
        fputc((unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p, o);
    fprintf(o, ". Written by `parity check`; see parity-fixture(5).\n"
               "parity_history: %d\nenvironments:%s\n",
            PX_HISTORY_VERSION, h->n ? "" : " []");
    for (size_t i = 0; i < h->n; i++) {
        const px_history_entry *e = &h->v[i];
        fprintf(o, "  - name: ");
        emit_yaml_string(o, e->env);
        fputc('\n', o);
        kv(o, 4, "host", e->host);
        kv(o, 4, "started_at", e->started_at);
        kv(o, 4, "results", e->results);
        fprintf(o, "    configuration:\n");
        for (int f = 0; f < PX_CF_COUNT; f++) {
            if (f == PX_CF_THREADS)
                fprintf(o, "      threads: %s\n", e->config.v[f] ? e->config.v[f] : "null");
            else if (f == PX_CF_ENV) /* nothing when not recorded: as before */
                envrec_write_yaml(o, 6, fields[f].key, &e->config.env);
            else if ((f == PX_CF_COMPILE || f == PX_CF_RECIPE || f == PX_CF_RECIPE_SHA) && !e->config.v[f])
                continue; /* eager, no training: the file as before them */
            else
                kv(o, 6, fields[f].key, e->config.v[f]);
        }
    }
    if (fclose(o)) {
        free(text);
        return NULL;
    }
    return text;
}

int history_write(const px_history *h, const char *path, const char *fixture_name, px_error *err)
{
    size_t len = 0;
    char *text = history_text(h, fixture_name, &len);
    if (!text)
        return px_error_oom(err, path);
    int rc = atomic_write(path, text, len, err);
    free(text);
    return rc;
}
