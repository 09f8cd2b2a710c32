/* parity-torch --serve (src/executor/serve.c): the fork server. */
#ifndef PARITY_EXECUTOR_SERVE_H
#define PARITY_EXECUTOR_SERVE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Serves SPAWN requests on stdin until parity closes it; each child runs
 * executor_main(argc, argv) with the argv it was sent and exits with what
 * it returns. Returns the server's exit status. */
int serve_main(int (*executor_main)(int, char **));

#ifdef __cplusplus
}
#endif
#endif
