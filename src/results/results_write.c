#define _GNU_SOURCE /* vasprintf, open_memstream */
#include "parity/results.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/atomic.h"
#include "parity/redact.h"
#include "parity/results_schema.h"
#include "parity/emit.h"
#include "parity/kind.h"

static const struct {
    const char *name, *meaning;
} statuses[PX_ST_COUNT] = {
    [PX_ST_PENDING] = {"pending", "not run yet"},
    [PX_ST_OK] = {"ok", "forward ran and the output has the contract's shape"},
    [PX_ST_REJECTED] = {"rejected", "input processing rejected the text, as the contract says"},
    [PX_ST_EXCEPTION] = {"exception", "the forward raised an error"},
    [PX_ST_UNSUPPORTED] = {"unsupported", "the backend does not implement an operation or dtype"},
    [PX_ST_CRASH] = {"crash", "the executor process died (signal or exit)"},
    [PX_ST_TIMEOUT] = {"timeout", "no answer within the environment's timeout"},
    [PX_ST_BAD_SHAPE] = {"bad-shape", "the output shape is not [1, number of labels]"},
    [PX_ST_EMPTY] = {"empty", "the output has no elements"},
    [PX_ST_NOT_EVALUATED] = {"not-evaluated", "not run: environment down or run stopped"},
};

const char *status_name(px_status s) { return s < PX_ST_COUNT ? statuses[s].name : "?"; }

int status_from_name(const char *name)
{
    for (int i = 0; i < PX_ST_COUNT; i++)
        if (!strcmp(statuses[i].name, name))
            return i;
    return -1;
}

px_results *results_new(const px_fixture *f, const int *env_indices, size_t n)
{
    px_results *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->envs = calloc(n ? n : 1, sizeof *r->envs);
    r->n_envs = n;
    r->n_examples = f->n_examples;
    r->reference = -1;
    int ref = fixture_reference(f);
    for (size_t i = 0; i < n; i++) {
        px_env_result *e = &r->envs[i];
        e->env_index = env_indices[i];
        e->name = strdup(f->envs[env_indices[i]].name);
        e->ex = calloc(f->n_examples ? f->n_examples : 1, sizeof *e->ex);
        e->m.first_forward_ms = -1;
        e->selected = 1;
        const px_env *fe = &f->envs[env_indices[i]];
        e->labels = calloc(fe->n_labels ? fe->n_labels : 1, sizeof *e->labels);
        for (size_t l = 0; e->labels && l < fe->n_labels; l++)
            e->labels[e->n_labels++] = strdup(fe->labels[l]);
        for (size_t k = 0; k < f->n_examples; k++) {
            e->ex[k].label = -1;
            e->ex[k].forward_ms = -1;
        }
        if (env_indices[i] == ref)
            r->reference = (int)i;
    }
    return r;
}

/* Writable storage for the names, since x->dtype is a char *; never
 * written. */
static char dtypes[][12] = {"float32", "bfloat16", "float16", "float64", "int64", "int32", "bool"};

char *results_dtype(const char *name)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (!strcmp(name, dtypes[i]))
            return dtypes[i];
    return strdup(name);
}

void results_dtype_free(char *dtype)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (dtype == dtypes[i])
            return;
    free(dtype);
}

void generated_free(px_generated *g)
{
    if (!g)
        return;
    free(g->ids), free(g->top_ids), free(g->top_logits), free(g->text);
    free(g);
}

void image_out_free(px_image_out *g)
{
    if (!g)
        return;
    free(g->step), free(g->latents);
    free(g);
}

void train_out_free(px_train_out *t)
{
    if (!t)
        return;
    free(t->grad_norm), free(t->update_norm), free(t->lr), free(t->step_ms);
    for (size_t i = 0; i < t->n_groups; i++)
        free(t->groups[i].name);
    free(t->groups);
    free(t);
}

const char *generated_end_name(int end) { return end == 1 ? "stop" : end == 2 ? "length" : "?"; }

void example_result_free_input(px_example_result *x)
{
    free(x->clean_text);
    free(x->ids);
    for (size_t i = 0; x->tokens && !x->token_text && i < x->n_ids; i++)
        free(x->tokens[i]);
    free(x->token_text);
    free(x->tokens);
    x->clean_text = x->token_text = NULL, x->ids = NULL, x->tokens = NULL;
}

