/* The client side of parity-torch's fork server (protocol in parity/proto.h):
 * one server per runner, started when its first libtorch environment starts,
 * forks each executor so that libtorch's start-up is paid once per run. The
 * executors it forks are not parity's children: their exit status comes from
 * the server (EXITED), kept here until asked for. Not thread-safe: one
 * call at a time (the runner's environment threads take its srv_mu). */
#ifndef PARITY_FORKSRV_H
#define PARITY_FORKSRV_H

#include <sys/types.h>

typedef struct px_forksrv px_forksrv;

/* Whether executors go through a fork server: not when the environment says
 * PARITY_FORK_SERVER=0. */
int forksrv_wanted(void);
/* Starts `executor --serve` and waits for its HELLO, at most timeout_s, or
 * until wake_fd (>= 0) is readable (the run is stopping). NULL when it does
 * not serve (cannot start, ends, says anything else, speaks another
 * protocol): the caller then starts executors itself. */
px_forksrv *forksrv_start(const char *executor, double timeout_s, int wake_fd);
pid_t forksrv_pid(const px_forksrv *s);
/* Forks an executor with argv (its options, no program name) and fds as its
 * stdin, stdout and stderr. 0 with *pid; -1 when the server could not (it
 * is then dead to this run: forksrv_alive says 0). */
int forksrv_spawn(px_forksrv *s, const char *const *argv, const int fds[3], pid_t *pid);
/* Whether executor pid (forked by s) has ended: 1 with its wait status,
 * waiting at most timeout_s for it (0: just look); 0 when not yet. A server
 * gone takes its children with it (PR_SET_PDEATHSIG): they count as killed
 * by SIGKILL. */
int forksrv_wait(px_forksrv *s, pid_t pid, double timeout_s, int *status);
int forksrv_alive(const px_forksrv *s);
/* Closes the channel (the server kills what is left and exits) and reaps the
 * server. */
void forksrv_stop(px_forksrv *s);

#endif
