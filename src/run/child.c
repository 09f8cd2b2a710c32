/* The executors' processes, one per environment: spawned (by posix_spawn,
 * or forked by the fork server, parity/forksrv.h), started (waiting for
 * their READY), read from (frames on stdout, the tail of stderr), ended and
 * reaped; and the table of every one alive, for a second Ctrl-C. */
#define _GNU_SOURCE /* pipe2, sigabbrev_np */
#include "child.h"

#include "parity/kind.h"
#include "parity/sbuf.h"
#include "parity/version.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;


#define IMPORTING "parity_torch.py: importing backend module "
#define IMPORTED "parity_torch.py: backend modules imported"

/* Every executor child alive now, of every runner, for child_kill_all
 * (a signal handler): slots hold a pid or 0, written atomically. */
#define LIVE_MAX 256
static pid_t live_pids[LIVE_MAX];

static void live_add(pid_t pid)
{
    for (size_t i = 0; i < LIVE_MAX; i++) {
        pid_t zero = 0;
        if (__atomic_compare_exchange_n(&live_pids[i], &zero, pid, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return;
    }
}

static void live_remove(pid_t pid)
{
    for (size_t i = 0; i < LIVE_MAX; i++) {
        pid_t want = pid;
        if (__atomic_compare_exchange_n(&live_pids[i], &want, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return;
    }
}

void child_kill_all(void)
{
    for (size_t i = 0; i < LIVE_MAX; i++) {
        pid_t pid = __atomic_load_n(&live_pids[i], __ATOMIC_SEQ_CST);
        if (pid > 0)
            kill(-pid, SIGKILL); /* its process group: what it started too */
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void tail_append(child *c, const char *p, size_t n)
{
    if (n >= sizeof c->tail) {
        p += n - sizeof c->tail + 1;
        n = sizeof c->tail - 1;
    }
    size_t keep = c->tail_len + n < sizeof c->tail ? c->tail_len : sizeof c->tail - 1 - n;
    memmove(c->tail, c->tail + c->tail_len - keep, keep);
    memcpy(c->tail + keep, p, n);
    c->tail_len = keep + n;
    c->tail[c->tail_len] = '\0';
}

/* How long environment e's start-up may take: its startup_timeout, unless
 * the caller's load_timeout_s overrides every one. */
static double startup_s(const px_runner *r, const px_env *e)
{
    return r->opts.load_timeout_s > 0 ? r->opts.load_timeout_s : e->startup_timeout_s > 0 ? e->startup_timeout_s : 120;
}

/* The fork server for this run's libtorch executors: started on first use,
 * unless PARITY_FORK_SERVER=0; 0 when there is none (it could not start, or
 * died): executors are then spawned as before. */
/* Under srv_mu. */
static int fork_server(px_runner *r, const px_env *e)
{
    if (!r->srv_tried) {
        r->srv_tried = 1;
        if (forksrv_wanted())
            r->srv = forksrv_start(r->opts.executor, startup_s(r, e), r->wake[0]);
        if (r->srv)
            live_add(forksrv_pid(r->srv));
    }
    return r->srv && forksrv_alive(r->srv);
}

void child_server_stop(px_runner *r)
{
    if (r->srv) {
        live_remove(forksrv_pid(r->srv));
        forksrv_stop(r->srv);
        r->srv = NULL;
    }
}

/* The torch.compile backend of environment e: --compile-backend e=NAME
 * (runner_check made sure it is well formed), else the fixture's. */
static const char *compile_backend(const px_runner *r, const px_env *e)
{
    size_t n = strlen(e->name);
    for (size_t i = 0; i < r->opts.n_compile_backends; i++) {
        const char *a = r->opts.compile_backends[i], *eq = strrchr(a, '=');
        if (eq && (size_t)(eq - a) == n && !strncmp(a, e->name, n))
            return eq + 1;
    }
    return e->compile.backend;
}

int child_device_builtin(const char *device)
{
    static const char *const own[] = {"cpu", "cuda", "mps", "xpu", "hip", "meta", NULL};
    size_t n = strcspn(device ? device : "", ":");
    for (size_t k = 0; own[k]; k++)
        if (strlen(own[k]) == n && !strncmp(device, own[k], n))
            return 1;
    return 0;
}

/* Whether --compile-backend names environment e. */
static int compile_named(const px_runner_opts *o, const px_env *e)
{
    size_t n = strlen(e->name);
    for (size_t i = 0; i < o->n_compile_backends; i++) {
        const char *a = o->compile_backends[i], *eq = strrchr(a, '=');
        if (eq && (size_t)(eq - a) == n && !strncmp(a, e->name, n))
            return 1;
    }
    return 0;
}

int child_module_for(const px_runner_opts *o, const px_env *e, const char *arg, const char **name)
{
    const char *eq = strchr(arg, '=');
    *name = eq ? eq + 1 : arg;
    if (!e->python)
        return 0;
    if (eq)
        return strlen(e->name) == (size_t)(eq - arg) && !strncmp(arg, e->name, (size_t)(eq - arg));
    return !child_device_builtin(e->device) || (e->compile.present && compile_named(o, e));
}

/* Environment e's executor's command line (argv[0] its program), threads
 * the room for --threads' value: malloc'd, NULL when out of memory. */
static const char **executor_argv(px_runner *r, const px_env *e, const child *c, char *threads, size_t size,
                                  char procs[16])
{
    snprintf(threads, size, "%d", e->threads);
    const char **argv = calloc(64 + 2 * r->opts.n_backend_modules, sizeof *argv);
    if (!argv)
        return NULL;
    const char *prog = e->python ? r->opts.python : r->opts.executor;
    int a = 0;
    argv[a++] = prog;
    /* A parallel environment (a training run's parallel:) is launched as
     * its users launch it, by torchrun (proto.h TRAINRUN): N ranks of the
     * Python executor, rank 0 speaking the protocol; torchrun is the child,
     * in its own process group, and each rank dies with it. */
    if (e->python && e->parallel.processes > 0 && kind_of(r->f)->trains) {
        snprintf(procs, 16, "%d", e->parallel.processes);
        argv[a++] = "-m", argv[a++] = "torch.distributed.run", argv[a++] = "--standalone";
        argv[a++] = "--nproc-per-node", argv[a++] = procs;
    }
    if (e->python)
        argv[a++] = r->opts.script;
    argv[a++] = "--model", argv[a++] = e->model_path;
    argv[a++] = "--format", argv[a++] = fixture_format_name(e->model_format);
    const px_kind *kind = kind_of(r->f);
    argv[a++] = "--kind", argv[a++] = kind->name;
    /* An embedding's pooling and normalize (proto.h, Embedding). */
    if (kind->pools) {
        argv[a++] = "--pooling", argv[a++] = fixture_pooling_name(r->f->pooling);
        if (r->f->normalize)
            argv[a++] = "--normalize";
    }
    if (r->f->inputs_auto)
        argv[a++] = "--optional-input", argv[a++] = "token_type_ids";
    /* contract.model.output: the dict key or tuple index the logits are
     * (proto.h, Model handling); a classifier's only. */
    if (r->f->output && r->f->output[0] && !kind->generates)
        argv[a++] = "--output", argv[a++] = r->f->output;
    argv[a++] = "--device", argv[a++] = e->device;
    argv[a++] = "--dtype", argv[a++] = e->dtype;
    argv[a++] = "--threads", argv[a++] = threads;
    /* A training run's precision recipe and parallel plan (fixture.h). */
    if (kind_of(r->f)->trains) {
        if (e->mixed_precision_param)
            argv[a++] = "--mixed-precision-param", argv[a++] = e->mixed_precision_param;
        if (e->mixed_precision_reduce)
            argv[a++] = "--mixed-precision-reduce", argv[a++] = e->mixed_precision_reduce;
        if (e->parallel.processes > 0) {
            argv[a++] = "--parallel", argv[a++] = e->parallel.strategy == PX_PAR_FSDP ? "fsdp" : "ddp";
            argv[a++] = "--processes", argv[a++] = procs;
            argv[a++] = "--dist-backend";
            argv[a++] = e->parallel.backend                       ? e->parallel.backend
                        : child_device_builtin(e->device) && !strncmp(e->device, "cuda", 4) ? "nccl"
                                                                                      : "gloo";
            if (c->progress[0])
                argv[a++] = "--progress", argv[a++] = c->progress;
        }
    }
    if (e->tf32 >= 0)
        argv[a++] = "--tf32", argv[a++] = e->tf32 ? "on" : "off";
    if (e->matmul_precision)
        argv[a++] = "--matmul-precision", argv[a++] = e->matmul_precision;
    if (r->opts.backend_lib)
        argv[a++] = "--backend-lib", argv[a++] = r->opts.backend_lib;
    /* Only where it is needed (runner_module_for): a CPU reference beside a
     * TPU environment imports no TPU package, nor records its version. */
    for (size_t m = 0; m < r->opts.n_backend_modules; m++) {
        const char *name;
        if (child_module_for(&r->opts, e, r->opts.backend_modules[m], &name))
            argv[a++] = "--backend-module", argv[a++] = name;
    }
    /* The fixture lets only the Python executor compile (fixture.c). */
    if (e->compile.present) {
        argv[a++] = "--compile-backend", argv[a++] = compile_backend(r, e);
        argv[a++] = "--compile-mode", argv[a++] = e->compile.mode;
        if (e->compile.dynamic >= 0)
            argv[a++] = "--compile-dynamic", argv[a++] = e->compile.dynamic ? "true" : "false";
    }
    argv[a] = NULL;
    return argv;
}

/* A libtorch executor forked by the run's fork server (fds its stdin,
 * stdout, stderr): 0 with c->pid; -1 when there is no server or it could
 * not fork (the executor is then spawned). */
static int spawn_served(px_runner *r, const px_env *e, child *c, const char **argv, const int fds[3])
{
    int rc = -1;
    pthread_mutex_lock(&r->srv_mu);
    if (!e->python && fork_server(r, e)) {
        /* libtorch is loaded once, in the server, which forks the executor. */
        pid_t pid;
        /* Not under mu: the server's answer is a round trip. Until the pid
         * is in the table, a second Ctrl-C kills it with its server. */
        if (forksrv_spawn(r->srv, argv + 1, fds, &pid) == 0) {
            pthread_mutex_lock(&r->mu);
            rc = 0;
            c->pid = pid;
            c->served = 1;
            live_add(pid);
            pthread_mutex_unlock(&r->mu);
        }
    }
    pthread_mutex_unlock(&r->srv_mu);
    return rc;
}

/* A parallel training run's progress file (child.h), made empty for the
 * ranks to mark; none when it cannot be made (the run goes on, a hang is
 * then told without where each rank was). */
static void progress_make(const px_runner *r, const px_env *e, child *c)
{
    c->progress[0] = '\0';
    if (!e->python || e->parallel.processes <= 0 || !kind_of(r->f)->trains)
        return;
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(c->progress, sizeof c->progress, "%s/parity-ranks-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = n > 0 && (size_t)n < sizeof c->progress ? mkostemp(c->progress, O_CLOEXEC) : -1;
    if (fd < 0)
        c->progress[0] = '\0';
    else
        close(fd);
}

void child_forget(child *c)
{
    if (c->progress[0])
        unlink(c->progress);
    c->progress[0] = '\0';
}

int child_spawn(px_runner *r, const px_env *e, child *c, px_error *err)
{
    free(c->shapes);
    child_forget(c);
    memset(c, 0, sizeof *c);
    c->to = c->from = c->err = -1;
    progress_make(r, e, c);
    int in[2], out[2], ep[2];
    if (pipe2(in, O_CLOEXEC))
        return px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC)) {
        close(in[0]), close(in[1]);
        return px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "pipe: %s", strerror(errno));
    }
    if (pipe2(ep, O_CLOEXEC)) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "pipe: %s", strerror(errno));
    }
    char threads[16], procs[16];
    snprintf(procs, sizeof procs, "%d", e->parallel.processes);
    const char **argv = executor_argv(r, e, c, threads, sizeof threads, procs);
    if (!argv) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]), close(ep[0]), close(ep[1]);
        return px_error_oom(err, NULL);
    }
    const char *prog = e->python ? r->opts.python : r->opts.executor;
    const int fds[3] = {in[0], out[1], ep[1]};
    int rc = spawn_served(r, e, c, argv, fds);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
    /* Its own process group: the terminal's Ctrl-C reaches parity alone,
     * which decides what becomes of the example in flight (an interrupted
     * example is not-evaluated, never a crash of SIGINT); parity ends the
     * group. The executor asks to die with parity (PR_SET_PDEATHSIG). */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    /* The interpreter may be a bare name (python3): looked up on PATH. */
    if (rc) {
        pthread_mutex_lock(&r->mu);
        rc = (e->python ? posix_spawnp : posix_spawn)(&c->pid, prog, &fa, &at, (char *const *)argv, environ);
        if (rc == 0)
            live_add(c->pid);
        pthread_mutex_unlock(&r->mu);
    }
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    close(in[0]), close(out[1]), close(ep[1]);
    c->to = in[1], c->from = out[0], c->err = ep[0];
    fcntl(c->from, F_SETFL, O_NONBLOCK);
    fcntl(c->err, F_SETFL, O_NONBLOCK);
    if (rc) {
        c->pid = 0;
        close_fd(&c->to), close_fd(&c->from), close_fd(&c->err);
        if (e->python) /* this environment is down; the others run */
            return px_error_set(err, PX_ERR_ENV, prog, 0, 0,
                                "cannot start this Python interpreter: %s (choose one that has torch with --python "
                                "PATH or PARITY_PYTHON)",
                                strerror(rc));
        return px_error_set(err, PX_ERR_ENV, prog, 0, 0, "cannot start the executor: %s", strerror(rc));
    }
    return 0;
}