void example_result_clear(px_example_result *x)
{
    free(x->detail);
    free(x->stderr_tail);
    if (!x->shared_input)
        example_result_free_input(x);
    results_dtype_free(x->dtype);
    generated_free(x->gen);
    image_out_free(x->img);
    train_out_free(x->train);
    free(x->values);
    memset(x, 0, sizeof *x);
    x->label = -1;
    x->forward_ms = -1;
}

const char *bench_endpoint_name(const px_bench *b, char *buf, size_t size)
{
    if (b->train_steps > 0)
        snprintf(buf, size, "train-step:%d", b->train_steps);
    else if (b->batch <= 1)
        snprintf(buf, size, "single");
    else
        snprintf(buf, size, "batch:%d", b->batch);
    return buf;
}

void bench_clear(px_bench *b, size_t n_examples)
{
    for (size_t k = 0; b->out && k < n_examples; k++)
        free(b->out[k]);
    free(b->out);
    free(b->stopped);
    free(b->loss), free(b->step_ms);
    memset(b, 0, sizeof *b);
}

void env_result_clear(px_env_result *e, size_t n_examples)
{
    for (size_t k = 0; e->ex && k < n_examples; k++)
        example_result_clear(&e->ex[k]);
    free(e->ex);
    free(e->name);
    free(e->down_msg);
    free(e->cut_short);
    for (size_t b = 0; b < e->n_bench; b++)
        bench_clear(&e->bench[b], n_examples);
    free(e->bench);
    free(e->source);
    for (size_t l = 0; e->labels && l < e->n_labels; l++)
        free(e->labels[l]);
    free(e->labels);
    px_manifest *m = &e->m;
    free(m->parity_version), free(m->libtorch_version), free(m->device);
    free(m->device_name), free(m->dtype), free(m->host);
    free(m->executor), free(m->runtime), free(m->backend_modules), free(m->backend_versions);
    free(m->tf32), free(m->matmul_precision), free(m->ignored), free(m->load);
    free(m->compile_backend), free(m->compile_mode), free(m->compile_dynamic);
    envrec_clear(&m->env);
    memset(e, 0, sizeof *e);
}

void results_free(px_results *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_envs; i++)
        env_result_clear(&r->envs[i], r->n_examples);
    for (size_t i = 0; i < r->n_warnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    for (size_t i = 0; i < r->n_merged_from; i++)
        free(r->merged_from[i].file), free(r->merged_from[i].host);
    free(r->merged_from);
    free(r->envs);
    free(r);
}

void results_warn(px_results *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    char **v = s ? realloc(r->warnings, (r->n_warnings + 1) * sizeof *v) : NULL;
    if (!v) {
        free(s);
        return;
    }
    r->warnings = v;
    r->warnings[r->n_warnings++] = s;
}

int results_argmax(const double *v, size_t n)
{
    int best = n ? 0 : -1;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            return (int)i;
        if (v[i] > v[best])
            best = (int)i;
    }
    return best;
}

const char *results_env_device(const px_fixture *f, const px_env_result *e)
{
    const px_env *fe = &f->envs[e->env_index];
    if (e->origin == PX_ORIGIN_FILE || !fe->device)
        return e->m.device ? e->m.device : "device not recorded";
    return fe->device;
}

const char *results_env_dtype(const px_fixture *f, const px_env_result *e)
{
    const px_env *fe = &f->envs[e->env_index];
    if (e->origin == PX_ORIGIN_FILE || !fe->dtype)
        return e->m.dtype ? e->m.dtype : fe->dtype ? fe->dtype : "dtype not recorded";
    return fe->dtype;
}

const char *results_label(const px_env_result *e, const px_example_result *x)
{
    return x->label >= 0 && (size_t)x->label < e->n_labels ? e->labels[x->label] : NULL;
}

