/* An environment's executor, a child process (child.c): spawned, started
 * (its READY awaited), read from, ended. Its pid is in a table that
 * child_kill_all empties from a signal handler. */
#ifndef PARITY_CHILD_H
#define PARITY_CHILD_H

#include <stdint.h>
#include <sys/types.h>

#include "parity/proto.h"
#include "run_state.h"

struct child {
    pid_t pid;
    int served;        /* forked by the fork server, not parity's child */
    int to, from, err; /* -1 when closed */
    px_buf rx;
    char tail[8192];   /* last bytes of the child's stderr (torchrun's
                          report of a failed rank included) */
    size_t tail_len;
    size_t *shapes;    /* sequence lengths this child has run once (a lazy
                          device compiles each new one on its first forward) */
    size_t n_shapes, cap_shapes;
    /* The Python executor says on stderr which backend module it imports
     * (IMPORTING, then IMPORTED): a start-up that ends or times out in
     * between is the device stage's, that module's. */
    char line[192];    /* the stderr line being read */
    size_t line_len;
    char importing[128]; /* the module being imported, "" when none */
    /* A parallel training run's ranks' marks (proto.h TRAINRUN,
     * --progress): the file parity made for them, "" when none. */
    char progress[256];
};

/* What waiting for a child's frame came to. */
enum wait_result { W_FRAME, W_EOF, W_TIMEOUT, W_STOPPED };

/* Async-signal-safe: SIGKILL every executor child (and its process group)
 * alive now, of every runner (runner_kill_children). */
void child_kill_all(void);
/* Ends the run's fork server, if one started. */
void child_server_stop(px_runner *r);
/* Spawns environment e's executor into c (pipes to its stdin, stdout,
 * stderr; its own process group), through the fork server for libtorch
 * when there is one: 0, or -1 with *err (this environment is down). */
int child_spawn(px_runner *r, const px_env *e, child *c, px_error *err);
/* Start (or restart, with spawn) environment er's child and wait for its
 * READY: 0 when up; -2 when the run stopped meanwhile; -1 otherwise, with
 * the stage (PX_STAGE_*) and the words (malloc'd) of why in *stage, *msg. */
int child_start(px_runner *r, px_env_result *er, int spawn, int *stage, char **msg);
/* Whether a device (its type, before any ':') is one torch opens without
 * a backend module: cpu, cuda, mps, xpu, hip, meta. Any other (tpu, xla,
 * hpu, a PrivateUse1 name) is a backend's. */
int child_device_builtin(const char *device);
/* Whether the --backend-module argument arg goes to environment e: NAME to
 * every environment with executor: python whose device is not builtin, and
 * to one whose torch.compile backend a --compile-backend names (a module
 * registers it); ENV=NAME to ENV alone (python), whatever its device.
 * *name: the module (NAME). A CPU reference beside a TPU environment
 * imports nothing, and records nothing. */
int child_module_for(const px_runner_opts *o, const px_env *e, const char *arg, const char **name);
/* Whether the child has run an input of this sequence length; records it. */
int child_shape_seen(child *c, size_t len);
/* Waits for the child's next frame, at most timeout_s, and no longer than
 * the run may go on (runner_stop, the budget): W_STOPPED then. */
enum wait_result child_wait_frame(px_runner *r, child *c, double timeout_s, uint32_t *type, px_buf *payload);
/* Ends the child: after grace_s without exiting (at once with kill_now, or
 * when the run stops) it is killed. Describes how it ended into buf. */
void child_reap(px_runner *r, child *c, double grace_s, int kill_now, char *buf, size_t size);
/* A parallel environment's executor is torchrun (proto.h): when its tail
 * holds torchrun's report of a worker that failed (the elastic agent's
 * "Root Cause (first observed failure)": rank and exitcode; else its
 * "failed (exitcode: C) local_rank: R" line), 1 with the rank and the exit
 * code (negative: killed by that signal) in *rank, *code, and the rank's
 * own last words, when it said them ("parity_torch.py: rank R: ..."),
 * malloc'd in *said (NULL when none); 0 when the tail names none. */
int child_rank_failure(const child *c, int *rank, int *code, char **said);

/* Where the ranks of a parallel training run were, from their marks in
 * c's progress file (proto.h TRAINRUN, --progress), for a run that hung:
 * "rank 1 stopped after step 3 (rank 0 was in step 4's forward)", the
 * rank or ranks furthest behind named, or "every rank was in step 4's
 * forward"; malloc'd, NULL when there are no marks to read. ranks: the
 * environment's processes (at most PX_PROGRESS_MAX_RANKS are read). */
#define PX_PROGRESS_MAX_RANKS 64
#define PX_PROGRESS_RECORD 32 /* bytes a rank's mark takes (parity_train.py) */
char *child_rank_progress(const child *c, int ranks);
/* Removes c's progress file, if it has one (the run's end). */
void child_forget(child *c);

/* The last line the child wrote on stderr that is not the Python
 * executor's own IMPORTING or IMPORTED (malloc'd; "" when none). */
char *child_tail_line(const child *c);

#endif
