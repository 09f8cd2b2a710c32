#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "parity/hash.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

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
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        fclose(f);
        EVP_MD_CTX_free(ctx);
        return px_error_set(err, PX_ERR_NO_MEMORY, path, 0, 0, "cannot start SHA-256");
    }
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        EVP_DigestUpdate(ctx, buf, n);
    int bad = ferror(f);
    fclose(f);
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    if (bad)
        return px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "read error");
    hex_of(md, hex);
    return 0;
}

void hash_buffer(const void *data, size_t len, char hex[PX_SHA256_HEX])
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
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
