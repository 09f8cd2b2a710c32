/* An embedding (contract.model.kind: embedding) run through parity: both
 * executors pool the model's output into the example's vector (--pooling
 * mean|cls|none, --normalize; include/parity/proto.h, Embedding) and the
 * runner judges it [1, contract.model.dim].
 *
 * The vectors are read from the runner's results in memory (the runner
 * started here, as tests/test_runner.c does, on the real executors), and
 * compared with what tests/embed_reference.py computes the plain way
 * (transformers or torch.jit.load, sentence-transformers' pooling written
 * out) on the venv's Python: the real all-MiniLM-L6-v2 directory
 * (build/models/all-MiniLM-L6-v2) through the Python executor, and the tiny
 * scripted encoder tests/models/embed/encoder.pt (make_embed.py) through
 * parity-torch and the Python executor, in float32 and in bfloat16 (the
 * twin). What `parity run` itself says (its exit status, a contract whose
 * dim the model does not give) is checked through the binary. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/describe.h"
#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/runner.h"
#include "testlib.h"

#define ENCODER "tests/models/embed/encoder.pt"
#define ENCODER_SHA "87a024489b9f467c2176f389877ce073c091215f76c4d8139651fbdd44cfe158"
#define WIDTH4_SHA "9ab440e3eb6cf0fca09962be9ceedd30231981da2fb871155adc0667abe0c9d2"
#define CAMPUS_TOK "tests/data/campus-tokenizer.json"
#define CAMPUS_TOK_SHA "e56cb739b71ca341e2dbf1f4347583b5b2054de6590a714b2f1a9ec1b2a1d47d"
#define MINILM "build/models/all-MiniLM-L6-v2"
#define VENV_PY "build/venv/bin/python"

/* The documents every fixture here has: lengths that differ, so that a
 * batch pads them. */
static const char *const DOCS[] = {
    "Chess club meets every Tuesday evening in the library.",
    "Free outdoor film screening on the main lawn, bring a blanket.",
    "Volunteers needed to sort donations at the food bank this Saturday morning.",
    "Jazz night.",
};
#define N_DOCS (sizeof DOCS / sizeof *DOCS)

static char cwd[512];

static const char *here(void)
{
    if (!cwd[0])
        cr_assert_not_null(getcwd(cwd, sizeof cwd));
    return cwd;
}

/* A path in this test's own directory under /tmp (removed at exit). */
static char *tmp_path(const char *name)
{
    static int n;
    const char *dir = tl_test_dir();
    char *p = malloc(strlen(dir) + strlen(name) + 32);
    sprintf(p, "%s/%d-%s", dir, n++, name);
    return p;
}

/* The model: line of a fixture, and its tokenizer's. */
typedef struct model_spec {
    const char *model;      /* "{path: ..., ...}" without kind/dim/pooling */
    const char *tokenizer;  /* "{kind: huggingface, file: ..., sha256: ...}" */
} model_spec;

static model_spec encoder_spec(void)
{
    static char model[1200], tok[1200];
    snprintf(model, sizeof model, "path: %s/" ENCODER ", sha256: \"" ENCODER_SHA "\"", here());
    snprintf(tok, sizeof tok, "{kind: huggingface, file: %s/" CAMPUS_TOK ", sha256: \"" CAMPUS_TOK_SHA "\"}", here());
    return (model_spec){model, tok};
}

