/* parity bench's timings (bench_run.c), run by the runner after an
 * environment's examples. */
#ifndef PARITY_BENCH_RUN_H
#define PARITY_BENCH_RUN_H

#include "run_state.h"

/* parity bench: each endpoint of r's options (n_bench) over the examples
 * environment er ran ok, in its live executor (restarted when it ends),
 * into er->bench; one cut short (the budget, an interrupt) cuts er's run
 * short. */
void bench_run(px_runner *r, px_env_result *er);

#endif
