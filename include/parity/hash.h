/* SHA-256 of files and buffers (FIPS 180-4, src/base/hash.c), as 64 lower-case
 * hex digits. */
#ifndef PARITY_HASH_H
#define PARITY_HASH_H

#include <stddef.h>
#include <stdio.h>

#include "parity/error.h"

#define PX_SHA256_HEX 65 /* 64 digits + NUL */

int hash_file(const char *path, char hex[PX_SHA256_HEX], px_error *err);
void hash_buffer(const void *data, size_t len, char hex[PX_SHA256_HEX]);
/* A stream whose bytes are hashed when it is closed: for fingerprints
 * printed field by field. hasher_open returns NULL when out of memory;
 * hasher_close always gives a digest, "" when anything failed. */
typedef struct px_hasher {
    FILE *o;
    char *buf;
    size_t len;
} px_hasher;
FILE *hasher_open(px_hasher *h);
void hasher_close(px_hasher *h, char hex[PX_SHA256_HEX]);

/* Whether the CPU's SHA extensions do the rounds (1) or portable C does
 * (0); allow 0 makes it portable C from now on, 1 asks the CPU again. For
 * tests: both must give the same digests. */
int hash_use_cpu_sha(int allow);

/* 1 when s is exactly 64 hex digits. */
int hash_is_sha256(const char *s);
/* A digest's 64 hex digits (hash_is_sha256) as its 32 bytes, and back (in
 * lower case). */
void hash_from_hex(const char *hex, unsigned char bin[32]);
void hash_to_hex(const unsigned char bin[32], char hex[PX_SHA256_HEX]);

#endif
