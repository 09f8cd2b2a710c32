/* libFuzzer harness: denoised_decode (include/parity/denoise.h) must turn
 * any bytes into a result that keeps every promise of denoise.h, or a
 * refusal that leaves the result as it was with nothing allocated, never a
 * crash, leak or hang. The input is the DENOISED payload. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/denoise.h"

static void check(const px_example_result *x)
{
    const px_image_out *g = x->img;
    if (!g || !x->dtype || x->ndim != 4 || x->shape[0] != 1)
        abort();
    for (int i = 1; i < 4; i++)
        if (x->shape[i] < 1)
            abort();
    if (x->shape[1] > PX_IMAGE_MAX_SIDE || x->shape[2] > PX_IMAGE_MAX_SIDE || x->shape[3] > 4 ||
        x->n_values != (size_t)(x->shape[1] * x->shape[2] * x->shape[3]))
        abort();
    if (strlen(g->noise_sha256) != 64 || g->latent_count < 1 || g->latent_count > PX_IMAGE_MAX_LATENT)
        abort();
    if (g->n_steps < 1 || g->n_steps > PX_IMAGE_MAX_RECORDED || g->steps < 1 || g->steps > (int)PX_IMAGE_MAX_STEPS)
        abort();
    for (size_t k = 0; k < g->n_steps; k++)
        if (g->step[k] < 0 || g->step[k] >= g->steps || (k && g->step[k] <= g->step[k - 1]))
            abort();
    if (g->step[g->n_steps - 1] != g->steps - 1 || !(g->first_ms >= 0) || !(x->forward_ms >= 0) ||
        isinf(g->first_ms) || isinf(x->forward_ms))
        abort();
    volatile double sum = 0; /* every value readable (ASan) */
    for (size_t i = 0; i < x->n_values; i++)
        sum += x->values[i];
    for (size_t i = 0; i < g->n_steps * g->latent_count; i++)
        sum += g->latents[i];
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    px_buf b = {0};
    buf_put(&b, data, size);
    px_example_result x = {.label = -1, .forward_ms = -1};
    char why[200];
    if (denoised_decode(&b, &x, why, sizeof why) == 0) {
        check(&x);
        example_result_clear(&x);
    } else if (x.values || x.img || x.dtype || x.n_values) {
        abort();
    }
    buf_free(&b);
    return 0;
}
