/* The vocab and merges tables of hf_pipe.h: one arena of token bytes, an
 * id -> (off, len) index and open addressing over both, with the hash
 * conventions every stage shares (FNV-1a 64 for tokens, splitmix64 for
 * merge pairs; linear probing; load <= 0.5). */
#include <stdlib.h>
#include <string.h>

#include "hf_read_int.h"

static uint64_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The smallest power of two >= 2 * n (at least 16). */
static size_t slots_for(size_t n)
{
    size_t s = 16;
    while (s < 2 * n)
        s <<= 1;
    return s;
}

int64_t hf_vocab_find(const hf_vocab *v, const char *s, size_t len)
{
    if (!v->slots)
        return -1;
    for (size_t i = fnv1a(s, len) & v->mask;; i = (i + 1) & v->mask) {
        uint32_t e = v->slots[i];
        if (!e)
            return -1;
        uint32_t id = e - 1;
        if (v->len[id] == len && !memcmp(v->arena + v->off[id], s, len))
            return id;
    }
}

int hf_vocab_alloc(hf_vocab *v, size_t max_ids, size_t arena_cap)
{
    memset(v, 0, sizeof *v);
    if (max_ids >= UINT32_MAX / 2 || arena_cap >= UINT32_MAX)
        return -1;
    size_t ns = slots_for(max_ids);
    v->arena = malloc(arena_cap ? arena_cap : 1);
    v->off = malloc((max_ids ? max_ids : 1) * sizeof *v->off);
    v->len = calloc(max_ids ? max_ids : 1, sizeof *v->len);
    v->slots = calloc(ns, sizeof *v->slots);
    if (!v->arena || !v->off || !v->len || !v->slots) {
        hf_vocab_free(v);
        return -1;
    }
    memset(v->off, 0xff, (max_ids ? max_ids : 1) * sizeof *v->off);
    v->mask = ns - 1;
    v->n = max_ids;
    v->arena_len = 0;
    /* arena_cap is kept in the last byte's place: callers check room */
    return 0;
}

int hf_vocab_put(hf_vocab *v, const char *s, size_t len, uint32_t id, int64_t *other)
{
    if (id >= v->n)
        return 2;
    if (v->off[id] != HF_NO_OFF)
        return 2;
    size_t i = fnv1a(s, len) & v->mask;
    for (;; i = (i + 1) & v->mask) {
        uint32_t e = v->slots[i];
        if (!e)
            break;
        if (v->len[e - 1] == len && !memcmp(v->arena + v->off[e - 1], s, len)) {
            *other = e - 1;
            return 1;
        }
    }
    char *dst = v->arena + v->arena_len;
    if (dst != s)
        memmove(dst, s, len);
    dst[len] = 0;
    v->off[id] = (uint32_t)v->arena_len;
    v->len[id] = (uint32_t)len;
    if (len > v->max_len)
        v->max_len = len;
    v->arena_len += len + 1;
    v->slots[i] = id + 1;
    return 0;
}

int hf_merges_alloc(hf_merges *m, size_t n)
{
    memset(m, 0, sizeof *m);
    /* any slot count, at most 0.7 full: a power of two would double a
     * table just past one (llama2's 59 k merges: 128 k slots, 2 MiB, more
     * than its file) */
    size_t ns = n + n * 3 / 7 + 16;
    m->keys = calloc(ns, sizeof *m->keys);
    m->rank = malloc(ns * sizeof *m->rank);
    m->merged = malloc(ns * sizeof *m->merged);
    if (!m->keys || !m->rank || !m->merged) {
        hf_merges_free(m);
        return -1;
    }
    m->mask = ns - 1;
    return 0;
}

/* Where key's probe starts: the hash scaled to the slot count (Lemire's
 * multiply-shift), so the count need not be a power of two. */
static size_t merge_home(const hf_merges *m, uint64_t key)
{
    __extension__ typedef unsigned __int128 u128;
    return (size_t)(((u128)hf_mix64(key) * (u128)(m->mask + 1)) >> 64);
}

static size_t merge_slot(const hf_merges *m, uint64_t key)
{
    size_t i = merge_home(m, key);
    while (m->keys[i] && m->keys[i] != key)
        i = i == m->mask ? 0 : i + 1;
    return i;
}

void hf_merges_put(hf_merges *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t merged)
{
    uint64_t key = ((uint64_t)a << 32 | b) + 1;
    size_t i = merge_slot(m, key);
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->n++;
    }
    m->rank[i] = rank;
    m->merged[i] = merged;
}

int hf_merges_find(const hf_merges *m, uint32_t a, uint32_t b, uint32_t *rank, uint32_t *merged)
{
    if (!m->keys)
        return 0;
    size_t i = merge_slot(m, ((uint64_t)a << 32 | b) + 1);
    if (!m->keys[i])
        return 0;
    *rank = m->rank[i];
    *merged = m->merged[i];
    return 1;
}

void hf_vocab_free(hf_vocab *v)
{
    free(v->arena);
    free(v->off);
    free(v->len);
    free(v->slots);
    memset(v, 0, sizeof *v);
}

void hf_merges_free(hf_merges *m)
{
    free(m->keys);
    free(m->rank);
    free(m->merged);
    memset(m, 0, sizeof *m);
}