void results_example_sha256(const px_env_result *e, const px_example_result *x, const char *id,
                            char out[PX_SHA256_HEX])
{
    px_hasher h;
    FILE *o = hasher_open(&h);
    if (!o) {
        hasher_close(&h, out);
        return;
    }
    fprintf(o, "%zu:%s;%s;%zu:%s;", strlen(id), id, status_name(x->status), x->detail ? strlen(x->detail) : 0,
            x->detail ? x->detail : "");
    fprintf(o, "%zu:%s;%zu;", x->clean_text ? strlen(x->clean_text) : 0, x->clean_text ? x->clean_text : "", x->n_ids);
    for (size_t i = 0; i < x->n_ids; i++)
        fprintf(o, "%lld,", (long long)x->ids[i]);
    fprintf(o, ";%d;", x->ndim);
    for (int i = 0; i < x->ndim; i++)
        fprintf(o, "%lld,", (long long)x->shape[i]);
    for (size_t i = 0; i < x->n_values; i++)
        fprintf(o, "%a,", x->values[i]);
    const char *label = results_label(e, x);
    fprintf(o, ";%s", label ? label : "-");
    /* A generator's: what it generated (a classifier's hash is as before). */
    const px_generated *g = x->gen;
    if (g) {
        fprintf(o, ";gen:%zu:%d:", g->n, g->end);
        for (size_t i = 0; i < g->n; i++)
            fprintf(o, "%lld,", (long long)g->ids[i]);
        for (size_t i = 0; i < g->n * (size_t)g->r; i++)
            fprintf(o, "%lld:%a,", (long long)g->top_ids[i], g->top_logits[i]);
    }
    /* An image's: which noise, and its denoising path (its image is values). */
    const px_image_out *im = x->img;
    if (im) {
        fprintf(o, ";img:%s:%d:%zu:", im->noise_sha256, im->steps, im->n_steps);
        for (int i = 0; i < 4; i++)
            fprintf(o, "%lld,", (long long)im->latent_shape[i]);
        for (size_t s = 0; s < im->n_steps; s++) {
            fprintf(o, "@%d:", im->step[s]);
            for (size_t i = 0; i < im->latent_count; i++)
                fprintf(o, "%a,", im->latents[s * im->latent_count + i]);
        }
    }
    /* A training run's: its per-step figures and its groups (its loss
     * curve is values). */
    const px_train_out *t = x->train;
    if (t) {
        fprintf(o, ";train:%zu:%d:%a:%a:", t->n_steps, t->processes, t->startup_ms, t->total_ms);
        for (size_t s = 0; s < t->n_steps; s++)
            fprintf(o, "%a,%a,%a,%a;", t->grad_norm[s], t->update_norm[s], t->lr[s], t->step_ms[s]);
        for (size_t g = 0; g < t->n_groups; g++) {
            const px_train_group *gr = &t->groups[g];
            fprintf(o, "@%zu:%s:%lld:%a:%a:", gr->name ? strlen(gr->name) : 0, gr->name ? gr->name : "",
                    (long long)gr->numel, gr->norm, gr->delta_norm);
            for (int i = 0; i < PX_TRAIN_SKETCH; i++)
                fprintf(o, "%a,", gr->sketch[i]);
        }
    }
    hasher_close(&h, out);
}

double results_max_abs_diff(const px_example_result *a, const px_example_result *b)
{
    if (a->status != PX_ST_OK || b->status != PX_ST_OK || a->n_values != b->n_values)
        return -1;
    double m = 0;
    for (size_t i = 0; i < a->n_values; i++) {
        double d = fabs(a->values[i] - b->values[i]);
        if (d > m || d != d)
            m = d;
    }
    return m;
}

static void key_str(FILE *o, int indent, const char *key, const char *v)
{
    fprintf(o, "%*s%s: ", indent, "", key);
    if (v)
        emit_yaml_string(o, v);
    else
        fputs("null", o);
    fputc('\n', o);
}

static void key_num(FILE *o, int indent, const char *key, double v)
{
    fprintf(o, "%*s%s: ", indent, "", key);
    if (v < 0)
        fputs("null", o);
    else
        emit_yaml_double(o, v);
    fputc('\n', o);
}

/* Whether a field is set: the gate of another (results_schema.h). */
static int field_set(const px_rfield *fld, const void *base)
{
    const void *at = results_schema_cat(fld, base);
    switch (fld->type) {
    case PX_RF_STR:
        return *(char *const *)at != NULL;
    case PX_RF_INT:
        return *(const int *)at != 0;
    case PX_RF_SIZE:
        return *(const size_t *)at != 0;
    default:
        return 1;
    }
}

/* One field of a record as its table entry says (nothing for PX_RF_OWN,
 * which the record's own code writes). */