/* Whether the child has run an input of this sequence length; records it. */
int child_shape_seen(child *c, size_t len)
{
    for (size_t i = 0; i < c->n_shapes; i++)
        if (c->shapes[i] == len)
            return 1;
    if (c->n_shapes == c->cap_shapes) {
        size_t cap = c->cap_shapes ? 2 * c->cap_shapes : 16;
        size_t *p = realloc(c->shapes, cap * sizeof *p);
        if (!p)
            return 0;
        c->shapes = p, c->cap_shapes = cap;
    }
    c->shapes[c->n_shapes++] = len;
    return 0;
}

/* Follows the Python executor's IMPORTING and IMPORTED lines in what it
 * writes on stderr. */
static void scan_err(child *c, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '\n') {
            if (c->line_len < sizeof c->line - 1)
                c->line[c->line_len++] = p[i];
            continue;
        }
        c->line[c->line_len] = '\0';
        if (!strncmp(c->line, IMPORTING, strlen(IMPORTING)))
            snprintf(c->importing, sizeof c->importing, "%s", c->line + strlen(IMPORTING));
        else if (!strcmp(c->line, IMPORTED))
            c->importing[0] = '\0';
        c->line_len = 0;
    }
}

/* Read whatever is available on fd; returns 0 at EOF, 1 otherwise. */
static int drain(child *c, int fd)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            if (fd == c->from)
                buf_put(&c->rx, buf, (size_t)n);
            else
                tail_append(c, buf, (size_t)n), scan_err(c, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n == 0 ? 0 : 1;
    }
}

