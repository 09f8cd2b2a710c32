/* Reading a results file (parity-results(5)) back into px_results, matched
 * to a fixture, so results recorded elsewhere (another host, an earlier
 * run) can be shown and judged without running anything. Such a file may be
 * foreign or edited by hand, so the reader is as strict as the fixture
 * loader: an unknown key, a wrong type, or an outcome, environment, example
 * or label the fixture does not know is an error naming file:line:col.
 * Values the writer puts as null read back as NULL or -1, so that writing
 * what was read gives the same file. Each record's keys, and the fields
 * that are plain values, are read as results_schema.h's tables describe
 * them, the tables the writer writes them by. */
#define _POSIX_C_SOURCE 200809L
#include "parity/ydoc.h"
#include "parity/kind.h"
#include "parity/results.h"
#include "parity/results_schema.h"
#include "parity/utf8.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

/* One environment's examples as they streamed past (results_load reads a
 * file without keeping its examples in the document): read into their own
 * results at once, with the label map and shard the file gave before them,
 * and their first error and warnings kept, for load_examples to take over
 * in its turn, so that what is said, and in what order, is what reading
 * the whole document says. */
typedef struct streamed {
    int taken;                /* 1: taken (-1: kept in the document) */
    int map;                  /* the environment's mapping in the document */
    char *name;               /* its name, as the file spells it */
    px_example_result *ex;    /* one per fixture example */
    char *seen;
    char **labels;            /* the label map they were read with */
    size_t n_labels;
    px_shard shard;           /* the shard they were read in */
    char **warnings;
    size_t n_warnings;
    int failed;
    px_error err;
    const px_prepared *expect; /* parity's own inputs for it (NULL: none) */
} streamed;

typedef struct ctx {
    const char *path;
    yaml_document_t doc;
    const px_fixture *f;
    px_error *err;
    px_results *r;  /* what is read so far (warnings before the environments) */
    int version;    /* parity_results: of the file */
    px_shard shard; /* shard: of the file (count 0: none) */
    streamed *st;   /* per environment (the position of its key), when streamed */
    size_t n_st;
    int again;      /* the streamed read cannot stand for the whole one */
    px_expect_fn expect_fn; /* results_load_with: inputs to share */
    void *expect_arg;
    const px_prepared *expect; /* the environment being read: its inputs */
} ctx;

static yaml_node_t *node_at(ctx *c, int id) { return yaml_document_get_node(&c->doc, id); }
static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

/* "a classifier", "a generator", "an embedding": a contract's model, in words. */
static const char *kind_name(enum px_model_kind k)
{
    size_t n;
    const px_kind *all = kind_all(&n);
    return (size_t)k < n ? all[k].article : "a classifier";
}

/* An ok outcome's output meets its kind's shape rule (kind.h): the rule a
 * run's outputs meet on the wire, so a file is held to what a run is. */
static int output_fits(const px_fixture *f, const px_env_result *e, const px_example_result *x)
{
    char *why = NULL;
    px_shape_want w = {e->n_labels, 0, 0};
    px_shape_fit fit = kind_of(f)->shape_fits(f, &w, x->ndim, x->shape, x->n_values, &why);
    free(why);
    return fit == PX_SHAPE_FITS;
}

static size_t seq_len(const yaml_node_t *n)
{
    return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_at(ctx *c, const yaml_node_t *n, size_t i)
{
    return node_at(c, n->data.sequence.items.start[i]);
}

static int fail_at(ctx *c, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* libyaml marks are 0-based and count characters, which is what an editor
 * shows as the column. */
static int fail_at(ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[sizeof c->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = n ? (int)n->start_mark.line + 1 : 1, col = n ? (int)n->start_mark.column + 1 : 1;
    return px_error_set(c->err, PX_ERR_MALFORMED, c->path, line, col, "%s", msg);
}

static int want(ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *what)
{
    return ydoc_want(c->path, n, t, what, c->err);
}

static int is_null(const yaml_node_t *n) { return ydoc_is_null(n); }

static int check_keys(ctx *c, yaml_node_t *map, const char *what, const char *const *allowed)
{
    return ydoc_check_keys(&c->doc, c->path, map, what, allowed, c->err);
}

static yaml_node_t *get(ctx *c, yaml_node_t *map, const char *key) { return ydoc_get(&c->doc, map, key); }

static yaml_node_t *require(ctx *c, yaml_node_t *map, const char *key, const char *what)
{
    return ydoc_require(&c->doc, c->path, map, key, what, c->err);
}

/* A string scalar into *out (malloc'd; out may be NULL to only check it);
 * null gives NULL unless the value is required. */
static int node_str(ctx *c, yaml_node_t *n, const char *what, int required, char **out)
{
    if (is_null(n))
        return required ? fail_at(c, n, "%s must not be null", what) : 0;
    if (want(c, n, YAML_SCALAR_NODE, what))
        return -1;
    if (strlen(scalar(n)) != n->data.scalar.length)
        return fail_at(c, n, "%s contains a NUL character", what);
    if (out && !(*out = strdup(scalar(n))))
        return px_error_oom(c->err, c->path);
    return 0;
}

static int get_str(ctx *c, yaml_node_t *map, const char *key, const char *what, int required, char **out)
{
    yaml_node_t *n = required ? require(c, map, key, what) : get(c, map, key);
    if (!n)
        return required ? -1 : 0;
    char w[400];
    snprintf(w, sizeof w, "%.300s.%.80s", what, key);
    return node_str(c, n, w, required, out);
}

/* A string into a fixed buffer (the manifest's hashes and time); null and
 * absent give "", as the writer writes an empty one. */
static int get_fixed(ctx *c, yaml_node_t *map, const char *key, const char *what, char *buf, size_t size)
{
    char *s = NULL;
    if (get_str(c, map, key, what, 0, &s))
        return -1;
    size_t len = s ? strlen(s) : 0;
    if (len >= size) {
        free(s);
        return fail_at(c, get(c, map, key), "%s.%s is longer than %zu characters", what, key, size - 1);
    }
    memcpy(buf, s ? s : "", len + 1);
    free(s);
    return 0;
}

/* A YAML float: what strtod reads, but only in YAML's own spelling (no
 * "nan", "inf" or hex), plus .nan, .inf and -.inf; plain, as a quoted
 * scalar is a string to every other YAML reader. */
static int parse_double(const yaml_node_t *n, double *out)
{
    const char *s = scalar(n), *t = s + (*s == '-' || *s == '+');
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return -1;
    if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN")) {
        *out = NAN;
        return 0;
    }
    if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(t, ".INF")) {
        *out = *s == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    if (!*s || strspn(s, "0123456789+-.eE") != strlen(s))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || (errno == ERANGE && isinf(v)))
        return -1;
    *out = v;
    return 0;
}

static int read_double(ctx *c, yaml_node_t *n, const char *what, double *out)
{
    if (want(c, n, YAML_SCALAR_NODE, what))
        return -1;
    if (parse_double(n, out))
        return fail_at(c, n, "%s must be a number, not '%s'", what, scalar(n));
    return 0;
}

/* A finite number of 0 or more, `kind` saying what it must be when it is
 * not; null and absent give -1 (not measured). */
static int get_nonneg(ctx *c, yaml_node_t *map, const char *key, const char *what, const char *kind, double *out)
{
    yaml_node_t *n = get(c, map, key);
    *out = -1;
    if (!n || is_null(n))
        return 0;
    char w[400];
    snprintf(w, sizeof w, "%.300s.%.80s", what, key);
    if (read_double(c, n, w, out))
        return -1;
    if (!isfinite(*out) || *out < 0)
        return fail_at(c, n, "%s must be %s, not '%s'", w, kind, scalar(n));
    return 0;
}

/* A duration in milliseconds. */
static int get_ms(ctx *c, yaml_node_t *map, const char *key, const char *what, double *out)
{
    return get_nonneg(c, map, key, what, "a duration of 0 or more milliseconds", out);
}

static int read_int(ctx *c, yaml_node_t *n, const char *what, long long lo, long long hi, long long *out)
{
    if (want(c, n, YAML_SCALAR_NODE, what))
        return -1;
    const char *s = scalar(n), *d = s + (*s == '-' || *s == '+');
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !*d || strspn(d, "0123456789") != strlen(d) ||
        *end || errno)
        return fail_at(c, n, "%s must be a whole number, not '%s'", what, s);
    if (v < lo || v > hi)
        return fail_at(c, n, "%s must be between %lld and %lld, not %lld", what, lo, hi, v);
    *out = v;
    return 0;
}

/* An int field of if_null or more; null and absent give if_null. */
static int get_int(ctx *c, yaml_node_t *map, const char *key, const char *what, int if_null, int *out)
{
    yaml_node_t *n = get(c, map, key);
    *out = if_null;
    if (!n || is_null(n))
        return 0;
    char w[400];
    snprintf(w, sizeof w, "%.300s.%.80s", what, key);
    long long v;
    if (read_int(c, n, w, if_null, INT_MAX, &v))
        return -1;
    *out = (int)v;
    return 0;
}

/* A list of strings that is only checked: the label lists, which the
 * loaded results do not keep (labels are read back by name). */
static int check_str_list(ctx *c, yaml_node_t *n, const char *what)
{
    if (want(c, n, YAML_SEQUENCE_NODE, what))
        return -1;
    for (size_t i = 0; i < seq_len(n); i++)
        if (node_str(c, seq_at(c, n, i), what, 1, NULL))
            return -1;
    return 0;
}

static int check_sha(ctx *c, yaml_node_t *map, const char *key, const char *what, const char *sha)
{
    if (!sha[0] || hash_is_sha256(sha))
        return 0;
    return fail_at(c, get(c, map, key), "%s.%s must be 64 hex digits, not '%s'", what, key, sha);
}

/* A count of 0 or more into a size_t; null and absent give 0. */
static int get_size(ctx *c, yaml_node_t *map, const char *key, const char *what, size_t *out)
{
    int v;
    if (get_int(c, map, key, what, 0, &v))
        return -1;
    *out = (size_t)v;
    return 0;
}

/* A bench figure (a time, a rate). */
static int get_figure(ctx *c, yaml_node_t *map, const char *key, const char *what, double *out)
{
    return get_nonneg(c, map, key, what, "a finite number of 0 or more", out);
}

/* One field of a record from map as its table entry says (results_schema.h;
 * nothing for PX_RF_OWN, which the record's own code reads); absent, it
 * reads as not known. */
