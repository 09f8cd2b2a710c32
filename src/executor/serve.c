/* parity-torch --serve: the fork server (control protocol in
 * include/parity/proto.h). By the time main runs, libtorch is linked and
 * its static initialisers have run: that is the start-up every executor
 * would pay, paid once here. The server then only forks: it runs no tensor
 * operation and touches no device, thread pool or backend library, so that
 * every child starts as a fresh executor would (OpenMP's threads do not
 * survive a fork; none exist here). Plain C: nothing here needs libtorch. */
#define _GNU_SOURCE /* pipe2 */
#include "serve.h"

#include "parity/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define CTL 0 /* the control channel: parity gave it as stdin (and stdout) */

static int sigchld_pipe[2] = {-1, -1};

static void on_sigchld(int sig)
{
    (void)sig;
    int saved = errno;
    ssize_t w = write(sigchld_pipe[1], "c", 1); /* full: a wake-up is pending */
    (void)w;
    errno = saved;
}

/* The children alive now (pids), for the end: killed with the server. */
static pid_t *kids;
static size_t n_kids, cap_kids;

static void kids_add(pid_t pid)
{
    if (n_kids == cap_kids) {
        size_t cap = cap_kids ? 2 * cap_kids : 16;
        pid_t *p = realloc(kids, cap * sizeof *p);
        if (!p)
            return; /* it still dies with the server (PR_SET_PDEATHSIG) */
        kids = p, cap_kids = cap;
    }
    kids[n_kids++] = pid;
}

static void kids_remove(pid_t pid)
{
    for (size_t i = 0; i < n_kids; i++)
        if (kids[i] == pid) {
            kids[i] = kids[--n_kids];
            return;
        }
}

static int reply(uint32_t type, int64_t pid, uint32_t value)
{
    px_buf b = {0};
    proto_begin(&b, type);
    buf_put_i64(&b, pid);
    buf_put_u32(&b, value);
    proto_end(&b);
    int rc = proto_send_packet(CTL, &b, NULL, 0);
    buf_free(&b);
    return rc;
}

/* In the child: becomes the executor that argv describes. Never returns. */
static void become_executor(int (*executor_main)(int, char **), pid_t server, char **argv, int argc,
                            const int fds[3])
{
    signal(SIGCHLD, SIG_DFL);
    close(sigchld_pipe[0]), close(sigchld_pipe[1]);
    setpgid(0, 0);
    /* Die with the server, which dies with parity; if the server is gone
     * already, the prctl came too late: leave now. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != server)
        _exit(1);
    for (int i = 0; i < 3; i++)
        if (dup2(fds[i], i) < 0)
            _exit(1);
    for (int i = 0; i < 3; i++)
        close(fds[i]); /* never 0..2: those were taken when they arrived */
    int rc = executor_main(argc, argv);
    /* _exit: libtorch's static destructors have nothing to save at the end,
     * and after a fork they would copy every page they touch (its tables
     * are shared with the server until written): that took longer than the
     * run. What the executor says goes out unbuffered (write, stderr). */
    fflush(NULL);
    _exit(rc);
}

/* SPAWN: argc, argv (without the program name), three descriptors. */
static int spawn(int (*executor_main)(int, char **), px_buf *p, const int *fds, int n_fds)
{
    uint32_t argc = buf_get_u32(p);
    if (p->bad || n_fds != 3 || argc > PX_CTL_MAX / 4)
        return reply(PX_FRAME_SPAWNED, 0, EINVAL);
    char **argv = calloc((size_t)argc + 2, sizeof *argv);
    if (!argv)
        return reply(PX_FRAME_SPAWNED, 0, ENOMEM);
    argv[0] = "parity-torch";
    for (uint32_t i = 0; i < argc && !p->bad; i++)
        argv[i + 1] = buf_get_str(p);
    int err = p->bad ? EINVAL : 0;
    pid_t pid = 0;
    if (!err) {
        pid = fork();
        if (pid == 0)
            become_executor(executor_main, getppid(), argv, (int)argc + 1, fds);
        if (pid < 0)
            err = errno, pid = 0;
    }
    if (pid > 0) {
        /* Its own group before parity hears of it: parity kills the group. */
        setpgid(pid, pid);
        kids_add(pid);
    }
    for (uint32_t i = 0; i < argc; i++)
        free(argv[i + 1]);
    free(argv);
    return reply(PX_FRAME_SPAWNED, pid, (uint32_t)err);
}

/* Every child that ended: EXITED with its status. */
static int reap_all(void)
{
    char drain[64];
    while (read(sigchld_pipe[0], drain, sizeof drain) > 0)
        ;
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        kids_remove(pid);
        if (reply(PX_FRAME_EXITED, pid, (uint32_t)st))
            return -1;
    }
    return 0;
}

int serve_main(int (*executor_main)(int, char **), void (*prepare)(void))
{
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        return 1;
    /* The control channel is stdin; what the server's libraries might print
     * goes to stderr (/dev/null), never into the channel. */
    dup2(2, 1);
    if (pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK))
        return 1;
    struct sigaction sa = {0};
    sa.sa_handler = on_sigchld;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (prepare)
        prepare();

    px_buf b = {0};
    proto_begin(&b, PX_FRAME_HELLO);
    buf_put_u32(&b, PX_PROTO_VERSION);
    proto_end(&b);
    int rc = proto_send_packet(CTL, &b, NULL, 0);
    while (rc == 0) {
        struct pollfd p[2] = {{CTL, POLLIN, 0}, {sigchld_pipe[0], POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents && reap_all())
            break;
        if (!p[0].revents)
            continue;
        uint32_t type = 0;
        int fds[PX_CTL_MAX_FDS], n_fds = 0;
        int got = proto_recv_packet(CTL, &type, &b, fds, PX_CTL_MAX_FDS, &n_fds);
        if (got <= 0)
            break; /* parity closed the channel (or broke it): the end */
        rc = type == PX_FRAME_SPAWN ? spawn(executor_main, &b, fds, n_fds) : reply(PX_FRAME_SPAWNED, 0, EINVAL);
        for (int i = 0; i < n_fds; i++)
            close(fds[i]); /* the child has its copies */
    }
    buf_free(&b);
    /* Nothing outlives the server: what is left is killed (it would die of
     * PR_SET_PDEATHSIG anyway, a moment later). */
    for (size_t i = 0; i < n_kids; i++)
        kill(-kids[i], SIGKILL), kill(kids[i], SIGKILL);
    free(kids);
    _exit(0); /* as a child ends, without the static destructors */
}
