#define _POSIX_C_SOURCE 200809L
#include "parity/ydoc.h"
#include "parity/fixture.h"
#include "parity/hf_read.h"
#include "parity/decision.h"
#include "parity/redact.h"
#include "parity/envrec.h"
#include "parity/strmap.h"
#include "parity/utf8.h"
#include "parity/proto.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <yaml.h>

/* The latents an example records at most: PX_IMAGE_MAX_RECORDED
 * (results.h, a layer above; tests/test_fixture.c holds them equal). */
#define FIXTURE_IMAGE_MAX_RECORDED 256

/* Loading walks libyaml's document tree; every accessor takes the node so an
 * error can point at it. libyaml marks are 0-based and count characters,
 * which is what a reader's editor shows as the column. */
typedef struct ctx {
    const char *path;
    yaml_document_t doc;
    px_error *err;
    px_fixture *f;
    /* Streamed (fixture_parse): the examples are read as they come, after
     * the head (version, contract, environments) was read from the part of
     * the document before them; an example's first error is said in
     * load_examples' turn, as reading the whole document says it. */
    int taken;         /* 1: streamed; -1: not */
    int for_lint;      /* fixture_parse_lint: what lint says itself (an
                          unknown label, a tokenizer it cannot read) does not
                          stop the load */
    int failed;
    px_error ex_err;
    size_t cap_examples;
} ctx;

static yaml_node_t *node_at(ctx *c, int id) { return yaml_document_get_node(&c->doc, id); }

static px_loc loc_of(const yaml_node_t *n)
{
    px_loc l = {(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
    return l;
}

static int fail_at(ctx *c, const yaml_node_t *n, const char *fmt, const char *a, const char *b)
{
    char msg[768];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    px_loc l = n ? loc_of(n) : (px_loc){0, 0};
    return px_error_set(c->err, PX_ERR_MALFORMED, c->path, l.line, l.col, "%s", msg);
}

static int want(ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *what)
{
    return ydoc_want(c->path, n, t, what, c->err);
}

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

/* An expect that is not a mapping: say the forms it takes (`expect:
 * reject` is the natural first guess, and "must be a mapping" alone does
 * not say what to write). */
static int want_expect(ctx *c, const yaml_node_t *n, const char *forms)
{
    if (n->type == YAML_MAPPING_NODE)
        return 0;
    return px_error_set(c->err, PX_ERR_MALFORMED, c->path, (int)n->start_mark.line + 1,
                        (int)n->start_mark.column + 1, "expect must be a mapping, not %s: write it as %s",
                        ydoc_type_name(n->type), forms);
}

static int check_keys(ctx *c, yaml_node_t *map, const char *what, const char *const *allowed)
{
    return ydoc_check_keys(&c->doc, c->path, map, what, allowed, c->err);
}

static yaml_node_t *get(ctx *c, yaml_node_t *map, const char *key) { return ydoc_get(&c->doc, map, key); }

static yaml_node_t *require(ctx *c, yaml_node_t *map, const char *key, const char *what)
{
    return ydoc_require(&c->doc, c->path, map, key, what, c->err);
}

/* A scalar as a string; *out stays NULL when the key is absent. */
static int get_str(ctx *c, yaml_node_t *map, const char *key, const char *what, int required, char **out)
{
    yaml_node_t *n = required ? require(c, map, key, what) : get(c, map, key);
    if (!n)
        return required ? -1 : 0;
    char w[256];
    snprintf(w, sizeof w, "%s.%s", what, key);
    if (want(c, n, YAML_SCALAR_NODE, w))
        return -1;
    if (strlen(scalar(n)) != n->data.scalar.length)
        return fail_at(c, n, "%s contains a NUL character%s", w, "");
    *out = strdup(scalar(n));
    return *out ? 0 : px_error_oom(c->err, c->path);
}

static int get_num(ctx *c, yaml_node_t *map, const char *key, const char *what, double lo, double hi,
                   int integer, double *out)
{
    yaml_node_t *n = get(c, map, key);
    if (!n)
        return 0;
    char w[256];
    snprintf(w, sizeof w, "%s.%s", what, key);
    if (want(c, n, YAML_SCALAR_NODE, w))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(scalar(n), &end);
    if (end == scalar(n) || *end || errno || !isfinite(v) || (integer && v != floor(v)))
        return fail_at(c, n, "%s must be %s", w, integer ? "a whole number" : "a number");
    if (v < lo || v > hi) {
        char m[128];
        snprintf(m, sizeof m, "between %g and %g", lo, hi);
        return fail_at(c, n, "%s must be %s", w, m);
    }
    *out = v;
    return 0;
}

static int get_bool(ctx *c, yaml_node_t *map, const char *key, const char *what, int *out)
{
    yaml_node_t *n = get(c, map, key);
    if (!n)
        return 0;
    char w[256];
    snprintf(w, sizeof w, "%s.%s", what, key);
    if (want(c, n, YAML_SCALAR_NODE, w))
        return -1;
    if (!strcmp(scalar(n), "true"))
        *out = 1;
    else if (!strcmp(scalar(n), "false"))
        *out = 0;
    else
        return fail_at(c, n, "%s must be true or false, not '%s'", w, scalar(n));
    return 0;
}

static int is_one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (!strcmp(s, *set))
            return 1;
    return 0;
}

/* A list of scalars into a NULL-terminated-free array of strings. */
static int get_str_list(ctx *c, yaml_node_t *n, const char *what, char ***out, size_t *count)
{
    if (want(c, n, YAML_SEQUENCE_NODE, what))
        return -1;
    size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    *out = calloc(len ? len : 1, sizeof **out);
    if (!*out)
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *it = node_at(c, n->data.sequence.items.start[i]);
        if (want(c, it, YAML_SCALAR_NODE, what))
            return -1;
        (*out)[i] = strdup(scalar(it));
        (*count)++;
    }
    return 0;
}

static char *resolve(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir[0])
        return strdup(rel);
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

/* An optional pinned revision: 64 hex digits when present. */
static int get_sha(ctx *c, yaml_node_t *map, const char *what, char **out, px_loc *loc)
{
    if (get_str(c, map, "sha256", what, 0, out))
        return -1;
    yaml_node_t *sha = get(c, map, "sha256");
    if (!sha)
        return 0;
    *loc = loc_of(sha);
    if (hash_is_sha256(*out))
        return 0;
    char w[200];
    snprintf(w, sizeof w, "%s.sha256", what);
    return fail_at(c, sha, "%s must be 64 hex digits, not '%s'", w, *out);
}

const char *fixture_format_name(enum px_model_format fmt)
{
    return fmt == PX_FORMAT_EXPORT         ? "export"
           : fmt == PX_FORMAT_TRANSFORMERS ? "transformers"
           : fmt == PX_FORMAT_DIFFUSERS    ? "diffusers"
                                           : "torchscript";
}

int fixture_env_format_refused(const px_env *e, char *msg, size_t size, px_loc *at)
{
    if (e->python || !e->device || e->model_format == PX_FORMAT_TORCHSCRIPT)
        return 0;
    *at = e->executor_loc.line ? e->executor_loc : e->loc;
    snprintf(msg, size,
             "environment '%s' would run %s (format: %s, line %d) with executor libtorch: parity-torch loads "
             "TorchScript only; use executor: python",
             e->name,
             e->model_format == PX_FORMAT_EXPORT      ? "a torch.export program"
             : e->model_format == PX_FORMAT_DIFFUSERS ? "a Diffusers pipeline directory"
                                                      : "a Transformers model directory",
             fixture_format_name(e->model_format), e->model_format_loc.line);
    return 1;
}

static void free_model_files(px_model_file *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name), free(v[i].sha256);
    free(v);
}

static int pins_read(ctx *c, yaml_node_t *n, const char *w, px_model_file *out, size_t *count, px_strmap *seen,
                     int pipeline);

/* files: {NAME: SHA256, ...}: a Transformers directory's pins, each a plain
 * file name, once, with 64 hex digits; a Diffusers pipeline's (pipeline)
 * also name the files of its component folders, as "vae/config.json". */
static int load_model_files(ctx *c, yaml_node_t *n, const char *what, px_model_file **out, size_t *count,
                            int pipeline)
{
    char w[200];
    snprintf(w, sizeof w, "%s.files", what);
    if (want(c, n, YAML_MAPPING_NODE, w))
        return -1;
    size_t len = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (!len)
        return fail_at(c, n, "%s is empty: pin each file of the model directory (config.json, *.safetensors, ...)%s",
                       w, NULL);
    if (!(*out = calloc(len, sizeof **out)))
        return px_error_oom(c->err, c->path);
    /* Names seen, in a hash map: a hostile fixture's many pins stay linear. */
    px_strmap *seen = strmap_new(len);
    if (!seen)
        return px_error_oom(c->err, c->path);
    int rc = pins_read(c, n, w, *out, count, seen, pipeline);
    strmap_free(seen);
    return rc;
}

/* A pin's name in a Diffusers pipeline directory: a file of it, or of one
 * of its component folders ("vae/config.json"): relative, one folder deep
 * at most, no empty, "." or ".." part. */
static int pipeline_name_ok(const char *name)
{
    const char *slash = strchr(name, '/');
    if (!slash)
        return 1;
    size_t head = (size_t)(slash - name);
    const char *tail = slash + 1;
    return head && *tail && !strchr(tail, '/') && !(head == 1 && name[0] == '.') &&
           !(head == 2 && !strncmp(name, "..", 2)) && strcmp(tail, ".") && strcmp(tail, "..");
}

static int pins_read(ctx *c, yaml_node_t *n, const char *w, px_model_file *out, size_t *count, px_strmap *seen,
                     int pipeline)
{
    size_t len = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    int has_config = 0, has_weights = 0, has_scheduler = 0;
    for (size_t i = 0; i < len; i++) {
        yaml_node_pair_t *p = &n->data.mapping.pairs.start[i];
        yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
        if (want(c, k, YAML_SCALAR_NODE, w) || want(c, v, YAML_SCALAR_NODE, w))
            return -1;
        const char *name = scalar(k), *hex = scalar(v);
        if (pipeline && (!*name || !strcmp(name, ".") || !strcmp(name, "..") || !pipeline_name_ok(name) ||
                         strlen(name) != k->data.scalar.length))
            return fail_at(c, k, "%s: '%s' is not a file of the pipeline directory (NAME or FOLDER/NAME: "
                                 "from_pretrained reads the directory's files and its components' folders)",
                           w, name);
        if (!pipeline && (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
                          strlen(name) != k->data.scalar.length))
            return fail_at(c, k, "%s: '%s' is not a file name in the model directory (no '/': from_pretrained reads "
                                 "the directory's own files)",
                           w, name);
        if (!hash_is_sha256(hex))
            return fail_at(c, v, "%s: the pin of '%s' must be 64 hex digits", w, name);
        px_loc l = loc_of(v);
        out[i] = (px_model_file){strdup(name), strdup(hex), l.line, l.col};
        (*count)++;
        if (!out[i].name || !out[i].sha256)
            return px_error_oom(c->err, c->path);
        int dup = strmap_put(seen, out[i].name, (long)i, NULL);
        if (dup < 0)
            return px_error_oom(c->err, c->path);
        if (dup)
            return fail_at(c, k, "%s: '%s' is pinned twice", w, name);
        size_t nl = strlen(name);
        has_config |= !strcmp(name, pipeline ? "model_index.json" : "config.json");
        has_scheduler |= !strcmp(name, "scheduler/scheduler_config.json");
        has_weights |= nl > 12 && !strcmp(name + nl - 12, ".safetensors");
    }
    if (pipeline && !has_config)
        return fail_at(c, n, "%s pins no model_index.json: a Diffusers pipeline directory is read from it (its "
                             "components and their classes)%s",
                       w, NULL);
    if (pipeline && !has_scheduler)
        return fail_at(c, n, "%s pins no scheduler/scheduler_config.json: the scheduler's settings are part of what "
                             "the contract fixes (contract.image.scheduler is checked against it)%s",
                       w, NULL);
    if (!has_config)
        return fail_at(c, n, "%s pins no config.json: from_pretrained reads it first%s", w, NULL);
    if (!has_weights)
        return fail_at(c, n, "%s pins no *.safetensors: parity loads weights from safetensors only, never a pickled "
                             ".bin%s",
                       w, NULL);
    return 0;
}

/* A model mapping's format, and its pins: sha256 for a file, files: for a
 * Transformers directory (whose sha256 is then the pins' digest). */
static int load_model_pins(ctx *c, yaml_node_t *m, const char *what, enum px_model_format *fmt, px_loc *fmt_loc,
                           char **sha, px_loc *sha_loc, px_model_file **files, size_t *n_files)
{
    static const char *const formats[] = {"torchscript", "export", "transformers", "diffusers", NULL};
    char *name = NULL;
    if (get_str(c, m, "format", what, 0, &name))
        return -1;
    yaml_node_t *fn = get(c, m, "format");
    *fmt_loc = fn ? loc_of(fn) : loc_of(m);
    int bad = name && !is_one_of(name, formats);
    *fmt = !name                          ? PX_FORMAT_TORCHSCRIPT
           : !strcmp(name, "export")       ? PX_FORMAT_EXPORT
           : !strcmp(name, "transformers") ? PX_FORMAT_TRANSFORMERS
           : !strcmp(name, "diffusers")    ? PX_FORMAT_DIFFUSERS
                                           : PX_FORMAT_TORCHSCRIPT;
    free(name);
    if (bad)
        return fail_at(c, fn, "%s.format must be torchscript, export, transformers or diffusers, not '%s'", what,
                       scalar(fn));
    /* A pipeline draws pictures; a model of another format gives tensors:
     * the kind and the format go together both ways. */
    int image = c->f->kind == PX_MODEL_IMAGE, pipeline = *fmt == PX_FORMAT_DIFFUSERS;
    if (image != pipeline)
        return fail_at(c, fn ? fn : m,
                       image ? "%s: contract.model.kind image runs a Diffusers pipeline directory: say format: "
                               "diffusers%s"
                             : "%s.format diffusers is a Diffusers pipeline, which draws images: say contract.model.kind: "
                               "image%s",
                       what, "");
    yaml_node_t *fl = get(c, m, "files");
    if (*fmt != PX_FORMAT_TRANSFORMERS && !pipeline) {
        if (fl)
            return fail_at(c, fl, "%s.files is for format: transformers or diffusers (a model directory); %s is "
                                  "pinned by sha256",
                           what, *fmt == PX_FORMAT_EXPORT ? "an exported program" : "a TorchScript file");
        return get_sha(c, m, what, sha, sha_loc);
    }
    yaml_node_t *sn = get(c, m, "sha256");
    if (sn)
        return fail_at(c, sn, "%s: a %s directory is pinned file by file (files: {NAME: SHA256, ...}), not by one "
                              "sha256",
                       what, pipeline ? "Diffusers pipeline" : "Transformers");
    if (!fl)
        return 0; /* unpinned: lint says so, run refuses it */
    if (load_model_files(c, fl, what, files, n_files, pipeline))
        return -1;
    *sha_loc = loc_of(fl);
    if (!(*sha = malloc(PX_SHA256_HEX)))
        return px_error_oom(c->err, c->path);
    modeldir_digest(*files, *n_files, *sha);
    return **sha ? 0 : px_error_oom(c->err, c->path);
}

