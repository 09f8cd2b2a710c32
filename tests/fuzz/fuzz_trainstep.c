/* libFuzzer harness: trainstep_decode and trainend_decode (include/parity/
 * trainrun.h) must turn any bytes into a run that keeps every promise of
 * trainrun.h, or refusals that leave the result as it was, never a crash,
 * leak or hang. The input: one byte (the run's steps, 1 .. 32), then frames
 * as an executor writes them after a TRAINRUN (TRAINSTEP..., TRAINEND),
 * each decoded as the runner does until one is refused. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/trainrun.h"

static void check_steps(const px_example_result *x, uint32_t steps)
{
    const px_train_out *t = x->train;
    if (!t || !x->values || t->n_steps < 1 || t->n_steps > steps || x->n_values != t->n_steps || x->ndim != 2 ||
        x->shape[0] != 1 || x->shape[1] != (int64_t)t->n_steps)
        abort();
    volatile double sum = 0; /* every value readable (ASan) */
    for (size_t s = 0; s < t->n_steps; s++) {
        if (!(t->step_ms[s] >= 0) || isinf(t->step_ms[s]) || !isfinite(t->lr[s]) || t->grad_norm[s] < 0 ||
            t->update_norm[s] < 0)
            abort();
        sum += x->values[s] + t->grad_norm[s] + t->update_norm[s];
    }
    (void)sum;
}

static void check_end(const px_example_result *x, uint32_t steps)
{
    const px_train_out *t = x->train;
    check_steps(x, steps);
    if (t->n_steps != steps || !x->dtype || t->processes < 1 || t->n_groups < 1 || t->n_groups > PX_TRAIN_MAX_GROUPS ||
        !(t->startup_ms >= 0) || !(t->total_ms >= 0) || isinf(t->total_ms) || x->forward_ms != t->total_ms)
        abort();
    for (size_t i = 0; i < t->n_groups; i++) {
        int k = trainrun_group_index(t->groups[i].name);
        if (k < 0 || t->groups[i].numel < 1 || t->groups[i].norm < 0 || t->groups[i].delta_norm < 0)
            abort();
        for (size_t j = 0; j < i; j++)
            if (!strcmp(t->groups[j].name, t->groups[i].name))
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint32_t steps = data[0] % 32 + 1;
    size_t at = 1;
    px_example_result x = {.label = -1, .forward_ms = -1};
    px_buf p = {0};
    for (;;) {
        uint32_t type;
        size_t len;
        if (proto_frame_ready(data + at, size - at, &type, &len) != 1)
            break;
        buf_reset(&p);
        buf_put(&p, data + at + PX_FRAME_HEADER, len - PX_FRAME_HEADER);
        at += len;
        size_t before = x.train ? x.train->n_steps : 0;
        char why[200];
        if (type == PX_FRAME_TRAINSTEP) {
            if (trainstep_decode(&p, &x, steps, why, sizeof why)) {
                if ((x.train ? x.train->n_steps : 0) != before || x.n_values != before)
                    abort();
                break;
            }
            check_steps(&x, steps);
        } else if (type == PX_FRAME_TRAINEND) {
            if (trainend_decode(&p, &x, steps, why, sizeof why)) {
                if (x.dtype || (x.train && x.train->groups))
                    abort();
                break;
            }
            check_end(&x, steps);
            break;
        } else {
            break;
        }
    }
    buf_free(&p);
    example_result_clear(&x);
    return 0;
}
