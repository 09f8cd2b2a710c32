/* describe_model (parity/describe.h): one executor, started as the runner
 * starts one (posix_spawn, its own process group, the same options and
 * environment; src/run/child.c), asked DESCRIBE after its READY (proto.h),
 * then ended by closing its stdin. Its stderr goes to a temporary file,
 * whose last line is the message when it ends without an answer. */
#define _GNU_SOURCE /* pipe2 */
#include "parity/describe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "parity/kind.h"
#include "parity/proto.h"
#include "parity/runner.h"

extern char **environ;

void describe_free(px_describe *d)
{
    for (size_t i = 0; i < d->n_args; i++)
        free(d->args[i]);
    free(d->args), free(d->returns), free(d->executor), free(d->torch_version);
    memset(d, 0, sizeof *d);
}

int describe_takes(const px_describe *d, const char *name)
{
    for (size_t i = 0; d->args_known && i < d->n_args; i++)
        if (!strcmp(d->args[i], name))
            return 1;
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One whole frame from fd into b (payload, pos 0) before deadline: 1, 0 at
 * EOF or on a bad header, -1 at the deadline. */
static int read_frame(int fd, px_buf *rx, uint32_t *type, px_buf *b, double deadline)
{
    for (;;) {
        size_t len;
        int ready = proto_frame_ready(rx->data, rx->len, type, &len);
        if (ready < 0)
            return 0;
        if (ready) {
            buf_reset(b);
            buf_put(b, rx->data + PX_FRAME_HEADER, len - PX_FRAME_HEADER);
            memmove(rx->data, rx->data + len, rx->len - len);
            rx->len -= len;
            return 1;
        }
        double left = deadline - now_s();
        if (left <= 0)
            return -1;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
            return 0;
        char chunk[65536];
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            return 0;
        if (n > 0)
            buf_put(rx, chunk, (size_t)n);
    }
}

/* The last non-empty line the executor wrote on stderr (malloc'd). */
static char *last_line(FILE *f)
{
    char line[1024] = "", last[1024] = "";
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0])
            snprintf(last, sizeof last, "%s", line);
    }
    return strdup(last);
}

/* A FAIL frame's words, their first non-empty line (a TorchScript load
 * error's says what; malloc'd), or NULL when malformed. An interpreter
 * without torch is told how to choose another, as run tells it (child.c). */
static char *fail_text(px_buf *b)
{
    buf_get_u32(b);
    uint32_t kind = buf_get_u32(b);
    char *m = buf_get_str(b);
    if (b->bad) {
        free(m);
        return NULL;
    }
    const char *s = m + strspn(m, " \t\r\n");
    size_t n = strcspn(s, "\r\n");
    static const char hint[] = "; choose an interpreter that has torch with --python PATH or PARITY_PYTHON";
    char *line = malloc(n + sizeof hint);
    if (line)
        snprintf(line, n + sizeof hint, "%.*s%s", (int)n, s, kind == PX_FAIL_NO_TORCH ? hint : "");
    free(m);
    return line;
}

static int decode_described(px_buf *b, px_describe *d)
{
    d->args_known = (int)buf_get_u32(b);
    uint32_t n = buf_get_u32(b);
    if (b->bad || n > 4096)
        return -1;
    d->args = calloc(n ? n : 1, sizeof *d->args);
    if (!d->args)
        return -1;
    for (uint32_t i = 0; i < n && !b->bad; i++)
        if ((d->args[i] = buf_get_str(b)))
            d->n_args++;
    d->returns = buf_get_str(b);
    d->max_positions = (long)buf_get_i64(b);
    d->head = (long)buf_get_i64(b);
    d->hidden = (long)buf_get_i64(b);
    return b->bad ? -1 : 0;
}