static void field_write(FILE *o, int in, const px_rrecord *rec, const px_rfield *fld, const void *base)
{
    const void *at = results_schema_cat(fld, base);
    const px_rfield *gate = fld->gate ? results_schema_field(rec, fld->gate) : NULL;
    const char *s;
    switch (fld->type) {
    case PX_RF_OWN:
        break;
    case PX_RF_STR:
        s = *(char *const *)at;
        if (s || !(fld->flags & PX_RF_OMIT_NULL))
            key_str(o, in, fld->key, s || !(fld->flags & PX_RF_REQUIRED) ? s : "");
        break;
    case PX_RF_FIXED:
    case PX_RF_SHA:
        s = at;
        key_str(o, in, fld->key, !s[0] && (fld->flags & PX_RF_EMPTY_NULL) ? NULL : s);
        break;
    case PX_RF_INT:
        fprintf(o, "%*s%s: %d\n", in, "", fld->key, *(const int *)at);
        break;
    case PX_RF_SIZE:
        fprintf(o, "%*s%s: %zu\n", in, "", fld->key, *(const size_t *)at);
        break;
    case PX_RF_MS:
    case PX_RF_FIGURE:
        key_num(o, in, fld->key, gate && !field_set(gate, base) ? -1 : *(const double *)at);
        break;
    case PX_RF_ENVVARS:
        envrec_write_yaml(o, in, fld->key, at);
        break;
    }
}

/* The fields of rec from key `from` to key `to` (NULL: first, last) that
 * its table describes, in the table's order. */
static void fields_write(FILE *o, int in, const px_rrecord *rec, const void *base, const char *from, const char *to)
{
    size_t lo, hi;
    results_schema_span(rec, from, to, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        field_write(o, in, rec, &rec->fields[i], base);
}

static void write_manifest(FILE *o, const px_env_result *e)
{
    fprintf(o, "    manifest:\n");
    fields_write(o, 6, &px_rs_manifest, e, NULL, NULL);
}

void results_write_manifest(FILE *o, const px_env_result *e) { fields_write(o, 0, &px_rs_manifest, e, NULL, NULL); }

static void write_labels(FILE *o, char *const *labels, size_t n)
{
    fputc('[', o);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", o);
        emit_yaml_string(o, labels[i]);
    }
    fputs("]\n", o);
}

/* An image's example (format 7): beside its image (output:), which noise
 * it started from and the latents it passed through, each value as
 * emit_yaml_double writes it (it reads back to the same double; a NaN is
 * .nan). */
static void write_image(FILE *o, const px_image_out *im)
{
    fprintf(o, "        image:\n");
    fields_write(o, 10, &px_rs_image, im, "noise_sha256", "noise_sha256");
    fprintf(o, "          latent_shape: [%lld, %lld, %lld, %lld]\n", (long long)im->latent_shape[0],
            (long long)im->latent_shape[1], (long long)im->latent_shape[2], (long long)im->latent_shape[3]);
    fields_write(o, 10, &px_rs_image, im, "steps", "first_ms");
    fprintf(o, "          latents:%s\n", im->n_steps ? "" : " []");
    for (size_t s = 0; s < im->n_steps; s++) {
        fprintf(o, "            - step: %d\n              values: [", im->step[s]);
        for (size_t k = 0; k < im->latent_count; k++) {
            fputs(k ? ", " : "", o);
            emit_yaml_double(o, im->latents[s * im->latent_count + k]);
        }
        fputs("]\n", o);
    }
}

/* A list of doubles, each as emit_yaml_double writes it (a NaN is .nan). */
static void put_doubles(FILE *o, const double *v, size_t n)
{
    fputc('[', o);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", o);
        emit_yaml_double(o, v[i]);
    }
    fputc(']', o);
}

/* A training run's record (format 8) beside its loss curve (output:): the
 * per-step figures, as many as the curve's steps, the times, the ranks and
 * each tensor group with its sketch; every double exact. */
