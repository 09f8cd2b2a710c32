/* The results file's records as tables (results_schema.h): one entry per
 * key, shared by the writer and the reader. The order is the file's, so
 * the writer can walk a table; a field with code of its own (PX_RF_OWN)
 * stands where the reader has always listed it in its "expected one of"
 * messages, which is where its own code writes it but for an example's
 * generated: (written in place of output:) and a bench record's outputs:
 * (written after the train-step keys). */
#include "parity/results_schema.h"

#include <string.h>

#include "parity/results.h"

#define SIZE_OF(T, m) sizeof(((T *)0)->m)

/* An entry of each type; T is the record's base struct. */
#define OWN(k, v, fl) {k, PX_RF_OWN, fl, v, 0, 0, 0, NULL}
#define STR(k, v, fl, T, m) {k, PX_RF_STR, fl, v, offsetof(T, m), 0, 0, NULL}
#define FIXED(k, v, fl, T, m) {k, PX_RF_FIXED, fl, v, offsetof(T, m), SIZE_OF(T, m), 0, NULL}
#define SHA(k, v, fl, T, m) {k, PX_RF_SHA, fl, v, offsetof(T, m), SIZE_OF(T, m), 0, NULL}
#define INT(k, v, T, m, low) {k, PX_RF_INT, 0, v, offsetof(T, m), 0, low, NULL}
#define SIZE(k, v, T, m) {k, PX_RF_SIZE, 0, v, offsetof(T, m), 0, 0, NULL}
#define MS(k, v, T, m, gate) {k, PX_RF_MS, 0, v, offsetof(T, m), 0, 0, gate}
#define FIGURE(k, v, T, m, gate) {k, PX_RF_FIGURE, 0, v, offsetof(T, m), 0, 0, gate}
#define ENVVARS(k, v, T, m) {k, PX_RF_ENVVARS, 0, v, offsetof(T, m), 0, 0, NULL}

#define REQ PX_RF_REQUIRED
#define RECORD(name, base, t) {name, base, t, sizeof t / sizeof *t}

static const px_rfield top[] = {
    OWN("parity_results", 1, REQ), OWN("kind", 6, 0),        OWN("shard", 4, 0),       OWN("fixture", 1, 0),
    OWN("labels", 1, 0),           OWN("reference", 1, 0),   OWN("merged_from", 4, 0),
    OWN("environments", 1, REQ),
};
const px_rrecord px_rs_top = RECORD("the results file", PX_RB_NONE, top);

/* The file as named to the merge goes through the redactor: its own code. */
static const px_rfield merged_from[] = {
    OWN("shard", 4, REQ),
    OWN("file", 4, REQ),
    STR("host", 4, 0, px_merged_from, host),
    FIXED("started_at", 4, PX_RF_EMPTY_NULL, px_merged_from, started_at),
};
const px_rrecord px_rs_merged_from = RECORD("an entry of merged_from", PX_RB_MERGED, merged_from);

/* role and note are the fixture's (read back only to be checked). */
static const px_rfield env[] = {
    OWN("role", 1, 0),
    OWN("note", 1, 0),
    OWN("state", 1, REQ),
    OWN("labels", 1, 0),
    OWN("down", 1, 0),
    STR("cut_short", 4, PX_RF_OMIT_NULL, px_env_result, cut_short),
    OWN("contract", 2, 0),
    OWN("manifest", 1, 0),
    OWN("bench", 4, 0),
    OWN("examples", 1, 0),
};
const px_rrecord px_rs_env = RECORD("an environment", PX_RB_ENV, env);

static const px_rfield down[] = {
    OWN("stage", 1, REQ),
    STR("message", 1, 0, px_env_result, down_msg),
};
const px_rrecord px_rs_down = RECORD("down", PX_RB_ENV, down);

/* The manifest is e->m but for restarts (the environment's); env came
 * while classifiers' files were format 4, without a new version: a file
 * without it has the variables not recorded. load_ms is written null when
 * no executor reported its libtorch. */
