#include "parity/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

struct px_strmap {
    const char **keys;
    long *values;
    size_t cap, n; /* cap a power of two, n < cap / 2 */
};

static uint64_t sip_key[2];

static void sip_seed(void)
{
    if (sip_key[0] | sip_key[1])
        return;
    if (getrandom(sip_key, sizeof sip_key, GRND_NONBLOCK) != (ssize_t)sizeof sip_key) {
        sip_key[0] = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15u;
        sip_key[1] = (uint64_t)getpid() ^ (uint64_t)(uintptr_t)&sip_key;
    }
    sip_key[0] |= 1;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND (v0 += v1, v1 = ROTL(v1, 13), v1 ^= v0, v0 = ROTL(v0, 32), v2 += v3, v3 = ROTL(v3, 16), \
                  v3 ^= v2, v0 += v3, v3 = ROTL(v3, 21), v3 ^= v0, v2 += v1, v1 = ROTL(v1, 17), v1 ^= v2,        \
                  v2 = ROTL(v2, 32))

/* SipHash-2-4 of a NUL-terminated string. */
static uint64_t siphash(const char *s)
{
    size_t len = strlen(s);
    uint64_t v0 = 0x736f6d6570736575u ^ sip_key[0], v1 = 0x646f72616e646f6du ^ sip_key[1];
    uint64_t v2 = 0x6c7967656e657261u ^ sip_key[0], v3 = 0x7465646279746573u ^ sip_key[1];
    const unsigned char *p = (const unsigned char *)s;
    size_t full = len & ~(size_t)7;
    for (size_t i = 0; i < full; i += 8) {
        uint64_t m;
        memcpy(&m, p + i, 8);
        v3 ^= m;
        SIPROUND, SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    for (size_t i = 0; i < (len & 7); i++)
        b |= (uint64_t)p[full + i] << (8 * i);
    v3 ^= b;
    SIPROUND, SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND, SIPROUND, SIPROUND, SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

px_strmap *strmap_new(size_t expected)
{
    sip_seed();
    px_strmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 16;
    while (m->cap < expected * 2 + 2)
        m->cap *= 2;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->values = calloc(m->cap, sizeof *m->values);
    if (!m->keys || !m->values) {
        strmap_free(m);
        return NULL;
    }
    return m;
}

void strmap_free(px_strmap *m)
{
    if (!m)
        return;
    free(m->keys);
    free(m->values);
    free(m);
}

static size_t slot_of(const px_strmap *m, const char *key)
{
    size_t i = (size_t)siphash(key) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int grow(px_strmap *m)
{
    px_strmap bigger = {calloc(m->cap * 2, sizeof *m->keys), calloc(m->cap * 2, sizeof *m->values), m->cap * 2, 0};
    if (!bigger.keys || !bigger.values) {
        free(bigger.keys), free(bigger.values);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            size_t j = slot_of(&bigger, m->keys[i]);
            bigger.keys[j] = m->keys[i], bigger.values[j] = m->values[i];
        }
    free(m->keys), free(m->values);
    m->keys = bigger.keys, m->values = bigger.values, m->cap = bigger.cap;
    return 0;
}

int strmap_put(px_strmap *m, const char *key, long value, long *old)
{
    size_t i = slot_of(m, key);
    if (m->keys[i]) {
        if (old)
            *old = m->values[i];
        return 1;
    }
    if ((m->n + 1) * 2 > m->cap) {
        if (grow(m))
            return -1;
        i = slot_of(m, key);
    }
    m->keys[i] = key, m->values[i] = value;
    m->n++;
    return 0;
}

long strmap_get(const px_strmap *m, const char *key)
{
    if (!m)
        return -1;
    size_t i = slot_of(m, key);
    return m->keys[i] ? m->values[i] : -1;
}