static void write_train(FILE *o, const px_train_out *t)
{
    static const char *const keys[] = {"grad_norm", "update_norm", "lr", "step_ms"};
    const double *v[] = {t->grad_norm, t->update_norm, t->lr, t->step_ms};
    fprintf(o, "        train:\n");
    for (int i = 0; i < 4; i++) {
        fprintf(o, "          %s: ", keys[i]);
        put_doubles(o, v[i], t->n_steps);
        fputc('\n', o);
    }
    fields_write(o, 10, &px_rs_train, t, "startup_ms", "processes");
    fprintf(o, "          groups:%s\n", t->n_groups ? "" : " []");
    for (size_t g = 0; g < t->n_groups; g++) {
        const px_train_group *gr = &t->groups[g];
        fprintf(o, "            - name: ");
        emit_yaml_string(o, gr->name ? gr->name : "");
        fprintf(o, "\n              numel: %lld\n              norm: ", (long long)gr->numel);
        emit_yaml_double(o, gr->norm);
        fputs("\n              delta_norm: ", o);
        emit_yaml_double(o, gr->delta_norm);
        fputs("\n              sketch: ", o);
        put_doubles(o, gr->sketch, PX_TRAIN_SKETCH);
        fputc('\n', o);
    }
}

/* A generator's example: what the output was (dtype, the first step's
 * shape) and what it generated. */
static void write_generated(FILE *o, const px_example_result *x)
{
    const px_generated *g = x->gen;
    fprintf(o, "        generated:\n          dtype: ");
    emit_yaml_string(o, x->dtype ? x->dtype : "");
    fprintf(o, "\n          shape: [");
    for (int k = 0; k < x->ndim; k++)
        fprintf(o, "%s%lld", k ? ", " : "", (long long)x->shape[k]);
    fprintf(o, "]\n          ids: [");
    for (size_t k = 0; k < g->n; k++)
        fprintf(o, "%s%lld", k ? ", " : "", (long long)g->ids[k]);
    fprintf(o, "]\n          end: %s\n          top:\n", generated_end_name(g->end));
    for (size_t k = 0; k < g->n; k++) {
        fputs("            - [", o);
        for (int j = 0; j < g->r; j++) {
            fprintf(o, "%s%lld, ", j ? ", " : "", (long long)g->top_ids[k * (size_t)g->r + (size_t)j]);
            emit_yaml_double(o, g->top_logits[k * (size_t)g->r + (size_t)j]);
        }
        fputs("]\n", o);
    }
    fields_write(o, 10, &px_rs_generated, g, "text", "first_ms");
}

static void write_example(FILE *o, const px_env_result *e, const px_example_result *x, const char *id,
                          const char *def)
{
    fprintf(o, "      - id: ");
    emit_yaml_string(o, id);
    fputc('\n', o);
    if (def[0])
        key_str(o, 8, "sha256", def);
    key_str(o, 8, "outcome", status_name(x->status));
    fields_write(o, 8, &px_rs_example, x, "detail", "clean_text");
    if (x->clean_text) {
        fprintf(o, "        token_ids: [");
        for (size_t k = 0; k < x->n_ids; k++)
            fprintf(o, "%s%lld", k ? ", " : "", (long long)x->ids[k]);
        fprintf(o, "]\n        tokens: [");
        for (size_t k = 0; k < x->n_ids; k++) {
            fputs(k ? ", " : "", o);
            emit_yaml_string(o, x->tokens[k]);
        }
        fprintf(o, "]\n");
    }
    if (x->gen) {
        write_generated(o, x);
    } else if (x->dtype) {
        fprintf(o, "        output:\n          dtype: ");
        emit_yaml_string(o, x->dtype);
        fprintf(o, "\n          shape: [");
        for (int k = 0; k < x->ndim; k++)
            fprintf(o, "%s%lld", k ? ", " : "", (long long)x->shape[k]);
        fprintf(o, "]\n          values: [");
        for (size_t k = 0; k < x->n_values; k++) {
            fputs(k ? ", " : "", o);
            emit_yaml_double(o, x->values[k]);
        }
        fprintf(o, "]\n");
    }
    if (x->img)
        write_image(o, x->img);
    if (x->train)
        write_train(o, x->train);
    key_str(o, 8, "label", results_label(e, x));
    fields_write(o, 8, &px_rs_example, x, "forward_ms", "forward_ms");
    if (x->compiled != PX_COMPILED_UNKNOWN)
        fprintf(o, "        compiled: %s\n", x->compiled == PX_COMPILED_YES ? "true" : "false");
}