/* The conversation with a started executor: READY, then DESCRIBE's answer. */
static int converse(int to, int from, const char *prog, double deadline, FILE *errf, px_describe *d, px_error *err)
{
    px_buf rx = {0}, b = {0}, req = {0};
    uint32_t type = 0;
    int rc = -1, got = read_frame(from, &rx, &type, &b, deadline);
    char *why = NULL;
    if (got == 1 && type == PX_FRAME_READY) {
        uint32_t version = buf_get_u32(&b);
        if (version != PX_PROTO_VERSION) {
            px_error_set(err, PX_ERR_ENV, prog, 0, 0,
                         "this executor speaks another protocol (its READY says version %u; this parity speaks %u): "
                         "use the one built with this parity",
                         version, PX_PROTO_VERSION);
            goto out;
        }
        d->executor = buf_get_str(&b);
        free(buf_get_str(&b)); /* runtime */
        d->torch_version = buf_get_str(&b);
        proto_begin(&req, PX_FRAME_DESCRIBE);
        proto_end(&req);
        if (req.bad || proto_write_all(to, req.data, req.len)) {
            got = 0;
        } else {
            got = read_frame(from, &rx, &type, &b, deadline);
        }
        if (got == 1 && type == PX_FRAME_DESCRIBED) {
            if (decode_described(&b, d))
                px_error_set(err, PX_ERR_ENV, prog, 0, 0, "protocol: malformed DESCRIBED frame");
            else
                rc = 0;
            goto out;
        }
    }
    if (got == 1 && type == PX_FRAME_FAIL && (why = fail_text(&b)))
        px_error_set(err, PX_ERR_ENV, prog, 0, 0, "cannot describe the model: %s", why);
    else if (got == 1)
        px_error_set(err, PX_ERR_ENV, prog, 0, 0, "protocol: an unexpected frame where DESCRIBED was due "
                                                  "(an executor of another parity?)");
    else if (got < 0)
        px_error_set(err, PX_ERR_ENV, prog, 0, 0, "no answer within the start-up timeout");
    else {
        why = last_line(errf);
        px_error_set(err, PX_ERR_ENV, prog, 0, 0, "executor ended before it described the model%s%s",
                     why && *why ? ": " : "", why ? why : "");
    }
out:
    free(why);
    buf_free(&rx), buf_free(&b), buf_free(&req);
    return rc;
}

int describe_model(const char *path, enum px_model_format fmt, int python, const px_runner_opts *where,
                   double timeout_s, px_describe *d, px_error *err)
{
    return describe_model_kind(path, fmt, kind_named("classifier")->id, python, where, timeout_s, d, err);
}

int describe_model_kind(const char *path, enum px_model_format fmt, enum px_model_kind kind, int python,
                        const px_runner_opts *where, double timeout_s, px_describe *d, px_error *err)
{
    memset(d, 0, sizeof *d);
    px_runner_opts located = {0};
    if (!where) {
        runner_locate(&located, NULL, NULL);
        where = &located;
    }
    const char *prog = python ? where->python : where->executor;
    const char *argv[24];
    int a = 0;
    argv[a++] = prog;
    if (python)
        argv[a++] = where->script;
    argv[a++] = "--model", argv[a++] = path;
    argv[a++] = "--format", argv[a++] = fixture_format_name(fmt);
    size_t n_kinds;
    const px_kind *kinds = kind_all(&n_kinds);
    argv[a++] = "--kind", argv[a++] = kinds[(size_t)kind < n_kinds ? (size_t)kind : 0].name;
    argv[a++] = "--device", argv[a++] = "cpu";
    argv[a++] = "--dtype", argv[a++] = "float32";
    argv[a++] = "--threads", argv[a++] = "1";
    argv[a] = NULL;
    int in[2] = {-1, -1}, out[2] = {-1, -1}, rc = -1;
    FILE *errf = tmpfile();
    if (!errf || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
        px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "cannot start the executor: %s", strerror(errno));
        goto done;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid = 0;
    int e = (python ? posix_spawnp : posix_spawn)(&pid, prog, &fa, &at, (char *const *)argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]), close(out[1]);
    in[0] = out[1] = -1;
    if (e) {
        px_error_set(err, PX_ERR_ENV, prog, 0, 0,
                     python ? "cannot start this Python interpreter: %s (choose one that has torch with --python "
                              "PATH or PARITY_PYTHON)"
                            : "cannot start the executor: %s",
                     strerror(e));
        goto done;
    }
    /* SIGPIPE when the executor is gone before DESCRIBE is written: an
     * error, not parity's end. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    rc = converse(in[1], out[0], python ? where->script : prog, now_s() + (timeout_s > 0 ? timeout_s : 120), errf, d,
                  err);
    close(in[1]);
    in[1] = -1;
    /* The executor exits at the end of its stdin; one that does not within
     * a few seconds is ended with what it started. */
    int st;
    double until = now_s() + 5;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (now_s() > until) {
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            break;
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    sigaction(SIGPIPE, &old, NULL);
done:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
    }
    if (errf)
        fclose(errf);
    if (rc)
        describe_free(d);
    runner_locate_free(&located);
    return rc;
}