/* all-MiniLM-L6-v2 as the package installs it, pinned file by file. */
static model_spec minilm_spec(void)
{
    static char model[3000], tok[1200];
    snprintf(model, sizeof model,
             "format: transformers, path: %s/" MINILM ", files: {"
             "config.json: \"953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41\", "
             "config_sentence_transformers.json: \"%s\", data_config.json: \"%s\", "
             "model.safetensors: \"53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db\", "
             "modules.json: \"%s\", sentence_bert_config.json: \"%s\", "
             "special_tokens_map.json: \"303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3\", "
             "tokenizer.json: \"be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037\", "
             "tokenizer_config.json: \"acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b\", "
             "vocab.txt: \"07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3\"}",
             here(), "@CST@", "@DATA@", "@MOD@", "@SBC@");
    /* Its tokenizer.json truncates at 128 tokens and pads, which parity
     * refuses (it rejects a long input, never cuts one; the contract's
     * pad_to pads): a copy without either, pinned as it is. */
    char *copy = tmp_path("tokenizer.json"), cmd[2000], sha[80] = "";
    snprintf(cmd, sizeof cmd,
             "%s/" VENV_PY " -c 'import json,sys; t=json.load(open(sys.argv[1])); t[\"truncation\"]=None; "
             "t[\"padding\"]=None; json.dump(t, open(sys.argv[2], \"w\"))' '%s/" MINILM "/tokenizer.json' '%s' "
             "&& sha256sum '%s'",
             here(), here(), copy, copy);
    FILE *p = popen(cmd, "r");
    cr_assert(p && fgets(sha, sizeof sha, p), "%s", cmd);
    pclose(p);
    sha[64] = '\0';
    snprintf(tok, sizeof tok, "{kind: huggingface, file: %s, sha256: \"%s\"}", copy, sha);
    free(copy);
    return (model_spec){model, tok};
}

/* A fixture for the model: kind embedding with dim, pooling and normalize,
 * output when not NULL, the environments' block as given, the documents
 * and a query that must be rejected (an empty text). Written under /tmp;
 * returns its path. */
static char *write_fixture(model_spec m, int dim, const char *pooling, int normalize, const char *output,
                           const char *envs)
{
    char *text = malloc(16384);
    int o = snprintf(text, 16384,
                     "parity: 1\n"
                     "contract:\n"
                     "  task: find the campus event a student asks about\n"
                     "  model: {%s, kind: embedding, dim: %d, pooling: %s, normalize: %s%s%s%s}\n"
                     "  input:\n"
                     "    tokenizer: %s\n"
                     "    max_tokens: 64\n"
                     "    empty: reject\n"
                     "  compare:\n"
                     "    vectors: {atol: 1.0e-4, rtol: 0, why: float32 on one thread}\n"
                     "    similar_to_reference: {min_cosine: 0.99, why: the same model}\n"
                     "environments:\n%s"
                     "examples:\n",
                     m.model, dim, pooling, normalize ? "true" : "false", output ? ", output: \"" : "",
                     output ? output : "", output ? "\"" : "", m.tokenizer, envs);
    for (size_t i = 0; i < N_DOCS; i++)
        o += snprintf(text + o, 16384 - (size_t)o, "  - id: d%zu\n    role: document\n    text: \"%s\"\n", i, DOCS[i]);
    snprintf(text + o, 16384 - (size_t)o,
             "  - id: nothing\n    role: query\n    text: ''\n    expect: {rejected: true}\n");
    char *path = tmp_path("fixture.yaml");
    tl_write(path, text);
    free(text);
    return path;
}

/* The minilm spec's pins for the four small sentence-transformers files,
 * filled in from the files themselves (they carry no weights). */
static char *minilm_fixture(const char *pooling, int normalize, const char *envs)
{
    char *path = write_fixture(minilm_spec(), 384, pooling, normalize, NULL, envs);
    char *text = tl_slurp(path);
    const char *marks[][2] = {{"@CST@", "config_sentence_transformers.json"},
                              {"@DATA@", "data_config.json"},
                              {"@MOD@", "modules.json"},
                              {"@SBC@", "sentence_bert_config.json"}};
    for (size_t i = 0; i < 4; i++) {
        char cmd[1200], sha[80] = "";
        snprintf(cmd, sizeof cmd, "sha256sum '%s/" MINILM "/%s'", here(), marks[i][1]);
        FILE *p = popen(cmd, "r");
        cr_assert(p && fgets(sha, sizeof sha, p), "%s", cmd);
        pclose(p);
        sha[64] = '\0';
        char *next = tl_replace_all(text, marks[i][0], sha);
        free(text);
        text = next;
    }
    tl_write(path, text);
    free(text);
    return path;
}

