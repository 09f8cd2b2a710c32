/* The image kind's executor and wire (issue 39): a tiny random DiTPipeline
 * (tests/models/make_tiny_dit.py, built here into /tmp) run by the Python
 * executor. tests/image_agree.py holds its images and latents to diffusers'
 * own DiTPipeline, bit for bit (the independent computation); here the C
 * side is held to the real executor: DENOISE encoded by denoise.c and its
 * DENOISED decoded (shape, digest, recorded steps), a malformed DENOISE
 * answered FAIL "protocol:", parity-torch refusing DENOISE; and a whole
 * image fixture through the runner (the class looked up, one not in the
 * labels rejected, the probe and every example a DENOISE). The venv's
 * Python (torch 2, diffusers) runs it: skipped, saying so, without it. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parity/denoise.h"
#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/runner.h"
#include "testlib.h"

#define VENV_PY "build/venv/bin/python"
#define SCRIPT "src/executor/parity_torch.py"

extern char **environ;

static char cwd[512];

static const char *here(void)
{
    if (!cwd[0])
        cr_assert_not_null(getcwd(cwd, sizeof cwd));
    return cwd;
}

static void need_venv(void)
{
    TL_ONCE_PER_CHECK();
    if (access(VENV_PY, X_OK))
        cr_skip_test("no %s (make deps builds the venv with torch 2 and diffusers)", VENV_PY);
}

/* The tiny pipeline, built into this test's directory; its path. */
static const char *tiny_pipeline(void)
{
    static char dir[600];
    if (dir[0])
        return dir;
    snprintf(dir, sizeof dir, "%s/dit", tl_test_dir());
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "HF_HUB_OFFLINE=1 %s tests/models/make_tiny_dit.py '%s' 2>&1", VENV_PY, dir);
    cr_assert_eq(system(cmd), 0, "%s failed", cmd);
    return dir;
}

Test(image, the_executor_agrees_with_diffusers_own_pipeline_bit_for_bit, .timeout = 300)
{
    need_venv();
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "HF_HUB_OFFLINE=1 %s tests/image_agree.py '%s' > '%s/agree.log' 2>&1", VENV_PY,
             tiny_pipeline(), tl_test_dir());
    int st = system(cmd);
    char path[700];
    snprintf(path, sizeof path, "%s/agree.log", tl_test_dir());
    char *log = tl_slurp(path);
    cr_expect_eq(st, 0, "tests/image_agree.py:\n%s", log ? log : "(no output)");
    cr_expect(log && strstr(log, "bit-identical to DiTPipeline's"), "%s", log ? log : "");
    free(log);
}

/* An executor started on pipes: argv[0] the program. */
typedef struct kid {
    pid_t pid;
    int to, from;
} kid;

static kid start(const char *const *argv)
{
    int in[2], out[2];
    cr_assert(!pipe(in) && !pipe(out));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    kid k = {0};
    cr_assert_eq(posix_spawn(&k.pid, argv[0], &fa, NULL, (char *const *)argv, environ), 0, "%s", argv[0]);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]), close(out[1]);
    k.to = in[1], k.from = out[0];
    return k;
}

static void stop(kid *k)
{
    close(k->to);
    int st = 0;
    waitpid(k->pid, &st, 0);
    close(k->from);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the executor ended with status %d", st);
}

/* The next frame; its payload in b. */
static uint32_t next(kid *k, px_buf *b)
{
    uint32_t type = 0;
    buf_reset(b);
    cr_assert_eq(proto_read_frame(k->from, &type, b), 0, "the executor closed its stdout");
    return type;
}

static void send_denoise(kid *k, const px_denoise_req *q)
{
    px_buf b = {0};
    denoise_request_encode(&b, q);
    cr_assert_eq(proto_write_all(k->to, b.data, b.len), 0);
    buf_free(&b);
}

/* FAIL's stage and message (malloc'd). */
static char *fail_of(px_buf *b, uint32_t *stage, uint32_t *kind)
{
    *stage = buf_get_u32(b), *kind = buf_get_u32(b);
    char *msg = buf_get_str(b);
    cr_assert(msg && !b->bad, "malformed FAIL");
    return msg;
}

