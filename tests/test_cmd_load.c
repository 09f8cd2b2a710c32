/* A model loaded in bfloat16 as its user loads it (issue 38, item 2), and a
 * float32 export program in a bfloat16 environment refused in words (item
 * 3), through the real parity binary with the Python executor on torch 2
 * with transformers (build/venv). tests/models/bf16_load.py makes the
 * model: a tiny Qwen2 sequence classifier from a config, whose RoPE
 * inv_freq transformers keeps in float32 when it loads the model in
 * bfloat16, saved as a Transformers directory in float32 and exported
 * with torch.export in float32 and in bfloat16; and it computes the logits
 * a user gets, from_pretrained(dtype=torch.bfloat16), beside the ones the
 * float32 model cast with .to(torch.bfloat16) gives (what parity computed
 * before: they differ by a bfloat16 step on these examples).
 *
 * On torch 1.13 (Debian's, the default interpreter) these are skipped,
 * saying so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "testlib.h"

#define PY tl_python()
#define SCRIPT "tests/models/bf16_load.py"
#define VOCAB "tests/data/gen-llama/vocab.txt"
#define ZEROS "0000000000000000000000000000000000000000000000000000000000000000"
#define VOCAB_PIN "e991531f3562d8ea829924474ad963a2999fb61d21a717ea011bdde28060d666"

static int has_transformers(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import torch, transformers' >/dev/null 2>&1", PY);
    return system(cmd) == 0;
}

static void need_transformers(void)
{
    if (tl_torch_version()[0] < '2' || !has_transformers())
        cr_skip_test("loading in bfloat16 as users load needs torch 2 and transformers; %s has torch %s", PY,
                     tl_torch_version());
}

/* Runs cmd; its stdout (malloc'd), asserting it exited 0. */
static char *sh(const char *cmd)
{
    char *dir = tl_tmpdir(), full[8192], out[300];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(full, sizeof full, "(%s) >'%s' 2>&1", cmd, out);
    int st = system(full);
    char *text = tl_slurp(out);
    cr_assert_eq(st, 0, "`%s`: status %d\n%s", cmd, st, text ? text : "");
    unlink(out), rmdir(dir);
    free(dir);
    return text;
}

/* The sha256 bf16_load.py make printed for name. */
static const char *pin_of(const char *sums, const char *name)
{
    static char hex[8][65];
    static int next;
    char key[80];
    snprintf(key, sizeof key, "\n%s ", name);
    char *with_nl = malloc(strlen(sums) + 2);
    sprintf(with_nl, "\n%s", sums);
    const char *at = strstr(with_nl, key);
    cr_assert_not_null(at, "%s printed no %s:\n%s", SCRIPT, name, sums);
    char *h = hex[next++ % 8];
    memcpy(h, at + strlen(key), 64), h[64] = '\0';
    free(with_nl);
    return h;
}

static char *dir, *made;

static void remove_dir(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd))
        fprintf(stderr, "%s failed\n", cmd);
}

/* The model's directory (made once per test, removed at its end), the
 * sums printed. */
static const char *model_dir(char **sums)
{
    if (!dir) {
        atexit(remove_dir);
        dir = tl_tmpdir();
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "'%s' %s make '%s' && cp %s '%s/vocab.txt'", PY, SCRIPT, dir, VOCAB, dir);
        made = sh(cmd);
    }
    *sums = made;
    return dir;
}

/* The fixture: the directory as the contract's model, its environments
 * `envs` (YAML, each line indented two spaces), written in dir. */
