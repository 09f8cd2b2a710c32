#define _GNU_SOURCE /* pipe2, sigabbrev_np */
#include "parity/self.h"
#include "parity/forksrv.h"
#include "parity/generate.h"
#include "parity/redact.h"
#include "parity/runner.h"
#include "parity/tokenizer.h"
#include "parity/version.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct child {
    pid_t pid;
    int served;        /* forked by the fork server, not parity's child */
    int to, from, err; /* -1 when closed */
    px_buf rx;
    char tail[2048];   /* last bytes of the child's stderr */
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
} child;

#define IMPORTING "parity_torch.py: importing backend module "
#define IMPORTED "parity_torch.py: backend modules imported"

struct px_runner {
    const px_fixture *f;
    const px_env_input *inputs;
    px_results *res;
    px_runner_opts opts;
    child *kids;
    pthread_t thread;
    pthread_mutex_t mu;
    int started, done;
    int *prog;           /* per environment, under mu: the example it runs
                            (-1 starting or timing, -2 idle) */
    int stop;            /* px_stop, atomic: set by runner_stop or the budget */
    int wake[2];         /* runner_stop writes here: wait_frame polls it */
    double deadline;     /* monotonic time the budget runs out; 0: none */
    char budget_words[64], limit_words[64];
    pthread_cond_t cv;   /* keep_alive: a request, or the end, arrived */
    int serving;         /* keep_alive: idle, waiting for runner_rerun */
    int req, req_all, end_serving;
    size_t req_example;
    px_error fatal;      /* under mu; halt says it is set */
    int halt;            /* atomic: a fatal error, start nothing more */
    px_redactor *redact; /* what a child says passes through it (under redact_mu) */
    pthread_mutex_t redact_mu;
    px_forksrv *srv;     /* parity-torch --serve, once a libtorch environment
                            started (under srv_mu: its client is one channel) */
    int srv_tried;       /* 1: started, or failed to and executors are spawned */
    pthread_mutex_t srv_mu;
    /* Environments side by side (run_envs), under mu: each one's state
     * (0 waiting, 1 running, 2 done), the cores the running ones hold. */
    int *sched;
    pthread_cond_t sched_cv; /* an environment finished */
    int running, busy, cores;
    int *spawned;        /* the first executor of each was spawned ... */
    px_error *errs;      /* ... or why not */
};

enum wait_result { W_FRAME, W_EOF, W_TIMEOUT, W_STOPPED };

/* Every executor child alive now, of every runner, for runner_kill_children
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

void runner_kill_children(void)
{
    for (size_t i = 0; i < LIVE_MAX; i++) {
        pid_t pid = __atomic_load_n(&live_pids[i], __ATOMIC_SEQ_CST);
        if (pid > 0)
            kill(-pid, SIGKILL); /* its process group: what it started too */
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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

static void fork_server_stop(px_runner *r)
{
    if (r->srv) {
        live_remove(forksrv_pid(r->srv));
        forksrv_stop(r->srv);
        r->srv = NULL;
    }
}

