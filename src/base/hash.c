#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "parity/hash.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SHA-256 as FIPS 180-4 defines it, written here rather than taken from
 * OpenSSL: its start-up alone (providers, the method store) touched 4 MiB
 * of libcrypto in every parity process, half the review screen's memory on
 * the demo. Where the CPU has the SHA extensions they do the rounds (about
 * 1 GB/s, as fast as OpenSSL), else portable C does (about 260 MB/s). */
typedef struct px_sha256 {
    uint32_t h[8];
    uint64_t len;      /* bytes so far */
    unsigned char buf[64];
    size_t n;          /* bytes waiting in buf */
} px_sha256;

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

/* The SHA extensions (SHA-NI): four rounds an instruction pair. */
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_ni(uint32_t h[8], const unsigned char *p, size_t n)
{
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1); /* CDAB */
    __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B); /* EFGH */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);                                          /* ABEF */
    s1 = _mm_blend_epi16(s1, t, 0xF0);                                               /* CDGH */
    for (; n; n--, p += 64) {
        __m128i abef = s0, cdgh = s1, m[4];
        for (int g = 0; g < 16; g++) {
            if (g < 4)
                m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), swap);
            __m128i w = _mm_add_epi32(m[g % 4], _mm_loadu_si128((const __m128i *)&K[4 * g]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, w);
            if (g >= 3 && g < 15)
                m[(g + 1) % 4] = _mm_sha256msg2_epu32(
                    _mm_add_epi32(m[(g + 1) % 4], _mm_alignr_epi8(m[g % 4], m[(g + 3) % 4], 4)), m[g % 4]);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(w, 0x0E));
            if (g >= 1 && g <= 12)
                m[(g + 3) % 4] = _mm_sha256msg1_epu32(m[(g + 3) % 4], m[g % 4]);
        }
        s0 = _mm_add_epi32(s0, abef), s1 = _mm_add_epi32(s1, cdgh);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);   /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);  /* DCHG */
    s0 = _mm_blend_epi16(t, s1, 0xF0); /* DCBA */
    s1 = _mm_alignr_epi8(s1, t, 8);    /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], s0);
    _mm_storeu_si128((__m128i *)&h[4], s1);
}

static int cpu_sha = -1; /* -1: not asked yet */

static int have_ni(void)
{
    int known = __atomic_load_n(&cpu_sha, __ATOMIC_RELAXED);
    if (known < 0) {
        unsigned a, b, c, d;
        int sse41 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3);
        known = sse41 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
        __atomic_store_n(&cpu_sha, known, __ATOMIC_RELAXED);
    }
    return known;
}
#endif

/* n whole blocks. */
static void blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
    if (have_ni()) {
        blocks_ni(h, p, n);
        return;
    }
#endif
    for (; n; n--, p += 64)
        block(h, p);
}

static void sha256_init(px_sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->len = 0, s->n = 0;
}

static void sha256_update(px_sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    if (s->n) {
        size_t take = 64 - s->n < len ? 64 - s->n : len;
        memcpy(s->buf + s->n, p, take);
        s->n += take, p += take, len -= take;
        if (s->n < 64)
            return;
        blocks(s->h, s->buf, 1);
        s->n = 0;
    }
    blocks(s->h, p, len / 64);
    p += len / 64 * 64, len %= 64;
    memcpy(s->buf, p, len);
    s->n = len;
}

static void sha256_final(px_sha256 *s, unsigned char md[32])
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t n = (s->n < 56 ? 56 : 120) - s->n;
    for (int i = 0; i < 8; i++)
        pad[n + i] = (unsigned char)(bits >> (56 - 8 * i));
    sha256_update(s, pad, n + 8);
    for (int i = 0; i < 8; i++)
        md[4 * i] = (unsigned char)(s->h[i] >> 24), md[4 * i + 1] = (unsigned char)(s->h[i] >> 16),
        md[4 * i + 2] = (unsigned char)(s->h[i] >> 8), md[4 * i + 3] = (unsigned char)s->h[i];
}

int hash_use_cpu_sha(int allow)
{
#if defined(__x86_64__) || defined(__i386__)
    __atomic_store_n(&cpu_sha, -1, __ATOMIC_RELAXED);
    if (!allow)
        __atomic_store_n(&cpu_sha, 0, __ATOMIC_RELAXED);
    return have_ni();
#else
    (void)allow;
    return 0;
#endif
}

static void hex_of(const unsigned char *md, char hex[PX_SHA256_HEX])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
}

int hash_file(const char *path, char hex[PX_SHA256_HEX], px_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot open: %s", strerror(errno));
    px_sha256 s;
    sha256_init(&s);
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&s, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "read error");
    unsigned char md[32];
    sha256_final(&s, md);
    hex_of(md, hex);
    return 0;
}

void hash_buffer(const void *data, size_t len, char hex[PX_SHA256_HEX])
{
    px_sha256 s;
    unsigned char md[32];
    sha256_init(&s);
    sha256_update(&s, data, len);
    sha256_final(&s, md);
    hex_of(md, hex);
}

int hash_is_sha256(const char *s)
{
    size_t i = 0;
    for (; s[i]; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return i == 64;
}

static int nibble(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

void hash_from_hex(const char *hex, unsigned char bin[32])
{
    for (int i = 0; i < 32; i++)
        bin[i] = (unsigned char)(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
}

void hash_to_hex(const unsigned char bin[32], char hex[PX_SHA256_HEX])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++)
        hex[2 * i] = digits[bin[i] >> 4], hex[2 * i + 1] = digits[bin[i] & 15];
    hex[64] = 0;
}

FILE *hasher_open(px_hasher *h)
{
    h->buf = NULL, h->len = 0;
    return h->o = open_memstream(&h->buf, &h->len);
}

void hasher_close(px_hasher *h, char hex[PX_SHA256_HEX])
{
    hex[0] = '\0';
    if (h->o && !fclose(h->o))
        hash_buffer(h->buf, h->len, hex);
    free(h->buf);
    h->o = NULL, h->buf = NULL, h->len = 0;
}
