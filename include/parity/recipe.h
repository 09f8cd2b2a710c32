/* A training run's recipe as numbers every environment is handed alike
 * (fixture.h px_recipe; issue 40): each step's learning rate, computed
 * here once, so that no two executors can schedule it differently. */
#ifndef PARITY_RECIPE_H
#define PARITY_RECIPE_H

#include "parity/fixture.h"

/* lr[0 .. r->steps-1]: step s (0-based) below warmup_steps runs at
 * lr * (s + 1) / (warmup_steps + 1) (TorchTitan's linear warm-up); after
 * it, with n = steps - warmup_steps and t = (s - warmup_steps) / max(1,
 * n - 1) in [0, 1]: none, lr; linear, lr * (1 - (1 - decay_min) * t);
 * cosine, lr * (decay_min + (1 - decay_min) * (1 + cos(pi * t)) / 2). */
void recipe_lr(const px_recipe *r, double *lr);

/* "adamw", "sgd"; "none", "linear", "cosine"; "ddp", "fsdp" ("" for none). */
const char *recipe_optimizer_name(enum px_optimizer o);
const char *recipe_decay_name(enum px_lr_decay d);
const char *recipe_strategy_name(enum px_strategy s);

#endif