static int spawn_child(px_runner *r, const px_env *e, child *c, px_error *err)
{
    free(c->shapes);
    memset(c, 0, sizeof *c);
    c->to = c->from = c->err = -1;
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
    char threads[16];
    snprintf(threads, sizeof threads, "%d", e->threads);
    const char **argv = calloc(24 + 2 * r->opts.n_backend_modules, sizeof *argv);
    if (!argv) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]), close(ep[0]), close(ep[1]);
        return px_error_oom(err, NULL);
    }
    const char *prog = e->python ? r->opts.python : r->opts.executor;
    int a = 0;
    argv[a++] = prog;
    if (e->python)
        argv[a++] = r->opts.script;
    argv[a++] = "--model", argv[a++] = e->model_path;
    argv[a++] = "--device", argv[a++] = e->device;
    argv[a++] = "--dtype", argv[a++] = e->dtype;
    argv[a++] = "--threads", argv[a++] = threads;
    if (e->tf32 >= 0)
        argv[a++] = "--tf32", argv[a++] = e->tf32 ? "on" : "off";
    if (e->matmul_precision)
        argv[a++] = "--matmul-precision", argv[a++] = e->matmul_precision;
    if (r->opts.backend_lib)
        argv[a++] = "--backend-lib", argv[a++] = r->opts.backend_lib;
    for (size_t m = 0; e->python && m < r->opts.n_backend_modules; m++)
        argv[a++] = "--backend-module", argv[a++] = r->opts.backend_modules[m];
    argv[a] = NULL;
    int rc = -1;
    pthread_mutex_lock(&r->srv_mu);
    if (!e->python && fork_server(r, e)) {
        /* libtorch is loaded once, in the server, which forks the executor. */
        const int fds[3] = {in[0], out[1], ep[1]};
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
static int shape_seen(child *c, size_t len)
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

static px_stop stop_of(px_runner *r) { return (px_stop)__atomic_load_n(&r->stop, __ATOMIC_SEQ_CST); }

/* Whether the run must stop now: asked to, or the budget ran out (which
 * then becomes the reason). */
static int must_stop(px_runner *r)
{
    if (stop_of(r) == PX_STOP_NONE && r->deadline > 0 && now_s() >= r->deadline) {
        int none = PX_STOP_NONE;
        __atomic_compare_exchange_n(&r->stop, &none, PX_STOP_BUDGET, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    return stop_of(r) != PX_STOP_NONE;
}

/* What an example the run did not reach says (its detail). */
static const char *stop_words(px_runner *r)
{
    switch (stop_of(r)) {
    case PX_STOP_INTERRUPT: return "interrupted";
    case PX_STOP_BUDGET: return r->budget_words;
    default: return "run cancelled";
    }
}

/* Waits for the child's next frame, at most timeout_s, and no longer than
 * the run may go on (runner_stop, the budget): W_STOPPED then. */
static enum wait_result wait_frame(px_runner *r, child *c, double timeout_s, uint32_t *type, px_buf *payload)
{
    double deadline = now_s() + timeout_s;
    for (;;) {
        if (must_stop(r))
            return W_STOPPED;
        if (take_frame(c, type, payload))
            return W_FRAME;
        if (c->from < 0 || proto_frame_ready(c->rx.data, c->rx.len, type, &(size_t){0}) < 0)
            return W_EOF;
        double t = now_s(), left = deadline - t;
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
static void reap(px_runner *r, child *c, double grace_s, int kill_now, char *buf, size_t size)
{
    close_fd(&c->to);
    if (c->pid > 0) {
        /* Asked to stop, nobody waits for a graceful end. */
        if (kill_now || stop_of(r) != PX_STOP_NONE)
            kill(-c->pid, SIGKILL);
        int st = 0;
        double deadline = now_s() + grace_s;
        int ended;
        while (!(ended = child_ended(r, c, 0.005, &st)) && now_s() < deadline && stop_of(r) == PX_STOP_NONE) {
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

static char *tail_line(const child *c)
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

/* Wake the UI thread: results changed. A full pipe already says so. */
static void notify(px_runner *r)
{
    if (r->opts.notify_fd > 0) {
        ssize_t w = write(r->opts.notify_fd, "!", 1);
        (void)w;
    }
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

/* An optional READY field: "" is not known. */
static char *get_opt_str(px_buf *p)
{
    char *s = buf_get_str(p);
    if (s && !*s) {
        free(s);
        s = NULL;
    }
    return s;
}

/* Text from a child (an exception, its stderr, what it reports of itself)
 * may hold a secret or a home path: what is kept is the redacted copy. */
static char *scrub(px_runner *r, char *s)
{
    if (!s || !r->redact)
        return s;
    pthread_mutex_lock(&r->redact_mu);
    char *t = redact_text(r->redact, s);
    pthread_mutex_unlock(&r->redact_mu);
    free(s);
    return t;
}

static void fill_manifest(px_runner *r, px_env_result *er, px_buf *p)
{
    px_manifest *m = &er->m;
    m->executor = buf_get_str(p);
    m->runtime = get_opt_str(p);
    m->libtorch_version = buf_get_str(p);
    m->backend_modules = get_opt_str(p);
    m->backend_versions = get_opt_str(p);
    m->device = buf_get_str(p);
    m->device_name = buf_get_str(p);
    m->dtype = buf_get_str(p);
    m->tf32 = get_opt_str(p);
    m->matmul_precision = get_opt_str(p);
    m->ignored = get_opt_str(p);
    m->load_ms = buf_get_f64(p);
    char **child_said[] = {&m->executor, &m->runtime, &m->libtorch_version, &m->backend_modules,
                           &m->backend_versions, &m->device, &m->device_name, &m->dtype, &m->ignored};
    for (size_t i = 0; i < sizeof child_said / sizeof *child_said; i++)
        *child_said[i] = scrub(r, *child_said[i]);
    m->threads = r->f->envs[er->env_index].threads;
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

/* Start (or restart) the environment's child and wait for READY. Returns 0
 * when up; otherwise fills stage and msg. */
static int start_child(px_runner *r, px_env_result *er, int spawn, int *stage, char **msg)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    px_error err = {0};
    char how[64], text[1200];
    if (spawn && spawn_child(r, e, c, &err)) {
        px_error_format(&err, text, sizeof text);
        *stage = PX_STAGE_LOAD;
        *msg = strdup(text);
        return -1;
    }
    px_buf p = {0};
    uint32_t type = 0;
    double timeout = startup_s(r, e);
    enum wait_result w = wait_frame(r, c, timeout, &type, &p);
    const char *prog = e->python ? r->opts.script : r->opts.executor;
    int rc = -1;
    uint32_t version = 0;
    if (w == W_STOPPED) {
        reap(r, c, 0, 1, how, sizeof how);
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
        reap(r, c, 0, 1, how, sizeof how);
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
        reap(r, c, 5, 0, how, sizeof how);
    } else {
        reap(r, c, w == W_TIMEOUT ? 0 : 5, w == W_TIMEOUT, how, sizeof how);
        char *line = tail_line(c);
        /* A backend module's import is part of opening the device. */
        *stage = c->importing[0] ? PX_STAGE_DEVICE : PX_STAGE_LOAD;
        if (w == W_TIMEOUT && c->importing[0])
            snprintf(text, sizeof text, "importing backend module %s did not finish within startup_timeout %g s",
                     c->importing, timeout);
        else if (w == W_TIMEOUT)
            snprintf(text, sizeof text, "no answer within %g s of start-up (startup_timeout)", timeout);
        else if (c->importing[0])
            snprintf(text, sizeof text, "executor ended while importing backend module %s (%s)%s%s", c->importing,
                     how, line && *line ? ": " : "", line ? line : "");
        else
            snprintf(text, sizeof text, "executor ended during start-up (%s)%s%s", how, line && *line ? ": " : "",
                     line ? line : "");
        free(line);
        *msg = strdup(text);
    }
    buf_free(&p);
    return rc;
}

/* The inputs of n examples stacked into [n, L], into b: each padded to the
 * longest with pad_id and attention mask 0 (n 1: the example as prepared). */
static void put_stack(px_runner *r, px_buf *pb, const px_prepared *const *xs, size_t n, int64_t pad_id)
{
    px_buf b = *pb;
    size_t len = 0;
    for (size_t j = 0; j < n; j++)
        len = xs[j]->enc.n > len ? xs[j]->enc.n : len;
    buf_put_u32(&b, (uint32_t)r->f->n_inputs);
    for (size_t i = 0; i < r->f->n_inputs; i++) {
        const char *name = r->f->inputs[i];
        buf_put_str(&b, name);
        buf_put_u32(&b, 2);
        buf_put_i64(&b, (int64_t)n);
        buf_put_i64(&b, (int64_t)len);
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < len; k++) {
                const px_encoding *enc = &xs[j]->enc;
                int64_t v = 0; /* token_type_ids: one segment; padding: mask 0 */
                if (!strcmp(name, "input_ids"))
                    v = k < enc->n ? enc->ids[k] : pad_id;
                else if (!strcmp(name, "attention_mask"))
                    v = k < enc->n_real;
                buf_put_i64(&b, v);
            }
    }
    *pb = b;
}

/* One forward of n examples stacked into [n, L] (put_stack). */
static int send_run_stack(px_runner *r, child *c, const px_prepared *const *xs, size_t n, int64_t pad_id)
{
    px_buf b = {0};
    proto_begin(&b, PX_FRAME_RUN);
    put_stack(r, &b, xs, n, pad_id);
    proto_end(&b);
    int rc = b.bad || proto_write_all(c->to, b.data, b.len) ? -1 : 0;
    buf_free(&b);
    return rc;
}

static int send_run(px_runner *r, child *c, const px_prepared *x) { return send_run_stack(r, c, &x, 1, 0); }

static int decode_output(px_buf *p, px_example_result *x)
{
    char *dtype = buf_get_str(p);
    x->dtype = dtype ? results_dtype(dtype) : NULL;
    free(dtype);
    uint32_t ndim = buf_get_u32(p);
    if (ndim > PX_MAX_DIMS)
        return -1;
    x->ndim = (int)ndim;
    int64_t count = 1;
    for (uint32_t i = 0; i < ndim; i++)
        count *= (x->shape[i] = buf_get_i64(p));
    int64_t n = buf_get_i64(p);
    if (p->bad || n != count || n < 0 || (size_t)n > (p->len - p->pos) / 8)
        return -1;
    x->values = malloc((size_t)(n ? n : 1) * sizeof *x->values);
    for (int64_t i = 0; i < n; i++)
        x->values[i] = buf_get_f64(p);
    x->n_values = (size_t)n;
    x->forward_ms = buf_get_f64(p);
    uint32_t compiled = buf_get_u32(p);
    x->compiled = compiled <= PX_COMPILED_YES ? (int)compiled : PX_COMPILED_UNKNOWN;
    return p->bad ? -1 : 0;
}

static void judge_shape(px_example_result *x, size_t n_labels)
{
    char d[160];
    if (x->n_values == 0) {
        x->status = PX_ST_EMPTY;
        snprintf(d, sizeof d, "output has no elements");
    } else if (x->ndim != 2 || x->shape[0] != 1 || x->shape[1] != (int64_t)n_labels) {
        int o = snprintf(d, sizeof d, "output shape [");
        for (int i = 0; i < x->ndim && o < (int)sizeof d - 40; i++)
            o += snprintf(d + o, sizeof d - (size_t)o, "%s%lld", i ? "," : "", (long long)x->shape[i]);
        snprintf(d + o, sizeof d - (size_t)o, "], contract says [1,%zu]", n_labels);
        x->status = PX_ST_BAD_SHAPE;
    } else {
        x->status = PX_ST_OK;
        x->label = results_argmax(x->values, n_labels);
        return;
    }
    set_str(&x->detail, d);
}

/* A generator's forward (the probe): [1, T, V], V the vocabulary's size. */
static void judge_generator_shape(px_example_result *x, size_t T, size_t V)
{
    if (x->ndim == 3 && x->shape[0] == 1 && x->shape[1] == (int64_t)T && x->shape[2] == (int64_t)V) {
        x->status = PX_ST_OK;
        return;
    }
    char d[160];
    int at = snprintf(d, sizeof d, "output shape [");
    for (int i = 0; i < x->ndim && at < (int)sizeof d - 60; i++)
        at += snprintf(d + at, sizeof d - (size_t)at, "%s%lld", i ? "," : "", (long long)x->shape[i]);
    snprintf(d + at, sizeof d - (size_t)at, "], a generator gives [1,%zu,%zu]", T, V);
    x->status = x->n_values ? PX_ST_BAD_SHAPE : PX_ST_EMPTY;
    set_str(&x->detail, d);
}

/* The contract's output settings as the protocol sends them. */
static px_gen_settings gen_settings(const px_fixture *f, const px_prep *prep)
{
    const px_generate *g = &f->gen;
    return (px_gen_settings){.decoding = g->decoding == PX_DECODE_SAMPLE ? PX_GEN_SAMPLE : PX_GEN_GREEDY,
                             .temperature = g->temperature,
                             .top_k = g->top_k,
                             .seed = g->seed,
                             .max_new_tokens = g->max_new_tokens,
                             .stop_ids = prep->stop_ids,
                             .n_stop = prep->n_stop,
                             .report_top = PX_GEN_REPORT_TOP};
}

/* A generator's example: GENERATE with its prompt (no padding: one
 * example, its real tokens), the reply moved into x, the text decoded
 * here from the ids (the stop token left out). */
static int send_generate(px_runner *r, child *c, const px_prepared *in, const px_gen_settings *gs)
{
    size_t T = in->enc.n_real, n = r->f->n_inputs;
    int64_t *ones = malloc((T ? T : 1) * sizeof *ones), *zeros = calloc(T ? T : 1, sizeof *zeros);
    const int64_t **values = calloc(n ? n : 1, sizeof *values);
    int rc = -1;
    if (ones && zeros && values) {
        for (size_t k = 0; k < T; k++)
            ones[k] = 1;
        for (size_t i = 0; i < n; i++)
            values[i] = !strcmp(r->f->inputs[i], "input_ids")        ? in->enc.ids
                        : !strcmp(r->f->inputs[i], "attention_mask") ? ones
                                                                     : zeros;
        px_buf b = {0};
        gen_request_encode(&b, gs, (const char *const *)r->f->inputs, values, n, T);
        rc = b.bad || proto_write_all(c->to, b.data, b.len) ? -1 : 0;
        buf_free(&b);
    }
    free(ones), free(zeros), free(values);
    return rc;
}

static void take_generated(px_example_result *x, px_gen_out *o, const px_tokenizer *tok)
{
    px_generated *g = calloc(1, sizeof *g);
    x->dtype = o->dtype ? results_dtype(o->dtype) : NULL;
    x->ndim = o->ndim;
    memcpy(x->shape, o->shape, sizeof x->shape);
    x->forward_ms = o->total_ms;
    if (!o->n_steps) {
        char d[160];
        int at = snprintf(d, sizeof d, "output shape [");
        for (int i = 0; i < x->ndim && at < (int)sizeof d - 60; i++)
            at += snprintf(d + at, sizeof d - (size_t)at, "%s%lld", i ? "," : "", (long long)x->shape[i]);
        snprintf(d + at, sizeof d - (size_t)at, "], a generator gives [1, T, %zu]", tokenizer_vocab_size(tok));
        x->status = PX_ST_BAD_SHAPE;
        set_str(&x->detail, d);
        free(g);
        gen_out_free(o);
        return;
    }
    if (!g) {
        x->status = PX_ST_EXCEPTION;
        set_str(&x->detail, "out of memory");
        gen_out_free(o);
        return;
    }
    g->ids = o->ids, g->n = o->n_steps, g->r = o->r, g->top_ids = o->top_ids, g->top_logits = o->top_logits;
    g->end = o->end, g->first_ms = o->first_ms;
    o->ids = o->top_ids = NULL, o->top_logits = NULL;
    px_error err = {0};
    g->text = tokenizer_decode(tok, g->ids, g->n - (g->end == PX_GEN_END_STOP), &err);
    x->gen = g;
    x->status = g->text ? PX_ST_OK : PX_ST_EXCEPTION;
    if (!g->text)
        set_str(&x->detail, err.msg);
    gen_out_free(o);
}

/* Runs one prepared input in a live child; records the outcome in x.
 * Returns 1 when the child is gone afterwards (crash or timeout). A
 * generator's example generates (GENERATE), its probe is one forward. */
static int run_in_child(px_runner *r, px_env_result *er, const px_prepared *in, px_example_result *x, int generate)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    px_buf p = {0};
    uint32_t type = 0;
    /* The first forward of a new shape may compile: its own timeout. */
    int first = !shape_seen(c, in->enc.n);
    double timeout = first ? e->first_forward_timeout_s : e->timeout_s;
    const px_prep *prep = &r->inputs[er - r->res->envs].prep;
    px_gen_settings gs = gen_settings(r->f, prep);
    /* Generating is a forward per token, each of a new length: the first
     * forward's time, then the environment's timeout per token. */
    if (generate)
        timeout = e->first_forward_timeout_s + e->timeout_s * gs.max_new_tokens;
    enum wait_result w = (generate ? send_generate(r, c, in, &gs) : send_run(r, c, in))
                             ? W_EOF
                             : wait_frame(r, c, timeout, &type, &p);
    char how[64], d[160];
    int gone = 0;
    if (w == W_FRAME && generate && type == PX_FRAME_GENERATED) {
        px_gen_out o = {0};
        if (gen_reply_decode(&p, &o, &gs)) {
            x->status = PX_ST_EXCEPTION;
            set_str(&x->detail, "protocol: malformed or inconsistent GENERATED frame");
        } else {
            take_generated(x, &o, prep->tok);
        }
    } else if (w == W_FRAME && !generate && type == PX_FRAME_OUTPUT) {
        if (decode_output(&p, x)) {
            x->status = PX_ST_EXCEPTION;
            set_str(&x->detail, "protocol: malformed OUTPUT frame");
        } else if (r->f->kind == PX_MODEL_GENERATOR) {
            judge_generator_shape(x, in->enc.n, tokenizer_vocab_size(prep->tok));
        } else {
            judge_shape(x, e->n_labels);
        }
    } else if (w == W_FRAME && type == PX_FRAME_FAIL) {
        buf_get_u32(&p);
        uint32_t kind = buf_get_u32(&p);
        char *msg = buf_get_str(&p);
        x->status = kind == PX_FAIL_UNSUPPORTED ? PX_ST_UNSUPPORTED : PX_ST_EXCEPTION;
        if (!msg || p.bad || !proto_fail_kind_name((int)kind)) {
            free(msg);
            msg = strdup("protocol: malformed FAIL frame");
        }
        x->detail = scrub(r, msg);
    } else if (w == W_FRAME) {
        x->status = PX_ST_EXCEPTION;
        set_str(&x->detail, "protocol: unexpected frame");
    } else {
        reap(r, c, w == W_EOF ? 5 : 0, w != W_EOF, how, sizeof how);
        if (w == W_TIMEOUT) {
            x->status = PX_ST_TIMEOUT;
            snprintf(d, sizeof d, "after %g s%s", timeout,
                     first && timeout != e->timeout_s ? " (the first forward of this input length)" : "");
            set_str(&x->detail, d);
        } else if (w == W_STOPPED || stop_of(r) != PX_STOP_NONE) {
            /* Abandoned, not crashed: the kill was parity's. */
            x->status = PX_ST_NOT_EVALUATED;
            set_str(&x->detail, stop_words(r));
        } else {
            x->status = PX_ST_CRASH;
            set_str(&x->detail, how);
            x->stderr_tail = scrub(r, tail_line(c));
        }
        c->tail_len = 0;
        c->tail[0] = '\0';
        gone = 1;
    }
    buf_free(&p);
    return gone;
}

static void copy_input(px_example_result *x, const px_prepared *in, const px_tokenizer *tok)
{
    x->clean_text = strdup(in->clean_text ? in->clean_text : "");
    x->n_ids = in->enc.n;
    x->ids = malloc((x->n_ids ? x->n_ids : 1) * sizeof *x->ids);
    x->tokens = calloc(x->n_ids ? x->n_ids : 1, sizeof *x->tokens);
    for (size_t k = 0; k < x->n_ids; k++) {
        x->ids[k] = in->enc.ids[k];
        const char *t = tokenizer_token(tok, in->enc.ids[k]);
        x->tokens[k] = strdup(t ? t : "?");
    }
}

static void mark_rest(px_runner *r, px_env_result *er, size_t from, const char *why)
{
    pthread_mutex_lock(&r->mu);
    for (size_t i = from; i < r->res->n_examples; i++) {
        px_example_result *x = &er->ex[i];
        if (x->status != PX_ST_PENDING)
            continue;
        x->status = PX_ST_NOT_EVALUATED;
        set_str(&x->detail, why);
    }
    pthread_mutex_unlock(&r->mu);
    notify(r);
}

/* The run stopped before this environment's end (examples from `from` on
 * are left): they say why, and so does the environment. */
static void cut_short(px_runner *r, px_env_result *er, size_t from, const char *why)
{
    mark_rest(r, er, from, why);
    pthread_mutex_lock(&r->mu);
    if (!er->cut_short)
        er->cut_short = strdup(why);
    pthread_mutex_unlock(&r->mu);
}

static void go_down(px_runner *r, px_env_result *er, int stage, char *msg, size_t from)
{
    char why[1400];
    msg = scrub(r, msg);
    pthread_mutex_lock(&r->mu);
    er->state = PX_ENV_DOWN;
    er->down_stage = stage;
    free(er->down_msg);
    er->down_msg = msg ? msg : strdup("unknown");
    snprintf(why, sizeof why, "environment down: %s: %s", proto_stage_name(stage), er->down_msg);
    pthread_mutex_unlock(&r->mu);
    mark_rest(r, er, from, why);
}

/* The probe ([CLS] [SEP]) gives the first-forward time and, before any
 * example, whether the model's output width matches the contract's labels. */
static int run_probe(px_runner *r, px_env_result *er)
{
    px_example_result x = {.label = -1, .forward_ms = -1};
    int gone = run_in_child(r, er, &r->inputs[er - r->res->envs].probe, &x, 0);
    int rc = 0;
    if (gone && stop_of(r) != PX_STOP_NONE) {
        example_result_clear(&x);
        cut_short(r, er, 0, stop_words(r));
        return 1;
    }
    if (x.status == PX_ST_OK || x.status == PX_ST_BAD_SHAPE || x.status == PX_ST_EMPTY)
        er->m.first_forward_ms = x.forward_ms;
    const px_env *e = &r->f->envs[er->env_index];
    /* With the contract's own model, a width that does not fit the labels is
     * a contract error; an overriding model's is that environment's outcome. */
    px_error fatal = {0};
    if (r->f->kind == PX_MODEL_GENERATOR && (x.status == PX_ST_BAD_SHAPE || x.status == PX_ST_EMPTY) &&
        !e->own_model) {
        px_error_set(&fatal, PX_ERR_MISMATCH, r->f->path, r->f->model_loc.line, r->f->model_loc.col,
                     "contract.model.kind is generator, but the model's output does not fit: %s (probe forward in "
                     "'%s')",
                     x.detail ? x.detail : "?", e->name);
        rc = -1;
    } else if (x.status == PX_ST_BAD_SHAPE && x.ndim == 2 && x.shape[0] == 1 && x.shape[1] > 0 && !e->own_model) {
        px_error_set(&fatal, PX_ERR_MISMATCH, r->f->path, e->labels_loc.line, e->labels_loc.col,
                     "%s lists %zu labels but the model gives %lld outputs (probe forward in '%s')",
                     e->own_labels ? "the environment" : "contract", e->n_labels, (long long)x.shape[1],
                     e->name);
        rc = -1;
    } else if (gone) {
        char msg[400];
        snprintf(msg, sizeof msg, "the probe input ([CLS] [SEP]) ended the executor: %s %s",
                 status_name(x.status), x.detail ? x.detail : "");
        go_down(r, er, PX_STAGE_FORWARD, strdup(msg), 0);
        rc = 1;
    }
    if (fatal.code) {
        /* The first one stops the run (every environment's); later ones
         * (another environment's probe at the same time) are dropped. */
        pthread_mutex_lock(&r->mu);
        if (!r->fatal.code)
            r->fatal = fatal;
        __atomic_store_n(&r->halt, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&r->mu);
    }
    example_result_clear(&x);
    return rc;
}

static int halted(px_runner *r) { return __atomic_load_n(&r->halt, __ATOMIC_SEQ_CST); }

/* What environment env does now: example (>= 0), -1 starting or timing,
 * -2 nothing. */
static void set_progress(px_runner *r, int env, int example)
{
    pthread_mutex_lock(&r->mu);
    r->prog[env] = example;
    pthread_mutex_unlock(&r->mu);
    notify(r);
}

static void run_examples(px_runner *r, px_env_result *er)
{
    child *c = &r->kids[er - r->res->envs];
    size_t n_run = 0;
    for (size_t i = 0; i < r->res->n_examples; i++) {
        if ((r->opts.one_example && i != r->opts.example) || (r->opts.skip && r->opts.skip[i]))
            continue;
        if (must_stop(r)) {
            cut_short(r, er, i, stop_words(r));
            return;
        }
        /* Another environment's fatal error: what is left stays pending,
         * said as the run stopped (runner_main). */
        if (halted(r))
            return;
        /* This environment's limit, not the run's: the next one starts afresh. */
        if (r->opts.max_examples && !r->opts.one_example && n_run++ == r->opts.max_examples) {
            cut_short(r, er, i, r->limit_words);
            return;
        }
        const px_env_input *ein = &r->inputs[er - r->res->envs];
        const px_prepared *in = &ein->examples[i];
        px_example_result x = {.label = -1, .forward_ms = -1};
        copy_input(&x, in, ein->prep.tok);
        if (in->rejected) {
            x.status = PX_ST_REJECTED;
            x.detail = strdup(in->reason);
        } else {
            int stage = 0;
            char *msg = NULL;
            if (c->pid == 0) {
                er->restarts++;
                int rc = start_child(r, er, 1, &stage, &msg);
                if (rc) {
                    example_result_clear(&x);
                    if (rc == -2)
                        cut_short(r, er, i, stop_words(r));
                    else
                        go_down(r, er, stage, msg, i);
                    return;
                }
            }
            set_progress(r, (int)(er - r->res->envs), (int)i);
            run_in_child(r, er, in, &x, r->f->kind == PX_MODEL_GENERATOR);
        }
        pthread_mutex_lock(&r->mu);
        example_result_clear(&er->ex[i]);
        er->ex[i] = x;
        pthread_mutex_unlock(&r->mu);
        notify(r);
    }
}

/* Growable samples of one endpoint's timed forwards. */
typedef struct samples {
    double *fwd, *rt;
    size_t n, cap;
} samples;

static int samples_push(samples *s, double fwd, double rt)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        double *a = realloc(s->fwd, cap * sizeof *a);
        if (!a)
            return -1;
        s->fwd = a;
        double *b = realloc(s->rt, cap * sizeof *b);
        if (!b)
            return -1;
        s->rt = b, s->cap = cap;
    }
    s->fwd[s->n] = fwd, s->rt[s->n] = rt;
    s->n++;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of n sorted values, interpolated as numpy's default. */
static double quantile_sorted(const double *v, size_t n, double q)
{
    if (!n)
        return -1;
    double at = q * (double)(n - 1);
    size_t lo = (size_t)at;
    return lo + 1 < n ? v[lo] + (at - (double)lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* Keeps, per example, the benchmark's output farthest from the run's: a
 * changed label first, then the largest max |difference|. */
static void keep_farthest(px_bench *b, double *score, size_t k, const double *row, const px_example_result *ran)
{
    double d = 0;
    for (size_t i = 0; i < b->n_out && i < ran->n_values; i++) {
        double x = fabs(row[i] - ran->values[i]);
        d = x > d || x != x ? x : d;
    }
    if (results_argmax(row, b->n_out) != ran->label)
        d = INFINITY;
    if (b->out[k] && !(d > score[k]))
        return;
    if (!b->out[k] && !(b->out[k] = malloc(b->n_out * sizeof *row)))
        return;
    memcpy(b->out[k], row, b->n_out * sizeof *row);
    score[k] = d;
}

/* Why a benchmark forward did not give an output, into b->stopped; reaps a
 * child that is gone. */
/* What a benchmark's request (`what`: "a forward", "a training step")
 * came to when it did not answer: its words in b->stopped. */
static void bench_failed(px_runner *r, child *c, px_bench *b, const char *what, enum wait_result w, uint32_t type,
                         px_buf *p, double timeout)
{
    char text[1400], how[64];
    if (w == W_FRAME && type == PX_FRAME_FAIL) {
        buf_get_u32(p), buf_get_u32(p);
        char *msg = scrub(r, buf_get_str(p));
        snprintf(text, sizeof text, "%s raised: %.1200s", what, msg ? msg : "(malformed FAIL frame)");
        free(msg);
    } else if (w == W_FRAME) {
        snprintf(text, sizeof text, "protocol: unexpected frame");
    } else if (w == W_STOPPED) {
        snprintf(text, sizeof text, "%s", stop_words(r));
    } else {
        reap(r, c, w == W_EOF ? 5 : 0, 1, how, sizeof how);
        if (w == W_TIMEOUT)
            snprintf(text, sizeof text, "%s gave no answer within %g s", what, timeout);
        else
            snprintf(text, sizeof text, "the executor ended during %s (%s)", what, how);
    }
    if (w == W_STOPPED) {
        reap(r, c, 0, 1, how, sizeof how);
        b->cut = 1;
    }
    free(b->stopped);
    b->stopped = strdup(text);
}

/* A benchmark's executor that ended (a crash, a timeout) is started again
 * before its next request; -1 with the reason in b->stopped when it cannot. */
static int bench_restart(px_runner *r, px_env_result *er, child *c, px_bench *b)
{
    if (c->pid != 0)
        return 0;
    int stage;
    char *msg = NULL;
    er->restarts++;
    if (!start_child(r, er, 1, &stage, &msg))
        return 0;
    char text[1400];
    snprintf(text, sizeof text, "the executor could not start again: %.1200s", msg ? msg : stop_words(r));
    free(msg);
    free(b->stopped);
    b->stopped = strdup(text);
    return -1;
}

/* One endpoint: warmup passes, then timed passes over the examples that ran
 * (status ok), n at a time (the last stack filled from the first examples
 * again, so every forward has the endpoint's shape). */
static void bench_endpoint(px_runner *r, px_env_result *er, px_bench *b, const size_t *ok, size_t n_ok)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    const px_env_input *ein = &r->inputs[er - r->res->envs];
    size_t n = (size_t)b->batch, n_stacks = (n_ok + n - 1) / n;
    int64_t pad = tokenizer_id(ein->prep.tok, "[PAD]");
    pad = pad < 0 ? 0 : pad;
    const px_prepared **xs = calloc(n, sizeof *xs);
    size_t *which = calloc(n, sizeof *which);
    double *score = calloc(r->res->n_examples, sizeof *score);
    b->out = calloc(r->res->n_examples, sizeof *b->out);
    b->n_out = e->n_labels;
    b->examples = n_ok;
    samples sm = {0};
    double timed_s = 0, started = 0;
    size_t timed_examples = 0;
    if (!xs || !which || !score || !b->out)
        goto out;
    for (int pass = 0;; pass++) {
        int timed = pass >= b->warmup;
        if (timed && !started)
            started = now_s();
        int passes = pass - b->warmup;
        if (timed && (r->opts.bench_passes > 0 ? passes >= r->opts.bench_passes
                                               : passes >= 5 && now_s() - started >= r->opts.bench_min_time_s))
            break;
        for (size_t st = 0; st < n_stacks; st++) {
            if (must_stop(r)) {
                b->stopped = strdup(stop_words(r));
                b->cut = 1;
                goto out;
            }
            if (bench_restart(r, er, c, b))
                goto out;
            size_t len = 0;
            for (size_t j = 0; j < n; j++) {
                which[j] = ok[(st * n + j) % n_ok];
                xs[j] = &ein->examples[which[j]];
                len = xs[j]->enc.n > len ? xs[j]->enc.n : len;
            }
            int first = !shape_seen(c, len + (n - 1) * ((size_t)1 << 32));
            double timeout = first ? e->first_forward_timeout_s : e->timeout_s;
            px_buf p = {0};
            uint32_t type = 0;
            double t0 = now_s();
            enum wait_result w = send_run_stack(r, c, xs, n, pad) ? W_EOF : wait_frame(r, c, timeout, &type, &p);
            double rt = (now_s() - t0) * 1000;
            px_example_result x = {.label = -1};
            if (w != W_FRAME || type != PX_FRAME_OUTPUT) {
                bench_failed(r, c, b, "a forward", w, type, &p, timeout);
                buf_free(&p);
                goto out;
            }
            if (decode_output(&p, &x) || x.ndim != 2 || x.shape[0] != (int64_t)n ||
                x.shape[1] != (int64_t)e->n_labels) {
                char text[200];
                snprintf(text, sizeof text, "the output of %zu stacked examples is not [%zu, %zu]", n, n, e->n_labels);
                b->stopped = strdup(text);
                example_result_clear(&x);
                buf_free(&p);
                goto out;
            }
            buf_free(&p);
            for (size_t j = 0; j < n; j++)
                keep_farthest(b, score, which[j], x.values + j * e->n_labels, &er->ex[which[j]]);
            /* A new shape, or a forward the backend says compiled (a lazy
             * device may recompile a shape it saw): timed apart. */
            if (first || x.compiled == PX_COMPILED_YES) {
                b->new_shapes++;
                b->new_shapes_ms += x.forward_ms;
            } else if (timed) {
                if (samples_push(&sm, x.forward_ms, rt)) {
                    example_result_clear(&x);
                    b->stopped = strdup("out of memory");
                    goto out;
                }
                timed_s += rt / 1000;
                timed_examples += n;
            }
            example_result_clear(&x);
        }
        if (timed)
            b->passes = passes + 1;
    }
out:
    b->forwards = sm.n;
    b->p50_ms = b->p90_ms = b->p99_ms = b->min_ms = b->max_ms = b->roundtrip_p50_ms = b->per_s = -1;
    if (sm.n) {
        qsort(sm.fwd, sm.n, sizeof *sm.fwd, cmp_double);
        qsort(sm.rt, sm.n, sizeof *sm.rt, cmp_double);
        b->p50_ms = quantile_sorted(sm.fwd, sm.n, 0.5);
        b->p90_ms = quantile_sorted(sm.fwd, sm.n, 0.9);
        b->p99_ms = quantile_sorted(sm.fwd, sm.n, 0.99);
        b->min_ms = sm.fwd[0], b->max_ms = sm.fwd[sm.n - 1];
        b->roundtrip_p50_ms = quantile_sorted(sm.rt, sm.n, 0.5);
        b->per_s = timed_s > 0 ? (double)timed_examples / timed_s : -1;
    }
    free(sm.fwd), free(sm.rt), free(xs), free(which), free(score);
}

/* The figures of a benchmark from its samples (warm forwards or steps). */
static void bench_figures(px_bench *b, samples *sm)
{
    b->forwards = sm->n;
    b->p50_ms = b->p90_ms = b->p99_ms = b->min_ms = b->max_ms = -1;
    if (!sm->n)
        return;
    qsort(sm->fwd, sm->n, sizeof *sm->fwd, cmp_double);
    b->p50_ms = quantile_sorted(sm->fwd, sm->n, 0.5);
    b->p90_ms = quantile_sorted(sm->fwd, sm->n, 0.9);
    b->p99_ms = quantile_sorted(sm->fwd, sm->n, 0.99);
    b->min_ms = sm->fwd[0], b->max_ms = sm->fwd[sm->n - 1];
}

/* train-step:N: one TRAIN (proto.h) of the fixture's labelled examples
 * that ran ok here, in fixture order, stacked and padded as batch:N stacks
 * them, each one's target its label's index in the contract's order. The
 * executor trains a copy of its module: the one loaded answers as before.
 * Step 1 is timed apart (new_shapes: it holds any compilation); the figures
 * are of steps 2 to N. */
static void bench_train(px_runner *r, px_env_result *er, px_bench *b, const size_t *ok, size_t n_ok)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    const px_env_input *ein = &r->inputs[er - r->res->envs];
    int64_t pad = tokenizer_id(ein->prep.tok, "[PAD]");
    pad = pad < 0 ? 0 : pad;
    const px_prepared **xs = calloc(n_ok, sizeof *xs);
    int64_t *targets = calloc(n_ok, sizeof *targets);
    samples sm = {0};
    px_buf p = {0};
    size_t n = 0, steps = (size_t)b->train_steps;
    if (!xs || !targets) {
        b->stopped = strdup("out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_ok; i++) {
        const px_example *x = &r->f->examples[ok[i]];
        if (x->expect.kind != PX_EXPECT_LABEL)
            continue;
        /* The target is the expected label's place in this environment's
         * own label map (its outputs' order), which may differ from the
         * contract's; a label it lacks leaves the example out. */
        const char *want = r->f->labels[x->expect.label];
        size_t at = 0;
        while (at < er->n_labels && strcmp(er->labels[at], want))
            at++;
        if (at == er->n_labels)
            continue;
        xs[n] = &ein->examples[ok[i]];
        targets[n++] = (int64_t)at;
    }
    b->batch = (int)n, b->examples = n, b->passes = 1;
    if (!n) {
        b->stopped = strdup("no example with an expected label ran in this environment: nothing to train on");
        goto out;
    }
    if (bench_restart(r, er, c, b))
        goto out;
    px_buf f = {0};
    proto_begin(&f, PX_FRAME_TRAIN);
    buf_put_u32(&f, (uint32_t)steps);
    buf_put_f64(&f, b->lr);
    put_stack(r, &f, xs, n, pad);
    buf_put_u32(&f, (uint32_t)n);
    for (size_t j = 0; j < n; j++)
        buf_put_i64(&f, targets[j]);
    proto_end(&f);
    double timeout = e->first_forward_timeout_s + (double)steps * e->timeout_s;
    uint32_t type = 0;
    enum wait_result w = f.bad || proto_write_all(c->to, f.data, f.len) ? W_EOF : wait_frame(r, c, timeout, &type, &p);
    buf_free(&f);
    if (w != W_FRAME || type != PX_FRAME_TRAINED) {
        bench_failed(r, c, b, "a training step", w, type, &p, timeout);
        goto out;
    }
    if (buf_get_u32(&p) != steps || p.bad || p.len - p.pos != 16 * steps) {
        b->stopped = strdup("protocol: malformed TRAINED frame");
        goto out;
    }
    b->loss = malloc(steps * sizeof *b->loss);
    b->step_ms = malloc(steps * sizeof *b->step_ms);
    if (!b->loss || !b->step_ms) {
        b->stopped = strdup("out of memory");
        goto out;
    }
    for (size_t i = 0; i < steps; i++)
        b->loss[i] = buf_get_f64(&p);
    for (size_t i = 0; i < steps; i++)
        b->step_ms[i] = buf_get_f64(&p);
    b->n_steps = steps;
    b->new_shapes = 1, b->new_shapes_ms = b->step_ms[0];
    double total = 0;
    for (size_t i = 1; i < steps; i++) {
        if (samples_push(&sm, b->step_ms[i], -1)) {
            b->stopped = strdup("out of memory");
            goto out;
        }
        total += b->step_ms[i];
    }
    b->per_s = total > 0 ? (double)(n * (steps - 1)) / (total / 1000) : -1;
out:
    bench_figures(b, &sm);
    b->roundtrip_p50_ms = -1;
    buf_free(&p);
    free(sm.fwd), free(sm.rt), free(xs), free(targets);
}

/* parity bench: each endpoint over the examples this environment ran. */
static void run_bench(px_runner *r, px_env_result *er)
{
    size_t *ok = calloc(r->res->n_examples ? r->res->n_examples : 1, sizeof *ok), n_ok = 0;
    px_bench *bench = calloc(r->opts.n_bench, sizeof *bench);
    if (!ok || !bench) {
        free(ok), free(bench);
        return;
    }
    for (size_t k = 0; k < r->res->n_examples; k++)
        if (er->ex[k].status == PX_ST_OK)
            ok[n_ok++] = k;
    for (size_t i = 0; i < r->opts.n_bench; i++) {
        bench[i].batch = r->opts.bench_batches[i] > 0 ? r->opts.bench_batches[i] : 1;
        bench[i].warmup = r->opts.bench_warmup;
        if (r->opts.bench_batches[i] < 0) { /* train-step:N */
            bench[i].train_steps = -r->opts.bench_batches[i];
            bench[i].lr = r->f->train.lr;
            bench[i].warmup = 0;
        }
        bench[i].p50_ms = bench[i].p90_ms = bench[i].p99_ms = bench[i].min_ms = bench[i].max_ms = -1;
        bench[i].roundtrip_p50_ms = bench[i].per_s = -1;
        set_progress(r, (int)(er - r->res->envs), -1);
        if (!n_ok)
            bench[i].stopped = strdup("no example ran in this environment: nothing to time");
        else if (must_stop(r))
            bench[i].stopped = strdup(stop_words(r)), bench[i].cut = 1;
        else if (bench[i].train_steps)
            bench_train(r, er, &bench[i], ok, n_ok);
        else
            bench_endpoint(r, er, &bench[i], ok, n_ok);
    }
    /* A benchmark cut short (a budget, an interrupt) cuts the environment's
     * run short: the results file says so, so that a check of it at home
     * exits 5 as the run here did, never "performance ok". */
    char cut[256] = "";
    for (size_t i = 0; i < r->opts.n_bench && !cut[0]; i++)
        if (bench[i].cut) {
            char name[32];
            snprintf(cut, sizeof cut, "%s, in the benchmark %s", bench[i].stopped ? bench[i].stopped : "stopped",
                     bench_endpoint_name(&bench[i], name, sizeof name));
        }
    pthread_mutex_lock(&r->mu);
    er->bench = bench;
    er->n_bench = r->opts.n_bench;
    if (cut[0] && !er->cut_short)
        er->cut_short = strdup(cut);
    pthread_mutex_unlock(&r->mu);
    free(ok);
    notify(r);
}

/* Results read from a file, or left out with -e, are not run. */
static int runs_here(const px_env_result *er) { return er->origin == PX_ORIGIN_RUN && er->selected; }

typedef void (*env_job)(px_runner *r, size_t e);

/* How many of the machine's cores environment e holds while it runs: its
 * threads (0, torch's default, is all of them); none for a device
 * environment, whose work is the device's. */
static int cores_of(const px_runner *r, size_t e)
{
    const px_env *env = &r->f->envs[r->res->envs[e].env_index];
    if (env->device && strcmp(env->device, "cpu") && strncmp(env->device, "cpu:", 4))
        return 0;
    return env->threads <= 0 || env->threads > r->cores ? r->cores : env->threads;
}

typedef struct worker {
    px_runner *r;
    size_t e;
    env_job job;
    pthread_t thread;
} worker;

static void job_done(px_runner *r, size_t e)
{
    set_progress(r, (int)e, -2);
    pthread_mutex_lock(&r->mu);
    r->sched[e] = 2;
    r->running--;
    r->busy -= cores_of(r, e);
    pthread_cond_broadcast(&r->sched_cv);
    pthread_mutex_unlock(&r->mu);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    w->job(w->r, w->e);
    job_done(w->r, w->e);
    return NULL;
}

/* Runs job for every environment that runs here, side by side as far as
 * the machine's cores allow: in fixture order, an environment starts when
 * the cores the running ones hold leave room for its threads (or nothing
 * runs); a device environment holds none, so it never waits for a CPU
 * one. parity bench runs one at a time: its timings are alone on the
 * machine. After a fatal error nothing more starts. Each environment's
 * work is its own (its child, its px_env_result); what they share is
 * under mu (results, progress), srv_mu (the fork server) or redact_mu. */
static void run_envs(px_runner *r, env_job job)
{
    size_t n = r->res->n_envs;
    worker *ws = calloc(n ? n : 1, sizeof *ws);
    char *threaded = calloc(n ? n : 1, 1);
    pthread_mutex_lock(&r->mu);
    for (size_t e = 0; e < n; e++)
        r->sched[e] = runs_here(&r->res->envs[e]) ? 0 : 2;
    r->running = r->busy = 0;
    for (;;) {
        int waiting = 0;
        for (size_t e = 0; e < n; e++) {
            if (r->sched[e] != 0)
                continue;
            if (halted(r)) {
                r->sched[e] = 2;
                continue;
            }
            int need = cores_of(r, e);
            int fits = r->opts.n_bench ? r->running == 0 : r->running == 0 || r->busy + need <= r->cores;
            if (!fits) {
                waiting = 1;
                continue;
            }
            r->sched[e] = 1;
            r->running++;
            r->busy += need;
            r->prog[e] = -1;
            if (ws && threaded) {
                ws[e] = (worker){r, e, job, 0};
                if (pthread_create(&ws[e].thread, NULL, worker_main, &ws[e]) == 0) {
                    threaded[e] = 1;
                    continue;
                }
            }
            /* No thread: it runs here, the others wait. */
            pthread_mutex_unlock(&r->mu);
            job(r, e);
            job_done(r, e);
            pthread_mutex_lock(&r->mu);
        }
        if (!waiting && !r->running)
            break;
        pthread_cond_wait(&r->sched_cv, &r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    for (size_t e = 0; e < n; e++)
        if (threaded && threaded[e])
            pthread_join(ws[e].thread, NULL);
    free(ws), free(threaded);
}

/* runner_rerun's job: examples again in a live executor. */
static void rerun_env(px_runner *r, size_t e)
{
    px_env_result *er = &r->res->envs[e];
    /* An environment that could not start stays down: not retried. */
    if (er->state == PX_ENV_UP)
        run_examples(r, er);
}

/* keep_alive: idle until runner_rerun asks for examples again, which run in
 * the live executors; until runner_wait or runner_stop. */
static void serve(px_runner *r)
{
    for (;;) {
        pthread_mutex_lock(&r->mu);
        r->serving = 1;
        __atomic_store_n(&r->done, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&r->mu);
        notify(r);
        pthread_mutex_lock(&r->mu);
        while (!r->req && !r->end_serving && stop_of(r) == PX_STOP_NONE)
            pthread_cond_wait(&r->cv, &r->mu);
        int go = r->req && !r->end_serving && stop_of(r) == PX_STOP_NONE;
        r->req = 0;
        r->serving = 0;
        if (go) {
            __atomic_store_n(&r->done, 0, __ATOMIC_SEQ_CST);
            r->opts.one_example = !r->req_all;
            r->opts.example = r->req_example;
        }
        pthread_mutex_unlock(&r->mu);
        if (!go)
            return;
        run_envs(r, rerun_env);
    }
}

int runner_rerun(px_runner *r, int all, size_t example)
{
    pthread_mutex_lock(&r->mu);
    int ok = r->serving && !r->req && !r->end_serving && stop_of(r) == PX_STOP_NONE &&
             (all || example < r->res->n_examples);
    /* One that is down is tried afresh by a new runner, not here. */
    for (size_t e = 0; ok && e < r->res->n_envs; e++)
        ok = !(runs_here(&r->res->envs[e]) && r->res->envs[e].state == PX_ENV_DOWN);
    if (ok) {
        r->req = 1, r->req_all = all, r->req_example = example;
        r->serving = 0;
        __atomic_store_n(&r->done, 0, __ATOMIC_SEQ_CST);
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return ok ? 0 : -1;
}

/* Whether the executor environment e needs is there: -1 with the words
 * (what is missing, how to choose another) in *err when not. */
static int executor_missing(const px_runner_opts *o, const px_env *e, px_error *err)
{
    if (e->python && (!o->script || access(o->script, R_OK)))
        return px_error_set(err, PX_ERR_ENV, o->script ? o->script : "parity_torch.py", 0, 0,
                            "cannot read the Python executor, which environment '%s' needs: %s "
                            "(build it with make, or install parity)",
                            e->name, o->script ? strerror(errno) : "not found");
    if (!e->python && (!o->executor || access(o->executor, X_OK)))
        return px_error_set(err, PX_ERR_ENV, o->executor ? o->executor : "parity-torch", 0, 0,
                            "cannot run the executor, which environment '%s' needs: %s (build it with make, "
                            "or pass --executor)",
                            e->name, o->executor ? strerror(errno) : "not found");
    return 0;
}

/* One environment's run: start-up, probe, examples, benchmark. */
static void run_env(px_runner *r, size_t e)
{
    px_env_result *er = &r->res->envs[e];
    set_progress(r, (int)e, -1);
    int stage = PX_STAGE_LOAD;
    char *msg = NULL, text[1200];
    if (!r->spawned[e]) {
        /* Its executor is missing or cannot start: this one is down at
         * load, the others run. */
        px_error_format(&r->errs[e], text, sizeof text);
        go_down(r, er, stage, strdup(text), 0);
        return;
    }
    int rc = start_child(r, er, 0, &stage, &msg);
    if (rc == -2) {
        /* Never up in this run: said as such, and why. */
        snprintf(text, sizeof text, "stopped during start-up: %s", stop_words(r));
        go_down(r, er, stage, strdup(text), 0);
        cut_short(r, er, 0, stop_words(r));
        return;
    }
    if (rc) {
        go_down(r, er, stage, msg, 0);
        return;
    }
    pthread_mutex_lock(&r->mu);
    er->state = PX_ENV_UP;
    pthread_mutex_unlock(&r->mu);
    notify(r);
    if (run_probe(r, er) == 0) {
        run_examples(r, er);
        if (r->opts.n_bench && er->state == PX_ENV_UP)
            run_bench(r, er);
    }
    char how[64];
    if (!r->opts.keep_alive)
        reap(r, &r->kids[e], 10, 0, how, sizeof how);
}

static void *runner_main(void *arg)
{
    px_runner *r = arg;
    /* Start every child at once: their libtorch start-ups overlap. */
    for (size_t e = 0; e < r->res->n_envs; e++) {
        const px_env *env = &r->f->envs[r->res->envs[e].env_index];
        r->spawned[e] = runs_here(&r->res->envs[e]) && !executor_missing(&r->opts, env, &r->errs[e]) &&
                        spawn_child(r, env, &r->kids[e], &r->errs[e]) == 0;
    }
    run_envs(r, run_env);
    if (r->opts.keep_alive && !r->fatal.code)
        serve(r);
    for (size_t e = 0; e < r->res->n_envs; e++) {
        char how[64];
        if (r->kids[e].pid)
            reap(r, &r->kids[e], 0, 1, how, sizeof how);
        if (r->fatal.code && runs_here(&r->res->envs[e])) {
            char why[1200];
            px_error_format(&r->fatal, why, sizeof why - 20);
            char line[1300];
            snprintf(line, sizeof line, "run stopped: %s", why);
            mark_rest(r, &r->res->envs[e], 0, line);
        }
        free(r->kids[e].shapes);
    }
    fork_server_stop(r);
    __atomic_store_n(&r->done, 1, __ATOMIC_SEQ_CST);
    notify(r);
    return NULL;
}

px_runner *runner_start(const px_fixture *f, const px_env_input *inputs, px_results *res,
                        const px_runner_opts *opts, px_error *err)
{
    px_runner *r = calloc(1, sizeof *r);
    if (!r) {
        px_error_oom(err, NULL);
        return NULL;
    }
    r->f = f, r->inputs = inputs, r->res = res;
    r->opts = *opts;
    pthread_mutex_init(&r->mu, NULL);
    pthread_mutex_init(&r->srv_mu, NULL);
    pthread_mutex_init(&r->redact_mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    pthread_cond_init(&r->sched_cv, NULL);
    r->wake[0] = r->wake[1] = -1;
    size_t n = res->n_envs ? res->n_envs : 1;
    r->kids = calloc(n, sizeof *r->kids);
    r->prog = malloc(n * sizeof *r->prog);
    r->sched = calloc(n, sizeof *r->sched);
    r->spawned = calloc(n, sizeof *r->spawned);
    r->errs = calloc(n, sizeof *r->errs);
    int oom = !r->kids || !r->prog || !r->sched || !r->spawned || !r->errs;
    if (oom || !(r->redact = fixture_redactor(f, err))) {
        if (oom)
            px_error_oom(err, NULL);
        runner_free(r);
        return NULL;
    }
    for (size_t e = 0; e < n; e++)
        r->prog[e] = -2;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    r->cores = cores < 1 ? 1 : cores > 4096 ? 4096 : (int)cores;
    if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK)) {
        r->wake[0] = r->wake[1] = -1;
        px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "pipe: %s", strerror(errno));
        runner_free(r);
        return NULL;
    }
    if (r->opts.budget_s > 0) {
        r->deadline = now_s() + r->opts.budget_s;
        snprintf(r->budget_words, sizeof r->budget_words, "budget (%g s) ran out", r->opts.budget_s);
    }
    snprintf(r->limit_words, sizeof r->limit_words, "beyond --max-examples %zu", r->opts.max_examples);
    /* A child that dies while we write to it must be an outcome, not SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    int rc = pthread_create(&r->thread, NULL, runner_main, r);
    if (rc) {
        px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "cannot start the runner thread: %s", strerror(rc));
        runner_free(r);
        return NULL;
    }
    r->started = 1;
    return r;
}

int runner_wait(px_runner *r, px_error *err)
{
    pthread_mutex_lock(&r->mu);
    r->end_serving = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (r->started) {
        pthread_join(r->thread, NULL);
        r->started = 0;
    }
    if (r->fatal.code) {
        if (err)
            *err = r->fatal;
        return -1;
    }
    return 0;
}

void runner_free(px_runner *r)
{
    if (!r)
        return;
    if (r->started) {
        runner_cancel(r);
        pthread_join(r->thread, NULL);
    }
    pthread_mutex_destroy(&r->mu);
    pthread_mutex_destroy(&r->srv_mu);
    pthread_mutex_destroy(&r->redact_mu);
    pthread_cond_destroy(&r->cv);
    pthread_cond_destroy(&r->sched_cv);
    for (int i = 0; i < 2; i++)
        if (r->wake[i] >= 0)
            close(r->wake[i]);
    free(r->kids);
    free(r->prog), free(r->sched), free(r->spawned), free(r->errs);
    redact_free(r->redact);
    free(r);
}

int runner_done(px_runner *r) { return __atomic_load_n(&r->done, __ATOMIC_SEQ_CST); }

pid_t runner_child_pid(px_runner *r, int env)
{
    pthread_mutex_lock(&r->mu);
    pid_t pid = env >= 0 && (size_t)env < r->res->n_envs ? r->kids[env].pid : 0;
    pthread_mutex_unlock(&r->mu);
    return pid;
}

/* The runner thread kills what it waits for itself (wait_frame wakes on
 * the pipe): no pid crosses threads. */
void runner_stop(px_runner *r, px_stop why)
{
    int none = PX_STOP_NONE;
    __atomic_compare_exchange_n(&r->stop, &none, (int)why, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (r->wake[1] >= 0) {
        ssize_t w = write(r->wake[1], "x", 1);
        (void)w;
    }
}

void runner_cancel(px_runner *r) { runner_stop(r, PX_STOP_CANCEL); }

px_stop runner_stopped(px_runner *r) { return stop_of(r); }

void runner_progress(px_runner *r, int *env, int *example, pid_t *pid)
{
    /* Environments run side by side: the first that is busy. */
    pthread_mutex_lock(&r->mu);
    *env = *example = -1;
    *pid = 0;
    for (size_t e = 0; e < r->res->n_envs; e++)
        if (r->prog[e] >= -1) {
            *env = (int)e;
            *example = r->prog[e];
            *pid = r->prog[e] >= 0 ? r->kids[e].pid : 0;
            break;
        }
    pthread_mutex_unlock(&r->mu);
}

void runner_lock(px_runner *r) { pthread_mutex_lock(&r->mu); }
void runner_unlock(px_runner *r) { pthread_mutex_unlock(&r->mu); }

const char *runner_env_name(px_runner *r, int env) { return r->res->envs[env].name; }
size_t runner_example_count(px_runner *r) { return r->res->n_examples; }

static char *joined(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void runner_locate(px_runner_opts *o, const char *executor, const char *python)
{
    char dir[4096];
    self_dir(dir, sizeof dir);
    const char *env = getenv("PARITY_TORCH");
    if (executor)
        o->executor = strdup(executor);
    else if (env && *env)
        o->executor = strdup(env);
    else {
        /* Beside parity in the build tree; installed, in ../libexec/parity/. */
        o->executor = dir[0] ? joined(dir, "parity-torch") : strdup("parity-torch");
        char *installed = dir[0] ? joined(dir, "../libexec/parity/parity-torch") : NULL;
        if (o->executor && access(o->executor, X_OK) && installed && access(installed, X_OK) == 0) {
            free((char *)o->executor);
            o->executor = installed;
            installed = NULL;
        }
        free(installed);
    }
    env = getenv("PARITY_PYTHON");
    o->python = strdup(python ? python : env && *env ? env : "python3");
    char *beside = joined(dir, "parity_torch.py");
    if (beside && access(beside, R_OK) == 0) {
        o->script = beside;
    } else {
        free(beside);
        o->script = joined(dir, "../libexec/parity/parity_torch.py");
    }
}

void runner_locate_free(px_runner_opts *o)
{
    free((char *)o->executor), free((char *)o->python), free((char *)o->script);
    o->executor = o->python = o->script = NULL;
}

int runner_check(const px_runner_opts *o, const px_fixture *f, const px_results *res, px_error *err)
{
    int python = 0;
    for (size_t i = 0; i < res->n_envs; i++)
        python |= runs_here(&res->envs[i]) && f->envs[res->envs[i].env_index].python;
    if (o->n_backend_modules && !python)
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0,
                            "--backend-module %s: only the Python executor imports modules, and no environment "
                            "that runs here has executor: python",
                            o->backend_modules[0]);
    /* An executor that is missing is one environment's, said as it being
     * down (executor_missing), not the whole run's. */
    return 0;
}