/* A run of every environment of a fixture, in this process (the runner on
 * the real executors). */
typedef struct run_t {
    px_fixture *f;
    px_env_input *in;
    px_results *res;
    px_runner_opts o;
    px_error err;
    int rc;
} run_t;

static const char *executor(void)
{
    const char *p = getenv("PARITY_TORCH");
    return p ? p : "build/parity-torch";
}

/* The executors as runner_locate finds them, but the Python executor the
 * build tree's (runner_locate looks beside the running program: this test). */
static void locate(px_runner_opts *o, const char *python)
{
    runner_locate(o, executor(), python);
    char *script = malloc(strlen(here()) + 40);
    sprintf(script, "%s/build/parity_torch.py", here());
    free((char *)o->script);
    o->script = script;
}

static void run_fixture(run_t *h, const char *fixture, const char *python, const int *bench, size_t n_bench)
{
    memset(h, 0, sizeof *h);
    h->f = fixture_load(fixture, &h->err);
    cr_assert_not_null(h->f, "%s:%d: %s", h->err.file, h->err.line, h->err.msg);
    size_t n = h->f->n_envs;
    int *idx = calloc(n, sizeof *idx);
    h->in = calloc(n, sizeof *h->in);
    for (size_t e = 0; e < n; e++) {
        idx[e] = (int)e;
        cr_assert_eq(env_input_open(&h->in[e], h->f, &h->f->envs[e], &h->err), 0, "%s", h->err.msg);
    }
    h->res = results_new(h->f, idx, n);
    free(idx);
    locate(&h->o, python);
    h->o.bench_batches = bench;
    h->o.n_bench = n_bench;
    h->o.bench_passes = 1;
    px_runner *r = runner_start(h->f, h->in, h->res, &h->o, &h->err);
    cr_assert_not_null(r, "%s", h->err.msg);
    h->rc = runner_wait(r, &h->err);
    runner_free(r);
}

static void run_free(run_t *h)
{
    results_free(h->res);
    for (size_t e = 0; e < h->f->n_envs; e++)
        env_input_close(&h->in[e], h->f->n_examples);
    free(h->in);
    runner_locate_free(&h->o);
    fixture_free(h->f);
}

static const px_env_result *env_of(const run_t *h, const char *name)
{
    for (size_t i = 0; i < h->res->n_envs; i++)
        if (!strcmp(h->res->envs[i].name, name))
            return &h->res->envs[i];
    cr_assert_fail("no environment %s", name);
    return NULL;
}

/* Every document of environment env ran ok, a vector [1, dim] with no label. */
static void expect_vectors(const run_t *h, const char *env, int dim)
{
    const px_env_result *er = env_of(h, env);
    cr_assert_eq(er->state, PX_ENV_UP, "%s is down: %s", env, er->down_msg ? er->down_msg : "");
    for (size_t i = 0; i < N_DOCS; i++) {
        const px_example_result *x = &er->ex[i];
        cr_assert_eq(x->status, PX_ST_OK, "%s d%zu: %s %s", env, i, status_name(x->status),
                     x->detail ? x->detail : "");
        cr_assert_eq(x->ndim, 2);
        cr_assert_eq(x->shape[0], 1);
        cr_assert_eq(x->shape[1], dim, "%s d%zu is %lld wide", env, i, (long long)x->shape[1]);
        cr_assert_eq(x->n_values, (size_t)dim);
        cr_expect_eq(x->label, -1, "a vector decides no label");
    }
    cr_expect_eq(er->ex[N_DOCS].status, PX_ST_REJECTED, "the empty query is rejected before the model");
}