static kid start_python(const char *pipeline)
{
    char py[700], script[700];
    snprintf(py, sizeof py, "%s/" VENV_PY, here());
    snprintf(script, sizeof script, "%s/" SCRIPT, here());
    return start((const char *const[]){py, script, "--model", pipeline, "--format", "diffusers", "--kind", "image",
                                       "--device", "cpu", "--dtype", "float32", "--threads", "1", NULL});
}

Test(image, denoised_from_the_real_executor_decodes_and_a_malformed_denoise_fails, .timeout = 300)
{
    need_venv();
    kid k = start_python(tiny_pipeline());
    px_buf b = {0};
    cr_assert_eq(next(&k, &b), PX_FRAME_READY, "no READY");
    cr_expect_eq(buf_get_u32(&b), PX_PROTO_VERSION, "the Python executor speaks this revision");
    /* READY's eleven strings (executor .. ignored), load_ms, then load. */
    for (int i = 0; i < 11; i++)
        free(buf_get_str(&b));
    buf_get_f64(&b);
    char *load = buf_get_str(&b);
    cr_expect(load && strstr(load, "DiffusionPipeline.from_pretrained(") && strstr(load, "torch.float32"),
              "READY's load: %s", load ? load : "(none)");
    free(load);

    /* latent_every 3 over 7 steps records 2, 5 and the last, 6. */
    px_denoise_req q = {.class_id = 1, .seed = 7, .steps = 7, .guidance_scale = 4.0, .height = 32, .width = 32,
                        .latent_every = 3};
    send_denoise(&k, &q);
    cr_assert_eq(next(&k, &b), PX_FRAME_DENOISED, "not DENOISED: %.*s", (int)(b.len > 200 ? 200 : b.len), b.data);
    px_example_result x = {.label = -1, .forward_ms = -1};
    char why[200] = "";
    cr_assert_eq(denoised_decode(&b, &x, why, sizeof why), 0, "%s", why);
    cr_expect(x.ndim == 4 && x.shape[0] == 1 && x.shape[1] == 32 && x.shape[2] == 32 && x.shape[3] == 3);
    cr_expect_str_eq(x.dtype, "float32");
    cr_assert_eq(x.img->n_steps, 3);
    cr_expect(x.img->step[0] == 2 && x.img->step[1] == 5 && x.img->step[2] == 6, "recorded %d %d %d",
              x.img->step[0], x.img->step[1], x.img->step[2]);
    cr_expect_eq(x.img->steps, 7);
    cr_expect(x.img->latent_shape[1] == 4 && x.img->latent_shape[2] == 8 && x.img->latent_shape[3] == 8);
    cr_expect_eq(strlen(x.img->noise_sha256), 64);
    cr_expect(x.forward_ms >= x.img->first_ms && x.img->first_ms > 0);
    double lo = 1, hi = 0;
    for (size_t i = 0; i < x.n_values; i++)
        lo = x.values[i] < lo ? x.values[i] : lo, hi = x.values[i] > hi ? x.values[i] : hi;
    cr_expect(lo >= 0 && hi <= 1 && hi > lo, "pixels in [0, 1], not flat: %g .. %g", lo, hi);
    char digest[PX_SHA256_HEX];
    memcpy(digest, x.img->noise_sha256, sizeof digest);
    example_result_clear(&x);

    /* The same seed is the same noise; another seed another. */
    q.class_id = 4;
    send_denoise(&k, &q);
    cr_assert_eq(next(&k, &b), PX_FRAME_DENOISED);
    cr_assert_eq(denoised_decode(&b, &x, why, sizeof why), 0, "%s", why);
    cr_expect_str_eq(x.img->noise_sha256, digest, "the noise is the seed's, not the class's");
    example_result_clear(&x);

    /* Malformed: steps 0, a size this DiT does not make, a class past its
     * embeddings, latent_every 0. Each FAIL(forward, "protocol: ..."); the
     * executor goes on. */
    px_denoise_req bad[] = {q, q, q, q};
    bad[0].steps = 0, bad[1].height = 64, bad[2].class_id = 1000, bad[3].latent_every = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        send_denoise(&k, &bad[i]);
        cr_assert_eq(next(&k, &b), PX_FRAME_FAIL, "case %zu answered", i);
        uint32_t stage, kind;
        char *msg = fail_of(&b, &stage, &kind);
        cr_expect_eq(stage, PX_STAGE_FORWARD, "case %zu", i);
        cr_expect(!strncmp(msg, "protocol: ", 10), "case %zu: %s", i, msg);
        free(msg);
    }
    q.seed = 8;
    send_denoise(&k, &q);
    cr_assert_eq(next(&k, &b), PX_FRAME_DENOISED, "the executor answers after a malformed DENOISE");
    cr_assert_eq(denoised_decode(&b, &x, why, sizeof why), 0, "%s", why);
    cr_expect_str_neq(x.img->noise_sha256, digest, "another seed, other noise");
    example_result_clear(&x);
    buf_free(&b);
    stop(&k);
}

