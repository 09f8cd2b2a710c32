/* The training kind's runner side (issue 40): the tiny Llama of
 * tests/data/training (built from a config, committed), trained by the
 * Python executor
 * (parity_torch.py's --kind training glue and parity_train.py's loop).
 * The wire against the real executor (TRAINRUN encoded by trainrun.c, each
 * TRAINSTEP and the TRAINEND decoded as they come, a malformed TRAINRUN
 * answered FAIL "protocol:"); the runner (the data read and cut into
 * windows once, each run a TRAINRUN with parity's learning rates, the
 * curve decoded); what breaks a run (a FAIL keeps the steps that ran, a
 * crash, a hang killed whole); a 2-process FSDP environment under torchrun
 * whose dying rank is named and leaves nothing running; too little data
 * refused before any executor starts. The venv's Python (torch 2,
 * transformers) runs it: skipped, saying so, without it. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/hash.h"
#include "parity/prepare.h"
#include "parity/recipe.h"
#include "parity/results.h"
#include "parity/runner.h"
#include "parity/trainrun.h"
#include "../src/run/child.h" /* child_rank_progress */
#include "../src/run/wire.h"  /* the runner's TRAINRUN, as it sends it */
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
        cr_skip_test("no %s (make deps builds the venv with torch 2 and transformers)", VENV_PY);
}

/* The tiny Llama of tests/data/training/model (make_model.py builds it
 * from a LlamaConfig, weights from torch.manual_seed(40); the fixture
 * there pins it), linked into this test's directory so that every
 * executor's command line names the directory (nothing_left); the link.
 * Its vocabulary (300) holds the ticket tokenizer's 236 ids. Read only:
 * from_pretrained never writes, and every run trains a copy. */
static const char *tiny_llama(void)
{
    static char dir[600];
    if (dir[0])
        return dir;
    snprintf(dir, sizeof dir, "%s/llama", tl_test_dir());
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "ln -s '%s/tests/data/training/model' '%s'", here(), dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return dir;
}

/* The data text (at least `lines` lines of tests/data/training's) copied
 * into the test directory; its path (static). */
static const char *data_file(int lines)
{
    static char path[700];
    snprintf(path, sizeof path, "%s/data-%d.txt", tl_test_dir(), lines);
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "head -n %d tests/data/training/data.txt > '%s'", lines, path);
    cr_assert_eq(system(cmd), 0);
    return path;
}

static void pin(const char *path, char out[PX_SHA256_HEX])
{
    px_error err = {0};
    cr_assert_eq(hash_file(path, out, &err), 0, "%s: %s", path, err.msg);
}

/* A training fixture in the test directory: the tiny Llama, the ticket
 * tokenizer, data (a path), the recipe's steps and seq_len, then the
 * environments' and the examples' YAML as given. Its path (malloc'd). */
static char *training_fixture(const char *name, const char *data, int steps, int seq_len, const char *envs,
                              const char *examples)
{
    const char *dir = tiny_llama();
    char files[1200] = "", h[PX_SHA256_HEX], tok[PX_SHA256_HEX], dat[PX_SHA256_HEX], p[900];
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        pin(p, h);
        size_t at = strlen(files);
        snprintf(files + at, sizeof files - at, "      %s: \"%s\"\n", e->d_name, h);
    }
    closedir(d);
    pin("tests/data/training/tokenizer.json", tok);
    pin(data, dat);
    char *text = NULL;
    cr_assert(asprintf(&text,
                       "parity: 1\n"
                       "contract:\n"
                       "  task: train the tiny Llama; the curve is the same in every environment\n"
                       "  model:\n"
                       "    kind: training\n"
                       "    format: transformers\n"
                       "    path: %s\n"
                       "    files:\n%s"
                       "  input:\n"
                       "    tokenizer:\n"
                       "      kind: huggingface\n"
                       "      file: %s/tests/data/training/tokenizer.json\n"
                       "      sha256: \"%s\"\n"
                       "  train:\n"
                       "    steps: %d\n"
                       "    batch_size: 2\n"
                       "    seq_len: %d\n"
                       "    optimizer: adamw\n"
                       "    lr: 0.001\n"
                       "    betas: [0.9, 0.95]\n"
                       "    weight_decay: 0.1\n"
                       "    warmup_steps: 2\n"
                       "    decay: cosine\n"
                       "    decay_min: 0.1\n"
                       "    clip_grad_norm: 1.0\n"
                       "    seed: 40\n"
                       "    data:\n"
                       "      path: %s\n"
                       "      sha256: \"%s\"\n"
                       "  compare:\n"
                       "    train:\n"
                       "      loss: {atol: 0.02, rtol: 0.01, why: \"a few float32 roundings apart\"}\n"
                       "environments:\n%s"
                       "examples:\n%s",
                       dir, files, here(), tok, steps, seq_len, data, dat, envs, examples) > 0);
    char *fx = NULL;
    cr_assert(asprintf(&fx, "%s/%s.yaml", tl_test_dir(), name) > 0);
    tl_write(fx, text);
    free(text);
    return fx;
}