/* tests/embed_reference.py's vectors for DOCS (N_DOCS * dim, malloc'd). */
static double *reference_vectors(const char *args, int dim)
{
    char *texts = tmp_path("texts.txt");
    FILE *t = fopen(texts, "w");
    cr_assert_not_null(t);
    for (size_t i = 0; i < N_DOCS; i++)
        fprintf(t, "%s\n", DOCS[i]);
    fclose(t);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "HF_HUB_OFFLINE=1 %s/" VENV_PY " tests/embed_reference.py %s < '%s' 2>/dev/null", here(),
             args, texts);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "%s", cmd);
    double *v = malloc(N_DOCS * (size_t)dim * sizeof *v);
    size_t n = 0;
    while (n < N_DOCS * (size_t)dim && fscanf(p, "%lf", &v[n]) == 1)
        n++;
    int st = pclose(p);
    cr_assert_eq(st, 0, "%s failed", cmd);
    cr_assert_eq(n, N_DOCS * (size_t)dim, "%s gave %zu numbers", cmd, n);
    free(texts);
    return v;
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
    double d = 0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static double cosine(const double *a, const double *b, size_t n)
{
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < n; i++)
        ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
    return ab / sqrt(aa * bb);
}

/* Environment env's vectors equal ref (N_DOCS rows) within tol. */
static void expect_equal(const run_t *h, const char *env, const double *ref, int dim, double tol)
{
    const px_env_result *er = env_of(h, env);
    for (size_t i = 0; i < N_DOCS; i++) {
        double d = max_abs_diff(er->ex[i].values, ref + i * (size_t)dim, (size_t)dim);
        cr_expect(d <= tol, "%s d%zu: max |parity - reference| %.3g > %.3g", env, i, d, tol);
    }
}

/* (a) and (d): the real all-MiniLM-L6-v2 through the Python executor (the
 * venv's: torch 2 with transformers, AutoModel), mean-pooled and normalized,
 * gives what transformers and sentence-transformers' pooling give in plain
 * Python; in bfloat16 on the CPU (the twin) it really runs in bfloat16 and
 * stays close. One run, both environments. */
Test(embed, minilm_python_matches_transformers_and_its_bfloat16_twin_is_close, .timeout = 300)
{
    TL_ONCE_PER_CHECK();
    char py[600];
    snprintf(py, sizeof py, "%s/" VENV_PY, here());
    cr_assert(access(py, X_OK) == 0, "%s: make deps builds the venv", py);
    char *fx = minilm_fixture("mean", 1,
                              "  reference: {device: cpu, threads: 1, executor: python}\n"
                              "  twin: {device: cpu, dtype: bfloat16, threads: 1, executor: python, role: twin}\n");
    run_t h;
    run_fixture(&h, fx, py, NULL, 0);
    cr_assert_eq(h.rc, 0, "%s", h.err.msg);
    expect_vectors(&h, "reference", 384);
    expect_vectors(&h, "twin", 384);
    double *ref = reference_vectors("--model " MINILM " --format transformers --pooling mean --normalize", 384);
    expect_equal(&h, "reference", ref, 384, 1e-5);
    const px_env_result *f32 = env_of(&h, "reference"), *bf = env_of(&h, "twin");
    for (size_t i = 0; i < N_DOCS; i++) {
        double n2 = 0;
        for (size_t k = 0; k < 384; k++)
            n2 += f32->ex[i].values[k] * f32->ex[i].values[k];
        cr_expect(fabs(sqrt(n2) - 1) < 1e-5, "d%zu normalized: |v| = %.9g", i, sqrt(n2));
        double c = cosine(bf->ex[i].values, f32->ex[i].values, 384);
        double d = max_abs_diff(bf->ex[i].values, f32->ex[i].values, 384);
        cr_expect(c > 0.99, "d%zu: cosine(bfloat16, float32) %.6f", i, c);
        cr_expect(d > 0, "d%zu: the twin's vector is float32's bit for bit: not run in bfloat16", i);
        cr_expect_str_eq(bf->ex[i].dtype, "bfloat16", "the model's output dtype, before the float32 pooling");
        cr_expect_str_eq(f32->ex[i].dtype, "float32");
    }
    free(ref);
    run_free(&h);
    free(fx);
}

