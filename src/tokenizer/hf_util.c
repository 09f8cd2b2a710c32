/* The small growable containers of the tokenizer.json pipeline
 * (include/parity/hf_pipe.h): byte buffers, split lists, id lists. */
#include <stdlib.h>
#include <string.h>

#include "parity/hf_pipe.h"

/* Grow *p (elements of size sz) so that it holds at least need; -1 on
 * overflow or out of memory. */
static int grow(void **p, size_t *cap, size_t need, size_t sz, px_error *err)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > ((size_t)-1 / 2) / sz)
            return px_error_oom(err, NULL);
        c *= 2;
    }
    void *q = realloc(*p, c * sz);
    if (!q)
        return px_error_oom(err, NULL);
    *p = q, *cap = c;
    return 0;
}

int hf_buf_put(hf_buf *b, const char *s, size_t n, px_error *err)
{
    if (b->n + n < b->n)
        return px_error_oom(err, NULL);
    void *p = b->p;
    if (grow(&p, &b->cap, b->n + n + 1, 1, err))
        return -1;
    b->p = p;
    if (n)
        memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

void hf_buf_free(hf_buf *b)
{
    free(b->p);
    b->p = NULL, b->n = b->cap = 0;
}

/* text must not point into s->buf (which may move). */
int hf_splits_push(hf_splits *s, const char *text, size_t len, int64_t id, px_error *err)
{
    void *p = s->v;
    if (grow(&p, &s->cap, s->n + 1, sizeof *s->v, err))
        return -1;
    s->v = p;
    size_t off = s->buf.n;
    if (hf_buf_put(&s->buf, text, len, err))
        return -1;
    s->v[s->n++] = (hf_split){off, len, id};
    return 0;
}

void hf_splits_clear(hf_splits *s)
{
    s->n = 0;
    s->buf.n = 0;
}

void hf_splits_free(hf_splits *s)
{
    hf_buf_free(&s->buf);
    free(s->v);
    s->v = NULL, s->n = s->cap = 0;
}

uint64_t hf_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

int hf_ids_push(hf_ids *ids, int64_t id, px_error *err)
{
    void *p = ids->v;
    if (grow(&p, &ids->cap, ids->n + 1, sizeof *ids->v, err))
        return -1;
    ids->v = p;
    ids->v[ids->n++] = id;
    return 0;
}
