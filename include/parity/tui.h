/* parity review: the review screen (src/tui/). */
#ifndef PARITY_TUI_H
#define PARITY_TUI_H

typedef struct px_tui_opts {
    const char *fixture, *theme, *color, *reviewer, *executor, *python, *backend_lib;
    const char *envs[64], *results[64]; /* -e, --results (each repeatable) */
    const char *modules[64];            /* --backend-module (repeatable) */
    const char *compile_backends[64];   /* --compile-backend ENV=NAME (repeatable) */
    int n_envs, n_results, n_modules, demo, no_run, n_compile_backends;
} px_tui_opts;

/* Runs the screen until the reviewer quits; returns an exit code. With
 * PARITY_KEYS=FILE keys come from FILE and the screen is drawn off-screen
 * at PARITY_SIZE (default 80x24), PARITY_DUMP_DIR receiving "dump" output. */
int tui_main(const px_tui_opts *o);

#endif