static px_model_file *copy_model_files(const px_model_file *v, size_t n)
{
    px_model_file *out = calloc(n ? n : 1, sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        out[i] = (px_model_file){strdup(v[i].name), strdup(v[i].sha256), v[i].line, v[i].col};
    return out;
}

/* An embedding's model keys (dim required; pooling, normalize), refused
 * on another kind's model at their place. */
static int load_embedding(ctx *c, yaml_node_t *m)
{
    px_fixture *f = c->f;
    static const char *const ekeys[] = {"pooling", "normalize", "dim", NULL};
    if (f->kind != PX_MODEL_EMBEDDING) {
        for (int i = 0; ekeys[i]; i++)
            if (get(c, m, ekeys[i]))
                return fail_at(c, get(c, m, ekeys[i]),
                               "contract.model.%s is for an embedding (contract.model.kind: embedding)%s", ekeys[i],
                               "");
        return 0;
    }
    yaml_node_t *dn = require(c, m, "dim", "contract.model (kind embedding: the vector's width, e.g. dim: 384)");
    double dim = 0;
    if (!dn || get_num(c, m, "dim", "contract.model", 1, 1 << 20, 1, &dim))
        return -1;
    f->dim = (int)dim;
    char *pool = NULL;
    if (get_str(c, m, "pooling", "contract.model", 0, &pool))
        return -1;
    f->pooling = !pool || !strcmp(pool, "none") ? PX_POOL_NONE : !strcmp(pool, "mean") ? PX_POOL_MEAN
                 : !strcmp(pool, "cls")         ? PX_POOL_CLS
                                                : (enum px_pooling)-1;
    free(pool);
    if ((int)f->pooling < 0)
        return fail_at(c, get(c, m, "pooling"), "contract.model.pooling must be mean, cls or none, not '%s'%s",
                       scalar(get(c, m, "pooling")), "");
    return get_bool(c, m, "normalize", "contract.model", &f->normalize);
}

const char *fixture_pooling_name(enum px_pooling p)
{
    return p == PX_POOL_MEAN ? "mean" : p == PX_POOL_CLS ? "cls" : "none";
}

static int load_model(ctx *c, yaml_node_t *contract)
{
    px_fixture *f = c->f;
    static const char *const keys[] = {"path",   "sha256", "inputs",  "output",    "kind",
                                       "format", "files",  "pooling", "normalize", "dim", NULL};
    yaml_node_t *m = require(c, contract, "model", "contract");
    if (!m || want(c, m, YAML_MAPPING_NODE, "contract.model") || check_keys(c, m, "contract.model", keys))
        return -1;
    f->model_loc = loc_of(m);
    char *kind = NULL;
    if (get_str(c, m, "kind", "contract.model", 0, &kind))
        return -1;
    /* By name here, not kind_named(): kind.h includes fixture.h, and the
     * loader is one of the places a new kind is named (kind.h's list). */
    int bad = kind && strcmp(kind, "classifier") && strcmp(kind, "generator") && strcmp(kind, "embedding") &&
              strcmp(kind, "image") && strcmp(kind, "training");
    f->kind = !kind || bad                  ? PX_MODEL_CLASSIFIER
              : !strcmp(kind, "training")  ? PX_MODEL_TRAINING
              : !strcmp(kind, "generator") ? PX_MODEL_GENERATOR
              : !strcmp(kind, "embedding") ? PX_MODEL_EMBEDDING
              : !strcmp(kind, "image")     ? PX_MODEL_IMAGE
                                           : PX_MODEL_CLASSIFIER;
    free(kind);
    if (bad)
        return fail_at(c, get(c, m, "kind"),
                       "contract.model.kind must be classifier, generator, embedding, image or training, not '%s'%s",
                       scalar(get(c, m, "kind")), "");
    /* A pipeline's inputs are the DENOISE frame's, not a forward's. */
    static const char *const tensor_keys[] = {"inputs", "output", NULL};
    for (int i = 0; f->kind == PX_MODEL_IMAGE && tensor_keys[i]; i++)
        if (get(c, m, tensor_keys[i]))
            return fail_at(c, get(c, m, tensor_keys[i]),
                           "contract.model.%s is a forward's; an image's pipeline is called with the example's class "
                           "and contract.image's settings%s",
                           tensor_keys[i], "");
    for (int i = 0; f->kind == PX_MODEL_TRAINING && tensor_keys[i]; i++)
        if (get(c, m, tensor_keys[i]))
            return fail_at(c, get(c, m, tensor_keys[i]),
                           "contract.model.%s is a forward's; a training run calls the causal LM on its windows' "
                           "input_ids and takes the loss of the next tokens%s",
                           tensor_keys[i], "");
    if (load_embedding(c, m))
        return -1;
    char *path = NULL;
    if (get_str(c, m, "path", "contract.model", 1, &path))
        return -1;
    f->model_path = resolve(f->dir, path);
    f->model_path_loc = loc_of(get(c, m, "path"));
    free(path);
    if (load_model_pins(c, m, "contract.model", &f->model_format, &f->model_format_loc, &f->model_sha256,
                        &f->model_sha_loc, &f->model_files, &f->n_model_files))
        return -1;
    yaml_node_t *in = get(c, m, "inputs");
    if (in) {
        static const char *const names[] = {"input_ids", "attention_mask", "token_type_ids", NULL};
        if (get_str_list(c, in, "contract.model.inputs", &f->inputs, &f->n_inputs))
            return -1;
        for (size_t i = 0; i < f->n_inputs; i++)
            if (!is_one_of(f->inputs[i], names))
                return fail_at(c, node_at(c, in->data.sequence.items.start[i]),
                               "unknown model input '%s' (input_ids, attention_mask, token_type_ids)%s",
                               f->inputs[i], NULL);
        if (f->n_inputs == 0)
            return fail_at(c, in, "contract.model.inputs is empty%s%s", NULL, NULL);
    } else if (f->kind != PX_MODEL_IMAGE && f->kind != PX_MODEL_TRAINING) {
        f->inputs = calloc(2, sizeof *f->inputs);
        f->inputs[0] = strdup("input_ids");
        f->inputs[1] = strdup("attention_mask");
        f->n_inputs = 2;
        /* And token_type_ids where the forward's signature takes it (a
         * BERT-family classifier): a generator's GENERATE sends only these two. */
        f->inputs_auto = f->kind == PX_MODEL_CLASSIFIER;
    }
    if (get_str(c, m, "output", "contract.model", 0, &f->output))
        return -1;
    return 0;
}

static int load_rules(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"pattern", "replace", "why", NULL};
    if (want(c, n, YAML_SEQUENCE_NODE, "contract.input.clean"))
        return -1;
    size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    c->f->rules = calloc(len ? len : 1, sizeof *c->f->rules);
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *r = node_at(c, n->data.sequence.items.start[i]);
        px_clean_rule *rule = &c->f->rules[c->f->n_rules++];
        rule->loc = loc_of(r);
        if (want(c, r, YAML_MAPPING_NODE, "a cleaning rule") || check_keys(c, r, "a cleaning rule", keys) ||
            get_str(c, r, "pattern", "clean rule", 1, &rule->pattern) ||
            get_str(c, r, "replace", "clean rule", 1, &rule->replace) ||
            get_str(c, r, "why", "clean rule", 0, &rule->why))
            return -1;
    }
    return 0;
}

/* redact: a list of {pattern, why}; each pattern must compile, since what
 * leaves the machine depends on it. */
