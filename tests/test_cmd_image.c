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
