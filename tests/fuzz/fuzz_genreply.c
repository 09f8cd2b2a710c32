/* libFuzzer harness: gen_reply_decode (include/parity/generate.h) must turn
 * any bytes into a reply that keeps every promise of generate.h, or a
 * refusal with nothing left allocated, never a crash, leak or hang; and
 * gen_choose and gen_top on any row of doubles keep theirs. The first bytes
 * pick the settings the reply answers (max_new_tokens, report_top,
 * decoding, stop ids); the rest is the GENERATED payload, and also, read as
 * doubles, a row of logits. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/generate.h"

static int is_stop(const px_gen_settings *s, int64_t id)
{
    for (size_t i = 0; i < s->n_stop; i++)
        if (s->stop_ids[i] == id)
            return 1;
    return 0;
}

static void check_reply(const px_gen_out *o, const px_gen_settings *s)
{
    if (!o->dtype || o->ndim < 0 || o->ndim > PX_MAX_DIMS || o->n_steps > (size_t)s->max_new_tokens)
        abort();
    if (o->n_steps == 0) {
        if (o->end != PX_GEN_END_NONE || o->r != 0)
            abort();
        return;
    }
    int64_t V = o->shape[2];
    if (o->ndim != 3 || o->shape[0] != 1 || V < 1 || o->r != (s->report_top < V ? s->report_top : (int)V))
        abort();
    for (size_t k = 0; k < o->n_steps; k++) {
        if (o->ids[k] < 0 || o->ids[k] >= V || (k + 1 < o->n_steps && is_stop(s, o->ids[k])))
            abort();
        for (int j = 0; j < o->r; j++)
            if (o->top_ids[k * (size_t)o->r + (size_t)j] < 0 || o->top_ids[k * (size_t)o->r + (size_t)j] >= V)
                abort();
    }
    int last_stop = is_stop(s, o->ids[o->n_steps - 1]);
    if (o->end == PX_GEN_END_STOP ? !last_stop
        : o->end == PX_GEN_END_LENGTH ? last_stop || o->n_steps != (size_t)s->max_new_tokens
        : 1)
        abort();
    if (!(o->first_ms >= 0) || !(o->total_ms >= 0) || isinf(o->first_ms) || isinf(o->total_ms))
        abort();
}

static void check_choice(const double *row, size_t V, const px_gen_settings *s)
{
    uint64_t st = s->seed;
    int64_t id = gen_choose(row, V, s, &st);
    if (id < 0 || (size_t)id >= V)
        abort();
    if (st != s->seed + (s->decoding == PX_GEN_SAMPLE ? 0x9E3779B97F4A7C15u : 0))
        abort(); /* one draw per sample, none for greedy */
    int64_t ids[PX_GEN_MAX_TOP];
    double lg[PX_GEN_MAX_TOP];
    gen_top(row, V, (int)PX_GEN_MAX_TOP, ids, lg);
    size_t n = V < PX_GEN_MAX_TOP ? V : PX_GEN_MAX_TOP;
    for (size_t j = 0; j < n; j++) {
        if (ids[j] < 0 || (size_t)ids[j] >= V || memcmp(&lg[j], &row[ids[j]], sizeof(double)))
            abort();
        if (j > 0 && (ids[j] == ids[j - 1] ||
                      (isnan(lg[j]) ? !isnan(lg[j - 1]) || ids[j] < ids[j - 1]
                                    : !isnan(lg[j - 1]) && (lg[j] > lg[j - 1] || (lg[j] == lg[j - 1] && ids[j] < ids[j - 1])))))
            abort();
    }
    /* greedy, and a sample from a row with a NaN: the top list's first */
    int nan = 0;
    for (size_t i = 0; i < V; i++)
        nan |= isnan(row[i]);
    if ((s->decoding == PX_GEN_GREEDY || nan) && id != ids[0])
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    int64_t stops[3];
    static const double temps[] = {1.0, 0.7, 1e-3, 1e6};
    px_gen_settings s = {.max_new_tokens = 1 + data[0] % 32, .report_top = data[1] % (PX_GEN_MAX_TOP + 1),
                         .decoding = 1 + (data[2] & 1), .n_stop = (size_t)(data[2] >> 1) % 4,
                         .temperature = temps[data[0] >> 6], .top_k = data[1] >> 5, .seed = data[2],
                         .stop_ids = stops};
    if (s.n_stop > 3)
        s.n_stop = 3;
    if (size < 3 + s.n_stop)
        return 0;
    for (size_t i = 0; i < s.n_stop; i++)
        stops[i] = data[3 + i] % 16;
    data += 3 + s.n_stop, size -= 3 + s.n_stop;

    px_buf b = {0};
    buf_put(&b, data, size);
    px_gen_out o;
    if (gen_reply_decode(&b, &o, &s) == 0) {
        check_reply(&o, &s);
        gen_out_free(&o);
    } else if (o.dtype || o.ids || o.top_ids || o.top_logits) {
        abort();
    }
    buf_free(&b);

    size_t V = size / sizeof(double);
    if (V > 0) {
        double *row = malloc(V * sizeof *row);
        memcpy(row, data, V * sizeof *row);
        check_choice(row, V, &s);
        free(row);
    }
    return 0;
}