static int load_redact(ctx *c, yaml_node_t *root)
{
    static const char *const keys[] = {"pattern", "why", NULL};
    yaml_node_t *n = get(c, root, "redact");
    if (!n)
        return 0;
    if (want(c, n, YAML_SEQUENCE_NODE, "redact"))
        return -1;
    size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (!(c->f->redact = calloc(len ? len : 1, sizeof *c->f->redact)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *r = node_at(c, n->data.sequence.items.start[i]);
        px_redact_rule *rule = &c->f->redact[c->f->n_redact++];
        rule->loc = loc_of(r);
        if (want(c, r, YAML_MAPPING_NODE, "a redact pattern") || check_keys(c, r, "a redact pattern", keys) ||
            get_str(c, r, "pattern", "redact pattern", 1, &rule->pattern) ||
            get_str(c, r, "why", "redact pattern", 0, &rule->why))
            return -1;
        char msg[512];
        if (redact_check(rule->pattern, msg, sizeof msg))
            return fail_at(c, get(c, r, "pattern"), "redact pattern '%s': %s", rule->pattern, msg);
    }
    return 0;
}

/* A tokenizer.json parity cannot read (a component it does not implement,
 * a malformed truncation or padding, not JSON) is refused when the fixture is loaded, at the
 * line that names the file, not first at run: hf_read_check reads every
 * component without building the vocabulary's tables (milliseconds). A file
 * that is not there is left to lint and run, which say so. */
static int hf_file_check(ctx *c, const yaml_node_t *at, const char *path)
{
    px_error e = {0};
    if (c->for_lint || access(path, R_OK) != 0 || !hf_read_check(path, &e))
        return 0;
    char why[sizeof e.msg + 600];
    px_error_format(&e, why, sizeof why);
    return fail_at(c, at, "the tokenizer cannot be read: %.700s%s", why, "");
}

static int load_input(ctx *c, yaml_node_t *contract)
{
    px_fixture *f = c->f;
    static const char *const keys[] = {"clean", "tokenizer", "max_tokens", "pad_to", "empty", NULL};
    static const char *const tkeys[] = {"kind", "vocab", "file", "sha256", "lowercase", NULL};
    if (f->kind == PX_MODEL_IMAGE) {
        /* Nothing is cleaned or tokenised: the class is looked up in
         * contract.labels (a name not there is rejected, prepare.c). */
        yaml_node_t *in = get(c, contract, "input");
        return in ? fail_at(c, in, "an image's contract has no contract.input (no text, no tokenizer): its input is "
                                   "the example's class, one of contract.labels%s%s",
                            "", "")
                  : 0;
    }
    static const char *const train_keys[] = {"tokenizer", NULL};
    int training = f->kind == PX_MODEL_TRAINING;
    yaml_node_t *in = require(c, contract, "input", training ? "contract (kind training: its tokenizer, "
                                                               "contract.input.tokenizer)"
                                                             : "contract");
    if (!in || want(c, in, YAML_MAPPING_NODE, "contract.input"))
        return -1;
    for (int i = 0; training && keys[i]; i++)
        if (strcmp(keys[i], "tokenizer") && get(c, in, keys[i]))
            return fail_at(c, get(c, in, keys[i]),
                           "contract.input.%s is not a training run's: its data is contract.train.data, tokenized "
                           "whole and cut into windows of seq_len + 1 tokens%s",
                           keys[i], "");
    if (check_keys(c, in, "contract.input", training ? train_keys : keys))
        return -1;
    yaml_node_t *rules = get(c, in, "clean");
    if (rules && load_rules(c, rules))
        return -1;
    yaml_node_t *t = require(c, in, "tokenizer", "contract.input");
    if (!t || want(c, t, YAML_MAPPING_NODE, "contract.input.tokenizer") ||
        check_keys(c, t, "contract.input.tokenizer", tkeys))
        return -1;
    f->tokenizer_loc = loc_of(t);
    char *kind = NULL, *vocab = NULL;
    if (get_str(c, t, "kind", "contract.input.tokenizer", 1, &kind))
        return -1;
    f->tokenizer_hf = !strcmp(kind, "huggingface");
    f->tokenizer_chars = !strcmp(kind, "chars");
    int bad_kind = strcmp(kind, "wordpiece") && !f->tokenizer_hf && !f->tokenizer_chars;
    free(kind);
    if (bad_kind)
        return fail_at(c, get(c, t, "kind"),
                       "tokenizer kind '%s' is not supported (wordpiece, huggingface or chars)%s",
                       scalar(get(c, t, "kind")), NULL);
    if (f->tokenizer_chars && get(c, t, "lowercase"))
        return fail_at(c, get(c, t, "lowercase"),
                       "a chars tokenizer does not take lowercase (each code point is its own token)%s%s", "", "");
    /* wordpiece: a vocab.txt and the lowercase flag; huggingface: a
     * tokenizer.json, which says all the rest itself. */
    const char *own = f->tokenizer_hf ? "file" : "vocab", *other = f->tokenizer_hf ? "vocab" : "file";
    if (get(c, t, other) || (f->tokenizer_hf && get(c, t, "lowercase")))
        return fail_at(c, get(c, t, other) ? get(c, t, other) : get(c, t, "lowercase"),
                       "a %s tokenizer does not take %s", f->tokenizer_hf ? "huggingface" : "wordpiece",
                       get(c, t, other) ? other : "lowercase (the tokenizer.json's normalizer says it)");
    if (get_str(c, t, own, "contract.input.tokenizer", 1, &vocab))
        return -1;
    f->vocab_path = resolve(f->dir, vocab);
    free(vocab);
    if (f->tokenizer_hf && hf_file_check(c, get(c, t, "file"), f->vocab_path))
        return -1;
    if (training && !f->tokenizer_hf)
        return fail_at(c, get(c, t, "kind"), "a training run's tokenizer is kind huggingface (a tokenizer.json), "
                                             "not %s%s",
                       scalar(get(c, t, "kind")), "");
    if (training && !require(c, t, "sha256", "contract.input.tokenizer (kind training: pinned, sha256)"))
        return -1;
    if (get_sha(c, t, "contract.input.tokenizer", &f->vocab_sha256, &f->vocab_sha_loc))
        return -1;
    f->lowercase = !f->tokenizer_chars;
    if (get_bool(c, t, "lowercase", "contract.input.tokenizer", &f->lowercase))
        return -1;
    double v = 512;
    if (get_num(c, in, "max_tokens", "contract.input", 2, 1 << 20, 1, &v))
        return -1;
    f->max_tokens = (size_t)v;
    v = 0;
    if (get_num(c, in, "pad_to", "contract.input", 0, 1 << 20, 1, &v))
        return -1;
    f->pad_to = (size_t)v;
    if (f->pad_to && f->pad_to < f->max_tokens)
        return fail_at(c, get(c, in, "pad_to"), "pad_to must be at least max_tokens%s%s", NULL, NULL);
    char *empty = NULL;
    if (get_str(c, in, "empty", "contract.input", 0, &empty))
        return -1;
    f->empty_reject = 1;
    if (empty && strcmp(empty, "reject") && strcmp(empty, "allow")) {
        free(empty);
        return fail_at(c, get(c, in, "empty"), "contract.input.empty must be reject or allow, not '%s'%s",
                       scalar(get(c, in, "empty")), NULL);
    }
    if (empty)
        f->empty_reject = !strcmp(empty, "reject");
    free(empty);
    return 0;
}

static int load_labels_list(ctx *c, yaml_node_t *l, const char *what, char ***labels, size_t *n)
{
    if (get_str_list(c, l, what, labels, n))
        return -1;
    if (*n == 0)
        return fail_at(c, l, "%s is empty%s", what, NULL);
    for (size_t i = 0; i < *n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp((*labels)[i], (*labels)[j]))
                return fail_at(c, node_at(c, l->data.sequence.items.start[i]), "label '%s' is listed twice%s",
                               (*labels)[i], NULL);
    return 0;
}

static int load_labels(ctx *c, yaml_node_t *contract)
{
    px_fixture *f = c->f;
    if (f->kind != PX_MODEL_CLASSIFIER && f->kind != PX_MODEL_IMAGE) {
        if (get(c, contract, "labels"))
            return fail_at(c, get(c, contract, "labels"), "%s has no labels (contract.model.kind: %s)",
                           f->kind == PX_MODEL_GENERATOR ? "a generator" : "an embedding",
                           f->kind == PX_MODEL_GENERATOR ? "generator): its output is text"
                                                         : "embedding): its output is a vector");
        return 0;
    }
    yaml_node_t *l = require(c, contract, "labels",
                             f->kind == PX_MODEL_IMAGE ? "contract (kind image: the pipeline's classes, in id order)"
                                                       : "contract");
    if (!l)
        return -1;
    f->labels_loc = loc_of(l);
    return load_labels_list(c, l, "contract.labels", &f->labels, &f->n_labels);
}

static int load_tolerance(ctx *c, yaml_node_t *t, const char *what, px_tolerance *tol)
{
    static const char *const tkeys[] = {"rtol", "atol", "stat", "q", "oracle_factor", "why", NULL};
    static const char *const stats[] = {"elementwise", "max", "mean", "quantile", NULL};
    tol->present = 1;
    tol->loc = loc_of(t);
    if (want(c, t, YAML_MAPPING_NODE, what) || check_keys(c, t, what, tkeys) ||
        get_num(c, t, "rtol", what, 0, 1e9, 0, &tol->rtol) || get_num(c, t, "atol", what, 0, 1e9, 0, &tol->atol) ||
        get_num(c, t, "q", what, 0, 1, 0, &tol->q) ||
        get_num(c, t, "oracle_factor", what, 1e-9, 1e9, 0, &tol->oracle_factor) ||
        get_str(c, t, "stat", what, 0, &tol->stat) || get_str(c, t, "why", what, 0, &tol->why))
        return -1;
    if (!tol->stat)
        tol->stat = strdup("elementwise");
    if (!is_one_of(tol->stat, stats))
        return fail_at(c, get(c, t, "stat"), "stat must be elementwise, max, mean or quantile, not '%s'%s",
                       tol->stat, NULL);
    if (!strcmp(tol->stat, "quantile") && !get(c, t, "q"))
        return fail_at(c, t, "%s: stat quantile needs q (0 to 1)%s", what, NULL);
    return 0;
}

/* similar_to_reference: {min_cosine, why}. */
static int load_similar(ctx *c, yaml_node_t *n, const char *what, px_similar *out)
{
    static const char *const keys[] = {"min_cosine", "why", NULL};
    if (c->f->kind != PX_MODEL_EMBEDDING)
        return fail_at(c, n, "%s is for an embedding (contract.model.kind: embedding)%s", what, "");
    out->present = 1;
    out->loc = loc_of(n);
    if (want(c, n, YAML_MAPPING_NODE, what) || check_keys(c, n, what, keys) ||
        !require(c, n, "min_cosine", what) || get_num(c, n, "min_cosine", what, -1, 1, 0, &out->min_cosine) ||
        get_str(c, n, "why", what, 0, &out->why))
        return -1;
    return 0;
}

/* One of compare.image's checks: {min: X, why} (a floor) or {max: X, why}
 * (a ceiling), within lo..hi. The why is required here, as
 * contract.train's: a picture's yardstick without its reason is a number
 * nobody can review (a logits tolerance's why came later and stays a lint
 * finding for older fixtures; these keys are new). */
static int load_image_bound(ctx *c, yaml_node_t *cmp, const char *key, const char *limit, double lo, double hi,
                            px_image_bound *b)
{
    const char *const keys[] = {limit, "why", NULL};
    yaml_node_t *n = get(c, cmp, key);
    if (!n)
        return 0;
    char w[64];
    snprintf(w, sizeof w, "contract.compare.image.%s", key);
    b->present = 1;
    b->loc = loc_of(n);
    if (want(c, n, YAML_MAPPING_NODE, w) || check_keys(c, n, w, keys) || !require(c, n, limit, w) ||
        get_num(c, n, limit, w, lo, hi, 0, &b->limit) || !require(c, n, "why", w) ||
        get_str(c, n, "why", w, 1, &b->why))
        return -1;
    for (const char *p = b->why; *p; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            return 0;
    return fail_at(c, get(c, n, "why"), "%s.why is empty: say why the picture may part this far%s", w, "");
}

/* compare.image and compare.latents (an image's; fixture.h). */
static int load_image_compare(ctx *c, yaml_node_t *cmp)
{
    static const char *const keys[] = {"psnr", "ssim", "mean_abs", "max_abs", NULL};
    px_image_checks *ic = &c->f->image_cmp;
    yaml_node_t *im = get(c, cmp, "image"), *lat = get(c, cmp, "latents");
    if (c->f->kind != PX_MODEL_IMAGE) {
        if (im || lat)
            return fail_at(c, im ? im : lat, "contract.compare.%s is for an image (contract.model.kind: image)%s",
                           im ? "image" : "latents", "");
        return 0;
    }
    if (im && (want(c, im, YAML_MAPPING_NODE, "contract.compare.image") ||
               check_keys(c, im, "contract.compare.image", keys) ||
               load_image_bound(c, im, "psnr", "min", 0, 1000, &ic->psnr) ||
               load_image_bound(c, im, "ssim", "min", -1, 1, &ic->ssim) ||
               load_image_bound(c, im, "mean_abs", "max", 0, 255, &ic->mean_abs) ||
               load_image_bound(c, im, "max_abs", "max", 0, 255, &ic->max_abs)))
        return -1;
    if (!lat)
        return 0;
    /* The judge compares a latent element by element (|d| <= atol + rtol *
     * |reference|): stat, q and oracle_factor would be read and never
     * used, so they are refused; the why is required, as compare.image's. */
    static const char *const lkeys[] = {"rtol", "atol", "why", NULL};
    const char *w = "contract.compare.latents";
    if (want(c, lat, YAML_MAPPING_NODE, w) || check_keys(c, lat, w, lkeys) ||
        load_tolerance(c, lat, w, &ic->latents) || !require(c, lat, "why", w))
        return -1;
    for (const char *p = ic->latents.why; *p; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            return 0;
    return fail_at(c, get(c, lat, "why"), "%s.why is empty: say why a latent may part this far%s", w, "");
}

static int load_train_compare(ctx *c, yaml_node_t *cmp);

static int load_compare(ctx *c, yaml_node_t *contract)
{
    px_fixture *f = c->f;
    static const char *const keys[] = {"logits", "decision", "vectors", "similar_to_reference", "image", "latents",
                                       "train", NULL};
    yaml_node_t *cmp = get(c, contract, "compare");
    if (!cmp)
        return 0;
    if (want(c, cmp, YAML_MAPPING_NODE, "contract.compare") || check_keys(c, cmp, "contract.compare", keys) ||
        load_train_compare(c, cmp))
        return -1;
    if (f->kind == PX_MODEL_IMAGE) {
        static const char *const other[] = {"logits", "decision", "vectors", "similar_to_reference", NULL};
        for (int i = 0; other[i]; i++)
            if (get(c, cmp, other[i]))
                return fail_at(c, get(c, cmp, other[i]),
                               "contract.compare.%s is not an image's: its picture is compared by "
                               "contract.compare.image and its denoising path by contract.compare.latents%s",
                               other[i], "");
        return load_image_compare(c, cmp);
    }
    if (load_image_compare(c, cmp))
        return -1;
    if (get_str(c, cmp, "decision", "contract.compare", 0, &f->decision))
        return -1;
    if (f->decision && strcmp(f->decision, "exact"))
        return fail_at(c, get(c, cmp, "decision"), "contract.compare.decision must be exact, not '%s'%s",
                       f->decision, NULL);
    int emb = f->kind == PX_MODEL_EMBEDDING;
    if (get(c, cmp, emb ? "logits" : "vectors"))
        return fail_at(c, get(c, cmp, emb ? "logits" : "vectors"), "%s",
                       emb ? "an embedding's output is a vector: its per-element tolerance is contract.compare.vectors"
                           : "contract.compare.vectors is for an embedding (contract.model.kind: embedding): a "
                             "classifier's is contract.compare.logits",
                       NULL);
    yaml_node_t *s = get(c, cmp, "similar_to_reference");
    if (s && load_similar(c, s, "contract.compare.similar_to_reference", &f->similar))
        return -1;
    yaml_node_t *t = get(c, cmp, emb ? "vectors" : "logits");
    return t ? load_tolerance(c, t, emb ? "contract.compare.vectors" : "contract.compare.logits", &f->logits_tol) : 0;
}

/* contract.train: {lr, atol, rtol, why}, every key required (a tolerance
 * without its why is not a contract). */
static int load_train(ctx *c, yaml_node_t *contract)
{
    static const char *const keys[] = {"lr", "atol", "rtol", "why", NULL};
    static const char *const what = "contract.train";
    px_train *t = &c->f->train;
    yaml_node_t *n = get(c, contract, "train");
    if (!n)
        return 0;
    t->present = 1;
    t->loc = loc_of(n);
    if (want(c, n, YAML_MAPPING_NODE, what) || check_keys(c, n, what, keys))
        return -1;
    for (const char *const *k = keys; *k; k++)
        if (!require(c, n, *k, what))
            return -1;
    if (get_num(c, n, "lr", what, 1e-12, 1e3, 0, &t->lr) || get_num(c, n, "atol", what, 0, 1e9, 0, &t->atol) ||
        get_num(c, n, "rtol", what, 0, 1e9, 0, &t->rtol) || get_str(c, n, "why", what, 1, &t->why))
        return -1;
    if (!*t->why)
        return fail_at(c, get(c, n, "why"), "contract.train.why must say why the tolerance is what it is%s%s", "",
                       "");
    return 0;
}

/* What the rest of a generator's contract must (not) say: no training,
 * no padding, no compare of logits or decisions (any tokenizer will do:
 * its decoder makes the text back), and
 * its generate: settings (n). */
static int generator_contract(ctx *c, yaml_node_t *contract, yaml_node_t *n)
{
    px_fixture *f = c->f;
    if (get(c, contract, "train"))
        return fail_at(c, get(c, contract, "train"), "contract.train is for a classifier (cross-entropy on labels)%s%s",
                       "", "");
    if (f->pad_to)
        return fail_at(c, get(c, get(c, contract, "input"), "pad_to"),
                       "a generator's prompt is never padded (one example at a time): drop pad_to%s%s", "", "");
    yaml_node_t *cmp = get(c, contract, "compare");
    if (cmp && cmp->type == YAML_MAPPING_NODE && (get(c, cmp, "logits") || get(c, cmp, "decision")))
        return fail_at(c, cmp,
                       "a generator's outputs are compared as text (expect: same_as_reference), not by "
                       "contract.compare%s%s",
                       "", "");
    if (!n)
        return fail_at(c, contract,
                       "a generator needs its output settings: contract.generate: {decoding: greedy, "
                       "max_new_tokens: N}%s%s",
                       "", "");
    return 0;
}

/* A seed as written, all its bits: not through a double. A generator's
 * is at most 2^63-1; an image's (wide) any u64, as
 * torch.Generator.manual_seed takes it (DENOISE's u64 seed). */
static int get_seed_of(ctx *c, yaml_node_t *sd, const char *what, int wide, unsigned long long *out)
{
    const char *t = sd->type == YAML_SCALAR_NODE ? scalar(sd) : "";
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(t, &end, 10);
    if (!*t || *t == '-' || *t == '+' || *end || errno || (!wide && seed > 0x7fffffffffffffffULL)) {
        char w[160];
        snprintf(w, sizeof w, "%s must be a whole number from 0 to %s", what, wide ? "2^64-1" : "2^63-1");
        return fail_at(c, sd, "%s, not '%s'", w, t);
    }
    *out = seed;
    return 0;
}

static int get_seed(ctx *c, yaml_node_t *sd, const char *what, unsigned long long *out)
{
    return get_seed_of(c, sd, what, 0, out);
}

/* temperature, top_k and seed: all three for sample, none for greedy. */
static int load_sampling(ctx *c, yaml_node_t *n, px_generate *g)
{
    static const char *const what = "contract.generate";
    static const char *const sampling[] = {"temperature", "top_k", "seed", NULL};
    for (const char *const *k = sampling; *k; k++) {
        yaml_node_t *x = get(c, n, *k);
        if (g->decoding == PX_DECODE_GREEDY && x)
            return fail_at(c, x, "contract.generate.%s is for decoding: sample (greedy takes the largest logit)%s", *k,
                           "");
        if (g->decoding == PX_DECODE_SAMPLE && !require(c, n, *k, what))
            return -1;
    }
    if (g->decoding != PX_DECODE_SAMPLE)
        return 0;
    if (get_num(c, n, "temperature", what, 1e-6, 1e6, 0, &g->temperature))
        return -1;
    double v = 0;
    if (get_num(c, n, "top_k", what, 0, 1 << 20, 1, &v))
        return -1;
    g->top_k = (int)v;
    return get_seed(c, get(c, n, "seed"), "contract.generate.seed", &g->seed);
}

/* stop: one string or a list of them, none empty: each a token the
 * executor stops on, or a string the text is cut before (prepare.h). */
static int load_stop(ctx *c, yaml_node_t *n, px_generate *g)
{
    yaml_node_t *st = get(c, n, "stop");
    if (!st)
        return 0;
    g->stop_loc = loc_of(st);
    if (st->type == YAML_SCALAR_NODE) {
        if (!(g->stop = calloc(1, sizeof *g->stop)) || !(g->stop[0] = strdup(scalar(st))))
            return px_error_oom(c->err, c->path);
        g->n_stop = 1;
    } else if (get_str_list(c, st, "contract.generate.stop", &g->stop, &g->n_stop)) {
        return -1;
    }
    for (size_t i = 0; i < g->n_stop; i++)
        if (!g->stop[i][0])
            return fail_at(c, st, "contract.generate.stop: an empty stop%s%s", "", "");
    return 0;
}

/* contract.generate: a generator's output settings (fixture.h). */
static int load_generate(ctx *c, yaml_node_t *contract)
{
    static const char *const keys[] = {"decoding",       "temperature", "top_k",
                                       "seed",           "max_new_tokens", "stop",
                                       "skip_special_tokens", NULL};
    static const char *const what = "contract.generate";
    px_fixture *f = c->f;
    px_generate *g = &f->gen;
    yaml_node_t *n = get(c, contract, "generate");
    if (f->kind != PX_MODEL_GENERATOR) {
        if (n)
            return fail_at(c, n, "contract.generate is for a generator (contract.model.kind: generator)%s%s", "", "");
        return 0;
    }
    if (generator_contract(c, contract, n))
        return -1;
    g->present = 1;
    g->loc = loc_of(n);
    if (want(c, n, YAML_MAPPING_NODE, what) || check_keys(c, n, what, keys) || !require(c, n, "decoding", what) ||
        !require(c, n, "max_new_tokens", what))
        return -1;
    char *dec = NULL;
    if (get_str(c, n, "decoding", what, 1, &dec))
        return -1;
    g->decoding = !strcmp(dec, "greedy") ? PX_DECODE_GREEDY : !strcmp(dec, "sample") ? PX_DECODE_SAMPLE : 0;
    free(dec);
    if (!g->decoding)
        return fail_at(c, get(c, n, "decoding"), "contract.generate.decoding must be greedy or sample, not '%s'%s",
                       scalar(get(c, n, "decoding")), "");
    double v = 0;
    if (get_num(c, n, "max_new_tokens", what, 1, 1024, 1, &v))
        return -1;
    g->max_new_tokens = (int)v;
    g->skip_special = 1; /* as transformers' text-generation pipeline shows a text */
    if (get(c, n, "skip_special_tokens") && get_bool(c, n, "skip_special_tokens", what, &g->skip_special))
        return -1;
    return load_sampling(c, n, g) || load_stop(c, n, g) ? -1 : 0;
}

/* The pipeline directory's scheduler class: scheduler_config.json's
 * "_class_name", read bounded (a config is a few hundred bytes; 1 MiB is
 * not a config). 0 with buf "" when the file is not there or not readable
 * (lint and run say so, at the pins), -1 when it is there but not a
 * scheduler config. */
static int scheduler_class(const char *dir, char *buf, size_t size)
{
    buf[0] = '\0';
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/scheduler/scheduler_config.json", dir) >= sizeof path)
        return 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    enum { MOST = 1 << 20 };
    char *text = malloc(MOST + 1);
    size_t len = text ? fread(text, 1, MOST + 1, fp) : 0;
    int err = ferror(fp);
    fclose(fp);
    if (!text || err)
        return free(text), 0;
    if (len > MOST)
        return free(text), -1;
    json_t *cfg = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    free(text);
    json_t *name = json_is_object(cfg) ? json_object_get(cfg, "_class_name") : NULL;
    int rc = json_is_string(name) ? 0 : -1;
    if (!rc)
        snprintf(buf, size, "%s", json_string_value(name));
    json_decref(cfg);
    return rc;
}

/* noise: cpu, the only value (fixture.h). */
static int load_noise(ctx *c, yaml_node_t *im)
{
    yaml_node_t *n = require(c, im, "noise", "contract.image (noise: cpu, the initial noise's one source)");
    if (!n || want(c, n, YAML_SCALAR_NODE, "contract.image.noise"))
        return -1;
    c->f->image.noise_loc = loc_of(n);
    if (!strcmp(scalar(n), "cpu"))
        return 0;
    if (!strcmp(scalar(n), "device"))
        return fail_at(c, n,
                       "contract.image.noise: device is refused: each device would draw its own noise from the seed: "
                       "two environments would run two different experiments; noise: cpu draws it once on the CPU "
                       "and hands it to every environment%s%s",
                       "", "");
    return fail_at(c, n, "contract.image.noise must be cpu (drawn once on the CPU from the seed and handed to every "
                         "environment), not '%s'%s",
                   scalar(n), "");
}

/* contract.image: {size: [h, w], channels, steps, guidance_scale, seed,
 * noise, scheduler, latents: {every}} (fixture.h, px_image_spec). */
static int load_image(ctx *c, yaml_node_t *contract)
{
    static const char *const keys[] = {"size",  "channels", "steps",     "guidance_scale",
                                       "seed",  "noise",    "scheduler", "latents", NULL};
    static const char *const what = "contract.image";
    px_fixture *f = c->f;
    px_image_spec *im = &f->image;
    yaml_node_t *n = get(c, contract, "image");
    if (f->kind != PX_MODEL_IMAGE)
        return n ? fail_at(c, n, "contract.image is for an image (contract.model.kind: image)%s%s", "", "") : 0;
    if (!(n = require(c, contract, "image", "contract (kind image: the pipeline's settings, contract.image)")) ||
        want(c, n, YAML_MAPPING_NODE, what) || check_keys(c, n, what, keys))
        return -1;
    im->present = 1;
    im->loc = loc_of(n);
    for (int i = 0; i < 7; i++) /* all but latents */
        if (!require(c, n, keys[i], what))
            return -1;
    yaml_node_t *sz = get(c, n, "size");
    if (want(c, sz, YAML_SEQUENCE_NODE, "contract.image.size"))
        return -1;
    size_t len = (size_t)(sz->data.sequence.items.top - sz->data.sequence.items.start);
    if (len != 2) {
        char m[32];
        snprintf(m, sizeof m, "%zu", len);
        return fail_at(c, sz, "contract.image.size must be [height, width] in pixels, not %s number%s", m,
                       len == 1 ? "" : "s");
    }
    for (size_t i = 0; i < 2; i++) {
        yaml_node_t *it = node_at(c, sz->data.sequence.items.start[i]);
        char *end;
        errno = 0;
        long v = it->type == YAML_SCALAR_NODE ? strtol(scalar(it), &end, 10) : -1;
        if (it->type != YAML_SCALAR_NODE || end == scalar(it) || *end || errno || v < 1 ||
            v > (long)PX_IMAGE_MAX_SIDE) {
            char m[96];
            snprintf(m, sizeof m, "a whole number from 1 to %u", PX_IMAGE_MAX_SIDE);
            return fail_at(c, it, "contract.image.size's %s must be %s", i ? "width" : "height", m);
        }
        *(i ? &im->width : &im->height) = (int)v;
    }
    double ch = 0, steps = 0, every = 1;
    if (get_num(c, n, "channels", what, 1, 4, 1, &ch) ||
        get_num(c, n, "steps", what, 1, PX_IMAGE_MAX_STEPS, 1, &steps) ||
        get_num(c, n, "guidance_scale", what, 1, 1000, 0, &im->guidance_scale) ||
        get_seed_of(c, get(c, n, "seed"), "contract.image.seed", 1, &im->seed) || load_noise(c, n) ||
        get_str(c, n, "scheduler", what, 1, &im->scheduler))
        return -1;
    im->channels = (int)ch, im->steps = (int)steps;
    yaml_node_t *lat = get(c, n, "latents");
    static const char *const lkeys[] = {"every", NULL};
    if (lat && (want(c, lat, YAML_MAPPING_NODE, "contract.image.latents") ||
                check_keys(c, lat, "contract.image.latents", lkeys) ||
                !require(c, lat, "every", "contract.image.latents") ||
                get_num(c, lat, "every", "contract.image.latents", 1, PX_IMAGE_MAX_STEPS, 1, &every)))
        return -1;
    im->latent_every = (int)every;
    /* after each every-th step, and after the last */
    if (im->steps / im->latent_every + 1 > FIXTURE_IMAGE_MAX_RECORDED) {
        char m[160];
        snprintf(m, sizeof m, "%d steps, every %d, record %d latents; at most %d are kept: raise latents.every",
                 im->steps, im->latent_every, im->steps / im->latent_every + 1, FIXTURE_IMAGE_MAX_RECORDED);
        return fail_at(c, lat ? lat : get(c, n, "steps"), "contract.image.latents: %s%s", m, "");
    }
    yaml_node_t *sn = get(c, n, "scheduler");
    im->scheduler_loc = loc_of(sn);
    char found[256];
    if (scheduler_class(f->model_path, found, sizeof found))
        return fail_at(c, sn, "contract.image.scheduler: the pipeline's scheduler/scheduler_config.json is not a "
                              "scheduler config (a JSON object with a \"_class_name\" string, at most 1 MiB)%s%s",
                       "", "");
    if (found[0] && strcmp(found, im->scheduler)) {
        char m[600];
        snprintf(m, sizeof m, "contract.image.scheduler is %.200s, but the pipeline's scheduler/scheduler_config.json "
                              "says _class_name %.200s",
                 im->scheduler, found);
        return fail_at(c, sn, "%s: the contract fixes the scheduler; correct one of them%s", m, "");
    }
    return 0;
}

/* ---- a training run's contract (kind training, issue 40; fixture.h) ---- */

static const char *const recipe_keys[] = {"steps",        "batch_size",   "seq_len", "optimizer",
                                          "lr",           "betas",        "eps",     "weight_decay",
                                          "momentum",     "warmup_steps", "decay",   "decay_min",
                                          "clip_grad_norm", "seed",       "data",    NULL};

/* betas: [b1, b2], each from 0 to below 1. */
static int get_betas(ctx *c, yaml_node_t *map, const char *what, px_recipe *r)
{
    yaml_node_t *n = get(c, map, "betas");
    if (!n)
        return 0;
    char w[200];
    snprintf(w, sizeof w, "%s.betas", what);
    if (want(c, n, YAML_SEQUENCE_NODE, w))
        return -1;
    if (n->data.sequence.items.top - n->data.sequence.items.start != 2)
        return fail_at(c, n, "%s must be [beta1, beta2], two numbers%s", w, "");
    for (int i = 0; i < 2; i++) {
        yaml_node_t *it = node_at(c, n->data.sequence.items.start[i]);
        char *end;
        errno = 0;
        double v = it->type == YAML_SCALAR_NODE ? strtod(scalar(it), &end) : NAN;
        if (it->type != YAML_SCALAR_NODE || end == scalar(it) || *end || errno || !(v >= 0 && v < 1))
            return fail_at(c, it, "%s: %s must be a number from 0 to below 1", w, i ? "beta2" : "beta1");
        *(i ? &r->beta2 : &r->beta1) = v;
    }
    return 0;
}

/* The recipe's keys in one mapping (contract.train, or an example's own
 * train: over a copy of the contract's), each bounded. data is the
 * contract's alone (load_train_data). */
static int load_recipe_keys(ctx *c, yaml_node_t *n, const char *what, px_recipe *r)
{
    double steps = r->steps, batch = r->batch_size, seq = r->seq_len, warm = r->warmup_steps;
    if (get_num(c, n, "steps", what, 1, PX_TRAIN_RUN_MAX_STEPS, 1, &steps) ||
        get_num(c, n, "batch_size", what, 1, 65536, 1, &batch) ||
        get_num(c, n, "seq_len", what, 1, 1 << 20, 1, &seq) || get_num(c, n, "lr", what, 1e-12, 10, 0, &r->lr) ||
        get_betas(c, n, what, r) || get_num(c, n, "eps", what, 1e-30, 1, 0, &r->eps) ||
        get_num(c, n, "weight_decay", what, 0, 10, 0, &r->weight_decay) ||
        get_num(c, n, "momentum", what, 0, 0.999999, 0, &r->momentum) ||
        get_num(c, n, "warmup_steps", what, 0, PX_TRAIN_RUN_MAX_STEPS, 1, &warm) ||
        get_num(c, n, "decay_min", what, 0, 1, 0, &r->decay_min) ||
        get_num(c, n, "clip_grad_norm", what, 0, 1e9, 0, &r->clip_grad_norm))
        return -1;
    r->steps = (int)steps, r->batch_size = (int)batch, r->seq_len = (int)seq, r->warmup_steps = (int)warm;
    yaml_node_t *sd = get(c, n, "seed");
    char w[200];
    snprintf(w, sizeof w, "%s.seed", what);
    if (sd && get_seed(c, sd, w, &r->seed))
        return -1;
    char *s = NULL;
    yaml_node_t *o = get(c, n, "optimizer"), *d = get(c, n, "decay");
    if (get_str(c, n, "optimizer", what, 0, &s))
        return -1;
    if (s) {
        r->optimizer = !strcmp(s, "adamw") ? PX_OPT_ADAMW : !strcmp(s, "sgd") ? PX_OPT_SGD : 0;
        free(s);
        if (!r->optimizer)
            return fail_at(c, o, "%s.optimizer must be adamw or sgd, not '%s'", what, scalar(o));
    }
    s = NULL;
    if (get_str(c, n, "decay", what, 0, &s))
        return -1;
    if (s) {
        int v = !strcmp(s, "none") ? PX_DECAY_NONE : !strcmp(s, "linear") ? PX_DECAY_LINEAR
                : !strcmp(s, "cosine")                                   ? PX_DECAY_COSINE
                                                                         : -1;
        free(s);
        if (v < 0)
            return fail_at(c, d, "%s.decay must be none, linear or cosine, not '%s'", what, scalar(d));
        r->decay = (enum px_lr_decay)v;
    }
    /* An optimizer's own keys, said where that optimizer does not run:
     * read and never used, so refused. */
    static const char *const adamw_only[] = {"betas", "eps", NULL};
    for (int i = 0; r->optimizer == PX_OPT_SGD && adamw_only[i]; i++)
        if (get(c, n, adamw_only[i]))
            return fail_at(c, get(c, n, adamw_only[i]), "%s.%s is AdamW's, but this run's optimizer is sgd", what,
                           adamw_only[i]);
    if (r->optimizer == PX_OPT_ADAMW && get(c, n, "momentum"))
        return fail_at(c, get(c, n, "momentum"), "%s.momentum is SGD's, but this run's optimizer is adamw%s", what,
                       " (AdamW's are betas)");
    if (r->warmup_steps > r->steps)
        return fail_at(c, get(c, n, "warmup_steps") ? get(c, n, "warmup_steps") : get(c, n, "steps"),
                       "%s: warmup_steps is more than the run's steps%s", what, "");
    if (r->decay == PX_DECAY_NONE && get(c, n, "decay_min"))
        return fail_at(c, get(c, n, "decay_min"), "%s.decay_min goes with decay linear or cosine (decay none keeps "
                                                  "lr)%s",
                       what, "");
    return 0;
}

/* contract.train.data: {path, sha256}, both required: a text file, pinned. */
static int load_train_data(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"path", "sha256", NULL};
    static const char *const what = "contract.train.data";
    px_train_data *d = &c->f->train_data;
    yaml_node_t *dn = require(c, n, "data", "contract.train (the text it trains on: data: {path, sha256})");
    char *rel = NULL;
    if (!dn || want(c, dn, YAML_MAPPING_NODE, what) || check_keys(c, dn, what, keys) ||
        get_str(c, dn, "path", what, 1, &rel))
        return -1;
    d->loc = loc_of(dn);
    d->path = resolve(c->f->dir, rel);
    free(rel);
    if (!d->path)
        return px_error_oom(c->err, c->path);
    if (!require(c, dn, "sha256", what))
        return -1;
    return get_sha(c, dn, what, &d->sha256, &d->sha_loc);
}

/* contract.train for kind training: the recipe (fixture.h px_recipe). */
static int load_recipe(ctx *c, yaml_node_t *contract)
{
    static const char *const what = "contract.train";
    px_recipe *r = &c->f->recipe;
    yaml_node_t *n = require(c, contract, "train", "contract (kind training: the recipe, contract.train)");
    if (!n || want(c, n, YAML_MAPPING_NODE, what) || check_keys(c, n, what, recipe_keys))
        return -1;
    static const char *const required[] = {"steps", "batch_size", "seq_len", "lr", NULL};
    for (int i = 0; required[i]; i++)
        if (!require(c, n, required[i], what))
            return -1;
    *r = (px_recipe){.optimizer = PX_OPT_ADAMW, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 0.01,
                     .loc = loc_of(n)};
    return load_recipe_keys(c, n, what, r) || load_train_data(c, n) ? -1 : 0;
}

/* A required, not empty why of a compare.train check. */
static int train_why(ctx *c, yaml_node_t *n, const char *w, char **out)
{
    if (!require(c, n, "why", w) || get_str(c, n, "why", w, 1, out))
        return -1;
    for (const char *p = *out; *p; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            return 0;
    return fail_at(c, get(c, n, "why"), "%s.why is empty: say why a run may part this far%s", w, "");
}

static int load_step_tol(ctx *c, yaml_node_t *t, const char *key, px_step_tol *st)
{
    static const char *const keys[] = {"atol", "rtol", "why", NULL};
    yaml_node_t *n = get(c, t, key);
    if (!n)
        return 0;
    char w[64];
    snprintf(w, sizeof w, "contract.compare.train.%s", key);
    st->present = 1;
    st->loc = loc_of(n);
    if (want(c, n, YAML_MAPPING_NODE, w) || check_keys(c, n, w, keys) ||
        get_num(c, n, "atol", w, 0, 1e9, 0, &st->atol) || get_num(c, n, "rtol", w, 0, 1e9, 0, &st->rtol))
        return -1;
    if (!get(c, n, "atol") && !get(c, n, "rtol"))
        return fail_at(c, n, "%s needs atol, rtol or both (|a - b| <= atol + rtol * |b| at every step)%s", w, "");
    return train_why(c, n, w, &st->why);
}

/* compare.train (kind training): loss (required), grad_norm, update,
 * params, learning; every why required. */
static int load_train_compare(ctx *c, yaml_node_t *cmp)
{
    static const char *const keys[] = {"loss", "grad_norm", "update", "params", "learning", NULL};
    static const char *const what = "contract.compare.train";
    px_train_checks *tc = &c->f->train_cmp;
    tc->learning_min_fraction = 0.1;
    yaml_node_t *t = cmp ? get(c, cmp, "train") : NULL;
    if (c->f->kind != PX_MODEL_TRAINING)
        return t ? fail_at(c, t, "contract.compare.train is for a training run (contract.model.kind: training)%s%s",
                           "", "")
                 : 0;
    if (!t)
        return fail_at(c, cmp ? cmp : NULL,
                       "a training run's contract needs contract.compare.train.loss: {atol, rtol, why} (how far a "
                       "loss curve may part from the reference's)%s%s",
                       "", "");
    if (want(c, t, YAML_MAPPING_NODE, what) || check_keys(c, t, what, keys) ||
        !require(c, t, "loss", "contract.compare.train (how far a loss curve may part: loss: {atol, rtol, why})") ||
        load_step_tol(c, t, "loss", &tc->loss) || load_step_tol(c, t, "grad_norm", &tc->grad_norm) ||
        load_step_tol(c, t, "update", &tc->update))
        return -1;
    yaml_node_t *p = get(c, t, "params"), *l = get(c, t, "learning");
    static const char *const pkeys[] = {"max_rel", "why", NULL}, *const lkeys[] = {"min_fraction", "why", NULL};
    if (p) {
        const char *w = "contract.compare.train.params";
        tc->params_present = 1;
        tc->params_loc = loc_of(p);
        if (want(c, p, YAML_MAPPING_NODE, w) || check_keys(c, p, w, pkeys) || !require(c, p, "max_rel", w) ||
            get_num(c, p, "max_rel", w, 0, 1e9, 0, &tc->params_max_rel) || train_why(c, p, w, &tc->params_why))
            return -1;
    }
    if (l) {
        const char *w = "contract.compare.train.learning";
        tc->learning_loc = loc_of(l);
        if (want(c, l, YAML_MAPPING_NODE, w) || check_keys(c, l, w, lkeys) || !require(c, l, "min_fraction", w) ||
            get_num(c, l, "min_fraction", w, 0, 1, 0, &tc->learning_min_fraction) ||
            train_why(c, l, w, &tc->learning_why))
            return -1;
    }
    return 0;
}

/* What else a training contract must (not) say: a causal LM of format
 * transformers, a huggingface tokenizer, pinned, and only it under
 * contract.input (the data is contract.train.data, cut into windows),
 * no labels, no generate or image settings, compare.train only. */
static int training_contract(ctx *c, yaml_node_t *contract)
{
    px_fixture *f = c->f;
    if (f->model_format != PX_FORMAT_TRANSFORMERS)
        return fail_at(c, get(c, get(c, contract, "model"), "format") ? get(c, get(c, contract, "model"), "format")
                                                                      : get(c, contract, "model"),
                       "contract.model.kind training trains a Transformers causal LM (AutoModelForCausalLM): say "
                       "format: transformers, not %s%s",
                       fixture_format_name(f->model_format), "");
    static const char *const other[] = {"labels", "generate", "image", NULL};
    for (int i = 0; other[i]; i++)
        if (get(c, contract, other[i]))
            return fail_at(c, get(c, contract, other[i]),
                           "contract.%s is not a training run's (it trains on contract.train.data and is judged by its "
                           "loss curve)%s",
                           other[i], "");
    yaml_node_t *cmp = get(c, contract, "compare");
    static const char *const cmp_other[] = {"logits", "decision", "vectors", "similar_to_reference", "image",
                                            "latents", NULL};
    for (int i = 0; cmp && cmp->type == YAML_MAPPING_NODE && cmp_other[i]; i++)
        if (get(c, cmp, cmp_other[i]))
            return fail_at(c, get(c, cmp, cmp_other[i]),
                           "contract.compare.%s is not a training run's: its curves are compared by "
                           "contract.compare.train%s",
                           cmp_other[i], "");
    if (cmp && (want(c, cmp, YAML_MAPPING_NODE, "contract.compare") ||
                check_keys(c, cmp, "contract.compare", (const char *const[]){"train", NULL})))
        return -1;
    if (load_recipe(c, contract))
        return -1;
    if (!cmp)
        return fail_at(c, contract,
                       "a training run's contract needs contract.compare.train.loss: {atol, rtol, why} (how far a "
                       "loss curve may part from the reference's)%s%s",
                       "", "");
    return load_train_compare(c, cmp);
}

/* An environment's precision recipe and parallel plan (fixture.h):
 * mixed_precision_param bfloat16 over float32 master weights (a training
 * run's), mixed_precision_reduce with parallel only, parallel: {processes
 * 2..64, strategy ddp|fsdp, backend} on the Python executor, for a
 * training run whose contract's batch splits evenly across the ranks
 * (each example's own batch_size: check_parallel_batches). */
static int load_train_env(ctx *c, yaml_node_t *v, px_env *e, const char *what)
{
    yaml_node_t *mp = get(c, v, "mixed_precision_param"), *mr = get(c, v, "mixed_precision_reduce"),
                *pn = get(c, v, "parallel");
    int training = c->f->kind == PX_MODEL_TRAINING;
    if (training && e->own_model && e->model_format != PX_FORMAT_TRANSFORMERS)
        return fail_at(c, get(c, get(c, v, "model"), "format") ? get(c, get(c, v, "model"), "format") : get(c, v, "model"),
                       "%s.model: a training run trains a Transformers causal LM: its own model is format: "
                       "transformers too, not %s",
                       what, fixture_format_name(e->model_format));
    yaml_node_t *any = mp ? mp : mr ? mr : pn;
    if (!any)
        return 0;
    const char *key = mp ? "mixed_precision_param" : mr ? "mixed_precision_reduce" : "parallel";
    if (!training)
        return fail_at(c, any, "%s is for a training run (contract.model.kind: training)%s", key, "");
    if (e->results)
        return fail_at(c, any, "%s is imported (results:): how it computed is in its results file's manifest%s", what,
                       "");
    if (get_str(c, v, "mixed_precision_param", what, 0, &e->mixed_precision_param) ||
        get_str(c, v, "mixed_precision_reduce", what, 0, &e->mixed_precision_reduce))
        return -1;
    if (e->mixed_precision_param && strcmp(e->mixed_precision_param, "bfloat16"))
        return fail_at(c, mp, "mixed_precision_param must be bfloat16 (the forward and backward in it over float32 "
                              "master weights), not '%s'%s",
                       e->mixed_precision_param, "");
    if (e->mixed_precision_param && strcmp(e->dtype, "float32"))
        return fail_at(c, mp, "mixed_precision_param bfloat16 computes over float32 master weights: %s says dtype %s; "
                              "say dtype: float32",
                       what, e->dtype);
    if (e->mixed_precision_reduce && strcmp(e->mixed_precision_reduce, "float32") &&
        strcmp(e->mixed_precision_reduce, "bfloat16"))
        return fail_at(c, mr, "mixed_precision_reduce must be float32 or bfloat16, not '%s'%s",
                       e->mixed_precision_reduce, "");
    if (e->mixed_precision_reduce && !pn)
        return fail_at(c, mr, "mixed_precision_reduce is how gradients are reduced across ranks: %s runs one process "
                              "(no parallel:)%s",
                       what, "");
    if (!pn)
        return 0;
    static const char *const keys[] = {"processes", "strategy", "backend", NULL};
    char w[200];
    snprintf(w, sizeof w, "%s.parallel", what);
    px_parallel *p = &e->parallel;
    p->loc = loc_of(pn);
    double procs = 0;
    char *strategy = NULL;
    if (want(c, pn, YAML_MAPPING_NODE, w) || check_keys(c, pn, w, keys) || !require(c, pn, "processes", w) ||
        !require(c, pn, "strategy", w) || get_num(c, pn, "processes", w, 2, 64, 1, &procs) ||
        get_str(c, pn, "strategy", w, 1, &strategy) || get_str(c, pn, "backend", w, 0, &p->backend))
        return free(strategy), -1;
    p->processes = (int)procs;
    p->strategy = !strcmp(strategy, "ddp") ? PX_PAR_DDP : !strcmp(strategy, "fsdp") ? PX_PAR_FSDP : PX_PAR_NONE;
    free(strategy);
    if (!p->strategy)
        return fail_at(c, get(c, pn, "strategy"), "%s.strategy must be ddp or fsdp, not '%s'", w,
                       scalar(get(c, pn, "strategy")));
    if (p->backend && !p->backend[0])
        return fail_at(c, get(c, pn, "backend"), "%s.backend is empty: name torch.distributed's backend (gloo, nccl, "
                                                 "...) or leave it out%s",
                       w, "");
    if (!e->python)
        return fail_at(c, pn, "%s runs on several processes (parallel:), launched as torchrun launches them: say "
                              "executor: python%s",
                       what, "");
    if (c->f->recipe.batch_size % p->processes) {
        char m[200];
        snprintf(m, sizeof m, "contract.train.batch_size %d does not split evenly across %d processes",
                 c->f->recipe.batch_size, p->processes);
        return fail_at(c, get(c, pn, "processes"), "%s: %s (each rank trains on batch_size / processes windows)", w,
                       m);
    }
    return 0;
}

/* A training run's expect: {loss_at_most: X} (the mean loss of its last
 * tenth of steps), nothing else. */
static int load_train_expect(ctx *c, yaml_node_t *n, px_example *x)
{
    static const char *const keys[] = {"loss_at_most", NULL};
    if (want_expect(c, n, "{loss_at_most: X} (the mean loss of the run's last tenth of steps)") ||
        check_keys(c, n, "expect (a training run's)", keys) ||
        !require(c, n, "loss_at_most", "expect (a training run's)"))
        return -1;
    x->expect.loc = loc_of(n);
    return get_num(c, n, "loss_at_most", "expect", 0, 1e9, 0, &x->loss_at_most);
}

/* A training run (an example of kind training): its own train: keys over
 * a copy of the contract's recipe (px_example.recipe, always set), an
 * expect of loss_at_most, no text (it trains on contract.train.data). Its
 * text is "" so that every list of examples can show one. */
static int load_train_example(ctx *c, yaml_node_t *n, px_example *x)
{
    yaml_node_t *t = get(c, n, "train");
    if (c->f->kind != PX_MODEL_TRAINING)
        return t ? fail_at(c, t, "an example's train: is for a training run (contract.model.kind: training)%s%s", "",
                           "")
                 : 0;
    static const char *const other[] = {"text", "class", "seed", "compare", "role", "similar_to_reference", NULL};
    for (int i = 0; other[i]; i++)
        if (get(c, n, other[i]))
            return fail_at(c, get(c, n, other[i]),
                           !strcmp(other[i], "text")   ? "a training run has no text: it trains on contract.train.data "
                                                         "(a run's own recipe is its train: keys)%s%s"
                           : !strcmp(other[i], "seed") ? "a training run's seed is a recipe key: say train: {seed: N}%s%s"
                                                       : "a training run has no %s (its checks are "
                                                         "contract.compare.train)%s",
                           other[i], "");
    if (!(x->recipe = malloc(sizeof *x->recipe)) || !(x->text = strdup("")))
        return px_error_oom(c->err, c->path);
    *x->recipe = c->f->recipe;
    x->recipe->loc = x->loc;
    x->text_loc = x->loc;
    if (t) {
        static const char *const what = "example train";
        if (want(c, t, YAML_MAPPING_NODE, what))
            return -1;
        if (get(c, t, "data"))
            return fail_at(c, get(c, t, "data"), "example train.data: every run trains on contract.train.data (the "
                                                 "data is the contract's, pinned once)%s%s",
                           "", "");
        if (check_keys(c, t, what, recipe_keys) || load_recipe_keys(c, t, what, x->recipe))
            return -1;
        x->recipe->loc = loc_of(t);
    }
    yaml_node_t *e = get(c, n, "expect");
    return e ? load_train_expect(c, e, x) : 0;
}

/* Every run's batch splits evenly across each parallel environment's
 * ranks; said at the run's train: once every example is read. */
static int check_parallel_batches(px_fixture *f, px_error *err)
{
    for (size_t i = 0; f->kind == PX_MODEL_TRAINING && i < f->n_envs; i++) {
        const px_env *e = &f->envs[i];
        for (size_t k = 0; e->parallel.processes && k < f->n_examples; k++) {
            const px_recipe *r = f->examples[k].recipe;
            if (r && r->batch_size % e->parallel.processes)
                return px_error_set(err, PX_ERR_MALFORMED, f->path, r->loc.line, r->loc.col,
                                    "example '%s' trains on batch_size %d, which environment '%s' cannot split evenly "
                                    "across its %d processes (parallel.processes, line %d)",
                                    f->examples[k].id, r->batch_size, e->name, e->parallel.processes,
                                    e->parallel.loc.line);
        }
    }
    return 0;
}

static int load_contract(ctx *c, yaml_node_t *root)
{
    static const char *const keys[] = {"task", "model", "input", "labels", "compare", "train", "generate", "image",
                                       NULL};
    yaml_node_t *contract = require(c, root, "contract", "the fixture");
    if (!contract || want(c, contract, YAML_MAPPING_NODE, "contract") ||
        check_keys(c, contract, "contract", keys))
        return -1;
    if (get_str(c, contract, "task", "contract", 1, &c->f->task))
        return -1;
    if (load_model(c, contract))
        return -1;
    if (c->f->kind == PX_MODEL_TRAINING)
        return load_input(c, contract) || training_contract(c, contract) ? -1 : 0;
    if (c->f->kind == PX_MODEL_IMAGE && get(c, contract, "train"))
        return fail_at(c, get(c, contract, "train"),
                       "contract.train is for a classifier (cross-entropy on labels), not an image's pipeline%s%s", "",
                       "");
    return load_input(c, contract) || load_generate(c, contract) ||
                   load_labels(c, contract) || load_image(c, contract) || load_compare(c, contract) ||
                   load_train(c, contract)
               ? -1
               : 0;
}

/* A {path, sha256} override of the contract's model or vocab; a model's
 * also {format, files} (load_model_pins), e given. */
static int load_file_override(ctx *c, yaml_node_t *v, const char *key, const char *what, char **path,
                              char **sha, px_loc *sha_loc, int *own, px_env *e)
{
    static const char *const keys[] = {"path", "sha256", NULL};
    static const char *const model_keys[] = {"path", "sha256", "format", "files", NULL};
    yaml_node_t *n = get(c, v, key);
    if (!n)
        return 0;
    char w[200], *rel = NULL;
    snprintf(w, sizeof w, "%s.%s", what, key);
    if (want(c, n, YAML_MAPPING_NODE, w) || check_keys(c, n, w, e ? model_keys : keys) ||
        get_str(c, n, "path", w, 1, &rel))
        return -1;
    free(*path);
    free(*sha);
    *sha = NULL;
    *path = resolve(c->f->dir, rel);
    free(rel);
    *own = 1;
    if (e)
        e->model_path_loc = loc_of(get(c, n, "path"));
    if (!e && c->f->tokenizer_hf && hf_file_check(c, get(c, n, "path"), *path))
        return -1;
    if (!e)
        return get_sha(c, n, w, sha, sha_loc);
    free_model_files(e->model_files, e->n_model_files);
    e->model_files = NULL, e->n_model_files = 0;
    return load_model_pins(c, n, w, &e->model_format, &e->model_format_loc, sha, sha_loc, &e->model_files,
                           &e->n_model_files);
}

static char **copy_strs(char *const *v, size_t n)
{
    char **out = calloc(n ? n : 1, sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        out[i] = strdup(v[i]);
    return out;
}

static int load_env_overrides(ctx *c, yaml_node_t *v, px_env *e, const char *what)
{
    px_fixture *f = c->f;
    e->model_path = strdup(f->model_path);
    e->model_sha256 = f->model_sha256 ? strdup(f->model_sha256) : NULL;
    e->model_sha_loc = f->model_sha_loc;
    e->model_path_loc = f->model_path_loc;
    e->model_format = f->model_format;
    e->model_format_loc = f->model_format_loc;
    e->model_files = copy_model_files(f->model_files, f->n_model_files);
    e->n_model_files = f->n_model_files;
    e->vocab_path = f->vocab_path ? strdup(f->vocab_path) : NULL;
    e->vocab_sha256 = f->vocab_sha256 ? strdup(f->vocab_sha256) : NULL;
    e->vocab_sha_loc = f->vocab_sha_loc;
    e->labels_loc = f->labels_loc;
    if (!e->model_files)
        return px_error_oom(c->err, c->path);
    if (f->kind == PX_MODEL_IMAGE && get(c, v, "vocab"))
        return fail_at(c, get(c, v, "vocab"), "%s.vocab: an image's contract has no tokenizer%s", what, "");
    if (load_file_override(c, v, "model", what, &e->model_path, &e->model_sha256, &e->model_sha_loc, &e->own_model,
                           e) ||
        load_file_override(c, v, "vocab", what, &e->vocab_path, &e->vocab_sha256, &e->vocab_sha_loc, &e->own_vocab,
                           NULL))
        return -1;
    yaml_node_t *l = get(c, v, "labels");
    if (!l) {
        e->labels = copy_strs(f->labels, f->n_labels);
        e->n_labels = f->n_labels;
        return 0;
    }
    char w[200];
    snprintf(w, sizeof w, "%s.labels", what);
    e->own_labels = 1;
    e->labels_loc = loc_of(l);
    return load_labels_list(c, l, w, &e->labels, &e->n_labels);
}

/* record_env: [NAME, ...]: environment variables' names, each once. */
static int load_record_env(ctx *c, yaml_node_t *v, px_env *e, const char *what)
{
    yaml_node_t *n = get(c, v, "record_env");
    if (!n)
        return 0;
    char w[200];
    snprintf(w, sizeof w, "%s.record_env", what);
    if (get_str_list(c, n, w, &e->record_env, &e->n_record_env))
        return -1;
    px_strmap *seen = strmap_new(e->n_record_env ? e->n_record_env : 1);
    if (!seen)
        return px_error_oom(c->err, c->path);
    int rc = 0;
    for (size_t i = 0; !rc && i < e->n_record_env; i++) {
        yaml_node_t *it = node_at(c, n->data.sequence.items.start[i]);
        const char *name = e->record_env[i];
        int dup = 0;
        if (!name)
            rc = px_error_oom(c->err, c->path);
        else if (!envrec_valid_name(name, it->data.scalar.length))
            rc = fail_at(c, it, "record_env: '%.200s' is not an environment variable's name (a letter or _, then "
                                "letters, digits and _)%s",
                         name, NULL);
        else if ((dup = strmap_put(seen, name, (long)i, NULL)) < 0)
            rc = px_error_oom(c->err, c->path);
        else if (dup)
            rc = fail_at(c, it, "record_env: '%s' is listed twice%s", name, NULL);
    }
    strmap_free(seen);
    return rc;
}

/* compile: {backend, mode, dynamic} (fixture.h, px_compile): only torch's
 * own backends and torch.compile's own modes; the Python executor only,
 * since parity-torch (C++) has no torch.compile. */
static int load_compile(ctx *c, yaml_node_t *v, px_env *e, const char *what)
{
    static const char *const keys[] = {"backend", "mode", "dynamic", NULL};
    static const char *const backends[] = {"inductor", "aot_eager", "eager", NULL};
    static const char *const modes[] = {"default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs",
                                        NULL};
    yaml_node_t *n = get(c, v, "compile");
    if (!n)
        return 0;
    char w[200];
    snprintf(w, sizeof w, "%s.compile", what);
    px_compile *k = &e->compile;
    k->present = 1, k->dynamic = -1, k->loc = loc_of(n);
    if (want(c, n, YAML_MAPPING_NODE, w) || check_keys(c, n, w, keys) || get_str(c, n, "backend", w, 0, &k->backend) ||
        get_str(c, n, "mode", w, 0, &k->mode) || get_bool(c, n, "dynamic", w, &k->dynamic))
        return -1;
    if (k->backend && !is_one_of(k->backend, backends))
        return fail_at(c, get(c, n, "backend"),
                       "compile.backend must be inductor, aot_eager or eager, not '%s' (a backend a module registers "
                       "is chosen on the command line: --compile-backend %s=NAME)",
                       k->backend, e->name);
    if (k->mode && !is_one_of(k->mode, modes))
        return fail_at(c, get(c, n, "mode"),
                       "compile.mode must be default, reduce-overhead, max-autotune or max-autotune-no-cudagraphs, not "
                       "'%s'%s",
                       k->mode, NULL);
    if (k->mode && strcmp(k->mode, "default") && k->backend && strcmp(k->backend, "inductor"))
        return fail_at(c, get(c, n, "mode"), "compile.mode %s is inductor's: backend %s would ignore it", k->mode,
                       k->backend);
    if (e->results)
        return fail_at(c, n, "%s is imported (results:): its compile settings are in its results file's manifest%s",
                       what, NULL);
    if (!e->python)
        return fail_at(c, n,
                       "%s has compile: but runs the libtorch executor (parity-torch, C++), which has no "
                       "torch.compile; say executor: python%s",
                       what, NULL);
    if ((!k->backend && !(k->backend = strdup("inductor"))) || (!k->mode && !(k->mode = strdup("default"))))
        return px_error_oom(c->err, c->path);
    return 0;
}

static int load_env(ctx *c, yaml_node_t *k, yaml_node_t *v, px_env *e)
{
    static const char *const keys[] = {"device", "dtype", "threads", "timeout", "first_forward_timeout",
                                       "startup_timeout", "tf32", "matmul_precision", "executor", "role", "note",
                                       "results", "model", "vocab", "labels", "record_env", "compile",
                                       "mixed_precision_param", "mixed_precision_reduce", "parallel", NULL};
    static const char *const precisions[] = {"highest", "high", "medium", NULL};
    static const char *const executors[] = {"libtorch", "python", NULL};
    static const char *const roles[] = {"reference", "twin", "candidate", "oracle", NULL};
    char what[160];
    snprintf(what, sizeof what, "environment '%s'", scalar(k));
    e->name = strdup(scalar(k));
    e->loc = loc_of(k);
    e->tf32 = -1;
    e->timeout_s = 30;
    if (want(c, v, YAML_MAPPING_NODE, what) || check_keys(c, v, what, keys) ||
        get_str(c, v, "device", what, 0, &e->device) || get_str(c, v, "dtype", what, 0, &e->dtype) ||
        get_str(c, v, "role", what, 0, &e->role) || get_str(c, v, "note", what, 0, &e->note) ||
        get_str(c, v, "results", what, 0, &e->results) || get_bool(c, v, "tf32", what, &e->tf32) ||
        get_str(c, v, "matmul_precision", what, 0, &e->matmul_precision))
        return -1;
    char *executor = NULL;
    if (get_str(c, v, "executor", what, 0, &executor))
        return -1;
    e->python = executor && !strcmp(executor, "python");
    if (get(c, v, "executor"))
        e->executor_loc = loc_of(get(c, v, "executor"));
    int bad_executor = executor && !is_one_of(executor, executors);
    free(executor);
    if (bad_executor)
        return fail_at(c, get(c, v, "executor"), "executor must be libtorch or python, not '%s'%s",
                       scalar(get(c, v, "executor")), NULL);
    if (e->matmul_precision && e->tf32 >= 0)
        return fail_at(c, get(c, v, "matmul_precision"),
                       "%s sets both tf32 and matmul_precision: on CUDA they are one setting (tf32: true is "
                       "matmul_precision: high); keep one%s",
                       what, NULL);
    if (e->matmul_precision && !is_one_of(e->matmul_precision, precisions))
        return fail_at(c, get(c, v, "matmul_precision"), "matmul_precision must be highest, high or medium, not '%s'%s",
                       e->matmul_precision, NULL);
    double threads = 1, timeout = e->timeout_s, first = -1, startup = 120;
    if (get_num(c, v, "threads", what, 0, 1024, 1, &threads) ||
        get_num(c, v, "timeout", what, 0.001, 86400, 0, &timeout) ||
        get_num(c, v, "first_forward_timeout", what, 0.001, 86400, 0, &first) ||
        get_num(c, v, "startup_timeout", what, 0.001, 86400, 0, &startup))
        return -1;
    e->threads = (int)threads;
    e->startup_timeout_s = startup;
    e->timeout_s = timeout;
    /* Generous unless said: compiling a graph for a new shape is not a hang. */
    e->first_forward_timeout_s = first > 0 ? first : timeout > 300 ? timeout : 300;
    if (e->role && !is_one_of(e->role, roles))
        return fail_at(c, get(c, v, "role"), "role must be reference, twin, candidate or oracle, not '%s'%s",
                       e->role, NULL);
    if (e->results && e->device)
        return fail_at(c, v, "%s has both device and results: it either runs here or is imported%s", what, NULL);
    if (!e->results && !e->device)
        return fail_at(c, v, "%s needs a device (cpu, cuda:0, ...) or a results file%s", what, NULL);
    if (e->results) {
        char *r = resolve(c->f->dir, e->results);
        free(e->results);
        e->results = r;
    }
    if (!e->dtype && e->device)
        e->dtype = strdup("float32");
    return load_compile(c, v, e, what) || load_record_env(c, v, e, what) || load_env_overrides(c, v, e, what) ||
                   load_train_env(c, v, e, what)
               ? -1
               : 0;
}

static int load_envs(ctx *c, yaml_node_t *root)
{
    yaml_node_t *n = require(c, root, "environments", "the fixture");
    if (!n || want(c, n, YAML_MAPPING_NODE, "environments"))
        return -1;
    size_t len = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (len == 0)
        return fail_at(c, n, "no environments%s%s", NULL, NULL);
    c->f->envs = calloc(len, sizeof *c->f->envs);
    if (!c->f->envs || !(c->f->env_index = strmap_new(len)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < len; i++) {
        yaml_node_pair_t *p = &n->data.mapping.pairs.start[i];
        yaml_node_t *k = node_at(c, p->key);
        if (want(c, k, YAML_SCALAR_NODE, "an environment name"))
            return -1;
        c->f->n_envs++;
        if (load_env(c, k, node_at(c, p->value), &c->f->envs[i]))
            return -1;
        int dup = strmap_put(c->f->env_index, c->f->envs[i].name, (long)i, NULL);
        if (dup)
            return dup < 0 ? px_error_oom(c->err, c->path)
                           : fail_at(c, k, "environment '%s' is defined twice%s", scalar(k), NULL);
    }
    /* The reference without a role: key (one named reference, else the
     * first runnable one) has the role it plays: check, the report and the
     * results file then call it the reference, not a candidate. */
    int ref = fixture_reference(c->f);
    if (ref >= 0 && !c->f->envs[ref].role && !(c->f->envs[ref].role = strdup("reference")))
        return px_error_oom(c->err, c->path);
    return 0;
}

static int label_of(ctx *c, yaml_node_t *n, int *out)
{
    if (want(c, n, YAML_SCALAR_NODE, "a label"))
        return -1;
    *out = fixture_label_index(c->f, scalar(n));
    if (*out < 0 && !c->for_lint) /* lint names every one, with the list */
        return fail_at(c, n, "label '%s' is not in contract.labels%s", scalar(n), NULL);
    return 0;
}

static int get_pattern(ctx *c, yaml_node_t *map, const char *key, px_pattern *p)
{
    yaml_node_t *n = get(c, map, key);
    if (!n)
        return 0;
    p->loc = loc_of(n);
    return get_str(c, map, key, "expect", 0, &p->text);
}

/* One pattern or a list of them. */
static int get_patterns(ctx *c, yaml_node_t *map, const char *key, px_pattern **out, size_t *n_out)
{
    yaml_node_t *n = get(c, map, key);
    if (!n)
        return 0;
    char w[64];
    snprintf(w, sizeof w, "expect.%s", key);
    size_t len = n->type == YAML_SEQUENCE_NODE ? (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)
                                               : 1;
    if (n->type == YAML_MAPPING_NODE)
        return want(c, n, YAML_SCALAR_NODE, w);
    if (!len)
        return fail_at(c, n, "%s is an empty list%s", w, "");
    if (!(*out = calloc(len, sizeof **out)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *it = n->type == YAML_SEQUENCE_NODE ? node_at(c, n->data.sequence.items.start[i]) : n;
        if (want(c, it, YAML_SCALAR_NODE, w))
            return -1;
        (*out)[i].loc = loc_of(it);
        if (!((*out)[i].text = strdup(scalar(it))))
            return px_error_oom(c->err, c->path);
        (*n_out)++;
    }
    return 0;
}

/* same_as_reference: exact | prefix N | tokens-edit-distance <= D */
static int get_same(ctx *c, yaml_node_t *map, px_text_expect *t)
{
    yaml_node_t *n = get(c, map, "same_as_reference");
    if (!n)
        return 0;
    t->same_loc = loc_of(n);
    if (want(c, n, YAML_SCALAR_NODE, "expect.same_as_reference"))
        return -1;
    const char *s = scalar(n);
    char tail;
    int v = -1;
    if (!strcmp(s, "exact"))
        t->same = PX_SAME_EXACT;
    else if (sscanf(s, "prefix %d%c", &v, &tail) == 1 && v >= 1 && v <= 1 << 20)
        t->same = PX_SAME_PREFIX, t->same_n = v;
    else if (sscanf(s, "tokens-edit-distance <= %d%c", &v, &tail) == 1 && v >= 0 && v <= 1 << 20)
        t->same = PX_SAME_EDITS, t->same_n = v;
    else
        return fail_at(c, n,
                       "expect.same_as_reference must be exact, prefix N or tokens-edit-distance <= D, not '%s'%s",
                       s, "");
    return 0;
}

/* A generator's example: rejected: true (as a classifier's), or what its
 * generated text must be. */
static int load_text_expect(ctx *c, yaml_node_t *n, px_expect *x)
{
    static const char *const keys[] = {"rejected", "reason", "must_match", "must_not_match", "max_chars",
                                       "non_empty", "same_as_reference", NULL};
    if (want_expect(c, n, "{must_match: PATTERN}, {max_chars: N}, {same_as_reference: true} or {rejected: true}") ||
        check_keys(c, n, "expect (a generator's)", keys) ||
        get_pattern(c, n, "reason", &x->reason))
        return -1;
    x->loc = loc_of(n);
    int rejected = 0;
    if (get_bool(c, n, "rejected", "expect", &rejected))
        return -1;
    if (rejected) {
        static const char *const text_keys[] = {"must_match", "must_not_match", "max_chars", "non_empty",
                                                "same_as_reference", NULL};
        for (const char *const *k = text_keys; *k; k++)
            if (get(c, n, *k))
                return fail_at(c, get(c, n, *k), "expect.%s is about generated text; a rejected input has none%s",
                               *k, "");
        x->kind = PX_EXPECT_REJECTED;
        return 0;
    }
    if (x->reason.text)
        return fail_at(c, get(c, n, "reason"), "expect.reason only goes with rejected: true%s%s", NULL, NULL);
    px_text_expect *t = x->text = calloc(1, sizeof *t);
    if (!t)
        return px_error_oom(c->err, c->path);
    x->kind = PX_EXPECT_TEXT;
    double v = 0;
    if (get_patterns(c, n, "must_match", &t->must_match, &t->n_must_match) ||
        get_patterns(c, n, "must_not_match", &t->must_not_match, &t->n_must_not_match) ||
        get_num(c, n, "max_chars", "expect", 1, 1 << 20, 1, &v) || get_bool(c, n, "non_empty", "expect", &t->non_empty) ||
        get_same(c, n, t))
        return -1;
    t->max_chars = (int)v;
    if (get(c, n, "max_chars"))
        t->max_chars_loc = loc_of(get(c, n, "max_chars"));
    if (get(c, n, "non_empty"))
        t->non_empty_loc = loc_of(get(c, n, "non_empty"));
    if (!t->n_must_match && !t->n_must_not_match && !t->max_chars && !t->non_empty && t->same == PX_SAME_ANY)
        return fail_at(c, n,
                       "expect (a generator's) says nothing: give must_match, must_not_match, max_chars, "
                       "non_empty, same_as_reference or rejected: true%s%s",
                       "", "");
    return 0;
}

/* An embedding query's expect: {top: [doc-id, ...], k, order: exact|set},
 * or rejected: true (with reason). The ids are resolved once every example
 * is read (fixture_resolve_top). */
static int load_retrieval_expect(ctx *c, yaml_node_t *n, px_expect *x)
{
    static const char *const keys[] = {"top", "k", "order", "rejected", "reason", NULL};
    if (want_expect(c, n, "{top: [DOCUMENT-ID, ...], k: N} or {rejected: true}") || check_keys(c, n, "expect", keys) ||
        get_pattern(c, n, "reason", &x->reason))
        return -1;
    x->loc = loc_of(n);
    int rejected = 0;
    if (get_bool(c, n, "rejected", "expect", &rejected))
        return -1;
    yaml_node_t *top = get(c, n, "top");
    if (!!top + rejected != 1)
        return fail_at(c, n, "a query's expect needs exactly one of top: [document ids] or rejected: true%s%s", NULL,
                       NULL);
    if (x->reason.text && !rejected)
        return fail_at(c, get(c, n, "reason"), "expect.reason only goes with rejected: true%s%s", NULL, NULL);
    if (rejected) {
        static const char *const not_with[] = {"k", "order", NULL};
        for (int i = 0; not_with[i]; i++)
            if (get(c, n, not_with[i]))
                return fail_at(c, get(c, n, not_with[i]), "expect.%s goes with top, not with rejected: true%s",
                               not_with[i], "");
        x->kind = PX_EXPECT_REJECTED;
        return 0;
    }
    x->kind = PX_EXPECT_RETRIEVAL;
    px_retrieval *r = x->retrieval = calloc(1, sizeof *r);
    if (!r)
        return px_error_oom(c->err, c->path);
    r->loc = loc_of(n);
    if (get_str_list(c, top, "expect.top", &r->top, &r->n_top))
        return -1;
    if (r->n_top == 0)
        return fail_at(c, top, "expect.top is empty: name the documents the query must find%s%s", NULL, NULL);
    if (!(r->top_idx = calloc(r->n_top, sizeof *r->top_idx)) || !(r->top_loc = calloc(r->n_top, sizeof *r->top_loc)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < r->n_top; i++) {
        r->top_idx[i] = -1;
        r->top_loc[i] = loc_of(node_at(c, top->data.sequence.items.start[i]));
        for (size_t j = 0; j < i; j++)
            if (!strcmp(r->top[i], r->top[j]))
                return fail_at(c, node_at(c, top->data.sequence.items.start[i]),
                               "document '%s' is listed twice in expect.top%s", r->top[i], NULL);
    }
    double k = (double)r->n_top;
    if (get_num(c, n, "k", "expect", 1, 10000, 1, &k))
        return -1;
    r->k = (int)k;
    if ((size_t)r->k < r->n_top) {
        char m[160];
        snprintf(m, sizeof m, "expect.k %d is less than the %zu documents top names: k is the window they are found in",
                 r->k, r->n_top);
        return fail_at(c, get(c, n, "k"), "%s%s", m, "");
    }
    char *order = NULL;
    if (get_str(c, n, "order", "expect", 0, &order))
        return -1;
    int bad = order && strcmp(order, "exact") && strcmp(order, "set");
    r->exact = order && !strcmp(order, "exact");
    free(order);
    if (bad)
        return fail_at(c, get(c, n, "order"), "expect.order must be exact or set, not '%s'%s",
                       scalar(get(c, n, "order")), "");
    return 0;
}

static int load_expect(ctx *c, yaml_node_t *n, px_expect *x)
{
    if (c->f->kind == PX_MODEL_GENERATOR)
        return load_text_expect(c, n, x);
    if (c->f->kind == PX_MODEL_EMBEDDING)
        return load_retrieval_expect(c, n, x);
    static const char *const keys[] = {"label", "any_of", "rejected", "top_k", "reason", "must_match",
                                       "must_not_match", NULL};
    if (want_expect(c, n, "{label: LABEL}, {any_of: [LABEL, ...]} or {rejected: true, reason: PATTERN}") ||
        check_keys(c, n, "expect", keys) ||
        get_pattern(c, n, "reason", &x->reason) || get_pattern(c, n, "must_match", &x->must_match) ||
        get_pattern(c, n, "must_not_match", &x->must_not_match))
        return -1;
    x->loc = loc_of(n);
    yaml_node_t *label = get(c, n, "label"), *any = get(c, n, "any_of");
    int rejected = 0;
    if (get_bool(c, n, "rejected", "expect", &rejected))
        return -1;
    if (!!label + !!any + rejected != 1)
        return fail_at(c, n, "expect needs exactly one of label, any_of or rejected: true%s%s", NULL, NULL);
    double k = 0;
    if (get_num(c, n, "top_k", "expect", 1, 1000, 1, &k))
        return -1;
    x->top_k = (int)k;
    if (label) {
        x->kind = PX_EXPECT_LABEL;
        return label_of(c, label, &x->label);
    }
    if (x->reason.text && !rejected)
        return fail_at(c, get(c, n, "reason"), "expect.reason only goes with rejected: true%s%s", NULL, NULL);
    if (rejected) {
        x->kind = PX_EXPECT_REJECTED;
        return 0;
    }
    x->kind = PX_EXPECT_ANY_OF;
    if (want(c, any, YAML_SEQUENCE_NODE, "expect.any_of"))
        return -1;
    size_t len = (size_t)(any->data.sequence.items.top - any->data.sequence.items.start);
    if (len == 0)
        return fail_at(c, any, "expect.any_of is empty%s%s", NULL, NULL);
    x->any_of = calloc(len, sizeof *x->any_of);
    for (size_t i = 0; i < len; i++, x->n_any_of++)
        if (label_of(c, node_at(c, any->data.sequence.items.start[i]), &x->any_of[i]))
            return -1;
    return 0;
}

/* Every field of the review record (PX_REVIEW_RECORD) is an optional
 * string; the decision and the results hash are checked besides. */
static int load_review(ctx *c, yaml_node_t *n, px_review *r)
{
    if (want(c, n, YAML_MAPPING_NODE, "review") || check_keys(c, n, "review", px_review_keys))
        return -1;
    for (int i = 0; i < PX_REVIEW_FIELDS; i++) {
        char *v = NULL;
        int rc = get_str(c, n, px_review_keys[i], "review", 0, &v);
        *review_slot(r, i) = v;
        if (rc)
            return -1;
    }
    if (r->results && !hash_is_sha256(r->results))
        return fail_at(c, get(c, n, "results_sha256"), "review.results_sha256 must be 64 hex digits, not '%s'%s",
                       r->results, NULL);
    px_decision_kind kind = decision_kind(r->decision);
    if (r->decision && (kind == PX_DEC_NONE || kind == PX_DEC_CLEAR))
        return fail_at(c, get(c, n, "decision"), "review.decision must be %s, not '%s'", decision_list(0),
                       r->decision);
    return 0;
}

/* An embedding's example: role document (no expect: queries name it) or
 * query (expect: top or rejected); similar_to_reference of its own. */
static int load_embedding_example(ctx *c, yaml_node_t *n, px_example *x)
{
    char *role = NULL;
    yaml_node_t *rn = get(c, n, "role"), *sim = get(c, n, "similar_to_reference");
    if (c->f->kind != PX_MODEL_EMBEDDING) {
        if (rn || sim)
            return fail_at(c, rn ? rn : sim, "an example's %s is for an embedding (contract.model.kind: embedding)%s",
                           rn ? "role" : "similar_to_reference", "");
        return 0;
    }
    if (!rn)
        return fail_at(c, n, "example '%s' needs role: document or query (contract.model.kind: embedding)%s", x->id,
                       "");
    if (get_str(c, n, "role", "example", 1, &role))
        return -1;
    x->role = !strcmp(role, "document") ? PX_ROLE_DOCUMENT : !strcmp(role, "query") ? PX_ROLE_QUERY : PX_ROLE_NONE;
    free(role);
    if (x->role == PX_ROLE_NONE)
        return fail_at(c, rn, "example role must be document or query, not '%s'%s", scalar(rn), "");
    if (x->role == PX_ROLE_DOCUMENT && get(c, n, "expect"))
        return fail_at(c, get(c, n, "expect"),
                       "a document has no expect: the queries name the documents they must find (expect.top)%s%s",
                       NULL, NULL);
    if (!sim)
        return 0;
    if (!(x->similar = calloc(1, sizeof *x->similar)))
        return px_error_oom(c->err, c->f->path);
    return load_similar(c, sim, "example similar_to_reference", x->similar);
}

/* An image's expect: none (its checks are the contract's compare.image,
 * against the reference), or {rejected: true, reason: PATTERN} for a class
 * input processing must reject. */
static int load_image_expect(ctx *c, yaml_node_t *n, px_expect *x)
{
    static const char *const keys[] = {"rejected", "reason", NULL};
    if (want_expect(c, n, "{rejected: true} (an image's other checks are contract.compare.image)") ||
        check_keys(c, n, "expect (an image's)", keys) || get_pattern(c, n, "reason", &x->reason))
        return -1;
    x->loc = loc_of(n);
    int rejected = 0;
    if (!require(c, n, "rejected", "expect (an image's)") || get_bool(c, n, "rejected", "expect", &rejected))
        return -1;
    if (!rejected)
        return fail_at(c, get(c, n, "rejected"),
                       "an image's expect is rejected: true or absent (its picture is checked against the reference's "
                       "by contract.compare.image)%s%s",
                       "", "");
    x->kind = PX_EXPECT_REJECTED;
    return 0;
}

/* An image's example: its class (kept as its text, so that every list that
 * shows an example's input shows it), its own seed, and an expect only
 * for a class that must be rejected. Refused on other kinds' examples, and
 * theirs (text:) on an image's. */
static int load_image_example(ctx *c, yaml_node_t *n, px_example *x)
{
    yaml_node_t *cl = get(c, n, "class"), *sd = get(c, n, "seed");
    if (c->f->kind != PX_MODEL_IMAGE) {
        if (cl || sd)
            return fail_at(c, cl ? cl : sd, "an example's %s is for an image (contract.model.kind: image)%s",
                           cl ? "class" : "seed", "");
        return 0;
    }
    static const char *const other[] = {"text", "compare", "role", "similar_to_reference", NULL};
    if (get(c, n, "text"))
        return fail_at(c, get(c, n, "text"), "an image's example takes class:, not text: (one of contract.labels)%s%s",
                       "", "");
    if (get(c, n, "compare"))
        return fail_at(c, get(c, n, "compare"),
                       "an image's example has no compare: of its own: its checks are contract.compare's%s%s", "", "");
    for (int i = 2; other[i]; i++)
        if (get(c, n, other[i]))
            return fail_at(c, get(c, n, other[i]), "an image's example has no %s (that is an embedding's)%s", other[i],
                           "");
    yaml_node_t *cn = require(c, n, "class", "example (kind image: the class it draws, one of contract.labels)");
    if (!cn || get_str(c, n, "class", "example", 1, &x->text))
        return -1;
    x->text_len = strlen(x->text);
    x->text_loc = loc_of(cn);
    if (sd && get_seed_of(c, sd, "example seed", 1, &x->seed))
        return -1;
    x->has_seed = sd != NULL;
    yaml_node_t *e = get(c, n, "expect");
    return e ? load_image_expect(c, e, &x->expect) : 0;
}

static int load_example(ctx *c, yaml_node_t *n, px_example *x)
{
    static const char *const keys[] = {"id",      "kind", "text",  "class", "seed", "expect", "why", "review",
                                       "compare", "role", "similar_to_reference", "train", NULL};
    static const char *const kinds[] = {"normal", "short", "long", "reject", "ambiguous", "edge", NULL};
    if (want(c, n, YAML_MAPPING_NODE, "an example") || check_keys(c, n, "an example", keys) ||
        get_str(c, n, "id", "example", 1, &x->id) || get_str(c, n, "kind", "example", 0, &x->kind) ||
        get_str(c, n, "why", "example", 0, &x->why))
        return -1;
    x->loc = loc_of(n);
    if (!x->id[0])
        return fail_at(c, get(c, n, "id"), "example id is empty%s%s", NULL, NULL);
    if (!x->kind)
        x->kind = strdup("normal");
    if (!is_one_of(x->kind, kinds))
        return fail_at(c, get(c, n, "kind"),
                       "example kind must be normal, short, long, reject, ambiguous or edge, not '%s'%s",
                       x->kind, NULL);
    x->loss_at_most = NAN;
    if (load_train_example(c, n, x) || load_image_example(c, n, x))
        return -1;
    if (c->f->kind == PX_MODEL_IMAGE || c->f->kind == PX_MODEL_TRAINING) {
        yaml_node_t *r = get(c, n, "review");
        return r ? load_review(c, r, &x->review) : 0;
    }
    yaml_node_t *text = require(c, n, "text", "example");
    if (!text || get_str(c, n, "text", "example", 1, &x->text))
        return -1;
    x->text_len = strlen(x->text);
    x->text_loc = loc_of(text);
    if (load_embedding_example(c, n, x))
        return -1;
    if (x->role != PX_ROLE_DOCUMENT) {
        yaml_node_t *e = require(c, n, "expect", "example");
        if (!e || load_expect(c, e, &x->expect))
            return -1;
    }
    yaml_node_t *cmp = get(c, n, "compare");
    if (cmp) {
        const char *tk = c->f->kind == PX_MODEL_EMBEDDING ? "vectors" : "logits";
        const char *const ckeys[] = {tk, NULL};
        char what[64];
        snprintf(what, sizeof what, "example compare.%s", tk);
        yaml_node_t *t = NULL;
        if (want(c, cmp, YAML_MAPPING_NODE, "example compare") || check_keys(c, cmp, "example compare", ckeys))
            return -1;
        if ((t = get(c, cmp, tk)) && !(x->tol = calloc(1, sizeof *x->tol)))
            return px_error_oom(c->err, c->f->path);
        if (t && load_tolerance(c, t, what, x->tol))
            return -1;
    }
    yaml_node_t *r = get(c, n, "review");
    return r ? load_review(c, r, &x->review) : 0;
}

static int load_examples(ctx *c, yaml_node_t *root)
{
    yaml_node_t *n = require(c, root, "examples", "the fixture");
    if (!n || want(c, n, YAML_SEQUENCE_NODE, "examples"))
        return -1;
    if (c->taken == 1) {
        if (c->failed)
            *c->err = c->ex_err;
        return c->failed ? -1 : 0;
    }
    size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    c->f->examples = calloc(len ? len : 1, sizeof *c->f->examples);
    if (!c->f->examples || !(c->f->example_index = strmap_new(len)))
        return px_error_oom(c->err, c->path);
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *it = node_at(c, n->data.sequence.items.start[i]);
        c->f->n_examples++;
        if (load_example(c, it, &c->f->examples[i]))
            return -1;
        long j = -1;
        int dup = strmap_put(c->f->example_index, c->f->examples[i].id, (long)i, &j);
        if (dup < 0)
            return px_error_oom(c->err, c->path);
        if (dup) {
            char first[32];
            snprintf(first, sizeof first, "%d", c->f->examples[j].loc.line);
            return fail_at(c, get(c, it, "id"), "duplicate example id '%s' (first at line %s)", c->f->examples[i].id,
                           first);
        }
    }
    return 0;
}

/* What comes before the examples: the root's keys, the version, the
 * contract and the environments. */
static int load_head(ctx *c, yaml_node_t *root)
{
    static const char *const keys[] = {"parity", "contract", "environments", "examples", "redact", NULL};
    if (!root)
        return px_error_set(c->err, PX_ERR_MALFORMED, c->path, 0, 0, "empty file: not a parity fixture");
    if (want(c, root, YAML_MAPPING_NODE, "the fixture") || check_keys(c, root, "the fixture", keys))
        return -1;
    yaml_node_t *v = require(c, root, "parity", "the fixture");
    if (!v)
        return -1;
    if (v->type != YAML_SCALAR_NODE || strcmp(scalar(v), "1"))
        return fail_at(c, v, "parity: %s is not a fixture version this program reads (1)%s",
                       v->type == YAML_SCALAR_NODE ? scalar(v) : "?", NULL);
    return load_contract(c, root) || load_envs(c, root) ? -1 : 0;
}

static int load_root(ctx *c)
{
    static const char *const keys[] = {"parity", "contract", "environments", "examples", "redact", NULL};
    yaml_node_t *root = yaml_document_get_root_node(&c->doc);
    if (c->taken == 1) {
        /* The head was read from the root's keys before the examples, all
         * of it (it needs every one of its keys): one of them again after
         * them is a duplicate, which the whole root's keys say first. */
        if (want(c, root, YAML_MAPPING_NODE, "the fixture") || check_keys(c, root, "the fixture", keys))
            return -1;
    } else if (load_head(c, root)) {
        return -1;
    }
    return load_examples(c, root) || load_redact(c, root) ? -1 : 0;
}

/* At the first example: the head, from the document so far. One that
 * cannot be read there has the file read whole (-1: YDOC_AGAIN). */
static int stream_take(void *vc, yaml_document_t *d, int map, int key, size_t pos)
{
    ctx *c = vc;
    (void)d, (void)map, (void)key, (void)pos;
    if (c->taken)
        return c->taken == 1;
    c->taken = -1;
    px_error ignored = {0}, *keep = c->err;
    c->err = &ignored;
    int rc = load_head(c, yaml_document_get_root_node(&c->doc));
    c->err = keep;
    if (rc)
        return -1;
    c->cap_examples = 64;
    if (!(c->f->examples = calloc(c->cap_examples, sizeof *c->f->examples)) ||
        !(c->f->example_index = strmap_new(c->cap_examples)))
        return -1;
    c->taken = 1;
    return 1;
}

static int stream_item(void *vc, yaml_document_t *item, size_t pos, px_error *err)
{
    ctx *c = vc, ic = *c;
    (void)pos;
    if (c->failed)
        return 0; /* only the first error is said */
    px_fixture *f = c->f;
    if (f->n_examples == c->cap_examples) {
        px_example *x = realloc(f->examples, c->cap_examples * 2 * sizeof *x);
        if (!x)
            return px_error_oom(err, c->path);
        memset(x + c->cap_examples, 0, c->cap_examples * sizeof *x);
        f->examples = x, c->cap_examples *= 2;
    }
    ic.doc = *item, ic.err = &c->ex_err;
    yaml_node_t *it = yaml_document_get_root_node(item);
    size_t i = f->n_examples++;
    long j = -1;
    int dup = 0;
    if (load_example(&ic, it, &f->examples[i]) || (dup = strmap_put(f->example_index, f->examples[i].id, (long)i, &j)) < 0) {
        if (dup < 0)
            px_error_oom(&c->ex_err, c->path);
        c->failed = 1;
    } else if (dup) {
        char first[32];
        snprintf(first, sizeof first, "%d", f->examples[j].loc.line);
        fail_at(&ic, get(&ic, it, "id"), "duplicate example id '%s' (first at line %s)", f->examples[i].id, first);
        c->failed = 1;
    }
    return 0;
}

/* An embedding's queries name documents: each id in an expect.top is a
 * role document example of this fixture, and k is at most the documents
 * there are. Said at the id, once every example is read. */
static int resolve_top(px_fixture *f, px_error *err)
{
    if (f->kind != PX_MODEL_EMBEDDING)
        return 0;
    for (size_t i = 0; i < f->n_examples; i++)
        f->n_documents += f->examples[i].role == PX_ROLE_DOCUMENT;
    for (size_t i = 0; i < f->n_examples; i++) {
        px_retrieval *r = f->examples[i].expect.retrieval;
        for (size_t t = 0; r && t < r->n_top; t++) {
            long at = fixture_example_index(f, r->top[t]);
            if (at < 0 || f->examples[at].role != PX_ROLE_DOCUMENT) {
                char docs[256] = "";
                size_t o = 0, shown = 0;
                for (size_t d = 0; d < f->n_examples && o < sizeof docs - 8; d++)
                    if (f->examples[d].role == PX_ROLE_DOCUMENT) {
                        if (shown++ == 6) {
                            o += (size_t)snprintf(docs + o, sizeof docs - o, ", ...");
                            break;
                        }
                        o += (size_t)snprintf(docs + o, sizeof docs - o, "%s%s", shown > 1 ? ", " : "",
                                              f->examples[d].id);
                    }
                if (o >= sizeof docs)
                    strcpy(docs + sizeof docs - 5, "...");
                return px_error_set(err, PX_ERR_MALFORMED, f->path, r->top_loc[t].line, r->top_loc[t].col,
                                    at < 0 ? "expect.top names '%s', which is no example of this fixture (the "
                                             "documents: %s)"
                                           : "expect.top names '%s', which is a query: a search ranks only role: "
                                             "document examples (the documents: %s)",
                                    r->top[t], f->n_documents ? docs : "none");
            }
            r->top_idx[t] = at;
        }
        if (r && (size_t)r->k > f->n_documents)
            return px_error_set(err, PX_ERR_MALFORMED, f->path, r->loc.line, r->loc.col,
                                "expect.k %d is more than the fixture's %zu documents", r->k, f->n_documents);
    }
    return 0;
}

static px_fixture *new_fixture(const char *path, const char *data, size_t len)
{
    px_fixture *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path)) || !(f->dir = strdup(path))) {
        fixture_free(f);
        return NULL;
    }
    char *slash = strrchr(f->dir, '/');
    if (slash)
        *slash = '\0';
    else
        f->dir[0] = '\0';
    hash_buffer(data, len, f->sha256);
    return f;
}

/* Streamed first (the examples read one at a time, never a document of
 * them all); read whole when the file is not plain YAML, has anchors in
 * its examples or its head cannot be read before them, which says exactly
 * what is wrong. */
static px_fixture *parse(const char *path, const char *data, size_t len, int for_lint, px_error *err)
{
    ctx c = {.path = path, .err = err, .f = new_fixture(path, data, len), .for_lint = for_lint};
    if (!c.f) {
        px_error_oom(err, path);
        return NULL;
    }
    ydoc_divert dv = {"examples", stream_take, stream_item, &c};
    int rc = ydoc_load_stream(path, NULL, data, len, "fixture", &c.doc, &dv, err);
    if (!rc) {
        rc = load_root(&c);
        yaml_document_delete(&c.doc);
    }
    if (rc == YDOC_AGAIN) {
        fixture_free(c.f);
        *err = (px_error){0};
        c = (ctx){.path = path, .err = err, .f = new_fixture(path, data, len), .for_lint = for_lint};
        if (!c.f) {
            px_error_oom(err, path);
            return NULL;
        }
        rc = ydoc_load(path, data, len, "fixture", &c.doc, err);
        if (!rc) {
            rc = load_root(&c);
            yaml_document_delete(&c.doc);
        }
    }
    if (rc || resolve_top(c.f, err) || check_parallel_batches(c.f, err)) {
        fixture_free(c.f);
        return NULL;
    }
    /* Streamed examples grew by doubling: give back the slack (10 000
     * examples held 6 384 empty ones, 1.7 MiB). */
    px_example *x = c.f->n_examples ? realloc(c.f->examples, c.f->n_examples * sizeof *x) : NULL;
    if (x)
        c.f->examples = x;
    return c.f;
}

px_fixture *fixture_parse(const char *path, const char *data, size_t len, px_error *err)
{
    return parse(path, data, len, 0, err);
}

px_fixture *fixture_parse_lint(const char *path, const char *data, size_t len, px_error *err)
{
    return parse(path, data, len, 1, err);
}

/* The file's bytes, NUL-terminated, refused past the fixture size limit. */
char *fixture_read(const char *path, size_t *len, px_error *err) { return ydoc_read(path, "fixture", len, err); }

px_fixture *fixture_load(const char *path, px_error *err)
{
    size_t len = 0;
    char *data = fixture_read(path, &len, err);
    if (!data)
        return NULL;
    px_fixture *f = fixture_parse(path, data, len, err);
    free(data);
    return f;
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void env_free(px_env *e)
{
    free(e->name);
    free(e->device);
    free(e->dtype);
    free(e->role);
    free(e->note);
    free(e->matmul_precision);
    free(e->mixed_precision_param), free(e->mixed_precision_reduce), free(e->parallel.backend);
    free(e->compile.backend), free(e->compile.mode);
    free(e->results);
    free_strs(e->record_env, e->n_record_env);
    free(e->model_path);
    free(e->model_sha256);
    free_model_files(e->model_files, e->n_model_files);
    free(e->vocab_path);
    free(e->vocab_sha256);
    free_strs(e->labels, e->n_labels);
}

static void expect_free(px_expect *x)
{
    free(x->any_of);
    if (x->retrieval) {
        free_strs(x->retrieval->top, x->retrieval->n_top);
        free(x->retrieval->top_idx);
        free(x->retrieval->top_loc);
        free(x->retrieval);
    }
    free(x->reason.text);
    free(x->must_match.text);
    free(x->must_not_match.text);
    if (x->text) {
        px_text_expect *t = x->text;
        for (size_t i = 0; i < t->n_must_match; i++)
            free(t->must_match[i].text);
        for (size_t i = 0; i < t->n_must_not_match; i++)
            free(t->must_not_match[i].text);
        free(t->must_match), free(t->must_not_match), free(t);
    }
}

static void example_free(px_example *x)
{
    free(x->id);
    free(x->kind);
    free(x->text);
    free(x->why);
    expect_free(&x->expect);
    if (x->tol)
        free(x->tol->stat), free(x->tol->why), free(x->tol);
    if (x->similar)
        free(x->similar->why), free(x->similar);
    free(x->recipe);
    review_clear(&x->review);
}

void fixture_free(px_fixture *f)
{
    if (!f)
        return;
    free(f->path);
    free(f->dir);
    free(f->task);
    free(f->model_path);
    free(f->model_sha256);
    free_model_files(f->model_files, f->n_model_files);
    free_strs(f->inputs, f->n_inputs);
    free(f->output);
    free_strs(f->gen.stop, f->gen.n_stop);
    for (size_t i = 0; i < f->n_rules; i++) {
        free(f->rules[i].pattern);
        free(f->rules[i].replace);
        free(f->rules[i].why);
    }
    free(f->rules);
    for (size_t i = 0; i < f->n_redact; i++) {
        free(f->redact[i].pattern);
        free(f->redact[i].why);
    }
    free(f->redact);
    free(f->vocab_path);
    free(f->vocab_sha256);
    free_strs(f->labels, f->n_labels);
    free(f->logits_tol.stat);
    free(f->logits_tol.why);
    free(f->similar.why);
    free(f->image.scheduler);
    px_image_checks *ic = &f->image_cmp;
    free(ic->psnr.why), free(ic->ssim.why), free(ic->mean_abs.why), free(ic->max_abs.why);
    free(ic->latents.stat), free(ic->latents.why);
    free(f->train.why);
    free(f->train_data.path), free(f->train_data.sha256);
    px_train_checks *tc = &f->train_cmp;
    free(tc->loss.why), free(tc->grad_norm.why), free(tc->update.why), free(tc->params_why), free(tc->learning_why);
    free(f->decision);
    for (size_t i = 0; i < f->n_envs; i++)
        env_free(&f->envs[i]);
    free(f->envs);
    for (size_t i = 0; i < f->n_examples; i++)
        example_free(&f->examples[i]);
    free(f->examples);
    strmap_free(f->env_index);
    strmap_free(f->example_index);
    free(f);
}

int fixture_label_index(const px_fixture *f, const char *label)
{
    for (size_t i = 0; i < f->n_labels; i++)
        if (!strcmp(f->labels[i], label))
            return (int)i;
    return -1;
}

const px_env *fixture_env(const px_fixture *f, const char *name)
{
    long i = strmap_get(f->env_index, name);
    return i >= 0 ? &f->envs[i] : NULL;
}

long fixture_example_index(const px_fixture *f, const char *id) { return strmap_get(f->example_index, id); }

int fixture_unknown_env(const px_fixture *f, const char *name, px_error *err)
{
    char names[512] = "";
    for (size_t i = 0; i < f->n_envs; i++) {
        strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
        strncat(names, f->envs[i].name, sizeof names - strlen(names) - 1);
    }
    return px_error_set(err, PX_ERR_NOT_FOUND, f->path, 0, 0, "no environment '%s' (there are: %s)", name, names);
}

int fixture_reference(const px_fixture *f)
{
    for (size_t i = 0; i < f->n_envs; i++)
        if (f->envs[i].role && !strcmp(f->envs[i].role, "reference"))
            return (int)i;
    for (size_t i = 0; i < f->n_envs; i++)
        if (!strcmp(f->envs[i].name, "reference"))
            return (int)i;
    for (size_t i = 0; i < f->n_envs; i++)
        if (f->envs[i].device)
            return (int)i;
    return -1;
}

/* The fixture's redact: patterns, the built-ins and $HOME (fixture.h). */
px_redactor *fixture_redactor(const px_fixture *f, px_error *err)
{
    const char **patterns = calloc(f->n_redact ? f->n_redact : 1, sizeof *patterns);
    if (!patterns) {
        px_error_oom(err, f->path);
        return NULL;
    }
    for (size_t i = 0; i < f->n_redact; i++)
        patterns[i] = f->redact[i].pattern;
    px_redactor *r = redact_new(patterns, f->n_redact, getenv("HOME"), err);
    free(patterns);
    return r;
}
