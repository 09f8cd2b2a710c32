/* The runner: a background thread that starts one parity-torch child per
 * environment, sends it each prepared example over the protocol of
 * parity/proto.h, and records what comes back in a px_results. A child that
 * dies (signal) or does not answer within the environment's timeout is an
 * outcome (crash, timeout) of that example; the child is restarted for the
 * next one. Nothing here exits or prints.
 * Environments run side by side, each on a thread of its own, as far as the
 * machine's cores and each environment's threads allow (a device
 * environment holds no core); with n_bench, one at a time (examples, then
 * timings), so that a benchmark's figures are its own. */
#ifndef PARITY_RUNNER_H
#define PARITY_RUNNER_H

#include <sys/types.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/prepare.h"
#include "parity/results.h"
#include "parity/runner_opts.h"

typedef struct px_runner px_runner;

/* Where the executors are, from the command line (NULL when not given), then
 * the environment, then beside the running parity:
 *   parity-torch:     --executor, $PARITY_TORCH, DIR/parity-torch (the build
 *                     tree), else DIR/../libexec/parity/parity-torch
 *   the interpreter:  --python, $PARITY_PYTHON, python3 on PATH
 *   parity_torch.py:  DIR/parity_torch.py (the build tree), else
 *                     DIR/../libexec/parity/parity_torch.py (installed)
 * Fills o's executor, python and script with malloc'd strings that
 * runner_locate_free releases. Never fails: what is missing is said by
 * runner_check. */
void runner_locate(px_runner_opts *o, const char *executor, const char *python);
void runner_locate_free(px_runner_opts *o);
/* Whether the executor environment e needs is here (parity-torch runs,
 * parity_torch.py reads): 0, else the errno that says why (ENOENT when
 * none was located), *path the file looked for (NULL: none located). The
 * one test of it: the session leaves such an environment not evaluated,
 * the runner takes it down. */
int runner_executor_absent(const px_runner_opts *o, const px_env *e, const char **path);
/* Whether a device (its type, before any ':') is one torch opens without
 * a backend module: cpu, cuda, mps, xpu, hip, meta. Any other (tpu, xla,
 * hpu, a PrivateUse1 name) is a backend's. */
int runner_device_builtin(const char *device);
/* Before starting, what concerns the whole command: a backend module must
 * go to some environment that runs here (child.h, child_module_for: NAME to
 * every Python environment on a device that is not builtin, or compiled
 * with a --compile-backend; ENV=NAME to ENV alone), ENV=NAME naming an
 * environment with executor: python) (-1 with *err, PX_EXIT_USAGE, when
 * not); each --compile-backend ENV=NAME
 * names an environment with compile: (once). What concerns one environment
 * is not checked here: see runner_wait. */
int runner_check(const px_runner_opts *o, const px_fixture *f, const px_results *res, px_error *err);

/* Starts the thread. `inputs` has one entry per environment of res (what
 * that environment is sent); it, f and res must outlive the runner. Only
 * environments of origin RUN that are selected run; the others' entries
 * are left alone (their inputs entry is not read). The
 * runner writes into res; read it after runner_wait(), or under
 * runner_lock(). */
px_runner *runner_start(const px_fixture *f, const px_env_input *inputs, px_results *res,
                        const px_runner_opts *opts, px_error *err);
/* Joins the thread. Returns 0, or -1 with *err when the run had to stop
 * for what concerns the fixture as a whole: the model's output width does
 * not match the contract's labels (PX_EXIT_USAGE); the examples left are
 * then not-evaluated, "run stopped: ...".
 * One environment that cannot start is down (px_env_result state
 * PX_ENV_DOWN, down_stage, down_msg naming the file and how to choose
 * another) and every other environment runs; the command's exit 3 says so:
 *   load:   its executor is missing (parity-torch not executable,
 *           parity_torch.py not readable), its interpreter cannot be
 *           started or has no torch, its executor speaks another protocol
 *           version, the model cannot be loaded, or start-up did not
 *           finish within its startup_timeout;
 *   device: a backend library or module that fails to load or import (or
 *           whose import did not finish within startup_timeout), a device
 *           or dtype the backend does not know. */
int runner_wait(px_runner *r, px_error *err);
void runner_free(px_runner *r);
/* Stop now: the example in flight is abandoned (its child killed) and, like
 * the rest, becomes not-evaluated with the reason's words. The thread wakes
 * at once, whatever it waits for (a start-up, a forward). Safe to call from
 * any thread, not from a signal handler. */
void runner_stop(px_runner *r, px_stop why);
/* With keep_alive: run example `example` (or every one, all) again in the
 * live executors (a dead one is restarted), once the run is idle
 * (runner_done). The caller clears the results it wants run again, under
 * runner_lock. 0 when taken; -1 when the runner does not serve (no
 * keep_alive, stopped, ended by a fatal error), is busy, or has an
 * environment down (a new runner tries it afresh). */
int runner_rerun(px_runner *r, int all, size_t example);

/* runner_stop(r, PX_STOP_CANCEL). */
void runner_cancel(px_runner *r);
/* Why the run stopped early, PX_STOP_NONE when it did not (yet). */
px_stop runner_stopped(px_runner *r);

/* Async-signal-safe: SIGKILL every executor child (and its process group)
 * that any runner has running now. For a second Ctrl-C, before _exit. */
void runner_kill_children(void);

/* What the run is doing now: an environment that is busy (the first, in
 * res's order, when several run side by side) as an index into res (or -1),
 * its example index (or -1 when starting, timing or idle), and its child's
 * pid while it runs an example (or 0). */
void runner_progress(px_runner *r, int *env, int *example, pid_t *pid);
/* Environment env's training run in progress: its steps done so far and
 * its steps (*of 0 when it runs no training run now). */
void runner_progress_steps(px_runner *r, int env, int *done, int *of);
/* 1 once the run has finished (runner_wait will not block); with
 * keep_alive, 1 while it waits for runner_rerun. */
int runner_done(px_runner *r);
/* The pid of environment env's executor now (0: none running). */
pid_t runner_child_pid(px_runner *r, int env);
const char *runner_env_name(px_runner *r, int env);
size_t runner_example_count(px_runner *r);
void runner_lock(px_runner *r);
void runner_unlock(px_runner *r);

#endif