/* (b): the tiny encoder through parity-torch (libtorch) and the Python
 * executor: pooling mean (not normalized), cls (normalized) and none on the
 * tuple's pooler output (output: "1", normalized) each give the vectors the
 * same formula gives in plain Python; the bfloat16 twin on parity-torch runs
 * and stays close. */
static void pooled_as_sentence_transformers(const char *pooling, int normalize, const char *output, const char *args)
{
    char *fx = write_fixture(encoder_spec(), 32, pooling, normalize, output,
                             "  reference: {device: cpu, threads: 1}\n"
                             "  python: {device: cpu, threads: 1, executor: python}\n"
                             "  twin: {device: cpu, dtype: bfloat16, threads: 1, role: twin}\n");
    run_t h;
    run_fixture(&h, fx, tl_python(), NULL, 0);
    cr_assert_eq(h.rc, 0, "%s", h.err.msg);
    expect_vectors(&h, "reference", 32);
    expect_vectors(&h, "python", 32);
    expect_vectors(&h, "twin", 32);
    char a[1200];
    snprintf(a, sizeof a, "--model " ENCODER " --format torchscript --tokenizer " CAMPUS_TOK " %s", args);
    double *ref = reference_vectors(a, 32);
    expect_equal(&h, "reference", ref, 32, 1e-5);
    expect_equal(&h, "python", ref, 32, 1e-5);
    const px_env_result *bf = env_of(&h, "twin");
    for (size_t i = 0; i < N_DOCS; i++) {
        double c = cosine(bf->ex[i].values, ref + i * 32, 32);
        cr_expect(c > 0.99, "%s d%zu: cosine(bfloat16, float32) %.6f", pooling, i, c);
        cr_expect_str_eq(bf->ex[i].dtype, "bfloat16");
    }
    free(ref);
    run_free(&h);
    free(fx);
}

Test(embed, mean_pooling_in_both_executors_is_sentence_transformers, .timeout = 120)
{
    pooled_as_sentence_transformers("mean", 0, NULL, "--pooling mean");
}

Test(embed, cls_pooling_normalized_in_both_executors, .timeout = 120)
{
    pooled_as_sentence_transformers("cls", 1, NULL, "--pooling cls --normalize");
}

Test(embed, no_pooling_takes_the_named_output_and_normalizes_it, .timeout = 120)
{
    pooled_as_sentence_transformers("none", 1, "1", "--pooling none --output 1 --normalize");
}

/* The same weights as a torch.export program (format export, made here by
 * tests/models/embed/export_encoder.py) through the venv's Python executor
 * give the TorchScript file's vectors through parity-torch. */
Test(embed, an_exported_program_pools_as_the_torchscript_file, .timeout = 120)
{
    char py[600], cmd[2000], sha[80] = "";
    snprintf(py, sizeof py, "%s/" VENV_PY, here());
    char *pt2 = tmp_path("encoder.pt2");
    snprintf(cmd, sizeof cmd, "%s tests/models/embed/export_encoder.py '%s' 2>/dev/null && sha256sum '%s'", py, pt2,
             pt2);
    FILE *p = popen(cmd, "r");
    cr_assert(p && fgets(sha, sizeof sha, p), "%s", cmd);
    pclose(p);
    sha[64] = '\0';
    char envs[1200];
    snprintf(envs, sizeof envs,
             "  reference: {device: cpu, threads: 1}\n"
             "  export: {device: cpu, threads: 1, executor: python,\n"
             "           model: {path: %s, format: export, sha256: \"%s\"}}\n",
             pt2, sha);
    char *fx = write_fixture(encoder_spec(), 32, "mean", 1, NULL, envs);
    run_t h;
    run_fixture(&h, fx, py, NULL, 0);
    cr_assert_eq(h.rc, 0, "%s", h.err.msg);
    expect_vectors(&h, "reference", 32);
    expect_vectors(&h, "export", 32);
    const px_env_result *a = env_of(&h, "reference"), *b = env_of(&h, "export");
    for (size_t i = 0; i < N_DOCS; i++) {
        double d = max_abs_diff(a->ex[i].values, b->ex[i].values, 32);
        cr_expect(d <= 1e-5, "d%zu: export and TorchScript %.3g apart", i, d);
    }
    run_free(&h);
    free(fx), free(pt2);
}

