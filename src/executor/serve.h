/* parity-torch --serve (src/executor/serve.c): the fork server. */
#ifndef PARITY_EXECUTOR_SERVE_H
#define PARITY_EXECUTOR_SERVE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Runs prepare (what every executor would otherwise do for itself and the
 * server may do once: never a tensor operation, a device or a thread), then
 * serves SPAWN requests on stdin until parity closes it; each child runs
 * executor_main(argc, argv) with the argv it was sent and exits with what
 * it returns. Does not return. */
int serve_main(int (*executor_main)(int, char **), void (*prepare)(void));

#ifdef __cplusplus
}
#endif
#endif