#define ONE_RUN "  - id: run\n    kind: normal\n    why: the contract's recipe\n"

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

static uint32_t next(kid *k, px_buf *b)
{
    uint32_t type = 0;
    buf_reset(b);
    cr_assert_eq(proto_read_frame(k->from, &type, b), 0, "the executor closed its stdout");
    return type;
}

static kid start_python(const char *model)
{
    char py[700], script[700];
    snprintf(py, sizeof py, "%s/" VENV_PY, here());
    snprintf(script, sizeof script, "%s/" SCRIPT, here());
    return start((const char *const[]){py, script, "--model", model, "--format", "transformers", "--kind",
                                       "training", "--device", "cpu", "--dtype", "float32", "--threads", "1", NULL});
}

/* Ids 0 .. n: enough windows for any step. */
static px_trainrun_req small_run(double *lr, int64_t *win, uint32_t steps, uint32_t n_windows, uint32_t seq_len)
{
    for (uint32_t s = 0; s < steps; s++)
        lr[s] = 1e-3 * (s + 1);
    for (uint32_t i = 0; i < n_windows * (seq_len + 1); i++)
        win[i] = 5 + (int64_t)(i * 7 % 200);
    return (px_trainrun_req){.steps = steps, .batch_size = 2, .seq_len = seq_len, .optimizer = PX_OPT_ADAMW,
                             .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .weight_decay = 0.1, .clip_grad_norm = 1.0,
                             .seed = 40, .lr = lr, .n_windows = n_windows, .windows = win};
}

/* TRAINRUN to the real executor: READY says how the model was loaded,
 * each TRAINSTEP comes in order and decodes (its lr the one sent), then
 * TRAINEND; a malformed TRAINRUN (an id past vocab_size, a frame cut
 * short) is FAIL(forward, "protocol: ...") and the executor goes on. */