static const char *parity_torch(void)
{
    const char *p = getenv("PARITY_TORCH");
    return p && *p ? p : "build/parity-torch";
}

/* parity-torch knows the image kind and cannot run it: at load, and a
 * DENOISE that reaches a running one, each FAIL unsupported saying to use
 * executor: python. */
Test(image, parity_torch_refuses_the_kind_and_denoise, .timeout = 120)
{
    TL_ONCE_PER_CHECK();
    if (access(parity_torch(), X_OK))
        cr_skip_test("no %s (make builds it)", parity_torch());
    const char *argv[][14] = {
        {parity_torch(), "--model", "tests/models/gen_tiny.pt", "--kind", "image", "--format", "diffusers", NULL},
        {parity_torch(), "--model", "tests/models/gen_tiny.pt", "--kind", "image", NULL},
    };
    const char *says[] = {"format diffusers: parity-torch loads TorchScript only; use executor: python",
                          "kind image: parity-torch runs TorchScript only: a Diffusers pipeline needs executor: python"};
    px_buf b = {0};
    for (int i = 0; i < 2; i++) {
        kid k = start(argv[i]);
        cr_assert_eq(next(&k, &b), PX_FRAME_FAIL, "case %d: no FAIL at load", i);
        uint32_t stage, kind;
        char *msg = fail_of(&b, &stage, &kind);
        cr_expect(stage == PX_STAGE_LOAD && kind == PX_FAIL_UNSUPPORTED, "case %d: stage %u kind %u", i, stage, kind);
        cr_expect_str_eq(msg, says[i]);
        free(msg);
        close(k.to), close(k.from);
        waitpid(k.pid, NULL, 0);
    }
    kid k = start((const char *const[]){parity_torch(), "--model", "tests/models/gen_tiny.pt", "--kind", "generator",
                                        NULL});
    cr_assert_eq(next(&k, &b), PX_FRAME_READY);
    cr_expect_eq(buf_get_u32(&b), PX_PROTO_VERSION, "parity-torch speaks this revision");
    send_denoise(&k, &(px_denoise_req){.class_id = 0, .seed = 1, .steps = 2, .guidance_scale = 4, .height = 32,
                                       .width = 32, .latent_every = 1});
    cr_assert_eq(next(&k, &b), PX_FRAME_FAIL);
    uint32_t stage, kind;
    char *msg = fail_of(&b, &stage, &kind);
    cr_expect(stage == PX_STAGE_FORWARD && kind == PX_FAIL_UNSUPPORTED);
    cr_expect_str_eq(msg, "parity-torch runs TorchScript only: a Diffusers pipeline needs executor: python");
    free(msg);
    buf_free(&b);
    stop(&k);
}

/* sha256 of a file, as sha256sum prints it (64 hex digits). */
static void sha_of(const char *path, char out[PX_SHA256_HEX])
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
    FILE *p = popen(cmd, "r");
    char line[256] = "";
    cr_assert(p && fgets(line, sizeof line, p) && strlen(line) > 64, "%s", cmd);
    pclose(p);
    memcpy(out, line, 64);
    out[64] = '\0';
}