static int field_read(ctx *c, yaml_node_t *map, const char *what, const px_rfield *fld, void *base)
{
    void *at = results_schema_at(fld, base);
    char w[420];
    switch (fld->type) {
    case PX_RF_OWN:
        return 0;
    case PX_RF_STR:
        return get_str(c, map, fld->key, what, (fld->flags & PX_RF_REQUIRED) != 0, at);
    case PX_RF_FIXED:
        return get_fixed(c, map, fld->key, what, at, fld->size);
    case PX_RF_SHA:
        return get_fixed(c, map, fld->key, what, at, fld->size) || check_sha(c, map, fld->key, what, at) ? -1 : 0;
    case PX_RF_INT:
        return get_int(c, map, fld->key, what, fld->low, at);
    case PX_RF_SIZE:
        return get_size(c, map, fld->key, what, at);
    case PX_RF_MS:
        return get_ms(c, map, fld->key, what, at);
    case PX_RF_FIGURE:
        return get_figure(c, map, fld->key, what, at);
    case PX_RF_ENVVARS:
        snprintf(w, sizeof w, "%.400s.%s", what, fld->key);
        return get(c, map, fld->key) && envrec_read_yaml(&c->doc, get(c, map, fld->key), c->path, w, at, c->err)
                   ? -1
                   : 0;
    }
    return 0;
}

/* The fields of rec from key `from` to key `to` (NULL: first, last), in
 * the table's order. */
