/* Generation: GENERATE/GENERATED (include/parity/generate.h) and the
 * reference choice of a token. */
#include "parity/generate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gen_request_encode(px_buf *b, const px_gen_settings *s, const char *const *names,
                        const int64_t *const *values, size_t n_inputs, size_t T)
{
    proto_begin(b, PX_FRAME_GENERATE);
    buf_put_u32(b, (uint32_t)s->max_new_tokens);
    buf_put_u32(b, (uint32_t)s->n_stop);
    for (size_t i = 0; i < s->n_stop; i++)
        buf_put_i64(b, s->stop_ids[i]);
    buf_put_u32(b, (uint32_t)s->decoding);
    buf_put_f64(b, s->temperature);
    buf_put_u32(b, (uint32_t)s->top_k);
    buf_put_i64(b, (int64_t)s->seed);
    buf_put_u32(b, (uint32_t)s->report_top);
    buf_put_u32(b, (uint32_t)n_inputs);
    for (size_t i = 0; i < n_inputs; i++) {
        buf_put_str(b, names[i]);
        buf_put_u32(b, 2);
        buf_put_i64(b, 1);
        buf_put_i64(b, (int64_t)T);
        for (size_t t = 0; t < T; t++)
            buf_put_i64(b, values[i][t]);
    }
    proto_end(b);
}

void gen_out_free(px_gen_out *out)
{
    free(out->dtype);
    free(out->ids);
    free(out->top_ids);
    free(out->top_logits);
    memset(out, 0, sizeof *out);
}

static int is_stop(const px_gen_settings *s, int64_t id)
{
    for (size_t i = 0; i < s->n_stop; i++)
        if (s->stop_ids[i] == id)
            return 1;
    return 0;
}

/* Whether (a, la) comes before (b, lb) in a top list: NaN first, then the
 * larger logit, then the lower id. */
static int before(int64_t a, double la, int64_t b, double lb)
{
    if (isnan(la) || isnan(lb))
        return isnan(la) && (!isnan(lb) || a < b);
    return la > lb || (la == lb && a < b);
}

int gen_reply_decode(px_buf *p, px_gen_out *out, const px_gen_settings *s)
{
    memset(out, 0, sizeof *out);
    out->dtype = buf_get_str(p);
    uint32_t ndim = buf_get_u32(p);
    if (p->bad || ndim > PX_MAX_DIMS)
        goto bad;
    out->ndim = (int)ndim;
    for (uint32_t i = 0; i < ndim; i++)
        if ((out->shape[i] = buf_get_i64(p)) < 0)
            goto bad;
    uint32_t n = buf_get_u32(p);
    if (p->bad || (int64_t)n > s->max_new_tokens)
        goto bad;
    out->n_steps = n;
    int64_t V = ndim == 3 && out->shape[0] == 1 ? out->shape[2] : 0;
    if (n > 0 && V < 1)
        goto bad;
    int r = s->report_top < V ? s->report_top : (int)V;
    out->r = n ? r : 0;
    /* each step holds at least 12 bytes: refuse a count the payload cannot
     * hold before allocating for it */
    if ((size_t)n > (p->len - p->pos) / 12)
        goto bad;
    out->ids = malloc((n ? n : 1) * sizeof *out->ids);
    out->top_ids = malloc((n * (size_t)r + 1) * sizeof *out->top_ids);
    out->top_logits = malloc((n * (size_t)r + 1) * sizeof *out->top_logits);
    if (!out->ids || !out->top_ids || !out->top_logits)
        goto bad;
    for (uint32_t k = 0; k < n; k++) {
        int64_t id = out->ids[k] = buf_get_i64(p);
        if (p->bad || id < 0 || id >= V || buf_get_u32(p) != (uint32_t)r || p->bad)
            goto bad;
        if (k + 1 < n && is_stop(s, id))
            goto bad; /* generation goes on past a stop id */
        int64_t *ti = out->top_ids + (size_t)k * (size_t)r;
        double *tl = out->top_logits + (size_t)k * (size_t)r;
        for (int j = 0; j < r; j++)
            if ((ti[j] = buf_get_i64(p)) < 0 || ti[j] >= V)
                goto bad;
        for (int j = 0; j < r; j++)
            tl[j] = buf_get_f64(p);
        for (int j = 1; j < r; j++)
            if (!before(ti[j - 1], tl[j - 1], ti[j], tl[j]))
                goto bad;
        if (s->decoding == PX_GEN_GREEDY && r > 0 && ti[0] != id)
            goto bad;
    }
    uint32_t end = buf_get_u32(p);
    out->end = (int)end;
    out->first_ms = buf_get_f64(p);
    out->total_ms = buf_get_f64(p);
    if (p->bad || p->pos != p->len)
        goto bad;
    if (n == 0 ? end != PX_GEN_END_NONE
               : end == PX_GEN_END_STOP ? !is_stop(s, out->ids[n - 1])
               : end == PX_GEN_END_LENGTH ? (int64_t)n != s->max_new_tokens || is_stop(s, out->ids[n - 1])
               : 1)
        goto bad;
    if (!isfinite(out->first_ms) || !isfinite(out->total_ms) || out->first_ms < 0 || out->total_ms < 0)
        goto bad;
    return 0;
bad:
    gen_out_free(out);
    return -1;
}