Test(training, the_executor_answers_trainrun_step_by_step_and_refuses_a_malformed_one, .timeout = 300)
{
    need_venv();
    kid k = start_python(tiny_llama());
    px_buf b = {0};
    cr_assert_eq(next(&k, &b), PX_FRAME_READY);
    cr_expect_eq(buf_get_u32(&b), PX_PROTO_VERSION);
    px_manifest m = {0};
    wire_decode_ready(&b, &m);
    cr_expect_str_eq(m.load, "AutoModelForCausalLM.from_pretrained(dtype=torch.float32)");
    char *said[] = {m.executor, m.runtime, m.libtorch_version, m.backend_modules, m.backend_versions, m.device,
                    m.device_name, m.dtype, m.tf32, m.matmul_precision, m.ignored, m.load};
    for (size_t i = 0; i < sizeof said / sizeof *said; i++)
        free(said[i]);
    double lr[4];
    int64_t win[3 * 9];
    px_trainrun_req q = small_run(lr, win, 4, 3, 8);
    px_buf f = {0};
    trainrun_request_encode(&f, &q);
    cr_assert_eq(proto_write_all(k.to, f.data, f.len), 0);
    px_example_result x = {.label = -1, .forward_ms = -1};
    char why[200] = "";
    for (uint32_t s = 0; s < 4; s++) {
        cr_assert_eq(next(&k, &b), PX_FRAME_TRAINSTEP, "step %u", s);
        cr_assert_eq(trainstep_decode(&b, &x, 4, why, sizeof why), 0, "step %u: %s", s, why);
        cr_expect_eq(x.train->lr[s], lr[s], "step %u ran at the lr parity sent", s);
        cr_expect(isfinite(x.values[s]) && x.values[s] > 0, "step %u's loss %g", s, x.values[s]);
        cr_expect(x.train->grad_norm[s] > 0 && x.train->update_norm[s] > 0);
    }
    /* An untrained model of 300 ids: about ln(300) nats a token. */
    cr_expect(fabs(x.values[0] - log(300.0)) < 0.5, "first loss %g, ln 300 is %g", x.values[0], log(300.0));
    cr_assert_eq(next(&k, &b), PX_FRAME_TRAINEND);
    cr_assert_eq(trainend_decode(&b, &x, 4, why, sizeof why), 0, "%s", why);
    cr_expect_str_eq(x.dtype, "float32");
    cr_expect_eq(x.train->processes, 1);
    cr_expect_geq(x.train->n_groups, 4, "embed, attention, mlp, norm, head");
    cr_expect(x.train->total_ms >= x.train->startup_ms);
    example_result_clear(&x);
    /* An id past the model's 300 rows. */
    win[5] = 300;
    buf_reset(&f);
    trainrun_request_encode(&f, &q);
    cr_assert_eq(proto_write_all(k.to, f.data, f.len), 0);
    cr_assert_eq(next(&k, &b), PX_FRAME_FAIL);
    cr_expect_eq(buf_get_u32(&b), PX_STAGE_FORWARD);
    buf_get_u32(&b);
    char *msg = buf_get_str(&b);
    cr_expect(msg && strstr(msg, "protocol:") && strstr(msg, "300"), "%s", msg ? msg : "");
    free(msg);
    /* A frame one window short of its count. */
    win[5] = 7;
    buf_reset(&f);
    trainrun_request_encode(&f, &q);
    f.len -= 8 * 9;
    uint32_t len = (uint32_t)(f.len - PX_FRAME_HEADER);
    memcpy(f.data + 4, &len, 4);
    cr_assert_eq(proto_write_all(k.to, f.data, f.len), 0);
    cr_assert_eq(next(&k, &b), PX_FRAME_FAIL);
    buf_get_u32(&b), buf_get_u32(&b);
    msg = buf_get_str(&b);
    cr_expect(msg && strstr(msg, "protocol:"), "%s", msg ? msg : "");
    free(msg);
    stop(&k);
    buf_free(&b), buf_free(&f);
}

/* What runner_progress_steps said while run_fixture waited, per example
 * of the first environment: the most steps done seen, and the steps. */
static struct {
    int done[8], of[8];
} seen;

/* Runs fixture fx's environments (all) through the runner with env var
 * PARITY_TRAIN_FAULT=fault (NULL: none), watching its progress as parity
 * run does (seen); the results. */
static px_results *run_fixture(const char *fx, const char *fault, px_fixture **fp, px_env_input **inp)
{
    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file ? err.file : "", err.line, err.col, err.msg);
    px_env_input *in = calloc(f->n_envs, sizeof *in);
    int idx[8];
    for (size_t e = 0; e < f->n_envs; e++) {
        cr_assert_eq(env_input_open(&in[e], f, &f->envs[e], &err), 0, "%s", err.msg);
        idx[e] = (int)e;
    }
    px_results *res = results_new(f, idx, f->n_envs);
    px_runner_opts o = {0};
    char py[700], script[700];
    snprintf(py, sizeof py, "%s/" VENV_PY, here());
    runner_locate(&o, "/nonexistent/parity-torch", py);
    snprintf(script, sizeof script, "%s/" SCRIPT, here());
    free((char *)o.script);
    o.script = strdup(script);
    if (fault)
        setenv("PARITY_TRAIN_FAULT", fault, 1);
    else
        unsetenv("PARITY_TRAIN_FAULT");
    px_runner *r = runner_start(f, in, res, &o, &err);
    cr_assert_not_null(r, "%s", err.msg);
    memset(&seen, 0, sizeof seen);
    while (!runner_done(r)) {
        int env, ex, done, of;
        pid_t pid;
        runner_progress(r, &env, &ex, &pid);
        runner_progress_steps(r, env, &done, &of);
        if (env == 0 && ex >= 0 && ex < 8 && of > 0) {
            seen.of[ex] = of;
            seen.done[ex] = done > seen.done[ex] ? done : seen.done[ex];
        }
        usleep(500);
    }
    cr_assert_eq(runner_wait(r, &err), 0, "%s", err.msg);
    runner_free(r);
    runner_locate_free(&o);
    unsetenv("PARITY_TRAIN_FAULT");
    *fp = f, *inp = in;
    return res;
}