static int fields_read(ctx *c, yaml_node_t *map, const char *what, const px_rrecord *rec, void *base, const char *from,
                       const char *to)
{
    size_t lo, hi;
    results_schema_span(rec, from, to, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        if (field_read(c, map, what, &rec->fields[i], base))
            return -1;
    return 0;
}

/* A record that is not in the file: its fields not known, as when absent
 * one by one (-1 numbers; an INT its least value). */
static void fields_absent(const px_rrecord *rec, void *base)
{
    for (size_t i = 0; i < rec->n; i++) {
        const px_rfield *fld = &rec->fields[i];
        if (fld->type == PX_RF_INT)
            *(int *)results_schema_at(fld, base) = fld->low;
        else if (fld->type == PX_RF_MS || fld->type == PX_RF_FIGURE)
            *(double *)results_schema_at(fld, base) = -1;
    }
}

/* The keys map may have: rec's, no other, none twice. */
static int check_record(ctx *c, yaml_node_t *map, const char *what, const px_rrecord *rec)
{
    const char *keys[32];
    if (rec->n >= sizeof keys / sizeof *keys) /* a table outgrew this list: a bug */
        return fail_at(c, map, "%s: too many keys to check", what);
    results_schema_keys(rec, keys);
    return check_keys(c, map, what, keys);
}

static int load_down(ctx *c, yaml_node_t *d, px_env_result *e, const char *what)
{
    char w[400];
    snprintf(w, sizeof w, "%.300s.down", what);
    if (want(c, d, YAML_MAPPING_NODE, w) || check_record(c, d, w, &px_rs_down) ||
        fields_read(c, d, w, &px_rs_down, e, "message", "message"))
        return -1;
    yaml_node_t *s = require(c, d, "stage", w);
    if (!s || node_str(c, s, "down.stage", 1, NULL))
        return -1;
    for (int st = PX_STAGE_DEVICE; st <= PX_STAGE_FORWARD; st++)
        if (!strcmp(proto_stage_name(st), scalar(s))) {
            e->down_stage = st;
            return 0;
        }
    return fail_at(c, s, "%s: down.stage must be device, load or forward, not '%s'", what, scalar(s));
}

static int load_state(ctx *c, yaml_node_t *v, px_env_result *e, const char *what)
{
    yaml_node_t *s = require(c, v, "state", what), *d = get(c, v, "down");
    if (!s || node_str(c, s, "state", 1, NULL))
        return -1;
    int up = !strcmp(scalar(s), "up"), down = !strcmp(scalar(s), "down");
    if (!up && !down)
        return fail_at(c, s, "%s: state must be up or down, not '%s'", what, scalar(s));
    e->state = up ? PX_ENV_UP : PX_ENV_DOWN;
    if (up)
        return d ? fail_at(c, d, "%s: down only goes with state: down", what) : 0;
    if (!d)
        return fail_at(c, s, "%s is down but has no down: {stage, message}", what);
    return load_down(c, d, e, what);
}

/* Absent or null fields read as not known: NULL strings, "" hashes and
 * time, -1 threads and durations, no restarts. threads -1 is also read as
 * written, since that is how the writer puts an unknown count. env: absent
 * (a file from before parity recorded them) is not recorded, which is not
 * the same as none set ({}). */
static int load_manifest(ctx *c, yaml_node_t *v, px_env_result *e, const char *env_what)
{
    yaml_node_t *n = get(c, v, "manifest");
    fields_absent(&px_rs_manifest, e);
    if (!n)
        return 0;
    char w[400];
    snprintf(w, sizeof w, "%.300s.manifest", env_what);
    return want(c, n, YAML_MAPPING_NODE, w) || check_record(c, n, w, &px_rs_manifest) ||
                   fields_read(c, n, w, &px_rs_manifest, e, NULL, NULL)
               ? -1
               : 0;
}

static int load_outcome(ctx *c, yaml_node_t *ex, px_example_result *x, const char *what)
{
    yaml_node_t *n = require(c, ex, "outcome", what);
    if (!n || node_str(c, n, "outcome", 1, NULL))
        return -1;
    int s = status_from_name(scalar(n));
    if (s >= 0) {
        x->status = (px_status)s;
        return 0;
    }
    char list[256] = "";
    for (int i = PX_ST_OK; i < PX_ST_COUNT; i++) {
        strncat(list, i == PX_ST_OK ? "" : ", ", sizeof list - strlen(list) - 1);
        strncat(list, status_name((px_status)i), sizeof list - strlen(list) - 1);
    }
    return fail_at(c, n, "%s: unknown outcome '%s' (expected one of: %s)", what, scalar(n), list);
}

/* token_ids and tokens share one count in px_example_result, so they come
 * together and are as long as each other. */
static int load_tokens(ctx *c, yaml_node_t *ex, px_example_result *x, const char *what)
{
    yaml_node_t *ids = get(c, ex, "token_ids"), *toks = get(c, ex, "tokens");
    if (!ids && !toks)
        return 0;
    if (!ids || !toks)
        return fail_at(c, ids ? ids : toks, "%s: token_ids and tokens go together", what);
    if (want(c, ids, YAML_SEQUENCE_NODE, "token_ids") || want(c, toks, YAML_SEQUENCE_NODE, "tokens"))
        return -1;
    size_t n = seq_len(ids);
    if (seq_len(toks) != n)
        return fail_at(c, toks, "%s: %zu tokens for %zu token_ids", what, seq_len(toks), n);
    x->ids = malloc((n ? n : 1) * sizeof *x->ids);
    x->tokens = calloc(n ? n : 1, sizeof *x->tokens);
    if (!x->ids || !x->tokens)
        return px_error_oom(c->err, c->path);
    x->n_ids = n;
    size_t text = 0;
    for (size_t i = 0; i < n; i++) {
        long long id;
        yaml_node_t *t = seq_at(c, toks, i);
        if (read_int(c, seq_at(c, ids, i), "a token id", 0, LLONG_MAX, &id) || node_str(c, t, "a token", 1, NULL))
            return -1;
        x->ids[i] = id;
        text += t->data.scalar.length + 1;
    }
    /* The tokens' text in one block (token_text), not a string each. */
    if (!(x->token_text = malloc(text ? text : 1)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0, at = 0; i < n; i++) {
        const yaml_node_t *t = seq_at(c, toks, i);
        x->tokens[i] = memcpy(x->token_text + at, scalar(t), t->data.scalar.length + 1);
        at += t->data.scalar.length + 1;
    }
    return 0;
}

static int load_shape(ctx *c, yaml_node_t *n, px_example_result *x)
{
    if (want(c, n, YAML_SEQUENCE_NODE, "output.shape"))
        return -1;
    if (seq_len(n) > PX_MAX_DIMS)
        return fail_at(c, n, "output.shape has %zu dimensions; at most %d are kept", seq_len(n), PX_MAX_DIMS);
    for (size_t i = 0; i < seq_len(n); i++) {
        long long d;
        if (read_int(c, seq_at(c, n, i), "a dimension of output.shape", 0, LLONG_MAX, &d))
            return -1;
        x->shape[i] = d;
    }
    x->ndim = (int)seq_len(n);
    return 0;
}

/* The values must fill the shape exactly, as the executor's always do:
 * comparisons index them by the shape. */
static int load_values(ctx *c, yaml_node_t *n, px_example_result *x)
{
    if (want(c, n, YAML_SEQUENCE_NODE, "output.values"))
        return -1;
    size_t len = seq_len(n);
    unsigned long long count = 1;
    for (int i = 0; i < x->ndim; i++)
        count = x->shape[i] && count > ULLONG_MAX / (unsigned long long)x->shape[i]
                    ? ULLONG_MAX
                    : count * (unsigned long long)x->shape[i];
    if (count != len)
        return fail_at(c, n, "output has %zu values; its shape holds %llu", len, count);
    x->values = malloc((len ? len : 1) * sizeof *x->values);
    if (!x->values)
        return px_error_oom(c->err, c->path);
    x->n_values = len;
    for (size_t i = 0; i < len; i++)
        if (read_double(c, seq_at(c, n, i), "a value of output.values", &x->values[i]))
            return -1;
    return 0;
}

static int get_dtype(ctx *c, yaml_node_t *o, const char *what, px_example_result *x)
{
    char *s = NULL;
    if (get_str(c, o, "dtype", what, 1, &s))
        return -1;
    x->dtype = s ? results_dtype(s) : NULL;
    free(s);
    return s && !x->dtype ? px_error_oom(c->err, c->path) : 0;
}

/* NaN first, then larger first, ties lower id first: the order of a
 * step's top list (include/parity/generate.h). */
static int top_before(int64_t ia, double a, int64_t ib, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && (!isnan(b) || ia < ib);
    return a > b || (a == b && ia < ib);
}

/* The opening every kind's own record in an example shares (generated:,
 * image:): absent or null is no record (*g NULL, 0); present, it must be
 * of a format that writes it and of the contract's kind (fits), a mapping
 * of the record's keys with every required one there. w gets the record's
 * name for messages (400 bytes). */
static int kind_record(ctx *c, yaml_node_t *ex, const char *key, const px_rrecord *rec, int fits, const char *what,
                       char w[400], yaml_node_t **g)
{
    *g = get(c, ex, key);
    if (!*g || is_null(*g)) {
        *g = NULL;
        return 0;
    }
    snprintf(w, 400, "%.300s.%s", what, key);
    int since = results_schema_since(&px_rs_example, key);
    if (c->version < since)
        return fail_at(c, *g, "%s is written from format %d on, this file says %d", key, since, c->version);
    if (!fits)
        return fail_at(c, *g, "%s: %s, but the contract's model is %s (contract.model.kind)", w, key,
                       kind_name(c->f->kind));
    if (want(c, *g, YAML_MAPPING_NODE, w) || check_record(c, *g, w, rec))
        return -1;
    for (size_t i = 0; i < rec->n; i++)
        if ((rec->fields[i].flags & PX_RF_REQUIRED) && !require(c, *g, rec->fields[i].key, w))
            return -1;
    return 0;
}

/* A generator's example (format 5): generated: {dtype, shape, ids, end,
 * top, text, first_ms}. Everything that can be checked without the
 * vocabulary is checked here, so the file cannot contradict itself: the
 * shape is [1, prompt length, V], every id is below V, each step's top
 * list is in order and as long as every other, greedy chose each step's
 * first, and the count fits the end and the contract's max_new_tokens.
 * Whether the text is what the ids decode to is the judge's (it has the
 * vocabulary): parity never takes an executor's word for the text. */
/* The generated ids: as many as the end and max_new_tokens allow, one top
 * list each, each in the vocabulary (below V). */
static int load_gen_ids(ctx *c, yaml_node_t *ids, yaml_node_t *top, px_generated *gen, int64_t V, const char *w)
{
    const px_generate *set = &c->f->gen;
    size_t n = seq_len(ids);
    if (n > (size_t)set->max_new_tokens)
        return fail_at(c, ids, "%s: %zu ids, more than contract.generate.max_new_tokens %d", w, n,
                       set->max_new_tokens);
    if (gen->end == 2 && n != (size_t)set->max_new_tokens)
        return fail_at(c, ids, "%s: end length after %zu ids, not max_new_tokens %d", w, n, set->max_new_tokens);
    if (gen->end == 1 && n == 0)
        return fail_at(c, ids, "%s: end stop without a stop token", w);
    if (seq_len(top) != n)
        return fail_at(c, top, "%s: %zu top lists for %zu ids (one per step)", w, seq_len(top), n);
    if (!(gen->ids = malloc((n ? n : 1) * sizeof *gen->ids)))
        return px_error_oom(c->err, c->path);
    gen->n = n;
    for (size_t k = 0; k < n; k++) {
        long long id;
        if (read_int(c, seq_at(c, ids, k), "a generated id", 0, V - 1, &id))
            return -1;
        gen->ids[k] = id;
    }
    return 0;
}

/* Step k's top list: pairs of id and logit, as many as the first step's
 * (which sets r and makes room for all), in order, and under greedy
 * decoding headed by the id chosen. */
static int load_gen_top_row(ctx *c, yaml_node_t *ids, yaml_node_t *row, size_t k, px_generated *gen, int64_t V,
                            const char *w)
{
    if (want(c, row, YAML_SEQUENCE_NODE, "a step's top list"))
        return -1;
    size_t len = seq_len(row);
    if (k == 0) {
        if (len % 2 || len / 2 > 16)
            return fail_at(c, row, "%s: a step's top list is pairs of id and logit, at most 16 (has %zu items)", w,
                           len);
        gen->r = (int)(len / 2);
        size_t cells = gen->n * (size_t)gen->r + 1;
        gen->top_ids = malloc(cells * sizeof *gen->top_ids);
        gen->top_logits = malloc(cells * sizeof *gen->top_logits);
        if (!gen->top_ids || !gen->top_logits)
            return px_error_oom(c->err, c->path);
    } else if (len != 2 * (size_t)gen->r) {
        return fail_at(c, row, "%s: step %zu's top list has %zu items, the first's %d", w, k + 1, len, 2 * gen->r);
    }
    int64_t *ti = gen->top_ids + k * (size_t)gen->r;
    double *tl = gen->top_logits + k * (size_t)gen->r;
    for (int j = 0; j < gen->r; j++) {
        long long id;
        if (read_int(c, seq_at(c, row, 2 * (size_t)j), "a top id", 0, V - 1, &id) ||
            read_double(c, seq_at(c, row, 2 * (size_t)j + 1), "a top logit", &tl[j]))
            return -1;
        ti[j] = id;
        if (j && !top_before(ti[j - 1], tl[j - 1], ti[j], tl[j]))
            return fail_at(c, seq_at(c, row, 2 * (size_t)j), "%s: step %zu's top list is out of order (NaN "
                                                             "first, then larger logits, ties lower id first)",
                           w, k + 1);
    }
    if (c->f->gen.decoding == PX_DECODE_GREEDY && gen->r && gen->ids[k] != ti[0])
        return fail_at(c, seq_at(c, ids, k), "%s: greedy chose %lld at step %zu, not the largest logit's %lld", w,
                       (long long)gen->ids[k], k + 1, (long long)ti[0]);
    return 0;
}

/* A generator's example (format 5): generated: {dtype, shape, ids, end,
 * top, text, first_ms}. Everything that can be checked without the
 * vocabulary is checked here, so the file cannot contradict itself: the
 * shape is [1, prompt length, V], every id is below V, each step's top
 * list is in order and as long as every other, greedy chose each step's
 * first, and the count fits the end and the contract's max_new_tokens.
 * Whether the text is what the ids decode to is the judge's (it has the
 * vocabulary): parity never takes an executor's word for the text. */
static int load_generated(ctx *c, yaml_node_t *ex, px_example_result *x, const char *what)
{
    const px_rrecord *rec = &px_rs_generated;
    char w[400];
    yaml_node_t *g;
    int rc = kind_record(c, ex, "generated", rec, c->f->kind == PX_MODEL_GENERATOR, what, w, &g);
    if (rc || !g)
        return rc;
    px_generated *gen = x->gen = calloc(1, sizeof *gen);
    if (!gen || get_dtype(c, g, w, x) || load_shape(c, get(c, g, "shape"), x) ||
        fields_read(c, g, w, rec, gen, "text", "first_ms"))
        return gen ? -1 : px_error_oom(c->err, c->path);
    if (x->ndim != 3 || x->shape[0] != 1 || x->shape[1] != (int64_t)x->n_ids || x->shape[2] < 1)
        return fail_at(c, get(c, g, "shape"), "%s.shape must be [1, %zu, V] (one example, its prompt's tokens, the "
                                              "vocabulary)", w, x->n_ids);
    char *end = NULL;
    if (get_str(c, g, "end", w, 1, &end))
        return -1;
    gen->end = !strcmp(end, "stop") ? 1 : !strcmp(end, "length") ? 2 : 0;
    free(end);
    if (!gen->end)
        return fail_at(c, get(c, g, "end"), "%s.end must be stop or length, not '%s'", w, scalar(get(c, g, "end")));
    yaml_node_t *ids = get(c, g, "ids"), *top = get(c, g, "top");
    if (want(c, ids, YAML_SEQUENCE_NODE, "generated.ids") || want(c, top, YAML_SEQUENCE_NODE, "generated.top"))
        return -1;
    if (load_gen_ids(c, ids, top, gen, x->shape[2], w))
        return -1;
    for (size_t k = 0; k < gen->n; k++)
        if (load_gen_top_row(c, ids, seq_at(c, top, k), k, gen, x->shape[2], w))
            return -1;
    return 0;
}

/* latent_shape: [1, C, h, w], each at least 1, at most
 * PX_IMAGE_MAX_LATENT values in all. */
static int load_latent_shape(ctx *c, yaml_node_t *n, px_image_out *im, const char *w)
{
    if (want(c, n, YAML_SEQUENCE_NODE, "image.latent_shape"))
        return -1;
    if (seq_len(n) != 4)
        return fail_at(c, n, "%s.latent_shape must be [1, C, h, w], not %zu numbers", w, seq_len(n));
    size_t count = 1;
    for (size_t i = 0; i < 4; i++) {
        long long d;
        if (read_int(c, seq_at(c, n, i), "a dimension of image.latent_shape", 1, i ? PX_IMAGE_MAX_LATENT : 1,
                     &d))
            return -1;
        im->latent_shape[i] = d;
        count *= (size_t)d; /* each <= 65536 and the product checked at each step: no overflow */
        if (count > PX_IMAGE_MAX_LATENT)
            return fail_at(c, n, "%s.latent_shape holds more than %d values", w, PX_IMAGE_MAX_LATENT);
    }
    im->latent_count = count;
    return 0;
}

/* latents: [{step, values}, ...]: at most PX_IMAGE_MAX_RECORDED, steps
 * ascending and below the steps that ran, each latent_count values. The
 * counts are checked before anything is allocated, so the memory is what
 * the file's own values take. */
static int load_latents(ctx *c, yaml_node_t *n, px_image_out *im, const char *w)
{
    if (want(c, n, YAML_SEQUENCE_NODE, "image.latents"))
        return -1;
    size_t len = seq_len(n);
    if (len > PX_IMAGE_MAX_RECORDED)
        return fail_at(c, n, "%s.latents has %zu latents; at most %d are recorded", w, len, PX_IMAGE_MAX_RECORDED);
    char lw[440];
    snprintf(lw, sizeof lw, "%.400s.latents", w);
    long long last = -1;
    for (size_t s = 0; s < len; s++) {
        yaml_node_t *it = seq_at(c, n, s), *st, *vs;
        long long step;
        if (want(c, it, YAML_MAPPING_NODE, lw) || check_record(c, it, lw, &px_rs_latent) ||
            !(st = require(c, it, "step", lw)) || !(vs = require(c, it, "values", lw)) ||
            read_int(c, st, "a latent's step", 0, im->steps - 1, &step))
            return -1;
        if (step <= last)
            return fail_at(c, st, "%s: step %lld after step %lld: the steps must ascend", lw, step, last);
        last = step;
        if (want(c, vs, YAML_SEQUENCE_NODE, "a latent's values"))
            return -1;
        if (seq_len(vs) != im->latent_count)
            return fail_at(c, vs, "%s: step %lld has %zu values; latent_shape holds %zu", lw, step, seq_len(vs),
                           im->latent_count);
    }
    im->step = malloc((len ? len : 1) * sizeof *im->step);
    size_t cells = len * im->latent_count;
    im->latents = malloc((cells ? cells : 1) * sizeof *im->latents);
    if (!im->step || !im->latents)
        return px_error_oom(c->err, c->path);
    for (size_t s = 0; s < len; s++) {
        yaml_node_t *it = seq_at(c, n, s), *vs = get(c, it, "values");
        im->step[s] = atoi(scalar(get(c, it, "step")));
        im->n_steps = s + 1;
        for (size_t i = 0; i < im->latent_count; i++)
            if (read_double(c, seq_at(c, vs, i), "a latent's value", &im->latents[s * im->latent_count + i]))
                return -1;
    }
    return 0;
}

/* An image's example (format 7): image: {noise_sha256, latent_shape,
 * steps, first_ms, latents}, beside the image itself (output:). */
static int load_image(ctx *c, yaml_node_t *ex, px_example_result *x, const char *what)
{
    const px_rrecord *rec = &px_rs_image;
    char w[400];
    yaml_node_t *g;
    int rc = kind_record(c, ex, "image", rec, kind_of(c->f)->denoises, what, w, &g);
    if (rc || !g)
        return rc;
    px_image_out *im = x->img = calloc(1, sizeof *im);
    if (!im)
        return px_error_oom(c->err, c->path);
    if (fields_read(c, g, w, rec, im, NULL, NULL))
        return -1;
    if (!hash_is_sha256(im->noise_sha256))
        return fail_at(c, get(c, g, "noise_sha256"), "%s.noise_sha256 must be 64 hex digits (which noise it started "
                                                     "from), not '%s'", w, im->noise_sha256);
    if (im->steps > (int)PX_IMAGE_MAX_STEPS)
        return fail_at(c, get(c, g, "steps"), "%s.steps must be at most %u, not %d", w, PX_IMAGE_MAX_STEPS, im->steps);
    return load_latent_shape(c, get(c, g, "latent_shape"), im, w) || load_latents(c, get(c, g, "latents"), im, w)
               ? -1
               : 0;
}

/* One of a training record's per-step lists: exactly n numbers (the loss
 * curve's steps), counted before anything is allocated; durations finite
 * and 0 or more, the rest any double (a NaN is a finding, not a bad
 * file). */
static int load_step_list(ctx *c, yaml_node_t *g, const char *key, const char *w, size_t n, int durations,
                          double **out)
{
    yaml_node_t *s = get(c, g, key);
    char lw[440];
    snprintf(lw, sizeof lw, "%.400s.%s", w, key);
    if (want(c, s, YAML_SEQUENCE_NODE, lw))
        return -1;
    if (seq_len(s) != n)
        return fail_at(c, s, "%s has %zu values, the loss curve %zu steps (one a step)", lw, seq_len(s), n);
    if (!(*out = malloc((n ? n : 1) * sizeof **out)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *v = seq_at(c, s, i);
        if (read_double(c, v, lw, &(*out)[i]))
            return -1;
        if (durations && (!isfinite((*out)[i]) || (*out)[i] < 0))
            return fail_at(c, v, "%s must be durations of 0 or more milliseconds, not '%s'", lw, scalar(v));
    }
    return 0;
}

/* groups: at most PX_TRAIN_MAX_GROUPS, each {name, numel, norm,
 * delta_norm, sketch} with a sketch of exactly PX_TRAIN_SKETCH values. */
static int load_train_groups(ctx *c, yaml_node_t *n, px_train_out *t, const char *w)
{
    char gw[440];
    snprintf(gw, sizeof gw, "%.400s.groups", w);
    if (want(c, n, YAML_SEQUENCE_NODE, gw))
        return -1;
    size_t len = seq_len(n);
    if (len > PX_TRAIN_MAX_GROUPS)
        return fail_at(c, n, "%s has %zu groups; at most %d are recorded", gw, len, PX_TRAIN_MAX_GROUPS);
    if (!(t->groups = calloc(len ? len : 1, sizeof *t->groups)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *it = seq_at(c, n, i), *sk;
        px_train_group *gr = &t->groups[i];
        t->n_groups = i + 1;
        const px_rrecord *rec = &px_rs_train_group;
        if (want(c, it, YAML_MAPPING_NODE, gw) || check_record(c, it, gw, rec))
            return -1;
        for (size_t k = 0; k < rec->n; k++)
            if (!require(c, it, rec->fields[k].key, gw))
                return -1;
        long long numel;
        if (fields_read(c, it, gw, rec, gr, "name", "name") ||
            read_int(c, get(c, it, "numel"), "a group's numel", 0, LLONG_MAX, &numel) ||
            read_double(c, get(c, it, "norm"), "a group's norm", &gr->norm) ||
            read_double(c, get(c, it, "delta_norm"), "a group's delta_norm", &gr->delta_norm))
            return -1;
        gr->numel = numel;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(t->groups[j].name, gr->name))
                return fail_at(c, get(c, it, "name"), "%s: group '%s' is listed twice", gw, gr->name);
        sk = get(c, it, "sketch");
        if (want(c, sk, YAML_SEQUENCE_NODE, "a group's sketch"))
            return -1;
        if (seq_len(sk) != PX_TRAIN_SKETCH)
            return fail_at(c, sk, "%s: group '%s' has a sketch of %zu values, not %d", gw, gr->name, seq_len(sk),
                           PX_TRAIN_SKETCH);
        for (size_t j = 0; j < PX_TRAIN_SKETCH; j++)
            if (read_double(c, seq_at(c, sk, j), "a sketch's value", &gr->sketch[j]))
                return -1;
    }
    return 0;
}

/* A training run's example (format 8): train: {grad_norm, update_norm,
 * lr, step_ms, startup_ms, total_ms, processes, groups}, beside its loss
 * curve (output:, read before it): every list as long as the curve. */
static int load_train(ctx *c, yaml_node_t *ex, px_example_result *x, const char *what)
{
    const px_rrecord *rec = &px_rs_train;
    char w[400];
    yaml_node_t *g;
    int rc = kind_record(c, ex, "train", rec, kind_of(c->f)->trains, what, w, &g);
    if (rc || !g)
        return rc;
    if (!x->dtype)
        return fail_at(c, g, "%s: train without its output (the loss curve it records the steps of): an "
                             "inconsistent file", what);
    px_train_out *t = x->train = calloc(1, sizeof *t);
    if (!t)
        return px_error_oom(c->err, c->path);
    t->n_steps = x->n_values;
    if (fields_read(c, g, w, rec, t, "startup_ms", "processes"))
        return -1;
    if (t->processes > 64)
        return fail_at(c, get(c, g, "processes"), "%s.processes must be at most 64, not %d", w, t->processes);
    return load_step_list(c, g, "grad_norm", w, t->n_steps, 0, &t->grad_norm) ||
                   load_step_list(c, g, "update_norm", w, t->n_steps, 0, &t->update_norm) ||
                   load_step_list(c, g, "lr", w, t->n_steps, 0, &t->lr) ||
                   load_step_list(c, g, "step_ms", w, t->n_steps, 1, &t->step_ms) ||
                   load_train_groups(c, get(c, g, "groups"), t, w)
               ? -1
               : 0;
}

static int load_output(ctx *c, yaml_node_t *ex, px_example_result *x, const char *what)
{
    yaml_node_t *o = get(c, ex, "output"), *shape, *values;
    if (!o || is_null(o))
        return 0;
    char w[400];
    snprintf(w, sizeof w, "%.300s.output", what);
    /* Both would claim the example's dtype and shape: the second would
     * overwrite what the first's checks were made on. */
    if (x->gen)
        return fail_at(c, o, "%s: output and generated together: a generator's output is what it generated "
                             "(generated:), an inconsistent file", w);
    if (want(c, o, YAML_MAPPING_NODE, w) || check_record(c, o, w, &px_rs_output) || get_dtype(c, o, w, x))
        return -1;
    if (!(shape = require(c, o, "shape", w)) || !(values = require(c, o, "values", w)))
        return -1;
    return load_shape(c, shape, x) || load_values(c, values, x) ? -1 : 0;
}

/* A label is kept as an index into the environment's recorded label map
 * (what the file says logit i means; comparing that map with the contract's
 * is the judge's business, as a divergence at "label map"). The file is
 * evidence, not a verdict: an ok outcome must hold an output of the shape
 * [1, labels], and its label must be that output's argmax, as torch.argmax
 * decides it; anything else is a file that contradicts itself. */
static int load_label(ctx *c, yaml_node_t *ex, const px_env_result *e, px_example_result *x, const char *what)
{
    yaml_node_t *n = get(c, ex, "label");
    x->label = -1;
    if (n && node_str(c, n, "label", 0, NULL))
        return -1;
    if (n && !is_null(n)) {
        for (size_t i = 0; i < e->n_labels && x->label < 0; i++)
            if (!strcmp(e->labels[i], scalar(n)))
                x->label = (int)i;
        if (x->label < 0)
            return fail_at(c, n, "%s: label '%s' is not in the environment's recorded label map (labels:)", what,
                           scalar(n));
    }
    if (x->status != PX_ST_OK && x->label >= 0)
        return fail_at(c, n, "%s: a label only goes with outcome ok, not %s: an inconsistent file", what,
                       status_name(x->status));
    if (x->status != PX_ST_OK)
        return x->gen && x->gen->n ? fail_at(c, get(c, ex, "generated"),
                                             "%s: generated ids only go with outcome ok, not %s: an inconsistent file",
                                             what, status_name(x->status))
                                   : 0;
    if (c->f->kind == PX_MODEL_GENERATOR) {
        /* A generator decides no label: what it generated is its output. */
        if (n && !is_null(n))
            return fail_at(c, n, "%s: a generator's example has no label (its output is generated:)", what);
        if (!x->gen)
            return fail_at(c, ex, "%s: outcome ok needs what was generated (generated:)", what);
        return 0;
    }
    if (kind_of(c->f)->denoises) {
        /* An image decides no label: its picture is its output, checked
         * against contract.image's size and channels. */
        if (x->label >= 0)
            return fail_at(c, n, "%s: an image's example has no label (its output is its picture)", what);
        if (!x->dtype)
            return fail_at(c, ex, "%s: outcome ok needs its output (the image)", what);
        if (!x->img)
            return fail_at(c, ex, "%s: outcome ok needs its image: record (the noise it started from and its "
                                  "latents)", what);
        if (!output_fits(c->f, e, x))
            return fail_at(c, get(c, get(c, ex, "output"), "shape"),
                           "%s: outcome ok, but the output is not [1, %d, %d, %d] (contract.image): an inconsistent "
                           "file (that outcome is bad-shape or empty)",
                           what, c->f->image.height, c->f->image.width, c->f->image.channels);
        return 0;
    }
    if (kind_of(c->f)->trains) {
        /* A training run decides no label: its loss curve is its output,
         * [1, N], N at most its recipe's steps, with its train: record. */
        const px_recipe *rp = c->f->examples[x - e->ex].recipe;
        if (x->label >= 0)
            return fail_at(c, n, "%s: a training run has no label (its output is its loss curve)", what);
        if (!x->dtype)
            return fail_at(c, ex, "%s: outcome ok needs its output (the loss curve)", what);
        if (!x->train)
            return fail_at(c, ex, "%s: outcome ok needs its train: record (the per-step figures and the groups)",
                           what);
        if (!output_fits(c->f, e, x) || (rp && x->shape[1] > rp->steps))
            return fail_at(c, get(c, get(c, ex, "output"), "shape"),
                           "%s: outcome ok, but the output is not [1, N] with N from 1 to the run's %d steps: an "
                           "inconsistent file (that outcome is bad-shape or empty)",
                           what, rp ? rp->steps : PX_TRAIN_RUN_MAX_STEPS);
        return 0;
    }
    if (c->f->kind == PX_MODEL_EMBEDDING) {
        /* An embedding decides no label: its vector is its output, checked
         * against contract.model.dim (there are no labels to count). */
        if (x->label >= 0)
            return fail_at(c, n, "%s: an embedding's example has no label (its output is its vector)", what);
        if (!x->dtype)
            return fail_at(c, ex, "%s: outcome ok needs its output (the vector)", what);
        if (!output_fits(c->f, e, x))
            return fail_at(c, get(c, get(c, ex, "output"), "shape"),
                           "%s: outcome ok, but the output is not [1, %d] (contract.model.dim): an inconsistent file "
                           "(that outcome is bad-shape or empty)",
                           what, c->f->dim);
        return 0;
    }
    if (x->label < 0)
        return fail_at(c, n ? n : ex, "%s: outcome ok needs a label", what);
    if (!x->dtype)
        return fail_at(c, ex, "%s: outcome ok needs its output, so that its label can be checked", what);
    if (!output_fits(c->f, e, x))
        return fail_at(c, get(c, get(c, ex, "output"), "shape"),
                       "%s: outcome ok, but the output is not [1, %zu] for the %zu recorded labels: an inconsistent "
                       "file (that outcome is bad-shape or empty)",
                       what, e->n_labels, e->n_labels);
    int best = results_argmax(x->values, x->n_values);
    if (best != x->label)
        return fail_at(c, n, "%s: label '%s' is not the argmax of its own logits ('%s', logit %d is %g): an "
                             "inconsistent file, not trusted",
                       what, scalar(n), e->labels[best], best, x->values[best]);
    return 0;
}

/* compiled: true or false (a lazy device compiled a graph for this
 * forward, or did not); absent or null: not known. */
static int get_compiled(ctx *c, yaml_node_t *map, const char *what, int8_t *out)
{
    yaml_node_t *n = get(c, map, "compiled");
    *out = PX_COMPILED_UNKNOWN;
    if (!n || is_null(n))
        return 0;
    if (want(c, n, YAML_SCALAR_NODE, what))
        return -1;
    int plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (plain && !strcmp(scalar(n), "true"))
        *out = PX_COMPILED_YES;
    else if (plain && !strcmp(scalar(n), "false"))
        *out = PX_COMPILED_NO;
    else
        return fail_at(c, n, "%s.compiled must be true or false, not '%s'", what, scalar(n));
    return 0;
}

/* An example whose recorded input is exactly what parity makes of it keeps
 * parity's instead of its own copy (10 000 examples: 6 MiB). */
static void share_input(px_example_result *x, const px_prepared *p)
{
    if (x->shared_input || !x->clean_text || !p->clean_text || strcmp(x->clean_text, p->clean_text) ||
        x->n_ids != p->enc.n || (x->n_ids && (!p->enc.ids || !p->enc.pieces || !x->tokens)))
        return;
    for (size_t i = 0; i < x->n_ids; i++)
        if (x->ids[i] != p->enc.ids[i] || strcmp(x->tokens[i], p->enc.pieces[i]))
            return;
    example_result_free_input(x);
    x->clean_text = p->clean_text;
    x->ids = p->enc.ids;
    x->tokens = p->enc.pieces;
    x->shared_input = 1;
}

static int load_example_keys(ctx *c, yaml_node_t *n, px_env_result *e, px_example_result *x, const char *what);

static int load_example(ctx *c, yaml_node_t *n, px_env_result *e, const char *env_what, char *seen)
{
    char what[400];
    snprintf(what, sizeof what, "an example in %.300s", env_what);
    if (want(c, n, YAML_MAPPING_NODE, what) || check_record(c, n, what, &px_rs_example))
        return -1;
    yaml_node_t *id = require(c, n, "id", what);
    if (!id || node_str(c, id, "example id", 1, NULL))
        return -1;
    long k = fixture_example_index(c->f, scalar(id));
    if (k < 0) {
        /* Removed from the fixture since the run: a change of the contract,
         * named, not a reason to refuse the rest. */
        results_warn(c->r, "%s:%d: example '%.200s' in %s is not in the fixture any more: not judged", c->path,
                     (int)id->start_mark.line + 1, scalar(id), env_what);
        return 0;
    }
    if (seen[k])
        return fail_at(c, id, "example '%s' is listed twice in %s", scalar(id), env_what);
    if (!shard_holds(c->shard, scalar(id)))
        return fail_at(c, id, "example '%s' belongs to shard %u/%u, but this file is shard %u/%u (each example is "
                              "run in one shard only)",
                       scalar(id), shard_of(scalar(id), c->shard.count), c->shard.count, c->shard.index,
                       c->shard.count);
    seen[k] = 1;
    px_example_result *x = &e->ex[k];
    snprintf(what, sizeof what, "example '%.80s' in %.300s", scalar(id), env_what);
    if (load_example_keys(c, n, e, x, what))
        return -1;
    if (c->expect)
        share_input(x, &c->expect[k]);
    return 0;
}

/* An image's record goes with the image it made (output:). */
static int image_alone(ctx *c, yaml_node_t *n, const px_example_result *x, const char *what)
{
    return x->img && !x->dtype ? fail_at(c, get(c, n, "image"), "%s: image without its output (the picture it "
                                                                "records the path of): an inconsistent file",
                                         what)
                               : 0;
}

static int load_example_keys(ctx *c, yaml_node_t *n, px_env_result *e, px_example_result *x, const char *what)
{
    char def[PX_SHA256_HEX];
    if (get_fixed(c, n, "sha256", what, def, sizeof def) || check_sha(c, n, "sha256", what, def))
        return -1;
    if ((x->has_def = def[0] != 0))
        hash_from_hex(def, x->def_sha256);
    /* generated: after the tokens, whose count its shape is checked against */
    return load_outcome(c, n, x, what) || fields_read(c, n, what, &px_rs_example, x, "detail", "clean_text") ||
                   load_tokens(c, n, x, what) || load_generated(c, n, x, what) || load_output(c, n, x, what) ||
                   load_image(c, n, x, what) || image_alone(c, n, x, what) || load_train(c, n, x, what) ||
                   load_label(c, n, e, x, what) ||
                   fields_read(c, n, what, &px_rs_example, x, "forward_ms", "forward_ms") ||
                   get_compiled(c, n, what, &x->compiled)
               ? -1
               : 0;
}

/* The file's examples in any order; the fixture's examples it lacks were
 * not evaluated, as far as this file knows. */
static int take_streamed(ctx *c, streamed *s, px_env_result *e, char **seen);

static int load_examples(ctx *c, yaml_node_t *v, px_env_result *e, const char *what)
{
    yaml_node_t *n = get(c, v, "examples");
    size_t nx = c->f->n_examples, pos = (size_t)(e - c->r->envs);
    streamed *s = pos < c->n_st && c->st[pos].taken == 1 ? &c->st[pos] : NULL;
    char w[400], *seen = s ? NULL : calloc(nx ? nx : 1, 1);
    if (s ? take_streamed(c, s, e, &seen) : !seen)
        return s ? -1 : px_error_oom(c->err, c->path);
    snprintf(w, sizeof w, "%.300s.examples", what);
    int rc = n ? want(c, n, YAML_SEQUENCE_NODE, w) : 0;
    if (!rc && s && s->failed)
        rc = -1, *c->err = s->err; /* its first error, in its turn */
    for (size_t i = 0; !rc && n && i < seq_len(n); i++)
        rc = load_example(c, seq_at(c, n, i), e, what, seen);
    for (size_t k = 0; !rc && k < nx; k++)
        if (!seen[k]) {
            char why[80] = "not in the results file";
            const char *id = c->f->examples[k].id;
            if (!shard_holds(c->shard, id))
                snprintf(why, sizeof why, "run in shard %u/%u, not in this shard's file", shard_of(id, c->shard.count),
                         c->shard.count);
            e->ex[k].status = PX_ST_NOT_EVALUATED;
            if (!(e->ex[k].detail = strdup(why)))
                rc = px_error_oom(c->err, c->path);
        }
    free(seen);
    return rc;
}

/* The label map the environment's outputs were decided with: its own
 * labels: list, else the file's top-level one (written by every version). */
static int load_env_labels(ctx *c, yaml_node_t *v, yaml_node_t *top, px_env_result *e, const char *what)
{
    yaml_node_t *l = get(c, v, "labels");
    char w[400];
    snprintf(w, sizeof w, "%.300s.labels", what);
    if (!l)
        l = top;
    if (!l)
        return fail_at(c, v, "%s records no label map (labels:): what its logits mean is unknown", what);
    if (want(c, l, YAML_SEQUENCE_NODE, w))
        return -1;
    for (size_t i = 0; i < e->n_labels; i++)
        free(e->labels[i]);
    free(e->labels);
    e->n_labels = 0;
    e->labels = calloc(seq_len(l) ? seq_len(l) : 1, sizeof *e->labels);
    if (!e->labels)
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < seq_len(l); i++) {
        if (node_str(c, seq_at(c, l, i), w, 1, &e->labels[i]))
            return -1;
        e->n_labels++;
    }
    return 0;
}

/* The contract fingerprint the environment was recorded under (format 2). */
static int load_contract(ctx *c, yaml_node_t *v, px_env_result *e, const char *what)
{
    static const char *const keys[] = {"model", "input", "labels", "compare", "examples", NULL};
    yaml_node_t *n = get(c, v, "contract");
    if (!n)
        return 0;
    char w[400];
    snprintf(w, sizeof w, "%.300s.contract", what);
    int since = results_schema_since(&px_rs_env, "contract");
    if (c->version < since)
        return fail_at(c, n, "%s: results format %d has no contract: (it came with format %d)", what, c->version,
                       since);
    if (want(c, n, YAML_MAPPING_NODE, w) || check_keys(c, n, w, keys))
        return -1;
    for (int p = 0; p < PX_PART_COUNT; p++) {
        const char *key = fingerprint_part_name((px_part)p);
        if (get_fixed(c, n, key, w, e->recorded.part[p], PX_SHA256_HEX) || check_sha(c, n, key, w, e->recorded.part[p]))
            return -1;
    }
    return 0;
}

static int load_bench_outputs(ctx *c, yaml_node_t *n, px_bench *b, const px_env_result *e, const char *what)
{
    if (!n || is_null(n))
        return 0;
    if (want(c, n, YAML_MAPPING_NODE, what))
        return -1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
        if (node_str(c, k, "an example id", 1, NULL))
            return -1;
        long at = fixture_example_index(c->f, scalar(k));
        if (at < 0) /* an example the fixture no longer has: the examples say so */
            continue;
        if (b->out[at])
            return fail_at(c, k, "%s: example '%s' is listed twice", what, scalar(k));
        if (want(c, v, YAML_SEQUENCE_NODE, what))
            return -1;
        /* One value per label (a classifier's), per element (an embedding's). */
        int emb = c->f->kind == PX_MODEL_EMBEDDING;
        size_t width = b->n_out;
        (void)e; /* its labels are b->n_out's */
        if (seq_len(v) != width)
            return fail_at(c, v, emb ? "%s: '%s' has %zu values, the contract's vectors %zu (contract.model.dim)"
                                     : "%s: '%s' has %zu values, the environment has %zu labels",
                           what, scalar(k), seq_len(v), width);
        if (!(b->out[at] = malloc((width ? width : 1) * sizeof *b->out[at])))
            return px_error_oom(c->err, c->path);
        for (size_t i = 0; i < width; i++)
            if (read_double(c, seq_at(c, v, i), what, &b->out[at][i]))
                return -1;
    }
    return 0;
}

/* One sequence of a train-step record (loss, step_ms) into a malloc'd
 * array of *n numbers, at most `most`; durations must be finite and 0 or
 * more, a loss may be anything (a non-finite loss is a finding). */
static int load_train_seq(ctx *c, yaml_node_t *r, const char *key, const char *what, size_t most, int durations,
                          double **out, size_t *n)
{
    char w[400];
    snprintf(w, sizeof w, "%.300s.%s", what, key);
    yaml_node_t *s = require(c, r, key, what);
    if (!s || want(c, s, YAML_SEQUENCE_NODE, w))
        return -1;
    *n = seq_len(s);
    if (*n > most)
        return fail_at(c, s, "%s has %zu steps, the endpoint %zu", w, *n, most);
    if (!(*out = malloc((*n ? *n : 1) * sizeof **out)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < *n; i++) {
        yaml_node_t *v = seq_at(c, s, i);
        if (read_double(c, v, w, &(*out)[i]))
            return -1;
        if (durations && (!isfinite((*out)[i]) || (*out)[i] < 0))
            return fail_at(c, v, "%s must be durations of 0 or more milliseconds, not '%s'", w, scalar(v));
    }
    return 0;
}

/* A train-step:N record's own fields: lr, loss and step_ms (one per step
 * done, as many of each); refused on any other endpoint. */
static int load_bench_train(ctx *c, yaml_node_t *r, px_bench *b, const char *what)
{
    static const char *const keys[] = {"lr", "loss", "step_ms", NULL};
    if (!b->train_steps) {
        for (const char *const *k = keys; *k; k++)
            if (get(c, r, *k))
                return fail_at(c, get(c, r, *k), "%s.%s belongs to a train-step:N endpoint only", what, *k);
        return 0;
    }
    yaml_node_t *lr = require(c, r, "lr", what);
    size_t n_ms = 0;
    if (!lr || get_nonneg(c, r, "lr", what, "a learning rate above 0", &b->lr))
        return -1;
    if (!(b->lr > 0))
        return fail_at(c, lr, "%s.lr must be a learning rate above 0, not '%s'", what, scalar(lr));
    if (load_train_seq(c, r, "loss", what, (size_t)b->train_steps, 0, &b->loss, &b->n_steps) ||
        load_train_seq(c, r, "step_ms", what, (size_t)b->train_steps, 1, &b->step_ms, &n_ms))
        return -1;
    if (n_ms != b->n_steps)
        return fail_at(c, get(c, r, "step_ms"), "%s.step_ms has %zu steps, loss %zu", what, n_ms, b->n_steps);
    return 0;
}

/* parity bench's records (format 4). */
static int load_bench(ctx *c, yaml_node_t *v, px_env_result *e, const char *env_what)
{
    yaml_node_t *n = get(c, v, "bench");
    if (!n || is_null(n))
        return 0;
    char w[400];
    snprintf(w, sizeof w, "%.300s.bench", env_what);
    int since = results_schema_since(&px_rs_env, "bench");
    if (c->version < since)
        return fail_at(c, n, "%s is written from format %d on, this file says %d", w, since, c->version);
    if (want(c, n, YAML_SEQUENCE_NODE, w))
        return -1;
    size_t count = seq_len(n);
    if (count > 64)
        return fail_at(c, n, "%s has %zu endpoints; at most 64 are read", w, count);
    if (!(e->bench = calloc(count ? count : 1, sizeof *e->bench)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *r = seq_at(c, n, i);
        px_bench *b = &e->bench[i];
        e->n_bench = i + 1;
        b->n_out = c->f->kind == PX_MODEL_EMBEDDING ? (size_t)c->f->dim
                   : kind_of(c->f)->denoises
                       ? (size_t)c->f->image.height * (size_t)c->f->image.width * (size_t)c->f->image.channels
                       : e->n_labels;
        if (!(b->out = calloc(c->r->n_examples ? c->r->n_examples : 1, sizeof *b->out)))
            return px_error_oom(c->err, c->path);
        char *endpoint = NULL;
        yaml_node_t *ep = NULL;
        if (want(c, r, YAML_MAPPING_NODE, w) || check_record(c, r, w, &px_rs_bench) || !(ep = require(c, r, "endpoint", w)) ||
            node_str(c, ep, w, 1, &endpoint))
            return -1;
        char *end = NULL;
        long batch = !strncmp(endpoint, "batch:", 6) ? strtol(endpoint + 6, &end, 10) : 0;
        int good = !strcmp(endpoint, "single") || (end && !*end && endpoint[6] >= '1' && endpoint[6] <= '9' &&
                                                    batch >= 2 && batch <= 100000);
        if (!strncmp(endpoint, "train-step:", 11) && endpoint[11] >= '1' && endpoint[11] <= '9') {
            long steps = strtol(endpoint + 11, &end, 10);
            good = !*end && steps <= 10000;
            b->train_steps = good ? (int)steps : 0;
        }
        free(endpoint);
        if (!good)
            return fail_at(c, ep, "%s.endpoint must be single, batch:N (N from 2) or train-step:N (N from 1 to 10000), "
                           "not '%s'", w, scalar(ep));
        b->batch = batch >= 2 ? (int)batch : 1;
        if (fields_read(c, r, w, &px_rs_bench, b, "warmup", "stopped") || load_bench_outputs(c, get(c, r, "outputs"), b, e, w) || load_bench_train(c, r, b, w))
            return -1;
        if (b->train_steps) /* a step trains on every labelled example */
            b->batch = (int)b->examples;
        if (b->new_shapes_ms < 0)
            b->new_shapes_ms = 0;
        /* Figures that contradict themselves are refused like a label
         * that is not its logits' argmax. */
        if (b->p50_ms >= 0 && !(b->min_ms <= b->p50_ms && b->p50_ms <= b->p90_ms && b->p90_ms <= b->p99_ms &&
                                b->p99_ms <= b->max_ms))
            return fail_at(c, r, "%s: the latencies must read min <= p50 <= p90 <= p99 <= max", w);
    }
    return 0;
}

static int load_env(ctx *c, yaml_node_t *v, yaml_node_t *top_labels, px_env_result *e)
{
    char what[300];
    int since = results_schema_since(&px_rs_env, "cut_short");
    snprintf(what, sizeof what, "environment '%.200s'", e->name);
    if (want(c, v, YAML_MAPPING_NODE, what) || check_record(c, v, what, &px_rs_env) ||
        get_str(c, v, "role", what, 0, NULL) || get_str(c, v, "note", what, 0, NULL) ||
        load_env_labels(c, v, top_labels, e, what) || load_contract(c, v, e, what) ||
        fields_read(c, v, what, &px_rs_env, e, "cut_short", "cut_short"))
        return -1;
    if (e->cut_short && c->version < since)
        return fail_at(c, get(c, v, "cut_short"), "%s: cut_short is written from format %d on, this file says %d",
                       what, since, c->version);
    e->origin = PX_ORIGIN_FILE;
    if (!(e->source = strdup(c->path)))
        return px_error_oom(c->err, c->path);
    return load_state(c, v, e, what) || load_manifest(c, v, e, what) || load_examples(c, v, e, what) ||
                   load_bench(c, v, e, what)
               ? -1
               : 0;
}

/* Whether two paths name one file (the same inode), whatever their spelling. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A file's environment the fixture lacks: named beside the fixture's
 * environment that imports this very file (results: FILE), if one does,
 * with the two ways to make the names agree; otherwise beside the
 * fixture's environment names. */
static int env_unknown(ctx *c, yaml_node_t *k)
{
    const px_fixture *f = c->f;
    for (size_t i = 0; i < f->n_envs; i++)
        if (f->envs[i].results && same_file(f->envs[i].results, c->path))
            return fail_at(c, k,
                           "environment '%s' is not in the fixture %s, whose environment '%s' reads this file "
                           "(results: %s): the names must agree: rename '%s' to '%s' in %s, or run it again on "
                           "its host as -e %s with that environment named so there",
                           scalar(k), f->path, f->envs[i].name, f->envs[i].results, f->envs[i].name, scalar(k),
                           f->path, f->envs[i].name);
    char names[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < f->n_envs && len < sizeof names - 1; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", f->envs[i].name);
    return fail_at(c, k, "environment '%s' is not in the fixture %s (its environments: %s)", scalar(k), f->path,
                   names);
}

/* The fixture index of the environment named by the i-th key of n; the
 * first i are in idx already, so a name listed twice is caught. */
static int env_key_index(ctx *c, yaml_node_t *n, size_t i, const char *seen, int *out)
{
    yaml_node_t *k = node_at(c, n->data.mapping.pairs.start[i].key);
    if (node_str(c, k, "an environment name", 1, NULL))
        return -1;
    const px_env *fe = fixture_env(c->f, scalar(k));
    if (!fe)
        return env_unknown(c, k);
    *out = (int)(fe - c->f->envs);
    if (seen[*out])
        return fail_at(c, k, "environment '%s' is listed twice", scalar(k));
    return 0;
}

/* Match the file's environments to the fixture's by name, then read each
 * into results made for exactly those, in the file's order. */
static int load_envs(ctx *c, yaml_node_t *root)
{
    yaml_node_t *n = require(c, root, "environments", "the results file");
    if (!n || want(c, n, YAML_MAPPING_NODE, "environments"))
        return -1;
    size_t len = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    int *idx = malloc((len ? len : 1) * sizeof *idx);
    char *seen = calloc(c->f->n_envs ? c->f->n_envs : 1, 1);
    int rc = idx && seen ? 0 : px_error_oom(c->err, c->path);
    for (size_t i = 0; !rc && i < len; i++)
        if (!(rc = env_key_index(c, n, i, seen, &idx[i])))
            seen[idx[i]] = 1;
    px_results *r = rc ? NULL : results_new(c->f, idx, len);
    free(idx), free(seen);
    if (rc)
        return -1;
    if (!r)
        return px_error_oom(c->err, c->path);
    /* Warnings gathered so far move over. */
    r->warnings = c->r->warnings, r->n_warnings = c->r->n_warnings;
    c->r->warnings = NULL, c->r->n_warnings = 0;
    results_free(c->r);
    c->r = r;
    yaml_node_t *top = get(c, root, "labels");
    for (size_t i = 0; i < len; i++)
        if (load_env(c, node_at(c, n->data.mapping.pairs.start[i].value), top, &r->envs[i]))
            return -1;
    return 0;
}

static int load_reference(ctx *c, yaml_node_t *root, px_results *r)
{
    yaml_node_t *n = get(c, root, "reference");
    r->reference = -1;
    if (!n || is_null(n))
        return 0;
    if (node_str(c, n, "reference", 1, NULL))
        return -1;
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, scalar(n))) {
            r->reference = (int)i;
            return 0;
        }
    return fail_at(c, n, "reference '%s' is not an environment in this file", scalar(n));
}

/* Checked for shape only: the fixture may have gained review decisions
 * since the run, so a different sha256 is no reason to refuse the file (the
 * contract fingerprint is what is compared). */
static int check_fixture(ctx *c, yaml_node_t *root)
{
    static const char *const keys[] = {"path", "sha256", NULL};
    yaml_node_t *n = get(c, root, "fixture"), *l = get(c, root, "labels");
    if (n && (want(c, n, YAML_MAPPING_NODE, "fixture") || check_keys(c, n, "fixture", keys) ||
              get_str(c, n, "path", "fixture", 0, NULL) || get_str(c, n, "sha256", "fixture", 0, NULL)))
        return -1;
    return l ? check_str_list(c, l, "labels") : 0;
}

/* The file's model kind (kind: embedding from format 6 on, kind: image
 * from 7; a file without it is a classifier's or a generator's, as its
 * outputs say) against the contract's: results of another kind of task are
 * refused whole, in one line, before any example is read as what it is
 * not. */
static int check_kind(ctx *c, yaml_node_t *root)
{
    yaml_node_t *k = get(c, root, "kind");
    int since = results_schema_since(&px_rs_top, "kind");
    if (k && c->version < since)
        return fail_at(c, k, "kind is written from format %d on, this file says %d", since, c->version);
    if (k && node_str(c, k, "kind", 1, NULL))
        return -1;
    const px_kind *fk = k ? kind_named(scalar(k)) : NULL, *want_k = kind_of(c->f);
    if (k && (!fk || fk->results_format < PX_RESULTS_EMBEDDING))
        return fail_at(c, k, "kind: '%s' is not a kind a results file says (embedding, image or training; a classifier's or a "
                             "generator's file has none)",
                       scalar(k));
    if (fk && c->version < fk->results_format)
        return fail_at(c, k, "kind: %s is written from format %d on, this file says %d", fk->name, fk->results_format,
                       c->version);
    int says = want_k->results_format >= PX_RESULTS_EMBEDDING;
    if (fk && fk != want_k)
        return fail_at(c, k, "%s's results (kind: %s), but the contract's model is %s (contract.model.kind): results "
                             "of another task",
                       fk->article, fk->name, kind_name(c->f->kind));
    if (!fk && says)
        return fail_at(c, get(c, root, "parity_results"),
                       "a classifier's or a generator's results (format %d, no kind: %s), but the contract's model is "
                       "%s (contract.model.kind): results of another task",
                       c->version, want_k->name, want_k->article);
    return 0;
}

/* The version first: a fixture or other YAML given by mistake should be
 * named as such, not reported as a pile of unknown keys; a file from a
 * newer parity is refused by name, never half read. */
static int check_version(ctx *c, yaml_node_t *root)
{
    if (want(c, root, YAML_MAPPING_NODE, "a results file"))
        return -1;
    yaml_node_t *v = get(c, root, "parity_results");
    if (!v)
        return fail_at(c, root, "not a parity results file (no parity_results: %d)", PX_RESULTS_VERSION);
    const char *s = v->type == YAML_SCALAR_NODE ? scalar(v) : "";
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !*s || *end || errno ||
        n < 1)
        return fail_at(c, v, "parity_results: %s is not a results format version (a whole number; this program "
                             "reads %d to %d)",
                       v->type == YAML_SCALAR_NODE ? s : ydoc_type_name(v->type), PX_RESULTS_OLDEST, PX_RESULTS_VERSION);
    if (n > PX_RESULTS_VERSION)
        return fail_at(c, v, "results format %ld is newer than this parity reads (%d): upgrade parity to read it", n,
                       PX_RESULTS_VERSION);
    c->version = (int)n;
    return check_kind(c, root);
}

/* Each part of the contract that changed since an environment was recorded,
 * and each example whose definition changed, said before judging; the
 * recorded outputs are judged with the contract as it is now. */
static void warn_changes(ctx *c, px_results *r)
{
    px_fingerprint now;
    int have_now = 0; /* computed when first needed: it hashes every example */
    for (size_t i = 0; i < r->n_envs; i++) {
        px_env_result *e = &r->envs[i];
        if (c->version < 2 || !e->recorded.part[0][0]) {
            results_warn(r, "%s: environment '%s' was recorded without a contract fingerprint (results format %d): "
                            "a change to the contract since then cannot be detected",
                         c->path, e->name, c->version);
            continue;
        }
        if (!have_now)
            fingerprint_contract(c->f, &now), have_now = 1;
        for (int p = 0; p < PX_PART_COUNT; p++)
            if (p != PX_PART_EXAMPLES && strcmp(e->recorded.part[p], now.part[p]))
                results_warn(r, "%s: contract.%s changed since environment '%s' was recorded (%s): judged with the "
                                "current contract",
                             c->path, fingerprint_part_name((px_part)p), e->name, fingerprint_part_meaning((px_part)p));
        if (!strcmp(e->recorded.part[PX_PART_EXAMPLES], now.part[PX_PART_EXAMPLES]))
            continue;
        size_t changed = 0, named = 0;
        char list[512] = "";
        for (size_t k = 0; k < r->n_examples; k++) {
            char def[PX_SHA256_HEX], had[PX_SHA256_HEX];
            if (!e->ex[k].has_def)
                continue;
            fingerprint_example(c->f, k, def);
            hash_to_hex(e->ex[k].def_sha256, had);
            if (strcmp(def, had) && ++changed && named < 5 && strlen(list) < 400)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%.60s'", named++ ? ", " : "",
                         c->f->examples[k].id);
        }
        if (changed)
            results_warn(r, "%s: %zu example%s changed since environment '%s' was recorded (%s%s; id, kind, text, "
                            "expectation or tolerance): judged with the current contract",
                         c->path, changed, changed == 1 ? "" : "s", e->name, list, changed > named ? ", ..." : "");
        else
            results_warn(r, "%s: the examples changed since environment '%s' was recorded (added, removed or "
                            "reordered): judged with the current contract",
                         c->path, e->name);
    }
}