/* Pops a whole frame from rx into payload when one is there. */
static int take_frame(child *c, uint32_t *type, px_buf *payload)
{
    size_t len;
    if (proto_frame_ready(c->rx.data, c->rx.len, type, &len) != 1)
        return 0;
    buf_reset(payload);
    buf_put(payload, c->rx.data + PX_FRAME_HEADER, len - PX_FRAME_HEADER);
    memmove(c->rx.data, c->rx.data + len, c->rx.len - len);
    c->rx.len -= len;
    return 1;
}

/* Waits for the child's next frame, at most timeout_s, and no longer than
 * the run may go on (runner_stop, the budget): W_STOPPED then. */
enum wait_result child_wait_frame(px_runner *r, child *c, double timeout_s, uint32_t *type, px_buf *payload)
{
    double deadline = state_now() + timeout_s;
    for (;;) {
        if (state_must_stop(r))
            return W_STOPPED;
        if (take_frame(c, type, payload))
            return W_FRAME;
        if (c->from < 0 || proto_frame_ready(c->rx.data, c->rx.len, type, &(size_t){0}) < 0)
            return W_EOF;
        double t = state_now(), left = deadline - t;
        if (left <= 0)
            return W_TIMEOUT;
        if (r->deadline > 0 && r->deadline - t < left)
            left = r->deadline - t;
        struct pollfd p[3] = {{r->wake[0], POLLIN, 0}, {c->from, POLLIN, 0}, {c->err, POLLIN, 0}};
        int np = c->err >= 0 ? 3 : 2;
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
        if (poll(p, (nfds_t)np, ms) < 0 && errno != EINTR)
            return W_EOF;
        if (np == 3 && p[2].revents && !drain(c, c->err))
            close_fd(&c->err);
        if (p[1].revents && !drain(c, c->from))
            close_fd(&c->from);
    }
}

