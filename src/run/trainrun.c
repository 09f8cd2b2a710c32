/* TRAINRUN encoded, TRAINSTEP and TRAINEND decoded strictly
 * (include/parity/trainrun.h). */
#include "parity/trainrun.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trainrun_request_encode(px_buf *b, const px_trainrun_req *q)
{
    proto_begin(b, PX_FRAME_TRAINRUN);
    buf_put_u32(b, q->steps);
    buf_put_u32(b, q->batch_size);
    buf_put_u32(b, q->seq_len);
    buf_put_u32(b, q->optimizer);
    buf_put_f64(b, q->beta1);
    buf_put_f64(b, q->beta2);
    buf_put_f64(b, q->eps);
    buf_put_f64(b, q->weight_decay);
    buf_put_f64(b, q->momentum);
    buf_put_f64(b, q->clip_grad_norm);
    buf_put_i64(b, (int64_t)q->seed);
    for (uint32_t s = 0; s < q->steps; s++)
        buf_put_f64(b, q->lr[s]);
    buf_put_u32(b, q->n_windows);
    size_t n = (size_t)q->n_windows * ((size_t)q->seq_len + 1);
    for (size_t i = 0; i < n; i++)
        buf_put_i64(b, q->windows[i]);
    proto_end(b);
}

static int refuse(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

static size_t left(const px_buf *p) { return p->bad || p->pos > p->len ? 0 : p->len - p->pos; }

/* A time: finite, not negative. */
static int is_time(double t) { return isfinite(t) && t >= 0; }

int trainstep_decode(px_buf *p, px_example_result *x, uint32_t steps, char *why, size_t n)
{
    size_t next = x->train ? x->train->n_steps : 0;
    uint32_t step = buf_get_u32(p);
    double loss = buf_get_f64(p), grad = buf_get_f64(p), upd = buf_get_f64(p), lr = buf_get_f64(p);
    double ms = buf_get_f64(p);
    uint32_t compiled = buf_get_u32(p);
    if (p->bad)
        return refuse(why, n, "truncated TRAINSTEP");
    if (p->pos != p->len)
        return refuse(why, n, "%zu bytes after its fields", p->len - p->pos);
    if (steps < 1 || steps > PX_TRAIN_RUN_MAX_STEPS || next >= steps)
        return refuse(why, n, "step %u after the run's %u steps", step, steps);
    if (step != next)
        return refuse(why, n, "step %u where step %zu was due (steps come in order)", step, next);
    if (!is_time(ms))
        return refuse(why, n, "step %u's time %g ms", step, ms);
    if (!isfinite(lr))
        return refuse(why, n, "step %u's learning rate %g", step, lr);
    /* The norms may be NaN or infinite (a run that diverged: an outcome,
     * not a broken frame), never negative. */
    if (grad < 0 || upd < 0)
        return refuse(why, n, "step %u's norms %g and %g (negative)", step, grad, upd);
    if (compiled > PX_COMPILED_YES)
        compiled = PX_COMPILED_UNKNOWN;
    if (next == 0) {
        px_train_out *t = calloc(1, sizeof *t);
        double *v = malloc(steps * sizeof *v);
        if (t) {
            t->grad_norm = malloc(steps * sizeof *t->grad_norm);
            t->update_norm = malloc(steps * sizeof *t->update_norm);
            t->lr = malloc(steps * sizeof *t->lr);
            t->step_ms = malloc(steps * sizeof *t->step_ms);
        }
        if (!t || !v || !t->grad_norm || !t->update_norm || !t->lr || !t->step_ms) {
            free(v);
            train_out_free(t);
            return refuse(why, n, "out of memory");
        }
        t->processes = 1;
        free(x->values);
        x->values = v;
        x->train = t;
        x->compiled = (int8_t)compiled;
    } else if (compiled == PX_COMPILED_YES || x->compiled == PX_COMPILED_UNKNOWN) {
        x->compiled = (int8_t)compiled;
    }
    px_train_out *t = x->train;
    x->values[next] = loss;
    t->grad_norm[next] = grad, t->update_norm[next] = upd, t->lr[next] = lr, t->step_ms[next] = ms;
    t->n_steps = next + 1;
    x->n_values = next + 1;
    x->ndim = 2;
    x->shape[0] = 1, x->shape[1] = (int64_t)(next + 1);
    return 0;
}

static const char *const group_names[] = {"embed", "attention", "mlp", "norm", "head", "other"};

int trainrun_group_index(const char *name)
{
    for (size_t i = 0; name && i < sizeof group_names / sizeof *group_names; i++)
        if (!strcmp(name, group_names[i]))
            return (int)i;
    return -1;
}

/* One group: its name (one of group_names, not seen before: *seen's bits),
 * numel, norms and sketch. */
static int get_group(px_buf *p, px_train_group *g, unsigned *seen, char *why, size_t n)
{
    g->name = buf_get_str(p);
    int k = trainrun_group_index(g->name);
    if (!g->name)
        return refuse(why, n, "truncated group name");
    if (k < 0)
        return refuse(why, n, "group '%.40s' (embed, attention, mlp, norm, head or other)", g->name);
    if (*seen & (1u << k))
        return refuse(why, n, "group '%s' twice", g->name);
    *seen |= 1u << k;
    g->numel = buf_get_i64(p);
    g->norm = buf_get_f64(p);
    g->delta_norm = buf_get_f64(p);
    if (left(p) < 8u * PX_TRAIN_SKETCH)
        return refuse(why, n, "group '%s' has fewer than %d sketch values", g->name, PX_TRAIN_SKETCH);
    for (int i = 0; i < PX_TRAIN_SKETCH; i++)
        g->sketch[i] = buf_get_f64(p);
    if (p->bad)
        return refuse(why, n, "truncated group '%s'", g->name);
    if (g->numel < 1)
        return refuse(why, n, "group '%s' of %lld parameters", g->name, (long long)g->numel);
    if (g->norm < 0 || g->delta_norm < 0)
        return refuse(why, n, "group '%s''s norms %g and %g (negative)", g->name, g->norm, g->delta_norm);
    return 0;
}

int trainend_decode(px_buf *p, px_example_result *x, uint32_t steps, char *why, size_t n)
{
    px_train_out *t = x->train;
    if (!t || t->n_steps != steps || steps < 1)
        return refuse(why, n, "TRAINEND after %zu of the run's %u steps", t ? t->n_steps : 0, steps);
    char *dtype = buf_get_str(p);
    uint32_t processes = buf_get_u32(p);
    double startup = buf_get_f64(p), total = buf_get_f64(p);
    uint32_t k = buf_get_u32(p);
    int rc = 0;
    if (!dtype || p->bad)
        rc = refuse(why, n, "truncated TRAINEND");
    else if (!*dtype || strlen(dtype) > 32)
        rc = refuse(why, n, "dtype '%.40s'", dtype);
    else if (processes < 1 || processes > 4096)
        rc = refuse(why, n, "%u processes (1 .. 4096)", processes);
    else if (!is_time(startup) || !is_time(total))
        rc = refuse(why, n, "timings %g and %g ms", startup, total);
    else if (k < 1 || k > PX_TRAIN_MAX_GROUPS || k > left(p) / (4 + 8 + 16 + 8 * PX_TRAIN_SKETCH))
        rc = refuse(why, n, "%u groups (1 .. %u, each in the frame)", k, PX_TRAIN_MAX_GROUPS);
    px_train_group *g = rc ? NULL : calloc(k, sizeof *g);
    if (!rc && !g)
        rc = refuse(why, n, "out of memory");
    unsigned seen = 0;
    uint32_t i = 0;
    for (; !rc && i < k; i++)
        rc = get_group(p, &g[i], &seen, why, n);
    if (!rc && p->pos != p->len)
        rc = refuse(why, n, "%zu bytes after its fields", p->len - p->pos);
    if (rc) {
        for (uint32_t j = 0; g && j < k; j++)
            free(g[j].name);
        free(g);
        free(dtype);
        return -1;
    }
    results_dtype_free(x->dtype);
    x->dtype = results_dtype(dtype);
    free(dtype);
    x->forward_ms = total;
    t->processes = (int)processes;
    t->startup_ms = startup;
    t->total_ms = total;
    t->groups = g;
    t->n_groups = k;
    return 0;
}