static const px_rfield manifest[] = {
    STR("parity_version", 1, 0, px_env_result, m.parity_version),
    STR("executor", 3, 0, px_env_result, m.executor),
    STR("runtime", 3, 0, px_env_result, m.runtime),
    STR("libtorch_version", 1, 0, px_env_result, m.libtorch_version),
    STR("backend_modules", 3, 0, px_env_result, m.backend_modules),
    STR("backend_versions", 3, 0, px_env_result, m.backend_versions),
    STR("device", 1, 0, px_env_result, m.device),
    STR("device_name", 1, 0, px_env_result, m.device_name),
    STR("dtype", 1, 0, px_env_result, m.dtype),
    /* Added within format 6 (issue 38): absent is not recorded. */
    STR("load", 6, PX_RF_OMIT_NULL, px_env_result, m.load),
    STR("tf32", 3, 0, px_env_result, m.tf32),
    STR("matmul_precision", 3, 0, px_env_result, m.matmul_precision),
    STR("ignored", 3, 0, px_env_result, m.ignored),
    /* Added within format 4 (as env): absent is eager, in any format. */
    STR("compile_backend", 4, PX_RF_OMIT_NULL, px_env_result, m.compile_backend),
    STR("compile_mode", 4, PX_RF_OMIT_NULL, px_env_result, m.compile_mode),
    STR("compile_dynamic", 4, PX_RF_OMIT_NULL, px_env_result, m.compile_dynamic),
    INT("threads", 1, px_env_result, m.threads, -1),
    ENVVARS("env", 4, px_env_result, m.env),
    SHA("model_sha256", 1, 0, px_env_result, m.model_sha256),
    SHA("vocab_sha256", 1, 0, px_env_result, m.vocab_sha256),
    STR("host", 1, 0, px_env_result, m.host),
    FIXED("started_at", 1, 0, px_env_result, m.started_at),
    MS("load_ms", 1, px_env_result, m.load_ms, "libtorch_version"),
    MS("first_forward_ms", 1, px_env_result, m.first_forward_ms, NULL),
    INT("restarts", 1, px_env_result, restarts, 0),
};
const px_rrecord px_rs_manifest = RECORD("manifest", PX_RB_ENV, manifest);

/* new_shapes_ms is written null when no forward was of a new shape. */
static const px_rfield bench[] = {
    OWN("endpoint", 4, REQ),
    INT("warmup", 4, px_bench, warmup, 0),
    INT("passes", 4, px_bench, passes, 0),
    SIZE("examples", 4, px_bench, examples),
    SIZE("forwards", 4, px_bench, forwards),
    SIZE("new_shapes", 4, px_bench, new_shapes),
    FIGURE("new_shapes_ms", 4, px_bench, new_shapes_ms, "new_shapes"),
    FIGURE("p50_ms", 4, px_bench, p50_ms, NULL),
    FIGURE("p90_ms", 4, px_bench, p90_ms, NULL),
    FIGURE("p99_ms", 4, px_bench, p99_ms, NULL),
    FIGURE("min_ms", 4, px_bench, min_ms, NULL),
    FIGURE("max_ms", 4, px_bench, max_ms, NULL),
    FIGURE("roundtrip_p50_ms", 4, px_bench, roundtrip_p50_ms, NULL),
    FIGURE("examples_per_s", 4, px_bench, per_s, NULL),
    STR("stopped", 4, 0, px_bench, stopped),
    OWN("outputs", 4, 0),
    OWN("lr", 4, 0),
    OWN("loss", 4, 0),
    OWN("step_ms", 4, 0),
};
const px_rrecord px_rs_bench = RECORD("bench", PX_RB_BENCH, bench);

static const px_rfield example[] = {
    OWN("id", 1, REQ),
    OWN("sha256", 2, 0),
    OWN("outcome", 1, REQ),
    STR("detail", 1, PX_RF_OMIT_NULL, px_example_result, detail),
    STR("stderr", 1, PX_RF_OMIT_NULL, px_example_result, stderr_tail),
    STR("clean_text", 1, PX_RF_OMIT_NULL, px_example_result, clean_text),
    OWN("token_ids", 1, 0),
    OWN("tokens", 1, 0),
    OWN("output", 1, 0),
    OWN("label", 1, 0),
    MS("forward_ms", 1, px_example_result, forward_ms, NULL),
    OWN("compiled", 3, 0),
    OWN("generated", 5, 0),
    OWN("image", 7, 0),
    OWN("train", 8, 0),
};
const px_rrecord px_rs_example = RECORD("an example", PX_RB_EXAMPLE, example);

static const px_rfield output[] = {
    OWN("dtype", 1, REQ),
    OWN("shape", 1, REQ),
    OWN("values", 1, REQ),
};
const px_rrecord px_rs_output = RECORD("output", PX_RB_NONE, output);