static void describe_status(int st, char *buf, size_t size)
{
    if (WIFSIGNALED(st)) {
        const char *abbrev = sigabbrev_np(WTERMSIG(st));
        if (abbrev)
            snprintf(buf, size, "SIG%s", abbrev);
        else
            snprintf(buf, size, "signal %d", WTERMSIG(st));
    } else if (WIFEXITED(st)) {
        snprintf(buf, size, "exited with status %d", WEXITSTATUS(st));
    } else {
        snprintf(buf, size, "stopped");
    }
}

/* Whether the child has ended, waiting at most wait_s (< 0: until it has),
 * with its wait status in *st: from waitpid for a child of parity's, from
 * the fork server for one it forked (parity cannot wait for a grandchild).
 * A child that cannot be waited for counts as ended. */
static int child_ended(px_runner *r, child *c, double wait_s, int *st)
{
    if (c->served) {
        pthread_mutex_lock(&r->srv_mu);
        int ended = forksrv_wait(r->srv, c->pid, wait_s < 0 ? 1e9 : wait_s, st);
        pthread_mutex_unlock(&r->srv_mu);
        return ended;
    }
    pid_t w = waitpid(c->pid, st, wait_s < 0 ? 0 : WNOHANG);
    if (w == 0 && wait_s > 0) {
        nanosleep(&(struct timespec){(time_t)wait_s, (long)((wait_s - (time_t)wait_s) * 1e9)}, NULL);
        w = waitpid(c->pid, st, WNOHANG);
    }
    return w != 0;
}

