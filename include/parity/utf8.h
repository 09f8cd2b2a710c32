/* UTF-8 validation shared by the fixture loader, the cleaner and the
 * tokenizer. utf8proc rejects surrogates and overlong forms, as Python's
 * decoder does, so text that passes is text any tokenizer could be given. */
#ifndef PARITY_UTF8_H
#define PARITY_UTF8_H

#include <stddef.h>

/* Byte offset of the first invalid UTF-8 sequence, or -1 when all valid. */
long utf8_invalid_at(const char *s, size_t len);
/* Code points in len bytes of valid UTF-8 (its lead bytes). */
size_t utf8_chars(const char *s, size_t len);

#endif