/* (c): a vector of another width. The contract's own model: the probe
 * stops the run, naming contract.model.dim (exit 2, no results). An
 * environment's own model (width4.pt gives [1, 4]): that environment's
 * examples are bad-shape, saying the contract's [1,32]. */
Test(embed, a_vector_of_another_width_is_bad_shape_naming_dim, .timeout = 120)
{
    char *fx = write_fixture(encoder_spec(), 16, "mean", 1, NULL, "  reference: {device: cpu, threads: 1}\n");
    char *out = tmp_path("results.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, NULL});
    cr_expect_eq(r.status, 2, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "contract.model.dim is 16") && strstr(r.err, "output shape [1,32], contract says [1,16]"),
              "%s", r.err);
    cr_expect(access(out, F_OK) != 0, "no results file may be written");
    tl_free(&r);
    free(fx), free(out);

    char envs[1200];
    snprintf(envs, sizeof envs,
             "  reference: {device: cpu, threads: 1}\n"
             "  other: {device: cpu, threads: 1, model: {path: %s/tests/models/width4.pt, sha256: \"" WIDTH4_SHA
             "\"}}\n",
             here());
    fx = write_fixture(encoder_spec(), 32, "none", 0, "1", envs);
    run_t h;
    run_fixture(&h, fx, tl_python(), NULL, 0);
    cr_assert_eq(h.rc, 0, "an environment's own model is its outcome, not the contract's: %s", h.err.msg);
    expect_vectors(&h, "reference", 32);
    const px_env_result *er = env_of(&h, "other");
    for (size_t i = 0; i < N_DOCS; i++) {
        const px_example_result *x = &er->ex[i];
        cr_expect_eq(x->status, PX_ST_BAD_SHAPE, "d%zu: %s", i, status_name(x->status));
        cr_expect(x->detail && strstr(x->detail, "output shape [1,4], contract says [1,32] (contract.model.dim)"),
                  "d%zu: %s", i, x->detail ? x->detail : "(none)");
        cr_expect_eq(x->label, -1);
    }
    run_free(&h);
    free(fx);
}

/* Pooling mean on an output that is already a vector (the tuple's pooler
 * output) is each example's exception, in words, in both executors: never
 * a [1, D] passed through as if it were pooled. */
Test(embed, pooling_token_states_that_are_not_there_is_an_exception, .timeout = 120)
{
    char *fx = write_fixture(encoder_spec(), 32, "mean", 0, "1",
                             "  reference: {device: cpu, threads: 1}\n"
                             "  python: {device: cpu, threads: 1, executor: python}\n");
    run_t h;
    run_fixture(&h, fx, tl_python(), NULL, 0);
    for (size_t e = 0; e < h.res->n_envs; e++)
        for (size_t i = 0; i < N_DOCS; i++) {
            const px_example_result *x = &h.res->envs[e].ex[i];
            cr_expect_eq(x->status, PX_ST_EXCEPTION, "%s d%zu: %s", h.res->envs[e].name, i, status_name(x->status));
            cr_expect(x->detail && strstr(x->detail, "pooling mean needs the model's token states [B, T, D], but "
                                                     "the model gave [1,32]"),
                      "%s d%zu: %s", h.res->envs[e].name, i, x->detail ? x->detail : "(none)");
        }
    run_free(&h);
    free(fx);
}