/* dtype and shape are the example's (its first step's output). */
static const px_rfield generated[] = {
    OWN("dtype", 5, REQ),
    OWN("shape", 5, REQ),
    OWN("ids", 5, REQ),
    OWN("end", 5, REQ),
    OWN("top", 5, REQ),
    STR("text", 5, REQ, px_generated, text),
    MS("first_ms", 5, px_generated, first_ms, NULL),
};
const px_rrecord px_rs_generated = RECORD("generated", PX_RB_GENERATED, generated);

/* An image's denoising record beside its image (which is its output:):
 * which noise it started from, the latent's shape, the steps that ran, the
 * first step's time and the recorded latents. */
static const px_rfield image[] = {
    SHA("noise_sha256", 7, REQ, px_image_out, noise_sha256),
    OWN("latent_shape", 7, REQ),
    {"steps", PX_RF_INT, REQ, 7, offsetof(px_image_out, steps), 0, 1, NULL},
    MS("first_ms", 7, px_image_out, first_ms, NULL),
    OWN("latents", 7, REQ),
};
const px_rrecord px_rs_image = RECORD("image", PX_RB_IMAGE, image);

/* One recorded latent: after which step (0-based), and its values. */
static const px_rfield latent[] = {
    OWN("step", 7, REQ),
    OWN("values", 7, REQ),
};
const px_rrecord px_rs_latent = RECORD("a recorded latent", PX_RB_NONE, latent);

/* A training run's record beside its loss curve (its output:): per step
 * (as many as the curve) the gradient norm, the update's norm, the
 * learning rate and the time; the start-up's and the whole run's time,
 * its ranks, and its tensor groups. */
static const px_rfield train[] = {
    OWN("grad_norm", 8, REQ),
    OWN("update_norm", 8, REQ),
    OWN("lr", 8, REQ),
    OWN("step_ms", 8, REQ),
    MS("startup_ms", 8, px_train_out, startup_ms, NULL),
    MS("total_ms", 8, px_train_out, total_ms, NULL),
    {"processes", PX_RF_INT, REQ, 8, offsetof(px_train_out, processes), 0, 1, NULL},
    OWN("groups", 8, REQ),
};
const px_rrecord px_rs_train = RECORD("train", PX_RB_TRAIN, train);

/* One tensor group at the end of a run: its name, size, the parameters'
 * norm, their change's and the change's sketch (results.h). */
static const px_rfield train_group[] = {
    STR("name", 8, REQ, px_train_group, name),
    OWN("numel", 8, REQ),
    OWN("norm", 8, REQ),
    OWN("delta_norm", 8, REQ),
    OWN("sketch", 8, REQ),
};
const px_rrecord px_rs_train_group = RECORD("a tensor group", PX_RB_TRAIN_GROUP, train_group);

const px_rrecord *const px_rs_all[] = {&px_rs_top,      &px_rs_merged_from, &px_rs_env,
                                       &px_rs_down,     &px_rs_manifest,    &px_rs_bench,
                                       &px_rs_example,  &px_rs_output,      &px_rs_generated,
                                       &px_rs_image,    &px_rs_latent,      &px_rs_train,
                                       &px_rs_train_group};
const size_t px_rs_count = sizeof px_rs_all / sizeof *px_rs_all;

const px_rfield *results_schema_field(const px_rrecord *rec, const char *key)
{
    for (size_t i = 0; i < rec->n; i++)
        if (!strcmp(rec->fields[i].key, key))
            return &rec->fields[i];
    return NULL;
}

int results_schema_since(const px_rrecord *rec, const char *key)
{
    const px_rfield *fld = results_schema_field(rec, key);
    return fld ? fld->since : 1;
}

void results_schema_keys(const px_rrecord *rec, const char **keys)
{
    for (size_t i = 0; i < rec->n; i++)
        keys[i] = rec->fields[i].key;
    keys[rec->n] = NULL;
}

void results_schema_span(const px_rrecord *rec, const char *from, const char *to, size_t *lo, size_t *hi)
{
    const px_rfield *a = from ? results_schema_field(rec, from) : rec->fields;
    const px_rfield *b = to ? results_schema_field(rec, to) : rec->fields + rec->n - 1;
    *lo = a ? (size_t)(a - rec->fields) : rec->n;
    *hi = a && b ? (size_t)(b - rec->fields) + 1 : *lo;
}

void *results_schema_at(const px_rfield *fld, void *base) { return (char *)base + fld->offset; }

const void *results_schema_cat(const px_rfield *fld, const void *base) { return (const char *)base + fld->offset; }
