/* A training run's learning-rate schedule and the recipe's words
 * (recipe.h). */
#include "parity/recipe.h"

#include <math.h>

void recipe_lr(const px_recipe *r, double *lr)
{
    int w = r->warmup_steps > 0 ? r->warmup_steps : 0;
    int n = r->steps - w;
    for (int s = 0; s < r->steps; s++) {
        if (s < w) {
            lr[s] = r->lr * (double)(s + 1) / (double)(w + 1);
            continue;
        }
        double t = n > 1 ? (double)(s - w) / (double)(n - 1) : 0;
        switch (r->decay) {
        case PX_DECAY_LINEAR: lr[s] = r->lr * (1 - (1 - r->decay_min) * t); break;
        case PX_DECAY_COSINE: lr[s] = r->lr * (r->decay_min + (1 - r->decay_min) * (1 + cos(M_PI * t)) / 2); break;
        default: lr[s] = r->lr; break;
        }
    }
}

const char *recipe_optimizer_name(enum px_optimizer o)
{
    return o == PX_OPT_SGD ? "sgd" : "adamw";
}

const char *recipe_decay_name(enum px_lr_decay d)
{
    return d == PX_DECAY_LINEAR ? "linear" : d == PX_DECAY_COSINE ? "cosine" : "none";
}

const char *recipe_strategy_name(enum px_strategy s)
{
    return s == PX_PAR_DDP ? "ddp" : s == PX_PAR_FSDP ? "fsdp" : "";
}