static void close_fixture(px_results *res, px_fixture *f, px_env_input *in)
{
    results_free(res);
    for (size_t e = 0; e < f->n_envs; e++)
        env_input_close(&in[e], f->n_examples);
    free(in);
    fixture_free(f);
}

/* Nothing of this test's is left running: no process whose command line
 * names its directory (the model's path is in every executor's). */
static void nothing_left(void)
{
    char cmd[800];
    for (int tries = 0; tries < 20; tries++) {
        /* [/]: the pattern does not match pgrep's own command line. */
        snprintf(cmd, sizeof cmd, "pgrep -f '[/]%s' > /dev/null", tl_test_dir() + 1);
        if (system(cmd) != 0)
            return;
        usleep(100000);
    }
    snprintf(cmd, sizeof cmd, "pgrep -af '[/]%s' >&2", tl_test_dir() + 1);
    cr_expect(system(cmd) != 0, "processes left running (above)");
}

#define ENV1 "  reference: {device: cpu, dtype: float32, executor: python, threads: 1, role: reference}\n"

/* The runner: the data tokenized once into prep's ids, each run a
 * TRAINRUN whose windows are cut from them as fixture.h says and whose
 * learning rates are recipe_lr's (the executor echoes each step's), the
 * loss curve [1, steps] and the run's groups decoded; a run's own recipe
 * (steps 3) over the contract's. */
Test(training, the_runner_trains_each_run_with_parity_s_data_and_schedule, .timeout = 300)
{
    need_venv();
    char *fx = training_fixture("runs", data_file(12), 6, 8, ENV1,
                                ONE_RUN "  - id: short\n    kind: edge\n    train: {steps: 3, lr: 0.01}\n"
                                        "    why: its own steps and lr\n");
    px_fixture *f;
    px_env_input *in;
    px_results *res = run_fixture(fx, NULL, &f, &in);
    const px_prep *prep = &in[0].prep;
    cr_assert_gt(prep->n_train_ids, 9);
    /* The windows sent: window w is ids[w*L .. w*L + L]. */
    px_trainrun_req q;
    cr_assert_eq(wire_trainrun_req(f->examples[0].recipe, prep, &q), 0);
    cr_expect_eq(q.n_windows, (prep->n_train_ids - 1) / 8);
    for (uint32_t w = 0; w < q.n_windows; w++)
        for (uint32_t j = 0; j <= 8; j++)
            cr_expect_eq(q.windows[w * 9 + j], prep->train_ids[w * 8 + j]);
    wire_trainrun_free(&q);
    const px_env_result *er = &res->envs[0];
    cr_assert_eq(er->state, PX_ENV_UP, "down: %s", er->down_msg ? er->down_msg : "");
    int steps[2] = {6, 3};
    for (int i = 0; i < 2; i++) {
        const px_example_result *x = &er->ex[i];
        cr_assert_eq(x->status, PX_ST_OK, "%s: %s %s", f->examples[i].id, status_name(x->status),
                     x->detail ? x->detail : "");
        cr_assert_eq(x->n_values, (size_t)steps[i]);
        cr_expect(x->ndim == 2 && x->shape[0] == 1 && x->shape[1] == steps[i]);
        cr_assert_not_null(x->train);
        double lr[6];
        recipe_lr(f->examples[i].recipe, lr);
        for (int s = 0; s < steps[i]; s++)
            cr_expect_eq(x->train->lr[s], lr[s], "%s step %d ran at parity's lr", f->examples[i].id, s);
        cr_expect_eq(x->train->processes, 1);
        cr_expect_str_eq(x->dtype, "float32");
    }
    cr_expect_str_eq(er->m.load, "AutoModelForCausalLM.from_pretrained(dtype=torch.float32)");
    /* Progress moved step by step: each run's steps were said while it
     * ran, and a step done seen before its end (a step takes ms, polled
     * every 0.5 ms). */
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(seen.of[i], steps[i], "%s: progress said %d steps", f->examples[i].id, seen.of[i]);
        cr_expect(seen.done[i] >= 1 && seen.done[i] <= steps[i], "%s: %d steps done seen", f->examples[i].id,
                  seen.done[i]);
    }
    /* The model is never the run's: the same first loss both times. */
    cr_expect_eq(er->ex[0].values[0], er->ex[1].values[0]);
    close_fixture(res, f, in);
    free(fx);
}