uint64_t gen_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static size_t argmax(const double *row, size_t V)
{
    size_t best = 0;
    for (size_t i = 0; i < V; i++) {
        if (isnan(row[i]))
            return i;
        if (row[i] > row[best])
            best = i;
    }
    return best;
}

/* idx[0..V) ordered as a top list (merge sort, tmp as scratch). */
static void order(const double *row, size_t V, int64_t *idx, int64_t *tmp)
{
    for (size_t i = 0; i < V; i++)
        idx[i] = (int64_t)i;
    for (size_t w = 1; w < V; w *= 2) {
        for (size_t lo = 0; lo < V; lo += 2 * w) {
            size_t mid = lo + w < V ? lo + w : V, hi = lo + 2 * w < V ? lo + 2 * w : V;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                tmp[k++] = before(idx[b], row[idx[b]], idx[a], row[idx[a]]) ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[k++] = idx[a++];
            while (b < hi)
                tmp[k++] = idx[b++];
        }
        memcpy(idx, tmp, V * sizeof *idx);
    }
}

int64_t gen_choose(const double *row, size_t V, const px_gen_settings *s, uint64_t *state)
{
    if (V == 0)
        return -1;
    if (s->decoding != PX_GEN_SAMPLE)
        return (int64_t)argmax(row, V);
    double u = (double)(gen_splitmix64(state) >> 11) * 0x1p-53;
    for (size_t i = 0; i < V; i++)
        if (isnan(row[i]))
            return (int64_t)i;
    size_t k = s->top_k > 0 && (size_t)s->top_k < V ? (size_t)s->top_k : V;
    int64_t *idx = malloc(2 * V * sizeof *idx);
    if (!idx)
        return -1;
    order(row, V, idx, idx + V);
    double m = row[idx[0]];
    int64_t chosen = idx[k - 1];
    if (!isfinite(m)) {
        chosen = (int64_t)argmax(row, V);
    } else {
        double total = 0, c = 0;
        for (size_t i = 0; i < k; i++)
            total += exp((row[idx[i]] - m) / s->temperature);
        for (size_t i = 0; i < k; i++) {
            c += exp((row[idx[i]] - m) / s->temperature);
            if (u * total < c) {
                chosen = idx[i];
                break;
            }
        }
    }
    free(idx);
    return chosen;
}

void gen_top(const double *row, size_t V, int r, int64_t *ids, double *logits)
{
    size_t n = r > 0 ? ((size_t)r < V ? (size_t)r : V) : 0;
    /* selection, O(V r): r is small (PX_GEN_MAX_TOP), V may be large; the
     * order is total, so the j-th is the first of those after the (j-1)-th */
    for (size_t j = 0; j < n; j++) {
        int64_t best = -1;
        for (size_t i = 0; i < V; i++)
            if ((j == 0 || before(ids[j - 1], logits[j - 1], (int64_t)i, row[i])) &&
                (best < 0 || before((int64_t)i, row[i], best, row[best])))
                best = (int64_t)i;
        ids[j] = best;
        logits[j] = row[best];
    }
}