/* An image fixture on the tiny pipeline, every file pinned; its path. */
static char *image_fixture(const char *dir)
{
    static const char *const files[] = {"model_index.json", "scheduler/scheduler_config.json",
                                        "transformer/config.json", "transformer/diffusion_pytorch_model.safetensors",
                                        "vae/config.json", "vae/diffusion_pytorch_model.safetensors"};
    char pins[3000] = "", sha[PX_SHA256_HEX], path[900];
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        sha_of(path, sha);
        size_t at = strlen(pins);
        snprintf(pins + at, sizeof pins - at, "      %s: \"%s\"\n", files[i], sha);
    }
    char *text = malloc(8192);
    snprintf(text, 8192,
             "parity: 1\n"
             "contract:\n"
             "  task: draw the shape a class names\n"
             "  model:\n"
             "    kind: image\n"
             "    format: diffusers\n"
             "    path: %s\n"
             "    files:\n%s"
             "  labels: [circle, square, triangle, cross, ring]\n"
             "  image:\n"
             "    size: [32, 32]\n"
             "    channels: 3\n"
             "    steps: 4\n"
             "    guidance_scale: 4.0\n"
             "    seed: 42\n"
             "    noise: cpu\n"
             "    scheduler: DDIMScheduler\n"
             "    latents: {every: 2}\n"
             "  compare:\n"
             "    image:\n"
             "      psnr: {min: 30, why: the same picture}\n"
             "      ssim: {min: 0.95, why: the same shapes}\n"
             "      mean_abs: {max: 2, why: rounding}\n"
             "      max_abs: {max: 48, why: an edge pixel}\n"
             "    latents: {atol: 0.02, rtol: 0.02, why: bfloat16's digits}\n"
             "environments:\n"
             "  reference: {device: cpu, dtype: float32, executor: python, threads: 1, role: reference}\n"
             "examples:\n"
             "  - id: dragon\n"
             "    kind: reject\n"
             "    class: dragon\n"
             "    expect: {rejected: true}\n"
             "    why: not a class of this pipeline\n"
             "  - id: red-circle\n"
             "    kind: normal\n"
             "    class: circle\n"
             "    seed: 7\n"
             "    why: its own seed\n"
             "  - id: ring\n"
             "    kind: normal\n"
             "    class: ring\n"
             "    why: the contract's seed\n",
             dir, pins);
    char *fx = malloc(strlen(tl_test_dir()) + 32);
    sprintf(fx, "%s/image.yaml", tl_test_dir());
    tl_write(fx, text);
    free(text);
    return fx;
}

/* The hex sha256 of the float32 noise torch draws from seed on the CPU
 * (the venv's torch: what DiTPipeline draws). */
static void noise_digest(unsigned long long seed, char out[PX_SHA256_HEX])
{
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "%s -c 'import torch,hashlib; g=torch.Generator(\"cpu\").manual_seed(%llu); "
             "print(hashlib.sha256(torch.randn([1,4,8,8], generator=g, dtype=torch.float32).numpy().tobytes())"
             ".hexdigest())'",
             VENV_PY, seed);
    FILE *p = popen(cmd, "r");
    char line[256] = "";
    cr_assert(p && fgets(line, sizeof line, p) && strlen(line) > 64, "%s", cmd);
    pclose(p);
    memcpy(out, line, 64);
    out[64] = '\0';
}

/* The whole wire through the runner: the class looked up (one not in the
 * labels rejected, naming it and them), the probe (the first example not
 * rejected) and each example a DENOISE with its own seed or the
 * contract's, the image held to [1, 32, 32, 3]. */
Test(image, the_runner_denoises_an_image_fixture, .timeout = 300)
{
    need_venv();
    px_error err = {0};
    char *fx = image_fixture(tiny_pipeline());
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s:%d: %s", err.file ? err.file : "", err.line, err.msg);
    px_env_input in;
    cr_assert_eq(env_input_open(&in, f, &f->envs[0], &err), 0, "%s", err.msg);
    cr_expect(in.examples[0].rejected);
    cr_expect_str_eq(in.examples[0].reason,
                     "no class 'dragon' in contract.labels (circle, square, triangle, cross, ring)");
    cr_expect_eq(in.examples[1].class_id, 0);
    cr_expect_eq(in.examples[2].class_id, 4);
    cr_expect(env_input_has_probe(&in));
    cr_expect_str_eq(in.probe_words, "example 'red-circle', class 'circle'");
    int idx = 0;
    px_results *res = results_new(f, &idx, 1);
    px_runner_opts o = {0};
    char py[700], script[700];
    snprintf(py, sizeof py, "%s/" VENV_PY, here());
    runner_locate(&o, parity_torch(), py);
    snprintf(script, sizeof script, "%s/" SCRIPT, here());
    free((char *)o.script);
    o.script = strdup(script);
    px_runner *r = runner_start(f, &in, res, &o, &err);
    cr_assert_not_null(r, "%s", err.msg);
    cr_assert_eq(runner_wait(r, &err), 0, "%s", err.msg);
    runner_free(r);
    const px_env_result *er = &res->envs[0];
    cr_assert_eq(er->state, PX_ENV_UP, "down: %s", er->down_msg ? er->down_msg : "");
    cr_expect_gt(er->m.first_forward_ms, 0, "the probe denoised");
    cr_expect_eq(er->ex[0].status, PX_ST_REJECTED);
    cr_expect_str_eq(er->ex[0].clean_text, "dragon", "the example's input is its class");
    const char *ids[] = {"red-circle", "ring"};
    unsigned long long seeds[] = {7, 42};
    for (int i = 1; i <= 2; i++) {
        const px_example_result *x = &er->ex[i];
        cr_assert_eq(x->status, PX_ST_OK, "%s: %s %s", ids[i - 1], status_name(x->status), x->detail ? x->detail : "");
        cr_expect(x->ndim == 4 && x->shape[1] == 32 && x->shape[2] == 32 && x->shape[3] == 3);
        cr_assert_not_null(x->img);
        cr_expect_eq(x->img->steps, 4);
        cr_assert_eq(x->img->n_steps, 2, "every 2 of 4 steps: 1 and 3");
        cr_expect(x->img->step[0] == 1 && x->img->step[1] == 3);
        char want[PX_SHA256_HEX];
        noise_digest(seeds[i - 1], want);
        cr_expect_str_eq(x->img->noise_sha256, want, "%s started from seed %llu's noise", ids[i - 1], seeds[i - 1]);
    }
    results_free(res);
    env_input_close(&in, f->n_examples);
    runner_locate_free(&o);
    fixture_free(f);
    free(fx);
}