static const char *fixture(const char *dir, const char *sums, const char *name, const char *envs)
{
    static char path[4200];
    char *text = malloc(16384);
    snprintf(text, 16384,
             "parity: 1\n"
             "contract:\n"
             "  task: Sort a string of letters into one of three classes (a test of loading, not a task).\n"
             "  model:\n"
             "    format: transformers\n"
             "    path: model\n"
             "    files:\n"
             "      config.json: \"%s\"\n"
             "      model.safetensors: \"%s\"\n"
             "  input:\n"
             "    tokenizer: {kind: chars, vocab: vocab.txt, sha256: \"%s\"}\n"
             "    max_tokens: 60\n"
             "  labels: [x, y, z]\n"
             "  compare:\n"
             "    logits: {rtol: 0, atol: 0.1, stat: max, why: bfloat16 against float32 on a random model}\n"
             "    decision: exact\n"
             "environments:\n"
             "  reference: {executor: python, device: cpu, dtype: float32, threads: 1, role: reference}\n"
             "%s"
             "examples:\n"
             "  - {id: abc, text: abc, expect: {label: x}, why: a short string}\n"
             "  - {id: cat, text: the cat sat on the mat., expect: {label: y}, why: RoPE turns further}\n"
             "  - {id: z, text: zzzz zzzz zzzz zzzz zzzz, expect: {label: z}, why: a repeated letter}\n",
             pin_of(sums, "model/config.json"), pin_of(sums, "model/model.safetensors"), VOCAB_PIN, envs);
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    tl_write(path, text);
    free(text);
    return path;
}

static const px_env_result *env_named(const px_results *r, const char *name)
{
    for (size_t i = 0; i < r->n_envs; i++)
        if (!strcmp(r->envs[i].name, name))
            return &r->envs[i];
    cr_assert_fail("no environment %s in the results", name);
    return NULL;
}

/* The values of the line `way v v v` for example k of bf16_load.py
 * logits' output (three ways an example, in the order user, cast,
 * export). */
static void way_values(const char *said, size_t k, const char *way, double *v, size_t n)
{
    const char *p = said;
    size_t seen = 0;
    char key[32];
    snprintf(key, sizeof key, "%s ", way);
    for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, strlen(key)))
            continue;
        if (seen++ < k)
            continue;
        char *end;
        p += strlen(key);
        for (size_t i = 0; i < n; i++, p = end) {
            v[i] = strtod(p, &end);
            cr_assert(end != p, "not a number at '%.20s'", p);
        }
        return;
    }
    cr_assert_fail("no line %zu for %s in:\n%s", k, way, said);
}

/* A bfloat16 environment on a Transformers directory gives, bit for bit,
 * the logits of AutoModelForSequenceClassification.from_pretrained(dir,
 * dtype=torch.bfloat16), and says so in its manifest; a bfloat16 export
 * program gives torch.export.load(...).module()'s. Before, parity loaded
 * float32 and cast: the cast's logits, a step off. */