/* parity bench on an embedding: batch:3 stacks documents of different
 * lengths, padded, and the executor pools each row with its own mask, so
 * each row is the example's own vector (to rounding); train-step refuses in
 * words. Both executors. */
Test(embed, bench_batch_pools_each_row_with_its_mask, .timeout = 120)
{
    char *fx = write_fixture(encoder_spec(), 32, "mean", 1, NULL,
                             "  reference: {device: cpu, threads: 1}\n"
                             "  python: {device: cpu, threads: 1, executor: python}\n");
    static const int bench[] = {3, -2};
    run_t h;
    run_fixture(&h, fx, tl_python(), bench, 2);
    cr_assert_eq(h.rc, 0, "%s", h.err.msg);
    for (size_t e = 0; e < h.res->n_envs; e++) {
        const px_env_result *er = &h.res->envs[e];
        cr_assert_eq(er->n_bench, 2);
        const px_bench *b = &er->bench[0];
        cr_assert_null(b->stopped, "%s: %s", er->name, b->stopped);
        cr_expect_gt(b->forwards + b->new_shapes, 0);
        cr_expect_eq(b->n_out, 32);
        for (size_t i = 0; i < N_DOCS; i++) {
            cr_assert_not_null(b->out[i], "%s d%zu ran in no batch", er->name, i);
            double d = max_abs_diff(b->out[i], er->ex[i].values, 32);
            cr_expect(d <= 1e-5, "%s d%zu: its row in a padded batch is %.3g from its own vector", er->name, i, d);
        }
        const px_bench *t = &er->bench[1];
        cr_expect(t->stopped && strstr(t->stopped, "an embedding has no labels to train on"), "%s: %s", er->name,
                  t->stopped ? t->stopped : "(none)");
    }
    run_free(&h);
    free(fx);
}

/* DESCRIBE says the model's hidden width (what lint checks contract.model.dim
 * against): the tiny encoder's word embeddings' columns through both
 * executors, all-MiniLM-L6-v2's config.hidden_size through the venv's. */
Test(embed, describe_reports_the_hidden_width, .timeout = 120)
{
    px_runner_opts o = {0};
    locate(&o, tl_python());
    for (int python = 0; python < 2; python++) {
        px_describe d;
        px_error err = {0};
        cr_assert_eq(describe_model_kind(ENCODER, PX_FORMAT_TORCHSCRIPT, PX_MODEL_EMBEDDING, python, &o, 60, &d, &err),
                     0, "%s", err.msg);
        cr_expect_eq(d.hidden, 32, "%s: hidden %ld", d.executor, d.hidden);
        cr_expect_eq(d.max_positions, 64);
        cr_expect_eq(d.head, -1, "an embedding has no head");
        describe_free(&d);
    }
    runner_locate_free(&o);
    char py[600];
    snprintf(py, sizeof py, "%s/" VENV_PY, here());
    locate(&o, py);
    px_describe d;
    px_error err = {0};
    cr_assert_eq(describe_model_kind(MINILM, PX_FORMAT_TRANSFORMERS, PX_MODEL_EMBEDDING, 1, &o, 120, &d, &err), 0, "%s",
                 err.msg);
    cr_expect_eq(d.hidden, 384);
    cr_expect_eq(d.max_positions, 512);
    cr_expect_eq(d.head, -1);
    cr_expect(describe_takes(&d, "attention_mask"));
    describe_free(&d);
    runner_locate_free(&o);
}

/* `parity run` itself: the tiny encoder through both executors ends 0 with
 * every document ok, and the executors' command lines carry the pooling
 * (an old executor refuses --kind embedding: that environment would be
 * down, exit 3). */