/* The demo's own fixture end to end through the command line: run (the
 * float32 reference and the bfloat16 twin), check, an HTML report. What
 * the contract says it must show: the ring that bfloat16 breaks fails its
 * picture checks, parts at a recorded latent and is blamed on precision;
 * the other pictures hold; the class not in the labels is rejected; the
 * report carries the pictures. */
Test(image, the_demo_runs_checks_and_reports_end_to_end, .timeout = 300)
{
    need_venv();
    /* the fixture in a directory of the test's own (check records its last
     * good configuration beside it), its model where it says */
    char dir[700], cmd[3200], out[760], html[760], fx[760], py[1200];
    snprintf(dir, sizeof dir, "%s/shapes", tl_test_dir());
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp fixtures/shapes/fixture.yaml '%s/' && ln -s '%s/fixtures/shapes/model' '%s/model'",
             dir, dir, here(), dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(out, sizeof out, "%s/results.yaml", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(fx, sizeof fx, "%s/fixture.yaml", dir);
    snprintf(py, sizeof py, "%s/%s", here(), VENV_PY);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-e", "reference", "-e", "cpu-bf16", "-q", "-o", out,
                                           "--python", py, NULL});
    cr_assert(r.status == 0 || r.status == 1, "run: exit %d: %s", r.status, r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", out, "--no-run", NULL});
    cr_expect(r.status == 1 || r.status == 3, "check: exit %d (the twin breaks the ring): %s %s", r.status, r.out, r.err);
    const char *want[] = {"broken-ring          image-changed: PSNR", "parts from the reference at latent: latent at step",
                          "cause: precision", "green-square         pass-within-tolerance", "1 rejected-as-expected", NULL};
    for (int i = 0; want[i]; i++)
        cr_expect(strstr(r.out, want[i]), "check lacks '%s':\n%s", want[i], r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "report", fx, "--results", out, "--no-run", "-f", "html", "-o", html, NULL});
    cr_assert_eq(r.status, 0, "report: %s", r.err);
    tl_free(&r);
    char *page = tl_slurp(html);
    cr_assert_not_null(page);
    size_t n = 0;
    for (const char *p = page; (p = strstr(p, "data:image/png;base64,")); p++)
        n++;
    /* three per candidate example that drew (reference, twin, map: 4), the
     * reference's own where shown: at least 12 */
    cr_expect_geq(n, 12, "%zu embedded PNGs", n);
    free(page);
}

/* parity bench has no denoising endpoint: refused before anything runs,
 * never a protocol error per example. */
Test(image, bench_refuses_an_image_contract)
{
    cmd_result r = tl_run((const char *[]){"parity", "bench", "tests/data/image/shapes.yaml", NULL});
    cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "image pipeline's contract") && strstr(r.err, "no denoising endpoint"), "%s", r.err);
    tl_free(&r);
}