/* shard: "I/N" (format 4): the file holds the examples of shard I only. */
static int load_shard(ctx *c, yaml_node_t *root)
{
    yaml_node_t *n = get(c, root, "shard");
    char msg[200];
    if (!n)
        return 0;
    int since = results_schema_since(&px_rs_top, "shard");
    if (c->version < since)
        return fail_at(c, n, "results format %d has no shard: (it came with format %d)", c->version, since);
    if (node_str(c, n, "shard", 1, NULL))
        return -1;
    if (shard_parse(scalar(n), &c->shard, msg, sizeof msg))
        return fail_at(c, n, "shard: '%s': %s", scalar(n), msg);
    c->shard.line = (int)n->start_mark.line + 1, c->shard.col = (int)n->start_mark.column + 1;
    return 0;
}

static int load_one_source(ctx *c, yaml_node_t *n, px_merged_from *m)
{
    char msg[200];
    if (want(c, n, YAML_MAPPING_NODE, "an entry of merged_from") ||
        check_record(c, n, "an entry of merged_from", &px_rs_merged_from) ||
        get_str(c, n, "file", "merged_from", 1, &m->file) ||
        fields_read(c, n, "merged_from", &px_rs_merged_from, m, "host", "started_at"))
        return -1;
    yaml_node_t *s = require(c, n, "shard", "an entry of merged_from");
    if (!s || node_str(c, s, "merged_from.shard", 1, NULL))
        return -1;
    if (shard_parse(scalar(s), &m->shard, msg, sizeof msg))
        return fail_at(c, s, "merged_from.shard: '%s': %s", scalar(s), msg);
    return 0;
}