/* Ends the child: after `grace_s` without exiting it is killed. Describes how
 * it ended into buf. */
void child_reap(px_runner *r, child *c, double grace_s, int kill_now, char *buf, size_t size)
{
    close_fd(&c->to);
    if (c->pid > 0) {
        /* Asked to stop, nobody waits for a graceful end. */
        if (kill_now || state_stop_of(r) != PX_STOP_NONE)
            kill(-c->pid, SIGKILL);
        int st = 0;
        double deadline = state_now() + grace_s;
        int ended;
        while (!(ended = child_ended(r, c, 0.005, &st)) && state_now() < deadline && state_stop_of(r) == PX_STOP_NONE) {
            if (c->err >= 0 && !drain(c, c->err))
                close_fd(&c->err);
        }
        if (!ended) {
            kill(-c->pid, SIGKILL);
            /* Killed: its end is a moment away (the server's word on it
             * included); never waited for forever. */
            if (!child_ended(r, c, c->served ? 10 : -1, &st))
                st = SIGKILL;
        }
        /* What it started in its group goes with it. */
        kill(-c->pid, SIGKILL);
        if (c->err >= 0)
            drain(c, c->err);
        describe_status(st, buf, size);
        live_remove(c->pid);
    } else if (size) {
        snprintf(buf, size, "not started");
    }
    pthread_mutex_lock(&r->mu);
    c->pid = 0;
    c->served = 0;
    pthread_mutex_unlock(&r->mu);
    close_fd(&c->from), close_fd(&c->err);
    buf_free(&c->rx);
    c->n_shapes = 0; /* a new child compiles afresh */
}

/* The integer after the last (or, first, the first) occurrence of key
 * in [s, end): 1 and *v, or 0. */
static int number_after(const char *s, const char *end, const char *key, int first, long *v)
{
    const char *hit = NULL;
    size_t k = strlen(key);
    for (const char *p = s; p + k <= end; p++)
        if (!memcmp(p, key, k)) {
            hit = p;
            if (first)
                break;
        }
    if (!hit)
        return 0;
    hit += k;
    while (hit < end && *hit == ' ')
        hit++;
    char *stop;
    long n = strtol(hit, &stop, 10);
    if (stop == hit)
        return 0;
    *v = n;
    return 1;
}

