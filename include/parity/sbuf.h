/* A growable string: text whose length the format does not bound (a table
 * row of any number of environments, a list of ids, a traceback) is built
 * here instead of in a fixed buffer that would cut it silently. Out of
 * memory is remembered (sbuf_failed) and later appends do nothing, so a
 * caller checks once at the end. */
#ifndef PARITY_SBUF_H
#define PARITY_SBUF_H

#include <stddef.h>

typedef struct px_sbuf {
    char *s;      /* NUL-terminated; NULL until something is added */
    size_t len, cap;
    int failed;   /* 1 after an allocation failed */
} px_sbuf;

#define PX_SBUF_INIT {NULL, 0, 0, 0}

void sbuf_add(px_sbuf *b, const char *s);
void sbuf_addn(px_sbuf *b, const char *s, size_t n);
void sbuf_addc(px_sbuf *b, char c);
void sbuf_addf(px_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text so far ("" when empty), owned by b. */
const char *sbuf_str(const px_sbuf *b);
/* Forget the text, keep the memory. */
void sbuf_reset(px_sbuf *b);
/* The text, now the caller's to free (never NULL unless out of memory);
 * b is empty again. */
char *sbuf_take(px_sbuf *b);
void sbuf_free(px_sbuf *b);
int sbuf_failed(const px_sbuf *b);

#endif