/* merged_from: (format 4) the shard files parity merge joined; a record
 * of where the results came from, not judged. */
static int load_merged_from(ctx *c, yaml_node_t *root)
{
    yaml_node_t *n = get(c, root, "merged_from");
    if (!n)
        return 0;
    int since = results_schema_since(&px_rs_top, "merged_from");
    if (c->version < since)
        return fail_at(c, n, "results format %d has no merged_from: (it came with format %d)", c->version, since);
    if (c->shard.count)
        return fail_at(c, n, "a shard file is not merged: shard: and merged_from: do not go together");
    if (want(c, n, YAML_SEQUENCE_NODE, "merged_from"))
        return -1;
    size_t len = seq_len(n);
    if (!(c->r->merged_from = calloc(len ? len : 1, sizeof *c->r->merged_from)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < len; i++) {
        c->r->n_merged_from++;
        if (load_one_source(c, seq_at(c, n, i), &c->r->merged_from[i]))
            return -1;
    }
    return 0;
}

static int load_root(ctx *c)
{
    yaml_node_t *root = yaml_document_get_root_node(&c->doc);
    if (check_version(c, root) || check_record(c, root, "the results file", &px_rs_top) || load_shard(c, root) ||
        check_fixture(c, root) || load_envs(c, root) || load_reference(c, root, c->r) || load_merged_from(c, root))
        return -1;
    c->r->shard = c->shard;
    warn_changes(c, c->r);
    return 0;
}

/* Reading a results file as it streams (ydoc_load_stream): an
 * environment's examples are read one at a time into a `streamed`, with the
 * label map and shard the file gave before them, and the document keeps
 * the rest. That reading stands for the whole one only when the label map
 * and shard turn out to be the ones load_env reads: otherwise (a file
 * written in another order), and whenever the file is not plain YAML, it
 * is read again whole, which says exactly what is wrong. */

static void streamed_clear(streamed *s, size_t n_examples)
{
    for (size_t k = 0; s->ex && k < n_examples; k++)
        example_result_clear(&s->ex[k]);
    free(s->ex);
    free(s->seen);
    for (size_t i = 0; i < s->n_labels; i++)
        free(s->labels[i]);
    free(s->labels);
    for (size_t i = 0; i < s->n_warnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    free(s->name);
    memset(s, 0, sizeof *s);
}

/* The streamed examples become e's, their warnings said now. -1 (again)
 * when they were read with another label map or shard than e's. */
static int take_streamed(ctx *c, streamed *s, px_env_result *e, char **seen)
{
    int same = s->n_labels == e->n_labels && s->shard.count == c->shard.count && s->shard.index == c->shard.index;
    for (size_t i = 0; same && i < e->n_labels; i++)
        same = !strcmp(s->labels[i], e->labels[i]);
    if (!same) {
        c->again = 1;
        return px_error_set(c->err, PX_ERR_MALFORMED, c->path, 0, 0, "read again whole");
    }
    for (size_t k = 0; k < c->r->n_examples; k++)
        example_result_clear(&e->ex[k]);
    free(e->ex);
    e->ex = s->ex, *seen = s->seen;
    s->ex = NULL, s->seen = NULL;
    for (size_t i = 0; i < s->n_warnings; i++)
        results_warn(c->r, "%s", s->warnings[i]);
    return 0;
}

/* The label map a streamed environment's examples are read with: its own
 * labels: when given before them, else the file's; NULL when neither is a
 * plain list of names (the examples then stay in the document). */
static yaml_node_t *stream_labels(yaml_document_t *d, yaml_node_t *root, yaml_node_t *env)
{
    yaml_node_t *l = ydoc_get(d, env, "labels");
    if (!l)
        l = ydoc_get(d, root, "labels");
    if (!l || l->type != YAML_SEQUENCE_NODE)
        return NULL;
    for (yaml_node_item_t *i = l->data.sequence.items.start; i < l->data.sequence.items.top; i++) {
        yaml_node_t *n = yaml_document_get_node(d, *i);
        if (n->type != YAML_SCALAR_NODE || ydoc_is_null(n) || strlen(scalar(n)) != n->data.scalar.length)
            return NULL;
    }
    return l;
}

static int stream_take(void *vc, yaml_document_t *d, int map, int key, size_t pos)
{
    ctx *c = vc;
    if (pos >= c->n_st) {
        size_t n = pos + 8;
        streamed *st = realloc(c->st, n * sizeof *st);
        if (!st)
            return -1;
        memset(st + c->n_st, 0, (n - c->n_st) * sizeof *st);
        c->st = st, c->n_st = n;
    }
    streamed *s = &c->st[pos];
    if (s->taken)
        return s->map != map ? -1 : s->taken == 1; /* another mapping at pos: a key twice; read whole */
    s->taken = -1, s->map = map;
    yaml_node_t *k = yaml_document_get_node(d, key);
    if (!k || k->type != YAML_SCALAR_NODE || !(s->name = strdup(scalar(k))))
        return k && k->type == YAML_SCALAR_NODE ? -1 : 0;
    yaml_node_t *root = yaml_document_get_root_node(d), *sh = ydoc_get(d, root, "shard");
    yaml_node_t *l = stream_labels(d, root, yaml_document_get_node(d, map));
    /* The examples are read with the file's format (a generator's
     * generated: needs 5), so it must come before them; else they stay in
     * the document and check_version is read first. */
    yaml_node_t *ver = ydoc_get(d, root, "parity_results");
    char msg[200], *vend = NULL;
    long version = ver && ver->type == YAML_SCALAR_NODE ? strtol(scalar(ver), &vend, 10) : 0;
    if (!vend || *vend || version < PX_RESULTS_OLDEST || version > PX_RESULTS_VERSION)
        return 0;
    c->version = (int)version;
    if (!l || (sh && (sh->type != YAML_SCALAR_NODE || shard_parse(scalar(sh), &s->shard, msg, sizeof msg))))
        return 0;
    size_t nl = (size_t)(l->data.sequence.items.top - l->data.sequence.items.start), nx = c->f->n_examples;
    s->labels = calloc(nl ? nl : 1, sizeof *s->labels);
    s->ex = calloc(nx ? nx : 1, sizeof *s->ex);
    s->seen = calloc(nx ? nx : 1, 1);
    if (!s->labels || !s->ex || !s->seen)
        return -1;
    for (; s->n_labels < nl; s->n_labels++)
        if (!(s->labels[s->n_labels] =
                  strdup(scalar(yaml_document_get_node(d, l->data.sequence.items.start[s->n_labels])))))
            return -1;
    for (size_t k = 0; k < nx; k++)
        s->ex[k].label = -1, s->ex[k].forward_ms = -1;
    const px_env *fe = c->expect_fn ? fixture_env(c->f, s->name) : NULL;
    if (fe)
        s->expect = c->expect_fn(c->expect_arg, (int)(fe - c->f->envs));
    s->taken = 1;
    return 1;
}

static int stream_item(void *vc, yaml_document_t *item, size_t pos, px_error *err)
{
    (void)err;
    ctx *c = vc, ic = *c;
    streamed *s = &c->st[pos];
    if (s->failed)
        return 0; /* only the first error is said */
    /* The environment's name as load_env words it: the fixture's spelling
     * of the key (its environments are matched by name). */
    const char *name = s->name;
    px_results scratch = {0};
    px_env_result e = {.labels = s->labels, .n_labels = s->n_labels, .ex = s->ex};
    char what[300];
    snprintf(what, sizeof what, "environment '%.200s'", name);
    ic.doc = *item, ic.err = &s->err, ic.r = &scratch, ic.shard = s->shard, ic.expect = s->expect;
    s->failed = load_example(&ic, yaml_document_get_root_node(item), &e, what, s->seen) != 0;
    if (scratch.n_warnings) {
        char **w = realloc(s->warnings, (s->n_warnings + scratch.n_warnings) * sizeof *w);
        if (!w) {
            s->failed = 1;
            px_error_oom(&s->err, c->path);
        } else {
            s->warnings = w;
            memcpy(w + s->n_warnings, scratch.warnings, scratch.n_warnings * sizeof *w);
            s->n_warnings += scratch.n_warnings;
            scratch.n_warnings = 0;
        }
    }
    for (size_t i = 0; i < scratch.n_warnings; i++)
        free(scratch.warnings[i]);
    free(scratch.warnings);
    return 0;
}

/* 1 when the file must be read whole instead; else the results, or NULL
 * with *err. */
static int parse_streamed(const char *path, FILE *fp, const char *data, size_t len, const px_fixture *f,
                          px_expect_fn expect, void *arg, px_error *err, px_results **out)
{
    ctx c = {.path = path, .f = f, .err = err, .r = calloc(1, sizeof *c.r), .expect_fn = expect, .expect_arg = arg};
    *out = NULL;
    if (!c.r) {
        px_error_oom(err, path);
        return 0;
    }
    ydoc_divert dv = {"environments/*/examples", stream_take, stream_item, &c};
    int rc = ydoc_load_stream(path, fp, data, len, "results file", &c.doc, &dv, err);
    if (!rc) {
        rc = load_root(&c);
        yaml_document_delete(&c.doc);
    }
    for (size_t i = 0; i < c.n_st; i++)
        streamed_clear(&c.st[i], f->n_examples);
    free(c.st);
    if (rc) {
        results_free(c.r);
        return rc == YDOC_AGAIN || c.again;
    }
    *out = c.r;
    return 0;
}

static px_results *parse_whole(const char *path, const char *data, size_t len, const px_fixture *f, px_error *err)
{
    ctx c = {.path = path, .f = f, .err = err, .r = calloc(1, sizeof *c.r)};
    if (!c.r) {
        px_error_oom(err, path);
        return NULL;
    }
    int rc = ydoc_load(path, data, len, "results file", &c.doc, err);
    if (!rc) {
        rc = load_root(&c);
        yaml_document_delete(&c.doc);
    }
    if (rc) {
        results_free(c.r);
        return NULL;
    }
    return c.r;
}

px_results *results_load(const char *path, const px_fixture *f, px_error *err)
{
    return results_load_with(path, f, NULL, NULL, err);
}

px_results *results_load_with(const char *path, const px_fixture *f, px_expect_fn expect, void *arg,
                              px_error *err)
{
    /* Streamed from the file when it is a plain file within the limit;
     * anything else is read whole, and refused as ydoc_read says. */
    FILE *fp = fopen(path, "rb");
    struct stat st;
    size_t limit = ydoc_max_bytes("results file");
    if (fp && !fstat(fileno(fp), &st) && S_ISREG(st.st_mode) && (size_t)st.st_size <= limit) {
        px_results *r;
        int again = parse_streamed(path, fp, NULL, 0, f, expect, arg, err, &r);
        fclose(fp);
        if (!again)
            return r;
        *err = (px_error){0};
    } else if (fp) {
        fclose(fp);
    }
    size_t len = 0;
    char *data = ydoc_read(path, "results file", &len, err);
    if (!data)
        return NULL;
    px_results *r = parse_whole(path, data, len, f, err);
    free(data);
    return r;
}

px_results *results_parse(const char *path, const char *data, size_t len, const px_fixture *f, px_error *err)
{
    px_results *r;
    if (!parse_streamed(path, NULL, data, len, f, NULL, NULL, err, &r))
        return r;
    *err = (px_error){0};
    return parse_whole(path, data, len, f, err);
}