/* What breaks a run, one process: a FAIL (a raise) is the run's exception,
 * the steps that ran kept, the executor going on to the next run; a crash
 * is a crash naming the step; a hang times out (timeout: 2) and leaves
 * nothing running. */
Test(training, a_raise_a_crash_and_a_hang_are_the_run_s_outcomes, .timeout = 300)
{
    need_venv();
    const char *runs = "  - id: fails\n    kind: edge\n    why: the fault at its step 2\n"
                       "  - id: short\n    kind: edge\n    train: {steps: 2}\n    why: ends before the fault\n";
    char *fx = training_fixture("breaks", data_file(12), 4, 8,
                                "  reference: {device: cpu, dtype: float32, executor: python, threads: 1, "
                                "timeout: 2, first_forward_timeout: 60}\n",
                                runs);
    const char *faults[] = {"0:2:raise", "0:2:crash", "0:2:hang"};
    px_status want[] = {PX_ST_EXCEPTION, PX_ST_CRASH, PX_ST_TIMEOUT};
    const char *said[] = {"at step 3 of 4: PARITY_TRAIN_FAULT: rank 0 raised at step 2", "at step 3 of 4: ",
                          "at step 3 of 4: no step within 2 s"};
    for (int c = 0; c < 3; c++) {
        px_fixture *f;
        px_env_input *in;
        px_results *res = run_fixture(fx, faults[c], &f, &in);
        const px_example_result *x = &res->envs[0].ex[0];
        cr_expect_eq(x->status, want[c], "%s: %s %s", faults[c], status_name(x->status), x->detail ? x->detail : "");
        cr_expect(x->detail && strstr(x->detail, said[c]), "%s: '%s' does not say '%s'", faults[c],
                  x->detail ? x->detail : "", said[c]);
        cr_expect_eq(x->n_values, 2, "%s: the 2 steps that ran are kept", faults[c]);
        cr_expect(x->train && x->train->n_steps == 2);
        cr_expect(x->dtype && !strcmp(x->dtype, "float32"), "%s: the curve so far is its output", faults[c]);
        /* What was kept is a consistent results file: written, read back. */
        char path[700];
        snprintf(path, sizeof path, "%s/breaks-%d.yaml", tl_test_dir(), c);
        px_error err = {0};
        cr_expect_eq(results_write(res, f, path, &err), 0, "%s", err.msg);
        px_results *back = results_load(path, f, &err);
        cr_expect_not_null(back, "%s: %s:%d:%d: %s", faults[c], path, err.line, err.col, err.msg);
        if (back) {
            cr_expect_eq(back->envs[0].ex[0].status, want[c]);
            cr_expect_eq(back->envs[0].ex[0].n_values, 2);
            results_free(back);
        }
        const px_example_result *y = &res->envs[0].ex[1];
        cr_expect_eq(y->status, PX_ST_OK, "%s: the next run (restarted if need be): %s %s", faults[c],
                     status_name(y->status), y->detail ? y->detail : "");
        close_fixture(res, f, in);
        nothing_left();
    }
    free(fx);
}

/* A 2-process FSDP environment under torchrun beside the one-process
 * reference: a run that ends before the fault has the reference's curve;
 * rank 1 dying at step 3 is a crash naming the rank and the step; nothing
 * is left running. One torchrun start-up for both runs. */