Test(load, bfloat16_is_loaded_as_users_load_it, .timeout = 600)
{
    need_transformers();
    char *sums;
    const char *dir = model_dir(&sums);
    char envs[1024];
    snprintf(envs, sizeof envs,
             "  bf16: {executor: python, device: cpu, dtype: bfloat16, threads: 1}\n"
             "  export-bf16:\n"
             "    executor: python\n    device: cpu\n    dtype: bfloat16\n    threads: 1\n"
             "    model: {format: export, path: bf16.pt2, sha256: \"%s\"}\n",
             pin_of(sums, "bf16.pt2"));
    const char *fx = fixture(dir, sums, "bf16", envs);
    char out[4300];
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", PY, NULL});
    cr_assert_eq(r.status, 0, "parity run: exit %d\n%s%s", r.status, r.out, r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    const px_env_result *bf = env_named(res, "bf16"), *ex = env_named(res, "export-bf16"),
                        *ref = env_named(res, "reference");
    cr_expect_str_eq(bf->m.load, "from_pretrained(dtype=torch.bfloat16)");
    cr_expect_str_eq(ex->m.load, "torch.export.load().module()");
    cr_expect_str_eq(ref->m.load, "from_pretrained(dtype=torch.float32)");
    /* Each example's ids, as parity sent them, to the user's own loads. */
    char ids_path[4300];
    snprintf(ids_path, sizeof ids_path, "%s/ids.txt", dir);
    FILE *o = fopen(ids_path, "w");
    cr_assert_not_null(o);
    for (size_t k = 0; k < res->n_examples; k++) {
        cr_assert_eq(bf->ex[k].status, PX_ST_OK, "%s: %s", f->examples[k].id, bf->ex[k].detail);
        for (size_t i = 0; i < bf->ex[k].n_ids; i++)
            fprintf(o, "%s%lld", i ? " " : "", (long long)bf->ex[k].ids[i]);
        fputc('\n', o);
    }
    fclose(o);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' %s logits '%s' '%s'", PY, SCRIPT, dir, ids_path);
    char *said = sh(cmd);
    int cast_differs = 0;
    for (size_t k = 0; k < res->n_examples; k++) {
        double user[3], cast[3], exported[3];
        way_values(said, k, "user", user, 3);
        way_values(said, k, "cast", cast, 3);
        way_values(said, k, "export", exported, 3);
        cr_assert_eq(bf->ex[k].n_values, 3);
        cr_assert_eq(ex->ex[k].n_values, 3, "%s: %s", f->examples[k].id, ex->ex[k].detail);
        for (int i = 0; i < 3; i++) {
            cr_expect_eq(bf->ex[k].values[i], user[i], "%s logit %d: parity %.9g, from_pretrained(dtype=bf16) %.9g",
                         f->examples[k].id, i, bf->ex[k].values[i], user[i]);
            cr_expect_eq(ex->ex[k].values[i], exported[i], "%s logit %d: parity %.9g, the export program %.9g",
                         f->examples[k].id, i, ex->ex[k].values[i], exported[i]);
            cast_differs |= cast[i] != user[i];
        }
    }
    cr_expect(cast_differs, "the cast model gives the user's logits: the test tells nothing\n%s", said);
    free(said);
    results_free(res);
    fixture_free(f);
}

/* A float32 export program in a bfloat16 environment: down at load, in one
 * line naming the file and what to do, not a "Tensor dtype mismatch" on
 * every forward; the other environments run. */
Test(load, a_float32_export_program_in_a_bfloat16_environment_is_refused, .timeout = 600)
{
    need_transformers();
    char *sums;
    const char *dir = model_dir(&sums);
    char envs[1024];
    snprintf(envs, sizeof envs,
             "  export-bf16:\n"
             "    executor: python\n    device: cpu\n    dtype: bfloat16\n    threads: 1\n"
             "    model: {format: export, path: f32.pt2, sha256: \"%s\"}\n",
             pin_of(sums, "f32.pt2"));
    const char *fx = fixture(dir, sums, "f32export", envs);
    char out[4300];
    snprintf(out, sizeof out, "%s/f32export-results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-o", out, "--python", PY, NULL});
    cr_expect_eq(r.status, 3, "exit %d\n%s%s", r.status, r.out, r.err);
    const char *said = "DOWN at load: f32.pt2 is a torch.export program exported in float32, and this "
                       "environment's dtype is bfloat16";
    cr_expect(strstr(r.out, said), "'%s' not in:\n%s\n%s", said, r.out, r.err);
    cr_expect(strstr(r.out, "export the model in bfloat16"), "%s", r.out);
    cr_expect(strstr(r.out, "dtype: float32"), "%s", r.out);
    cr_expect_null(strstr(r.out, "mismatch"), "%s", r.out);
    cr_expect_null(strstr(r.err, "mismatch"), "%s", r.err);
    tl_free(&r);
}

/* A TorchScript module in a bfloat16 environment, in both executors: one
 * saved in bfloat16 runs as saved (its float32 buffer stays float32, as
 * torch.jit.load gives it to its user), one saved in float32 is cast as its
 * user casts one, .to(torch.bfloat16), buffers too; the manifest says
 * which. tests/models/ts_buffer.py's modules answer their buffer, so the
 * logits show it: float32 1.001 as saved, bfloat16 1.0 once cast. Before,
 * every module was cast. Any torch: the module is saved by the
 * interpreter under test, for the libtorch of the same pass. */