int child_rank_failure(const child *c, int *rank, int *code, char **said)
{
    const char *s = c->tail, *end = c->tail + c->tail_len;
    *said = NULL;
    long r = -1, x = 0;
    /* torchrun's summary: "Root Cause (first observed failure):" then
     * "rank : 1 (local_rank: 1)" and "exitcode : 9 (pid: 123)". */
    const char *root = strstr(s, "Root Cause");
    if (root && number_after(root, end, "local_rank:", 1, &r)) {
        /* "exitcode  : 9": the number follows the colon. */
        const char *e = strstr(root, "exitcode");
        const char *colon = e ? strchr(e, ':') : NULL;
        if (!colon)
            return 0;
        x = strtol(colon + 1, NULL, 10);
    } else if (!number_after(s, end, "local_rank:", 0, &r) || !number_after(s, end, "(exitcode:", 0, &x)) {
        return 0;
    }
    if (r < 0 || r > 4096)
        return 0;
    *rank = (int)r, *code = (int)x;
    char key[48];
    int kn = snprintf(key, sizeof key, "parity_torch.py: rank %ld: ", r);
    for (const char *p = s; p + kn <= end; p++)
        if (!memcmp(p, key, (size_t)kn) && (p == s || p[-1] == '\n')) {
            const char *t = p + strlen("parity_torch.py: ");
            size_t n = strcspn(t, "\n");
            free(*said);
            *said = strndup(t, n);
        }
    return 1;
}

/* A mark's place, in order: a run's parts as parity_train.py enters them. */
static const char *const phases[] = {"ready", "forward", "backward", "optimizer", "reduce", "done", "groups"};
enum { N_PHASES = sizeof phases / sizeof *phases };

/* Record text (PX_PROGRESS_RECORD bytes, "STEP PHASE" padded) as a place:
 * (step + 1) * N_PHASES + the phase's index; -1 when not a mark (a rank
 * that has not marked yet: zeros, or nothing). */
static long progress_place(const char *rec)
{
    char text[PX_PROGRESS_RECORD + 1], name[PX_PROGRESS_RECORD];
    memcpy(text, rec, PX_PROGRESS_RECORD);
    text[PX_PROGRESS_RECORD] = '\0';
    long step;
    if (sscanf(text, "%ld %31s", &step, name) != 2 || step < -1 || step > PX_TRAIN_RUN_MAX_STEPS)
        return -1;
    for (int i = 0; i < N_PHASES; i++)
        if (!strcmp(name, phases[i]))
            return (step + 1) * N_PHASES + i;
    return -1;
}

/* A place in words: "after step 3", "in step 4's forward". */
static void place_words(px_sbuf *b, long place)
{
    if (place < 0) {
        sbuf_add(b, "still starting");
        return;
    }
    long step = place / N_PHASES; /* 1-based: the mark's 0-based step + 1 */
    const char *ph = phases[place % N_PHASES];
    if (!strcmp(ph, "ready"))
        sbuf_add(b, "at the barrier before step 1");
    else if (!strcmp(ph, "done"))
        sbuf_addf(b, "after step %ld", step);
    else if (!strcmp(ph, "groups"))
        sbuf_add(b, "gathering the parameters after the last step");
    else if (!strcmp(ph, "optimizer"))
        sbuf_addf(b, "in step %ld's clipping and optimizer step", step);
    else if (!strcmp(ph, "reduce"))
        sbuf_addf(b, "in step %ld's loss all-reduce", step);
    else
        sbuf_addf(b, "in step %ld's %s", step, ph);
}

/* "rank 1" or "ranks 0, 2 and 3" (at most 8 named, then how many more). */
static void ranks_words(px_sbuf *b, const long *place, int n, long at)
{
    int count = 0, said = 0;
    for (int i = 0; i < n; i++)
        count += place[i] == at;
    sbuf_add(b, count == 1 ? "rank " : "ranks ");
    for (int i = 0; i < n; i++) {
        if (place[i] != at)
            continue;
        if (said == 8) {
            sbuf_addf(b, " and %d more", count - said);
            return;
        }
        sbuf_addf(b, "%s%d", !said ? "" : said == count - 1 ? " and " : ", ", i);
        said++;
    }
}