Test(training, fsdp_under_torchrun_agrees_and_a_dying_rank_is_named, .timeout = 300)
{
    need_venv();
    const char *runs = "  - id: short\n    kind: normal\n    train: {steps: 3}\n    why: ends before the fault\n"
                       "  - id: dies\n    kind: edge\n    why: rank 1 dies at step 3\n";
    char *fx = training_fixture("fsdp", data_file(12), 5, 8,
                                ENV1 "  fsdp-2: {device: cpu, dtype: float32, executor: python, threads: 1, "
                                     "timeout: 30, parallel: {processes: 2, strategy: fsdp}}\n",
                                runs);
    px_fixture *f;
    px_env_input *in;
    double t0 = (double)time(NULL);
    px_results *res = run_fixture(fx, "1:3:crash", &f, &in);
    double took = (double)time(NULL) - t0;
    const px_env_result *ref = &res->envs[0], *par = &res->envs[1];
    cr_assert_eq(par->state, PX_ENV_UP, "down: %s", par->down_msg ? par->down_msg : "");
    const px_example_result *a = &ref->ex[0], *b = &par->ex[0];
    cr_assert_eq(a->status, PX_ST_OK, "%s", a->detail ? a->detail : "");
    cr_assert_eq(b->status, PX_ST_OK, "%s", b->detail ? b->detail : "");
    cr_assert_eq(b->n_values, 3);
    cr_expect_eq(b->train->processes, 2);
    for (int s = 0; s < 3; s++)
        cr_expect(fabs(a->values[s] - b->values[s]) < 1e-4, "step %d: %g one process, %g in two", s, a->values[s],
                  b->values[s]);
    const px_example_result *d = &par->ex[1];
    cr_expect_eq(d->status, PX_ST_CRASH, "%s %s", status_name(d->status), d->detail ? d->detail : "");
    cr_expect(d->detail && strstr(d->detail, "at step 4 of 5: rank 1 exited with status 9"), "%s",
              d->detail ? d->detail : "");
    cr_expect_eq(d->n_values, 3, "the steps before the death are kept");
    cr_expect_eq(ref->ex[1].status, PX_ST_OK, "the reference has no rank 1");
    close_fixture(res, f, in);
    nothing_left();
    cr_expect_lt(took, 60, "the distributed run took %g s", took);
    free(fx);
}

/* A rank that hangs (rank 1 at the start of step 4, under timeout: 3) is
 * the run's timeout, and the words say which rank from the ranks' marks:
 * rank 1 last done with step 3, rank 0 waiting in step 4's forward (the
 * all-gather rank 1 never joined). Nothing is left running, nor the marks'
 * file (TMPDIR is the test's directory). */
Test(training, a_hung_rank_is_named_from_the_ranks_marks, .timeout = 300)
{
    need_venv();
    char *fx = training_fixture("hang", data_file(12), 5, 8,
                                "  fsdp-2: {device: cpu, dtype: float32, executor: python, threads: 1, timeout: 3, "
                                "first_forward_timeout: 120, parallel: {processes: 2, strategy: fsdp}}\n",
                                ONE_RUN);
    setenv("TMPDIR", tl_test_dir(), 1);
    px_fixture *f;
    px_env_input *in;
    px_results *res = run_fixture(fx, "1:3:hang", &f, &in);
    const px_example_result *x = &res->envs[0].ex[0];
    cr_expect_eq(x->status, PX_ST_TIMEOUT, "%s %s", status_name(x->status), x->detail ? x->detail : "");
    cr_expect(x->detail && strstr(x->detail, "at step 4 of 5: no step within 3 s; rank 1 stopped after step 3 "
                                             "(rank 0 was in step 4's forward)"),
              "%s", x->detail ? x->detail : "");
    cr_expect_eq(x->n_values, 3, "the steps before the hang are kept");
    close_fixture(res, f, in);
    nothing_left();
    char cmd[800];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '^parity-ranks-'", tl_test_dir());
    cr_expect_neq(system(cmd), 0, "the marks' file is removed with the run");
    free(fx);
}

/* The marks in words (child_rank_progress), from files written here as
 * parity_train.py writes them: the rank furthest behind named, the others
 * where they waited; all in one place; a rank not yet marked; none. */
static char *progress_of(const char *const *recs, int ranks)
{
    child c = {0};
    snprintf(c.progress, sizeof c.progress, "%s/marks", tl_test_dir());
    FILE *o = fopen(c.progress, "w");
    cr_assert_not_null(o);
    for (int i = 0; recs[i]; i++) {
        char rec[PX_PROGRESS_RECORD];
        memset(rec, recs[i][0] ? ' ' : 0, sizeof rec);
        memcpy(rec, recs[i], strlen(recs[i]));
        if (recs[i][0])
            rec[PX_PROGRESS_RECORD - 1] = '\n';
        fwrite(rec, 1, sizeof rec, o);
    }
    fclose(o);
    char *w = child_rank_progress(&c, ranks);
    child_forget(&c);
    cr_expect_neq(access(c.progress, F_OK), 0);
    return w;
}