Test(load, a_torchscript_module_saved_in_the_dtype_runs_as_saved, .timeout = 300)
{
    char *dir = tl_tmpdir(), cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' tests/models/ts_buffer.py '%s' && cp %s '%s/vocab.txt'", PY, dir, VOCAB, dir);
    free(sh(cmd));
    char text[8192], path[4200], out[4300];
    snprintf(text, sizeof text,
             "parity: 1\n"
             "contract:\n"
             "  task: Answer a float32 buffer (a test of loading TorchScript, not a task).\n"
             "  model: {path: ts_f32.pt, sha256: \"%s\"}\n"
             "  input:\n"
             "    tokenizer: {kind: chars, vocab: vocab.txt, sha256: \"%s\"}\n"
             "    max_tokens: 60\n"
             "  labels: [x, y, z]\n"
             "  compare:\n"
             "    logits: {rtol: 0, atol: 0.1, stat: max, why: bfloat16 against float32}\n"
             "    decision: exact\n"
             "environments:\n"
             "  reference: {executor: python, device: cpu, dtype: float32, threads: 1, role: reference}\n"
             "  py-cast: {executor: python, device: cpu, dtype: bfloat16, threads: 1}\n"
             "  cpp-cast: {executor: libtorch, device: cpu, dtype: bfloat16, threads: 1}\n"
             "  py-saved: {executor: python, device: cpu, dtype: bfloat16, threads: 1,\n"
             "             model: {path: ts_bf16.pt, sha256: \"%s\"}}\n"
             "  cpp-saved: {executor: libtorch, device: cpu, dtype: bfloat16, threads: 1,\n"
             "              model: {path: ts_bf16.pt, sha256: \"%s\"}}\n"
             "examples:\n"
             "  - {id: abc, text: abc, expect: {label: z}, why: any text}\n",
             ZEROS, VOCAB_PIN, ZEROS, ZEROS);
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    tl_write(path, text);
    /* Pin both files as a user re-pins (each pin above a placeholder). */
    cmd_result r = tl_run((const char *[]){"parity", "pin", path, NULL});
    cr_assert_eq(r.status, 0, "parity pin: exit %d\n%s%s", r.status, r.out, r.err);
    tl_free(&r);
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    r = tl_run((const char *[]){"parity", "run", path, "-q", "-o", out, "--python", PY, NULL});
    cr_assert_eq(r.status, 0, "parity run: exit %d\n%s%s", r.status, r.out, r.err);
    tl_free(&r);
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    px_results *res = results_load(out, f, &err);
    cr_assert_not_null(res, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    static const double saved[3] = {(double)1.001f, (double)2.002f, (double)3.003f}, cast[3] = {1, 2, 3};
    static const struct {
        const char *env, *load;
        const double *want;
    } cases[] = {
        {"reference", "torch.jit.load()", saved},
        {"py-cast", "torch.jit.load().to(torch.bfloat16)", cast},
        {"cpp-cast", "torch.jit.load().to(torch.bfloat16)", cast},
        {"py-saved", "torch.jit.load()", saved},
        {"cpp-saved", "torch.jit.load()", saved},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const px_env_result *e = env_named(res, cases[c].env);
        cr_expect_str_eq(e->m.load ? e->m.load : "(null)", cases[c].load, "%s", cases[c].env);
        cr_assert_eq(e->ex[0].n_values, 3, "%s: %s", cases[c].env, e->ex[0].detail);
        for (int i = 0; i < 3; i++)
            cr_expect_eq(e->ex[0].values[i], cases[c].want[i], "%s logit %d: %.9g, not %.9g", cases[c].env, i,
                         e->ex[0].values[i], cases[c].want[i]);
    }
    results_free(res);
    fixture_free(f);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}