char *child_rank_progress(const child *c, int ranks)
{
    if (!c->progress[0] || ranks < 1)
        return NULL;
    if (ranks > PX_PROGRESS_MAX_RANKS)
        ranks = PX_PROGRESS_MAX_RANKS;
    char buf[PX_PROGRESS_MAX_RANKS * PX_PROGRESS_RECORD];
    int fd = open(c->progress, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t got = pread(fd, buf, (size_t)ranks * PX_PROGRESS_RECORD, 0);
    close(fd);
    if (got < 0)
        return NULL;
    long place[PX_PROGRESS_MAX_RANKS], low = LONG_MAX, high = -2;
    int marked = 0;
    for (int i = 0; i < ranks; i++) {
        place[i] = (i + 1) * PX_PROGRESS_RECORD <= got ? progress_place(buf + i * PX_PROGRESS_RECORD) : -1;
        marked += place[i] >= 0;
        low = place[i] < low ? place[i] : low;
        high = place[i] > high ? place[i] : high;
    }
    if (!marked)
        return NULL;
    px_sbuf b = PX_SBUF_INIT;
    if (low == high) {
        sbuf_add(&b, ranks == 2 ? "both ranks were " : "every rank was "), place_words(&b, low);
    } else {
        ranks_words(&b, place, ranks, low);
        sbuf_add(&b, low < 0 ? " " : " stopped "), place_words(&b, low);
        /* The others, where they waited, by place from the furthest on. */
        const char *sep = " (";
        for (long at = high; at > low;) {
            sbuf_add(&b, sep), ranks_words(&b, place, ranks, at);
            int there = 0;
            for (int i = 0; i < ranks; i++)
                there += place[i] == at;
            sbuf_add(&b, there == 1 ? " was " : " were "), place_words(&b, at);
            sep = "; ";
            long next = low;
            for (int i = 0; i < ranks; i++)
                if (place[i] < at && place[i] > next)
                    next = place[i];
            at = next;
        }
        sbuf_add(&b, ")");
    }
    if (sbuf_failed(&b)) {
        sbuf_free(&b);
        return NULL;
    }
    return sbuf_take(&b);
}

char *child_tail_line(const child *c)
{
    /* The last non-empty line is what a crash usually says about itself
     * (the executor's own IMPORTING and IMPORTED lines are not). */
    size_t end = c->tail_len;
    for (;;) {
        while (end > 0 && (c->tail[end - 1] == '\n' || c->tail[end - 1] == '\r'))
            end--;
        size_t start = end;
        while (start > 0 && c->tail[start - 1] != '\n')
            start--;
        const char *l = c->tail + start;
        if (start > 0 && (!strncmp(l, IMPORTING, strlen(IMPORTING)) ||
                          !strncmp(l, IMPORTED, strlen(IMPORTED)))) {
            end = start;
            continue;
        }
        if (!strncmp(l, IMPORTING, strlen(IMPORTING)) || !strncmp(l, IMPORTED, strlen(IMPORTED)))
            return strdup("");
        return strndup(l, end - start);
    }
}

/* The environment's manifest from its READY and from here (its
 * environment variables, the host, the time, the inputs' hashes). */
static void fill_manifest(px_runner *r, px_env_result *er, px_buf *p)
{
    px_manifest *m = &er->m;
    wire_decode_ready(p, m);
    char **child_said[] = {&m->executor, &m->runtime, &m->libtorch_version, &m->backend_modules,
                           &m->backend_versions, &m->device, &m->device_name, &m->dtype, &m->ignored};
    for (size_t i = 0; i < sizeof child_said / sizeof *child_said; i++)
        *child_said[i] = state_scrub(r, *child_said[i]);
    m->threads = r->f->envs[er->env_index].threads;
    /* What its executor was told to compile with (it is READY: it took
     * them); "auto" is torch's dynamic=None. */
    const px_compile *k = &r->f->envs[er->env_index].compile;
    if (k->present) {
        m->compile_backend = strdup(compile_backend(r, &r->f->envs[er->env_index]));
        m->compile_mode = strdup(k->mode);
        m->compile_dynamic = strdup(k->dynamic < 0 ? "auto" : k->dynamic ? "true" : "false");
    }
    /* The child inherited parity's environment: what in it changes numerics
     * (out of memory: not recorded). */
    const px_env *fe = &r->f->envs[er->env_index];
    (void)envrec_capture(&m->env, environ, fe->record_env, fe->n_record_env, r->redact);
    m->parity_version = strdup(PX_VERSION);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    m->host = strdup(host);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(m->started_at, sizeof m->started_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const px_prep *prep = &r->inputs[er - r->res->envs].prep;
    memcpy(m->model_sha256, prep->model_sha256, PX_SHA256_HEX);
    memcpy(m->vocab_sha256, prep->vocab_sha256, PX_SHA256_HEX);
}

/* A child that gave no READY: it ended, or did not answer within timeout
 * s (w). Reaps it; the stage in *stage (a backend module's import is part
 * of opening the device), the words returned (malloc'd). */
static char *startup_failed(px_runner *r, child *c, enum wait_result w, double timeout, int *stage)
{
    char how[64];
    px_sbuf text = PX_SBUF_INIT; /* the child's last line: any length */
    child_reap(r, c, w == W_TIMEOUT ? 0 : 5, w == W_TIMEOUT, how, sizeof how);
    char *line = child_tail_line(c);
    *stage = c->importing[0] ? PX_STAGE_DEVICE : PX_STAGE_LOAD;
    if (w == W_TIMEOUT && c->importing[0])
        sbuf_addf(&text, "importing backend module %s did not finish within startup_timeout %g s", c->importing,
                  timeout);
    else if (w == W_TIMEOUT)
        sbuf_addf(&text, "no answer within %g s of start-up (startup_timeout)", timeout);
    else if (c->importing[0])
        sbuf_addf(&text, "executor ended while importing backend module %s (%s)%s%s", c->importing, how,
                  line && *line ? ": " : "", line ? line : "");
    else
        sbuf_addf(&text, "executor ended during start-up (%s)%s%s", how, line && *line ? ": " : "",
                  line ? line : "");
    free(line);
    return sbuf_take(&text);
}

/* Start (or restart) the environment's child and wait for READY. Returns 0
 * when up; otherwise fills stage and msg. */
int child_start(px_runner *r, px_env_result *er, int spawn, int *stage, char **msg)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    px_error err = {0};
    char how[64], text[1200];
    if (spawn && child_spawn(r, e, c, &err)) {
        px_error_format(&err, text, sizeof text);
        *stage = PX_STAGE_LOAD;
        *msg = strdup(text);
        return -1;
    }
    px_buf p = {0};
    uint32_t type = 0;
    double timeout = startup_s(r, e);
    enum wait_result w = child_wait_frame(r, c, timeout, &type, &p);
    const char *prog = e->python ? r->opts.script : r->opts.executor;
    int rc = -1;
    uint32_t version = 0;
    if (w == W_STOPPED) {
        child_reap(r, c, 0, 1, how, sizeof how);
        *stage = PX_STAGE_LOAD;
        *msg = NULL;
        rc = -2;
    } else if (w == W_FRAME && type == PX_FRAME_READY && (version = buf_get_u32(&p)) != PX_PROTO_VERSION) {
        snprintf(text, sizeof text,
                 "this executor speaks another protocol (its READY says version %u; this parity speaks %u): "
                 "use the %s built with this parity",
                 version, PX_PROTO_VERSION, e->python ? "parity_torch.py" : "parity-torch");
        *stage = PX_STAGE_LOAD;
        *msg = malloc(strlen(prog) + strlen(text) + 3);
        if (*msg)
            sprintf(*msg, "%s: %s", prog, text);
        child_reap(r, c, 0, 1, how, sizeof how);
    } else if (w == W_FRAME && type == PX_FRAME_READY) {
        pthread_mutex_lock(&r->mu);
        if (!er->m.libtorch_version)
            fill_manifest(r, er, &p);
        pthread_mutex_unlock(&r->mu);
        rc = p.bad ? -1 : 0;
        if (rc) {
            *stage = PX_STAGE_LOAD;
            *msg = strdup("protocol: malformed READY frame");
        }
    } else if (w == W_FRAME && type == PX_FRAME_FAIL) {
        *stage = (int)buf_get_u32(&p);
        uint32_t kind = buf_get_u32(&p);
        *msg = buf_get_str(&p);
        if (!*msg || p.bad || !proto_fail_kind_name((int)kind)) {
            free(*msg);
            *stage = PX_STAGE_LOAD;
            *msg = strdup("protocol: malformed FAIL frame (an executor of another parity?)");
        } else if (kind == PX_FAIL_NO_TORCH) {
            /* Not the device's fault: the executor itself could not load. */
            char *m = *msg;
            *stage = PX_STAGE_LOAD;
            *msg = malloc(strlen(m) + 100);
            if (*msg)
                sprintf(*msg, "%s; choose an interpreter that has torch with --python PATH or PARITY_PYTHON", m);
            free(m);
        }
        child_reap(r, c, 5, 0, how, sizeof how);
    } else {
        *msg = startup_failed(r, c, w, timeout, stage);
    }
    buf_free(&p);
    return rc;
}

