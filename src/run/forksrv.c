#define _GNU_SOURCE /* pipe2 */
#include "parity/forksrv.h"
#include "parity/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* An executor the server forked: its status once EXITED said it. */
typedef struct served {
    pid_t pid;
    int ended, status;
} served;

struct px_forksrv {
    pid_t pid;
    int sock;  /* -1 once the server is gone */
    served *kids;
    size_t n_kids, cap_kids;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int forksrv_wanted(void)
{
    const char *v = getenv("PARITY_FORK_SERVER");
    return !(v && !strcmp(v, "0"));
}

pid_t forksrv_pid(const px_forksrv *s) { return s->pid; }
int forksrv_alive(const px_forksrv *s) { return s->sock >= 0; }

static served *find(px_forksrv *s, pid_t pid)
{
    for (size_t i = 0; i < s->n_kids; i++)
        if (s->kids[i].pid == pid)
            return &s->kids[i];
    return NULL;
}

/* The server is gone (or broke the protocol): it is not used again, and
 * its children died with it (PR_SET_PDEATHSIG). */
static void lost(px_forksrv *s)
{
    if (s->sock >= 0) {
        close(s->sock);
        s->sock = -1;
        kill(-s->pid, SIGKILL);
    }
    for (size_t i = 0; i < s->n_kids; i++)
        if (!s->kids[i].ended) {
            kill(-s->kids[i].pid, SIGKILL);
            s->kids[i].ended = 1;
            s->kids[i].status = SIGKILL; /* a wait status: killed by SIGKILL */
        }
}

/* Waits at most timeout_s (< 0: no limit) for one packet; an EXITED is
 * recorded here. Returns 1 with a packet that is not EXITED, 2 when an
 * EXITED was recorded, 0 on timeout or a wake-up on wake_fd, -1 when the
 * server is gone. */
static int next_packet(px_forksrv *s, double timeout_s, int wake_fd, uint32_t *type, px_buf *b)
{
    double deadline = now_s() + timeout_s;
    for (;;) {
        if (s->sock < 0)
            return -1;
        double left = deadline - now_s();
        int ms = timeout_s < 0 ? -1 : left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
        struct pollfd p[2] = {{s->sock, POLLIN, 0}, {wake_fd, POLLIN, 0}};
        int n = poll(p, wake_fd >= 0 ? 2 : 1, ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            lost(s);
            return -1;
        }
        if (n == 0 || (!p[0].revents && p[1].revents))
            return 0;
        int fds[PX_CTL_MAX_FDS], n_fds = 0;
        int got = proto_recv_packet(s->sock, type, b, fds, PX_CTL_MAX_FDS, &n_fds);
        for (int i = 0; i < n_fds; i++)
            close(fds[i]); /* the server sends none */
        if (got <= 0) {
            lost(s);
            return -1;
        }
        if (*type != PX_FRAME_EXITED)
            return 1;
        pid_t pid = (pid_t)buf_get_i64(b);
        int st = (int)buf_get_u32(b);
        served *k = find(s, pid);
        if (b->bad || !k) {
            lost(s);
            return -1;
        }
        k->ended = 1, k->status = st;
        return 2;
    }
}

/* The next packet that is not EXITED, waiting at most timeout_s in all:
 * as next_packet, never 2. */
static int next_answer(px_forksrv *s, double timeout_s, int wake_fd, uint32_t *type, px_buf *b)
{
    double deadline = now_s() + timeout_s;
    int got;
    do {
        double left = deadline - now_s();
        got = next_packet(s, timeout_s < 0 ? -1 : left > 0 ? left : 0, wake_fd, type, b);
    } while (got == 2);
    return got;
}

px_forksrv *forksrv_start(const char *executor, double timeout_s, int wake_fd)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
        return NULL;
    px_forksrv *s = calloc(1, sizeof *s);
    if (!s) {
        close(sv[0]), close(sv[1]);
        return NULL;
    }
    s->sock = sv[0];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* Its own process group, as every executor: the terminal's Ctrl-C
     * reaches parity alone. */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    char *const argv[] = {(char *)executor, "--serve", NULL};
    int rc = posix_spawn(&s->pid, executor, &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc) {
        close(s->sock);
        free(s);
        return NULL;
    }
    px_buf b = {0};
    uint32_t type = 0;
    int got = next_answer(s, timeout_s, wake_fd, &type, &b);
    int ok = got == 1 && type == PX_FRAME_HELLO && buf_get_u32(&b) == PX_PROTO_VERSION && !b.bad;
    buf_free(&b);
    if (!ok) {
        /* Not a server of this parity (an older executor, another program),
         * or the run is stopping: it goes at once, and parity starts
         * executors itself. */
        kill(s->pid, SIGKILL);
        forksrv_stop(s);
        return NULL;
    }
    return s;
}

int forksrv_spawn(px_forksrv *s, const char *const *argv, const int fds[3], pid_t *pid)
{
    *pid = 0;
    if (s->sock < 0)
        return -1;
    if (s->n_kids == s->cap_kids) {
        size_t cap = s->cap_kids ? 2 * s->cap_kids : 8;
        served *k = realloc(s->kids, cap * sizeof *k);
        if (!k)
            return -1;
        s->kids = k, s->cap_kids = cap;
    }
    px_buf b = {0};
    proto_begin(&b, PX_FRAME_SPAWN);
    uint32_t argc = 0;
    while (argv[argc])
        argc++;
    buf_put_u32(&b, argc);
    for (uint32_t i = 0; i < argc; i++)
        buf_put_str(&b, argv[i]);
    proto_end(&b);
    int rc = -1;
    uint32_t type = 0;
    if (b.len <= PX_CTL_MAX && proto_send_packet(s->sock, &b, fds, 3) == 0 &&
        next_answer(s, 30, -1, &type, &b) == 1 && type == PX_FRAME_SPAWNED) {
        pid_t got = (pid_t)buf_get_i64(&b);
        uint32_t err = buf_get_u32(&b);
        if (!b.bad && got > 0 && !err) {
            s->kids[s->n_kids++] = (served){got, 0, 0};
            *pid = got;
            rc = 0;
        }
    }
    buf_free(&b);
    if (rc)
        lost(s); /* a server that cannot fork will not later: not used again */
    return rc;
}

int forksrv_wait(px_forksrv *s, pid_t pid, double timeout_s, int *status)
{
    served *k = find(s, pid);
    if (!k)
        return 1; /* not one of its children: nothing to wait for */
    double deadline = now_s() + timeout_s;
    px_buf b = {0};
    while (!k->ended) {
        double left = deadline - now_s();
        uint32_t type;
        int got = next_packet(s, left > 0 ? left : 0, -1, &type, &b);
        if (got == 1)
            lost(s); /* only EXITED comes unasked */
        if (got == 0)
            break; /* not within timeout_s */
    }
    buf_free(&b);
    if (!k->ended)
        return 0;
    *status = k->status;
    *k = s->kids[--s->n_kids]; /* reported once: forgotten */
    return 1;
}

void forksrv_stop(px_forksrv *s)
{
    if (!s)
        return;
    if (s->sock >= 0)
        close(s->sock);
    /* It exits as soon as it reads the end; one that does not is killed. */
    int st;
    double deadline = now_s() + 2;
    while (waitpid(s->pid, &st, WNOHANG) == 0) {
        if (now_s() >= deadline) {
            kill(-s->pid, SIGKILL);
            kill(s->pid, SIGKILL);
            waitpid(s->pid, &st, 0);
            break;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    free(s->kids);
    free(s);
}