Test(training, the_ranks_marks_in_words)
{
    struct {
        const char *recs[6];
        int ranks;
        const char *want;
    } cases[] = {
        {{"3 forward", "2 done", NULL}, 2, "rank 1 stopped after step 3 (rank 0 was in step 4's forward)"},
        {{"3 backward", "3 backward", NULL}, 2, "both ranks were in step 4's backward"},
        {{"0 reduce", "0 optimizer", "0 reduce", "0 reduce", NULL}, 4,
         "rank 1 stopped in step 1's clipping and optimizer step (ranks 0, 2 and 3 were in step 1's loss all-reduce)"},
        {{"-1 ready", "", NULL}, 2, "rank 1 still starting (rank 0 was at the barrier before step 1)"},
        {{"5 groups", "4 done", "4 done", NULL}, 3,
         "ranks 1 and 2 stopped after step 5 (rank 0 was gathering the parameters after the last step)"},
        {{"2 forward", "garbage", NULL}, 2, "rank 1 still starting (rank 0 was in step 3's forward)"},
        {{"1 forward", NULL}, 3, "ranks 1 and 2 still starting (rank 0 was in step 2's forward)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *w = progress_of(cases[i].recs, cases[i].ranks);
        cr_expect(w && !strcmp(w, cases[i].want), "case %zu: '%s', not '%s'", i, w ? w : "(none)", cases[i].want);
        free(w);
    }
    /* No mark at all, or no file: nothing to say. */
    cr_expect_null(progress_of((const char *const[]){"", "", NULL}, 2));
    child none = {0};
    cr_expect_null(child_rank_progress(&none, 2));
}

/* Too little data for one window is refused before any executor starts:
 * exit 2, one line naming the fixture's place. */
Test(training, data_of_less_than_one_window_is_refused_before_anything_starts, .timeout = 120)
{
    need_venv();
    char *fx = training_fixture("short", data_file(1), 4, 60, ENV1, ONE_RUN);
    cmd_result r = tl_run((const char *const[]){"parity", "run", fx, NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    cr_expect(strstr(r.err, "fewer than one window of the recipe's seq_len 60 (61 tokens)"), "%s", r.err);
    cr_expect(strstr(r.err, fx), "names the fixture: %s", r.err);
    tl_free(&r);
    nothing_left();
    free(fx);
}

static const char *parity_torch(void)
{
    const char *p = getenv("PARITY_TORCH");
    return p && *p ? p : "build/parity-torch";
}

/* parity-torch knows the training kind and cannot run it: at load, FAIL
 * unsupported saying to use executor: python, whatever training options
 * the runner passes (they are the Python executor's command line). */
Test(training, parity_torch_refuses_the_kind_at_load, .timeout = 120)
{
    TL_ONCE_PER_CHECK();
    if (access(parity_torch(), X_OK))
        cr_skip_test("no %s (make builds it)", parity_torch());
    kid k = start((const char *const[]){parity_torch(), "--model", "tests/data/training/model", "--format",
                                        "transformers", "--kind", "training", "--device", "cpu", "--dtype", "float32",
                                        "--threads", "1", "--mixed-precision-param", "bfloat16",
                                        "--mixed-precision-reduce", "float32", "--parallel", "fsdp", "--processes",
                                        "2", "--dist-backend", "gloo", "--progress", "/nonexistent/marks", NULL});
    px_buf b = {0};
    cr_assert_eq(next(&k, &b), PX_FRAME_FAIL, "no FAIL at load");
    uint32_t stage = buf_get_u32(&b), kind = buf_get_u32(&b);
    char *msg = buf_get_str(&b);
    cr_expect(stage == PX_STAGE_LOAD && kind == PX_FAIL_UNSUPPORTED, "stage %u kind %u", stage, kind);
    cr_expect_str_eq(msg, "kind training: parity-torch does not train a causal LM (TRAINRUN): use executor: python");
    free(msg);
    buf_free(&b);
    close(k.to), close(k.from);
    waitpid(k.pid, NULL, 0);
}

/* parity bench has no training endpoint: a training contract is refused
 * in words, and nothing is run or written (its results file untouched). */
Test(training, bench_refuses_a_training_contract)
{
    char before[PX_SHA256_HEX], after[PX_SHA256_HEX];
    pin("tests/data/training/results.yaml", before);
    cmd_result r = tl_run((const char *const[]){"parity", "bench", "tests/data/training/fixture.yaml", NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "is a training contract") && strstr(r.err, "parity run times each run's steps"), "%s",
              r.err);
    pin("tests/data/training/results.yaml", after);
    cr_expect_str_eq(after, before, "nothing written");
    tl_free(&r);
}
