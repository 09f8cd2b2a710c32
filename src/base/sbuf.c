#include "parity/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and the NUL: 0, or -1 (b->failed set). */
static int grow(px_sbuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n > (size_t)-1 / 2 - b->len) {
        b->failed = 1;
        return -1;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void sbuf_addn(px_sbuf *b, const char *s, size_t n)
{
    if (grow(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void sbuf_add(px_sbuf *b, const char *s) { sbuf_addn(b, s, strlen(s)); }

void sbuf_addc(px_sbuf *b, char c) { sbuf_addn(b, &c, 1); }

void sbuf_addf(px_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *sbuf_str(const px_sbuf *b) { return b->s ? b->s : ""; }

void sbuf_reset(px_sbuf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = 0;
}

char *sbuf_take(px_sbuf *b)
{
    char *s = b->failed ? NULL : b->s ? b->s : calloc(1, 1);
    if (b->failed)
        free(b->s);
    *b = (px_sbuf)PX_SBUF_INIT;
    return s;
}

void sbuf_free(px_sbuf *b)
{
    free(b->s);
    *b = (px_sbuf)PX_SBUF_INIT;
}

int sbuf_failed(const px_sbuf *b) { return b->failed; }