Test(embed, parity_run_runs_an_embedding, .timeout = 120)
{
    char *fx = write_fixture(encoder_spec(), 32, "mean", 1, NULL,
                             "  reference: {device: cpu, threads: 1}\n"
                             "  python: {device: cpu, threads: 1, executor: python}\n");
    char *out = tmp_path("results.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-o", out, "--python", tl_python(), NULL});
    cr_expect_eq(r.status, 0, "status %d: %s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "reference: 4 ok") && strstr(r.out, "python: 4 ok"), "%s", r.out);
    tl_free(&r);
    free(fx), free(out);
}

/* The real model end to end through the binary: `parity run` shows, for a
 * query, the document its search puts first (the outdoor film for a movie
 * search) and "vector" for a document; the results file it writes is then
 * judged by `parity check --no-run` as a search: the query finds what it
 * expects, and the file's vectors are an embedding's (format 6). */
Test(embed, a_real_search_runs_and_is_judged_from_its_results_file, .timeout = 300)
{
    TL_ONCE_PER_CHECK();
    char py[600];
    snprintf(py, sizeof py, "%s/" VENV_PY, here());
    cr_assert(access(py, X_OK) == 0, "%s: make deps builds the venv", py);
    char *fx = minilm_fixture("mean", 1, "  reference: {device: cpu, threads: 1, executor: python}\n");
    char *text = tl_slurp(fx);
    size_t n = strlen(text) + 400;
    char *more = malloc(n);
    snprintf(more, n,
             "%s  - id: movie\n    role: query\n    kind: short\n    text: where can I watch a film outside\n"
             "    expect: {top: [d1], k: 2, order: exact}\n",
             text);
    tl_write(fx, more);
    char *out = tmp_path("search-results.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-o", out, "--python", py, NULL});
    cr_expect_eq(r.status, 0, "status %d: %s%s", r.status, r.out, r.err);
    const char *row = strstr(r.out, "\nmovie ");
    cr_expect(row && strstr(row, " d1 0."), "the movie query's cell names the film document first:\n%s", r.out);
    const char *doc = strstr(r.out, "\nd0 ");
    cr_expect(doc && strstr(doc, " vector "), "a document's cell:\n%s", r.out);
    cr_expect(strstr(r.out, "max|Δ| vs reference") && !strstr(r.out, "Δlogit"), "%s", r.out);
    tl_free(&r);
    char *results = tl_slurp(out);
    cr_expect(results && strstr(results, "parity_results: 6") && strstr(results, "kind: embedding"), "format 6");
    free(results);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", out, "--no-run", NULL});
    cr_expect_eq(r.status, 0, "status %d: %s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "movie") && strstr(r.out, "pass: top 2: d1 0."), "%s", r.out);
    tl_free(&r);
    free(text), free(more), free(out), free(fx);
}

/* parity bench's file for an embedding reads back: its outputs are vectors
 * (contract.model.dim values each, not one per label), and check judges
 * them as it judges a run's, never as a label "decided ?". */
Test(embed, a_bench_file_of_an_embedding_reads_back_and_is_judged, .timeout = 120)
{
    char *fx = write_fixture(encoder_spec(), 32, "mean", 1, NULL, "  reference: {device: cpu, threads: 1}\n");
    char *out = tmp_path("bench.yaml");
    cmd_result r = tl_run((const char *[]){"parity", "bench", fx, "--endpoint", "batch:2", "--warmup", "1", "--iters",
                                           "1", "-o", out, NULL});
    cr_expect_eq(r.status, 0, "status %d: %s%s", r.status, r.out, r.err);
    cr_expect(!strstr(r.out, "decides"), "a vector decides no label: %s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", out, "--no-run", NULL});
    cr_expect_eq(r.status, 0, "status %d: %s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "performance: measured: batch:2"), "%s", r.out);
    tl_free(&r);
    free(out), free(fx);
}