/* parity bench's records: the figures, then the outputs it judged by. */
static void write_bench(FILE *o, const px_env_result *e, const px_fixture *f)
{
    if (!e->n_bench)
        return;
    fprintf(o, "    bench:\n");
    for (size_t i = 0; i < e->n_bench; i++) {
        const px_bench *b = &e->bench[i];
        char name[32];
        fprintf(o, "      - endpoint: ");
        emit_yaml_string(o, bench_endpoint_name(b, name, sizeof name));
        fputc('\n', o);
        fields_write(o, 8, &px_rs_bench, b, "warmup", "stopped");
        if (b->train_steps) {
            fprintf(o, "        lr: ");
            emit_yaml_double(o, b->lr);
            fprintf(o, "\n        loss: [");
            for (size_t s = 0; s < b->n_steps; s++) {
                fputs(s ? ", " : "", o);
                emit_yaml_double(o, b->loss[s]);
            }
            fprintf(o, "]\n        step_ms: [");
            for (size_t s = 0; s < b->n_steps; s++) {
                fputs(s ? ", " : "", o);
                emit_yaml_double(o, b->step_ms[s]);
            }
            fprintf(o, "]\n");
        }
        fprintf(o, "        outputs:\n");
        for (size_t k = 0; b->out && k < f->n_examples; k++) {
            if (!b->out[k])
                continue;
            fprintf(o, "          ");
            emit_yaml_string(o, f->examples[k].id);
            fprintf(o, ": [");
            for (size_t v = 0; v < b->n_out; v++) {
                fputs(v ? ", " : "", o);
                emit_yaml_double(o, b->out[k][v]);
            }
            fprintf(o, "]\n");
        }
    }
}

/* The contract an environment's results were recorded under: the fixture's
 * now for a run, as the file said for one read back. */
static void write_contract(FILE *o, const px_env_result *e, const px_fingerprint *now)
{
    const px_fingerprint *fp = e->origin == PX_ORIGIN_RUN ? now : &e->recorded;
    int any = 0;
    for (int p = 0; p < PX_PART_COUNT; p++)
        any |= fp->part[p][0] != '\0';
    if (!any)
        return;
    fprintf(o, "    contract:\n");
    for (int p = 0; p < PX_PART_COUNT; p++)
        key_str(o, 6, fingerprint_part_name((px_part)p), fp->part[p][0] ? fp->part[p] : NULL);
}

/* The shard files a merged file was made from, in shard order; their paths
 * pass through the redactor as the fixture's does. */
static void write_merged_from(FILE *o, const px_results *r, px_redactor *rd)
{
    if (!r->n_merged_from)
        return;
    fprintf(o, "merged_from:\n");
    for (size_t i = 0; i < r->n_merged_from; i++) {
        const px_merged_from *m = &r->merged_from[i];
        char shard[32], *file = redact_text(rd, m->file);
        shard_format(m->shard, shard, sizeof shard);
        fprintf(o, "  - shard: \"%s\"\n", shard);
        key_str(o, 4, "file", file ? file : PX_REDACTED);
        fields_write(o, 4, &px_rs_merged_from, m, "host", "started_at");
        free(file);
    }
}

/* The file's head: what it is, its format and shard, the fixture it was
 * run from (its path redacted), the contract's labels, the reference and,
 * of a merged file, the shards it was made from. */
static void write_head(FILE *o, const px_results *r, const px_fixture *f, px_redactor *rd)
{
    char shard[32];
    shard_format(r->shard, shard, sizeof shard);
    fprintf(o, "# parity results: what each environment did with each example.\n"
               "# Format described in parity-results(5); written by `parity %s`.\n",
            r->n_merged_from ? "merge" : "run` or `parity bench");
    if (r->shard.count)
        fprintf(o, "# Shard %s of a run: the other shards' examples are in other files (parity merge).\n", shard);
    const px_kind *k = kind_of(f);
    fprintf(o, "parity_results: %d\n", k->results_format);
    /* An embedding's or an image's file says so: a classifier's fixture
     * never reads its vectors or pixels as logits, nor the other way. */
    if (k->results_format >= PX_RESULTS_EMBEDDING)
        fprintf(o, "kind: %s\n", k->name);
    if (r->shard.count)
        fprintf(o, "shard: \"%s\"\n", shard);
    fprintf(o, "fixture:\n");
    char *path_out = redact_text(rd, f->path);
    key_str(o, 2, "path", path_out ? path_out : PX_REDACTED);
    free(path_out);
    key_str(o, 2, "sha256", f->sha256);
    fprintf(o, "labels: ");
    write_labels(o, f->labels, f->n_labels);
    fprintf(o, "reference: ");
    if (r->reference >= 0 && r->envs[r->reference].origin != PX_ORIGIN_NONE && r->envs[r->reference].selected)
        emit_yaml_string(o, r->envs[r->reference].name);
    else
        fputs("null", o);
    fputc('\n', o);
    write_merged_from(o, r, rd);
}

/* One environment with results; defs are the fixture's example
 * definitions now (fingerprint_example; NULL entries: not known), which a
 * run records. */
static void write_env(FILE *o, const px_results *r, const px_fixture *f, const px_env_result *e, px_redactor *rd,
                      const px_fingerprint *now, char *const *defs)
{
    fprintf(o, "  ");
    emit_yaml_string(o, e->name);
    fprintf(o, ":\n");
    const px_env *fe = &f->envs[e->env_index];
    key_str(o, 4, "role", fe->role);
    char *note = redact_text(rd, fe->note);
    key_str(o, 4, "note", fe->note && !note ? PX_REDACTED : note);
    free(note);
    key_str(o, 4, "state", e->state == PX_ENV_DOWN ? "down" : "up");
    fprintf(o, "    labels: ");
    write_labels(o, e->labels, e->n_labels);
    if (e->state == PX_ENV_DOWN) {
        fprintf(o, "    down:\n");
        key_str(o, 6, "stage", proto_stage_name(e->down_stage));
        fields_write(o, 6, &px_rs_down, e, "message", "message");
    }
    fields_write(o, 4, &px_rs_env, e, "cut_short", "cut_short");
    write_contract(o, e, now);
    write_manifest(o, e);
    write_bench(o, e, f);
    fprintf(o, "    examples:\n");
    for (size_t k = 0; k < r->n_examples; k++) {
        if (!shard_holds(r->shard, f->examples[k].id))
            continue;
        char hex[PX_SHA256_HEX] = "";
        if (e->origin != PX_ORIGIN_RUN && e->ex[k].has_def)
            hash_to_hex(e->ex[k].def_sha256, hex);
        const char *def = e->origin == PX_ORIGIN_RUN ? (defs && defs[k] ? defs[k] : "") : hex;
        write_example(o, e, &e->ex[k], f->examples[k].id, def);
    }
}

/* The whole file into o; -1 with *err when the fixture's redactor cannot
 * be made. */
static int write_text(FILE *o, const px_results *r, const px_fixture *f, px_error *err)
{
    /* The run's own texts were redacted as the children said them (runner);
     * the fixture's path and notes are redacted here. */
    px_redactor *rd = fixture_redactor(f, err);
    if (!rd)
        return -1;
    px_fingerprint now;
    fingerprint_contract(f, &now);
    char **defs = calloc(f->n_examples ? f->n_examples : 1, sizeof *defs);
    for (size_t k = 0; defs && k < f->n_examples; k++)
        if ((defs[k] = malloc(PX_SHA256_HEX)))
            fingerprint_example(f, k, defs[k]);
    write_head(o, r, f, rd);
    fprintf(o, "environments:\n");
    for (size_t i = 0; i < r->n_envs; i++)
        if (r->envs[i].origin != PX_ORIGIN_NONE && r->envs[i].selected)
            write_env(o, r, f, &r->envs[i], rd, &now, defs);
    for (size_t k = 0; defs && k < f->n_examples; k++)
        free(defs[k]);
    free(defs);
    redact_free(rd);
    return 0;
}

int results_write(const px_results *r, const px_fixture *f, const char *path, px_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (!o)
        return px_error_oom(err, path);
    if (write_text(o, r, f, err)) {
        fclose(o);
        free(text);
        return -1;
    }
    if (fclose(o)) {
        free(text);
        return px_error_oom(err, path);
    }
    int rc = 0;
    if (!strcmp(path, "-")) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout))
            rc = px_error_set(err, PX_ERR_WRITE, "<stdout>", 0, 0, "write failed");
    } else {
        rc = atomic_write(path, text, len, err);
    }
    free(text);
    return rc;
}
