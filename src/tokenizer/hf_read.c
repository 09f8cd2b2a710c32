/* tokenizer.json (Hugging Face `tokenizers` 0.23.2): see
 * include/parity/hf_read.h. This file holds the scanner (a validating JSON
 * reader over the whole buffer), the top level, and model.vocab and
 * model.merges streamed into the tables; hf_read_parts.c reads the small
 * components. Field names and the checks follow the library's serde
 * definitions (tokenizer/serialization.rs, models/bpe/serialization.rs,
 * models/bpe/model.rs, tokenizer/added_vocabulary.rs). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hf_read_int.h"

#define MAX_DEPTH 128

/* ---- errors ---- */

int hf_fail(hf_rd *r, size_t at, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = 0, col = 0;
    if (at != (size_t)-1 && at <= r->len) {
        line = 1;
        size_t bol = 0;
        for (const char *p = r->data; (p = memchr(p, '\n', r->data + at - p)); p++, line++)
            bol = (size_t)(p - r->data) + 1;
        col = (int)(at - bol) + 1;
    }
    return px_error_set(r->err, PX_ERR_MALFORMED, r->path, line, col, "%s", msg);
}

int hf_oom(hf_rd *r) { return px_error_oom(r->err, r->path); }

/* A mapped file's pages already read are handed back as the scan moves on
 * (they fault in again from the page cache if read later), so peak memory
 * is the tables plus a window of the file, not the tables plus the file. */
#define DROP_STEP ((size_t)1 << 18)
static void drop_to(hf_rd *r, size_t upto)
{
    if (!r->mapped)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), end = upto / page * page;
    if (end >= r->dropped + DROP_STEP || upto == r->len) {
        if (upto == r->len)
            end = r->len;
        if (end > r->dropped)
            madvise((char *)r->data + r->dropped, end - r->dropped, MADV_DONTNEED);
        r->dropped = end;
    }
}

static void drop_from(hf_rd *r, size_t at)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    r->dropped = at / page * page;
}

json_t *hf_span_load(hf_rd *r, size_t at, size_t len)
{
    json_error_t je;
    json_t *v = json_loadb(r->data + at, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    if (!v)
        hf_fail(r, at + (je.position > 0 ? (size_t)je.position : 0), "not a tokenizer.json: %s", je.text);
    return v;
}

/* ---- the scanner ---- */

typedef struct sc {
    hf_rd *r;
    const char *d;
    size_t i, n;
} sc;

static void ws(sc *s)
{
    while (s->i < s->n && (s->d[s->i] == ' ' || s->d[s->i] == '\n' || s->d[s->i] == '\r' || s->d[s->i] == '\t'))
        s->i++;
}

static int syntax(sc *s, const char *what) { return hf_fail(s->r, s->i, "not a tokenizer.json: %s", what); }

static int expect(sc *s, char c)
{
    ws(s);
    if (s->i >= s->n || s->d[s->i] != c) {
        char m[40];
        snprintf(m, sizeof m, "'%c' expected", c);
        return syntax(s, m);
    }
    s->i++;
    return 0;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of a valid UTF-8 sequence at p (n bytes left), 0 if invalid
 * (overlongs, surrogates and code points past U+10FFFF refused, as Rust's
 * str is). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return n >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0)) return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90)) return 0;
        return 4;
    }
    return 0;
}

/* An escape after the backslash at s->i; the code point's UTF-8 to o (may be
 * NULL). Surrogates must pair, as serde_json requires. */
static int escape(sc *s, char *o, size_t *w)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char c = s->i + 1 < s->n ? s->d[s->i + 1] : 0;
    const char *k = c ? strchr(from, c) : NULL;
    if (k) {
        if (o) o[*w] = to[k - from];
        (*w)++;
        s->i += 2;
        return 0;
    }
    unsigned cp, lo;
    if (c != 'u' || s->i + 6 > s->n || hex4(s->d + s->i + 2, &cp))
        return syntax(s, "invalid escape in a string");
    s->i += 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return hf_fail(s->r, s->i - 6, "not a tokenizer.json: a lone low surrogate \\u%04X in a string", cp);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (s->i + 6 > s->n || s->d[s->i] != '\\' || s->d[s->i + 1] != 'u' || hex4(s->d + s->i + 2, &lo) ||
            lo < 0xDC00 || lo > 0xDFFF)
            return hf_fail(s->r, s->i - 6, "not a tokenizer.json: a lone high surrogate \\u%04X in a string", cp);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        s->i += 6;
    }
    if (o) *w += put_utf8(o + *w, cp);
    else *w += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    return 0;
}

/* A string at s->i (after whitespace): decoded into o (NULL: validate
 * only; o must hold as many bytes as the string's raw text), *len the
 * decoded length. */
static int string(sc *s, char *o, size_t *len)
{
    ws(s);
    if (s->i >= s->n || s->d[s->i] != '"')
        return syntax(s, "a string expected");
    s->i++;
    size_t w = 0;
    for (;;) {
        /* a run of plain ASCII, copied at once */
        size_t j = s->i;
        while (j < s->n && (unsigned char)s->d[j] >= 0x20 && (unsigned char)s->d[j] < 0x80 && s->d[j] != '"' &&
               s->d[j] != '\\')
            j++;
        if (o) memcpy(o + w, s->d + s->i, j - s->i);
        w += j - s->i;
        s->i = j;
        if (s->i >= s->n)
            return syntax(s, "unterminated string");
        unsigned char c = (unsigned char)s->d[s->i];
        if (c == '"') break;
        if (c == '\\') {
            if (escape(s, o, &w)) return -1;
            continue;
        }
        if (c < 0x20)
            return syntax(s, "a control character in a string (escape it)");
        size_t k = utf8_len((const unsigned char *)s->d + s->i, s->n - s->i);
        if (!k)
            return syntax(s, "invalid UTF-8 in a string");
        if (o) memcpy(o + w, s->d + s->i, k);
        w += k;
        s->i += k;
    }
    s->i++;
    *len = w;
    return 0;
}

/* The raw length of the string at s->i (quotes included), to size a
 * scratch buffer before decoding: backslashes skip the next byte. */
static size_t string_raw(const sc *s)
{
    size_t j = s->i + 1;
    while (j < s->n && s->d[j] != '"')
        j += s->d[j] == '\\' ? 2 : 1;
    return j + 1 - s->i;
}

static int number(sc *s, uint64_t *u, int *whole)
{
    size_t st = s->i;
    const char *d = s->d;
    *whole = 1;
    *u = 0;
    if (s->i < s->n && d[s->i] == '-') { s->i++; *whole = 0; }
    if (s->i >= s->n || d[s->i] < '0' || d[s->i] > '9')
        return syntax(s, "invalid number");
    if (d[s->i] == '0' && s->i + 1 < s->n && d[s->i + 1] >= '0' && d[s->i + 1] <= '9')
        return syntax(s, "invalid number (leading zero)");
    while (s->i < s->n && d[s->i] >= '0' && d[s->i] <= '9') {
        if (*u > (UINT64_MAX - 9) / 10) *whole = 0;
        else *u = *u * 10 + (uint64_t)(d[s->i] - '0');
        s->i++;
    }
    if (s->i < s->n && d[s->i] == '.') {
        s->i++; *whole = 0;
        if (s->i >= s->n || d[s->i] < '0' || d[s->i] > '9') return syntax(s, "invalid number");
        while (s->i < s->n && d[s->i] >= '0' && d[s->i] <= '9') s->i++;
    }
    if (s->i < s->n && (d[s->i] == 'e' || d[s->i] == 'E')) {
        s->i++; *whole = 0;
        if (s->i < s->n && (d[s->i] == '+' || d[s->i] == '-')) s->i++;
        if (s->i >= s->n || d[s->i] < '0' || d[s->i] > '9') return syntax(s, "invalid number");
        while (s->i < s->n && d[s->i] >= '0' && d[s->i] <= '9') s->i++;
    }
    (void)st;
    return 0;
}

static int skip(sc *s, int depth, size_t *count);

static int skip_container(sc *s, int depth, size_t *count, char close, int obj)
{
    size_t k = 0, len;
    s->i++;
    ws(s);
    if (s->i < s->n && s->d[s->i] == close) {
        s->i++;
        goto done;
    }
    for (;;) {
        if (obj && (string(s, NULL, &len) || expect(s, ':')))
            return -1;
        if (skip(s, depth + 1, NULL))
            return -1;
        k++;
        ws(s);
        if (s->i < s->n && s->d[s->i] == ',') { s->i++; continue; }
        if (s->i < s->n && s->d[s->i] == close) { s->i++; break; }
        return syntax(s, obj ? "',' or '}' expected" : "',' or ']' expected");
    }
done:
    if (count) *count = k;
    return 0;
}

/* Validate and step over one value; *count: members of a container. */
static int skip(sc *s, int depth, size_t *count)
{
    ws(s);
    if (depth > MAX_DEPTH)
        return syntax(s, "nested deeper than 128 levels");
    if (s->i >= s->n)
        return syntax(s, "a value expected");
    char c = s->d[s->i];
    size_t len;
    uint64_t u;
    int whole;
    if (c == '{') return skip_container(s, depth, count, '}', 1);
    if (c == '[') return skip_container(s, depth, count, ']', 0);
    if (c == '"') return string(s, NULL, &len);
    if (c == '-' || (c >= '0' && c <= '9')) return number(s, &u, &whole);
    static const char *const lit[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++)
        if (!strncmp(s->d + s->i, lit[k], s->n - s->i < strlen(lit[k]) ? s->n - s->i : strlen(lit[k])) &&
            s->n - s->i >= strlen(lit[k])) {
            s->i += strlen(lit[k]);
            return 0;
        }
    return syntax(s, "a value expected");
}

/* ---- spans of an object's known keys ---- */

typedef struct span {
    size_t at, len, count; /* count: members when a container */
    int seen;
    char first;            /* its first byte: '{', '[', '"', 'n'... */
} span;

enum { M_TYPE, M_VOCAB, M_MERGES, M_NKEYS = 12 };
static const char *const model_keys[] = {"type", "vocab", "merges", "dropout", "unk_token", "continuing_subword_prefix",
                                         "end_of_word_suffix", "fuse_unk", "byte_fallback", "ignore_merges",
                                         "max_input_chars_per_word", NULL};

/* Read the object at s->i: each key must be one of keys[] (else refused
 * naming `where`), none twice; each value validated and its span kept.
 * At the top level, the model's own keys' spans go to *model (one pass over
 * the file, not two). */
static int object_spans(sc *s, const char *where, const char *const *keys, span *out, int depth, span *model)
{
    char key[64];
    ws(s);
    if (s->i >= s->n || s->d[s->i] != '{')
        return hf_fail(s->r, s->i, "%s must be an object", where);
    s->i++;
    ws(s);
    if (s->i < s->n && s->d[s->i] == '}') { s->i++; return 0; }
    for (;;) {
        ws(s);
        size_t kat = s->i, raw = s->i < s->n && s->d[s->i] == '"' ? string_raw(s) : 0, len;
        if (raw > sizeof key || string(s, raw ? key : NULL, &len))
            return raw > sizeof key ? hf_fail(s->r, kat, "%s has a key parity does not implement", where) : -1;
        key[len] = 0;
        size_t k = 0;
        while (keys[k] && (strlen(keys[k]) != len || memcmp(keys[k], key, len)))
            k++;
        if (!keys[k] || memchr(key, 0, len))
            return hf_fail(s->r, kat, "%s has '%s', which parity does not implement", where, key);
        if (out[k].seen)
            return hf_fail(s->r, kat, "%s has '%s' twice", where, key);
        if (expect(s, ':')) return -1;
        ws(s);
        out[k].at = s->i;
        out[k].first = s->i < s->n ? s->d[s->i] : 0;
        out[k].seen = 1;
        if (model && !strcmp(keys[k], "model") && out[k].first == '{') {
            if (object_spans(s, "model", model_keys, model, depth + 1, NULL)) return -1;
        } else if (skip(s, depth + 1, &out[k].count))
            return -1;
        out[k].len = s->i - out[k].at;
        ws(s);
        if (s->i < s->n && s->d[s->i] == ',') { s->i++; continue; }
        if (s->i < s->n && s->d[s->i] == '}') { s->i++; return 0; }
        return syntax(s, "',' or '}' expected");
    }
}

static int is_null(const span *sp) { return !sp->seen || sp->first == 'n'; }

/* ---- model.vocab ---- */

/* The vocab object: token -> id, ids 0..n-1 without gap, no token or id
 * twice (the library's HashMap would keep the last silently; parity
 * refuses). check: validate the shape only (ids in range, none twice). */
static int read_vocab(hf_rd *r, const span *sp)
{
    sc s = {r, r->data, sp->at, sp->at + sp->len};
    size_t n = sp->count;
    drop_from(r, sp->at);
    unsigned char *seen = r->check ? calloc(n / 8 + 1, 1) : NULL;
    if (r->check && !seen) return hf_oom(r);
    hf_vocab *v = &r->c->vocab;
    int rc = -1;
    s.i++;
    for (size_t k = 0; k < n; k++) {
        ws(&s);
        size_t at = s.i, len;
        char *dst = r->check ? NULL : v->arena + v->arena_len;
        if (string(&s, dst, &len) || expect(&s, ':')) goto out;
        ws(&s);
        size_t idat = s.i;
        uint64_t id;
        int whole;
        if (number(&s, &id, &whole) || !whole)
            { if (!r->err->code) hf_fail(r, idat, "model.vocab: an id must be a whole number"); goto out; }
        if (id >= n) {
            hf_fail(r, idat, "model.vocab: id %llu is not below the vocab's size %zu (ids must run from 0 without gaps)",
                    (unsigned long long)id, n);
            goto out;
        }
        int64_t other = -1;
        int e = r->check ? (seen[id / 8] >> (id % 8) & 1 ? 2 : 0) : hf_vocab_put(v, dst, len, (uint32_t)id, &other);
        if (r->check) seen[id / 8] |= (unsigned char)(1u << (id % 8));
        if (e == 1) { hf_fail(r, at, "model.vocab has the token at id %lld twice (ids %lld and %llu)", (long long)other, (long long)other, (unsigned long long)id); goto out; }
        if (e == 2) { hf_fail(r, idat, "model.vocab gives id %llu to two tokens", (unsigned long long)id); goto out; }
        ws(&s);
        s.i++; /* ',' or '}': validated by the first pass */
        drop_to(r, s.i);
    }
    rc = 0;
out:
    free(seen);
    return rc;
}

/* ---- model.merges ---- */

typedef struct scratch {
    char *p;
    size_t cap;
} scratch;

static int grow(hf_rd *r, scratch *b, size_t need)
{
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) return hf_oom(r);
    b->p = p;
    b->cap = cap;
    return 0;
}

/* One merge's pieces: "a b" (legacy: *fmt 1) or ["a", "b"] (*fmt 2); the
 * list must keep one format (serde's untagged MergeType takes all of one
 * kind). *skip_it: a legacy "#version" line, which takes no rank. */
static int merge_pieces(sc *s, scratch *b, int *fmt, size_t *alen, size_t *boff, size_t *blen, int *skip_it)
{
    ws(s);
    size_t at = s->i, len;
    int f = s->i < s->n && s->d[s->i] == '"' ? 1 : s->i < s->n && s->d[s->i] == '[' ? 2 : 0;
    if (!f || (*fmt && f != *fmt))
        return hf_fail(s->r, at, "model.merges: each merge must be %s",
                       *fmt == 1 ? "a string \"a b\" like the others" : *fmt == 2 ? "a pair [\"a\", \"b\"] like the others" : "a string \"a b\" or a pair [\"a\", \"b\"]");
    *fmt = f;
    *skip_it = 0;
    if (f == 1) {
        if (grow(s->r, b, string_raw(s) * 2) || string(s, b->p, &len)) return -1;
        if (len >= 8 && !memcmp(b->p, "#version", 8)) { *skip_it = 1; return 0; }
        char *sp = memchr(b->p, ' ', len);
        if (!sp || memchr(sp + 1, ' ', len - (size_t)(sp + 1 - b->p)))
            return 1; /* the caller names the line */
        *alen = (size_t)(sp - b->p);
        *boff = *alen + 1;
        *blen = len - *boff;
        return 0;
    }
    s->i++;
    ws(s);
    if (s->i >= s->n || s->d[s->i] != '"') return syntax(s, "model.merges: a pair of two strings expected");
    size_t ra = string_raw(s);
    if (grow(s->r, b, ra * 2) || string(s, b->p, alen) || expect(s, ',')) return -1;
    ws(s);
    if (s->i >= s->n || s->d[s->i] != '"') return syntax(s, "model.merges: a pair of two strings expected");
    *boff = *alen;
    if (grow(s->r, b, *alen + string_raw(s) * 2) || string(s, b->p + *boff, blen)) return -1;
    if (expect(s, ']')) return hf_fail(s->r, at, "model.merges: a pair must hold exactly two strings");
    return 0;
}

/* Look (a, b) up as the library builds its merge map (BpeBuilder::build):
 * both pieces in the vocab, the merged token a + b[prefix_len..] too, else
 * "Token `x` out of vocabulary". */
static int merge_put(hf_rd *r, size_t at, scratch *b, size_t alen, size_t boff, size_t blen, uint32_t rank)
{
    const hf_vocab *v = &r->c->vocab;
    size_t pl = r->c->model.prefix_len;
    int64_t a = hf_vocab_find(v, b->p, alen), bb = hf_vocab_find(v, b->p + boff, blen);
    const char *miss = a < 0 || (size_t)a >= r->n_model ? b->p : bb < 0 || (size_t)bb >= r->n_model ? b->p + boff : NULL;
    size_t mlen = miss == b->p ? alen : blen;
    if (miss)
        return hf_fail(r, at, "model.merges: merge %u names `%.*s`, which is not in model.vocab (the library: Token `%.*s` out of vocabulary)",
                       rank + 1, (int)(mlen > 200 ? 200 : mlen), miss, (int)(mlen > 200 ? 200 : mlen), miss);
    if (blen < pl)
        return hf_fail(r, at, "model.merges: merge %u's second piece is shorter than continuing_subword_prefix (the library fails on it)", rank + 1);
    /* a then b without its first prefix_len bytes, in place after a */
    memmove(b->p + alen, b->p + boff + pl, blen - pl);
    size_t ml = alen + blen - pl;
    int64_t m = hf_vocab_find(v, b->p, ml);
    if (m < 0 || (size_t)m >= r->n_model)
        return hf_fail(r, at, "model.merges: merge %u makes `%.*s`, which is not in model.vocab (the library: Token `%.*s` out of vocabulary)",
                       rank + 1, (int)(ml > 200 ? 200 : ml), b->p, (int)(ml > 200 ? 200 : ml), b->p);
    hf_merges_put(&r->c->model.merges, (uint32_t)a, (uint32_t)bb, rank, (uint32_t)m);
    return 0;
}

static int read_merges(hf_rd *r, const span *sp)
{
    sc s = {r, r->data, sp->at, sp->at + sp->len};
    if (sp->first != '[')
        return hf_fail(r, sp->at, "model.merges must be a list");
    if (!r->check && hf_merges_alloc(&r->c->model.merges, sp->count))
        return hf_oom(r);
    scratch b = {0};
    int fmt = 0, rc = -1;
    drop_from(r, sp->at);
    uint32_t rank = 0;
    s.i++;
    for (size_t k = 0; k < sp->count; k++) {
        ws(&s);
        size_t at = s.i, alen = 0, boff = 0, blen = 0;
        int skip_it, e = merge_pieces(&s, &b, &fmt, &alen, &boff, &blen, &skip_it);
        if (e == 1) { hf_fail(r, at, "model.merges: merge %u is not two tokens split by one space (the library: Merges text file invalid at line %u)", rank + 1, rank + 1); goto out; }
        if (e) goto out;
        if (!skip_it && !r->check && merge_put(r, at, &b, alen, boff, blen, rank)) goto out;
        rank += !skip_it;
        ws(&s);
        s.i++;
        drop_to(r, s.i);
    }
    rc = 0;
out:
    free(b.p);
    return rc;
}

/* ---- the model ---- */



/* The model's scalar fields into one jansson object, each from its span. */
static json_t *model_scalars(hf_rd *r, const span *sp)
{
    json_t *o = json_object();
    if (!o) { hf_oom(r); return NULL; }
    for (int k = 0; model_keys[k]; k++) {
        if (k == M_VOCAB || k == M_MERGES || !sp[k].seen) continue;
        json_t *v = hf_span_load(r, sp[k].at, sp[k].len);
        if (!v || json_object_set_new(o, model_keys[k], v)) {
            json_decref(o);
            return v ? (hf_oom(r), NULL) : NULL;
        }
    }
    return o;
}

/* byte_fallback: the id of "<0xXX>" for each byte (the library formats
 * it with {:#04X}: "0x" then two uppercase digits), -1 when absent. */
static void byte_ids(px_hf_config *c)
{
    for (int b = 0; b < 256; b++) {
        char t[8];
        snprintf(t, sizeof t, "<0x%02X>", b);
        c->model.byte_ids[b] = hf_vocab_find(&c->vocab, t, 6);
    }
}

static int read_model(hf_rd *r, const span *msp, const span *sp, const span *added, const char **unk, json_t **scal)
{
    if (msp->first != '{')
        return hf_fail(r, msp->at, "model must be an object");
    if (!(*scal = model_scalars(r, sp))) return -1;
    if (hf_read_model_fields(r, *scal, msp->at, unk)) return -1;
    if (!sp[M_VOCAB].seen || sp[M_VOCAB].first != '{' || !sp[M_VOCAB].count)
        return hf_fail(r, sp[M_VOCAB].seen ? sp[M_VOCAB].at : msp->at, "model.vocab must be an object of token: id, not empty");
    if (r->c->model.kind == HF_MODEL_BPE && !sp[M_MERGES].seen)
        return hf_fail(r, msp->at, "model BPE has no merges");
    if (r->c->model.kind == HF_MODEL_WORDPIECE && sp[M_MERGES].seen)
        return hf_fail(r, sp[M_MERGES].at, "model WordPiece has 'merges', which parity does not implement");
    r->n_model = sp[M_VOCAB].count;
    size_t max_ids = r->n_model + added->count;
    if (!r->check && hf_vocab_alloc(&r->c->vocab, max_ids, sp[M_VOCAB].len + added->len + 16))
        return hf_oom(r);
    if (read_vocab(r, &sp[M_VOCAB])) return -1;
    if (r->c->model.kind == HF_MODEL_BPE && read_merges(r, &sp[M_MERGES])) return -1;
    r->n_ids = max_ids;
    if (r->check) return 0;
    /* the unknown token is looked up in the model's vocab only, as
     * BPE::merge_word and WordPiece do; the library fails at the first
     * unknown character when it is absent, parity at load */
    if (*unk) {
        int64_t id = hf_vocab_find(&r->c->vocab, *unk, strlen(*unk));
        if (id < 0 || (size_t)id >= r->n_model)
            return hf_fail(r, msp->at, "model.unk_token '%s' is not in model.vocab (the library fails on the first unknown character: Unk token `%s` not found in the vocabulary)", *unk, *unk);
        r->c->model.unk_id = id;
    }
    if (r->c->model.kind == HF_MODEL_BPE)
        byte_ids(r->c);
    return 0;
}

/* ---- added tokens ---- */

static int same_added(const hf_added *a, const hf_added *b)
{
    return a->len == b->len && !memcmp(a->content, b->content, a->len) && a->special == b->special &&
           a->lstrip == b->lstrip && a->rstrip == b->rstrip && a->normalized == b->normalized &&
           a->single_word == b->single_word;
}

/* The id the library's AddedVocabulary::add_tokens gives the token just
 * read (c->added[c->n_added - 1]): the id of the same content already in
 * the vocab (the model's or an earlier added token), else the next after
 * the model's vocab. Parity refuses a file whose id says otherwise (the
 * library only warns, and uses its own). Empty tokens and exact repeats
 * are dropped, as the library ignores them. */
static int assign_added(hf_rd *r, size_t at, uint32_t *next, uint32_t *idx)
{
    px_hf_config *c = r->c;
    size_t me = c->n_added - 1;
    hf_added *a = &c->added[me];
    int64_t id = a->len ? hf_vocab_find(&c->vocab, a->content, a->len) : -1;
    if (!a->len || (id >= 0 && idx[id] != UINT32_MAX)) {
        if (a->len && !same_added(&c->added[idx[id]], a))
            return hf_fail(r, at, "added token '%s' appears twice with different options", a->content);
        free(a->content);
        c->n_added--;
        return 0;
    }
    int64_t want = id >= 0 ? id : (int64_t)*next;
    if (a->id != want)
        return hf_fail(r, at, "added token '%s' has id %lld in the file, but the library gives it %lld (%s)", a->content,
                       (long long)a->id, (long long)want,
                       id >= 0 ? "the id of the same token in model.vocab" : "new added tokens take the ids after the vocab, in order");
    if (id < 0) {
        int64_t other;
        hf_vocab_put(&c->vocab, a->content, a->len, *next, &other);
        (*next)++;
    }
    idx[want] = (uint32_t)me;
    return 0;
}

static int read_added(hf_rd *r, const span *sp)
{
    if (is_null(sp)) return 0;
    if (sp->first != '[') return hf_fail(r, sp->at, "added_tokens must be a list");
    px_hf_config *c = r->c;
    uint32_t *idx = r->check ? NULL : malloc((r->n_ids + 1) * sizeof *idx);
    if (!(c->added = calloc(sp->count + 1, sizeof *c->added)) || (!r->check && !idx)) {
        free(idx);
        return hf_oom(r);
    }
    if (idx) memset(idx, 0xff, (r->n_ids + 1) * sizeof *idx);
    sc s = {r, r->data, sp->at + 1, sp->at + sp->len};
    uint32_t next = (uint32_t)r->n_model;
    int rc = 0;
    for (size_t k = 0; k < sp->count && !rc; k++) {
        ws(&s);
        size_t at = s.i;
        if (skip(&s, 1, NULL)) { rc = -1; break; }
        json_t *v = hf_span_load(r, at, s.i - at);
        rc = !v || hf_read_added_one(r, v, at) || (!r->check && assign_added(r, at, &next, idx));
        json_decref(v);
        ws(&s);
        s.i++;
    }
    free(idx);
    if (!rc && !r->check) {
        c->vocab.n = next;
        r->n_ids = next;
    }
    return rc ? -1 : 0;
}

static int build_added(hf_rd *r)
{
    px_hf_config *c = r->c;
    if (!(c->special = calloc(c->vocab.n ? c->vocab.n : 1, 1))) return hf_oom(r);
    size_t nn = 0;
    for (size_t k = 0; k < c->n_added; k++) {
        if (c->added[k].special) c->special[c->added[k].id] = 1;
        nn += c->added[k].normalized != 0;
    }
    if (nn < c->n_added && !(c->added_raw = hf_added_build(c->added, c->n_added, 0, c->norm, c->n_norm, r->err)))
        return -1;
    if (nn && !(c->added_norm = hf_added_build(c->added, c->n_added, 1, c->norm, c->n_norm, r->err)))
        return -1;
    return 0;
}

/* ---- the top level ---- */

enum { T_VERSION, T_TRUNC, T_PAD, T_ADDED, T_NORM, T_PRE, T_MODEL, T_POST, T_DEC, T_NKEYS };
static const char *const top_keys[] = {"version", "truncation", "padding", "added_tokens", "normalizer",
                                       "pre_tokenizer", "model", "post_processor", "decoder", NULL};

typedef int (*part_fn)(hf_rd *, const json_t *, size_t);

/* A component from its span (absent or null: none). */
static int read_part(hf_rd *r, const span *sp, part_fn fn)
{
    if (is_null(sp)) return 0;
    json_t *v = hf_span_load(r, sp->at, sp->len);
    int rc = v ? fn(r, v, sp->at) : -1;
    json_decref(v);
    return rc;
}

/* ---- truncation and padding: read, checked, kept, never applied ---- */

/* The members of the object at sp, each key one of keys[] (else refused at
 * the key), none twice, each value's span in out[]. */
static int sub_spans(hf_rd *r, const span *sp, const char *where, const char *const *keys, span *out)
{
    sc s = {r, r->data, sp->at, sp->at + sp->len};
    return object_spans(&s, where, keys, out, 1, NULL);
}

/* A required member (serde: a field without a default): absent refused at
 * the object, null or another type at the value. */
static json_t *member(hf_rd *r, const span *obj, const span *v, const char *where, const char *key, const char *what)
{
    if (!v->seen) {
        hf_fail(r, obj->at, "%s needs %s (%s), as the library requires", where, key, what);
        return NULL;
    }
    return hf_span_load(r, v->at, v->len);
}

static int uint_member(hf_rd *r, const span *obj, const span *v, const char *where, const char *key, uint64_t *out)
{
    json_t *j = member(r, obj, v, where, key, "a whole number");
    if (!j) return -1;
    int ok = json_is_integer(j) && json_integer_value(j) >= 0;
    if (ok) *out = (uint64_t)json_integer_value(j);
    json_decref(j);
    return ok ? 0 : hf_fail(r, v->at, "%s.%s must be a whole number", where, key);
}

/* One of names[] (a unit variant, written as its name). */
static int name_member(hf_rd *r, const span *obj, const span *v, const char *where, const char *key,
                       const char *const *names, const char *list, const char **out)
{
    json_t *j = member(r, obj, v, where, key, list);
    if (!j) return -1;
    *out = NULL;
    for (size_t k = 0; names[k] && json_is_string(j); k++)
        if (!strcmp(json_string_value(j), names[k]))
            *out = names[k];
    json_decref(j);
    return *out ? 0 : hf_fail(r, v->at, "%s.%s must be %s", where, key, list);
}

static const char *const DIRECTIONS[] = {"Left", "Right", NULL};

/* TruncationParams: direction (default Right), max_length, strategy,
 * stride. */
static int read_truncation(hf_rd *r, const span *sp)
{
    static const char *const keys[] = {"direction", "max_length", "strategy", "stride", NULL};
    static const char *const strategies[] = {"LongestFirst", "OnlyFirst", "OnlySecond", NULL};
    static const char W[] = "truncation";
    span k[5] = {{0}};
    hf_limits *l = &r->c->limits;
    uint64_t max_length, stride;
    if (sub_spans(r, sp, W, keys, k) || uint_member(r, sp, &k[1], W, "max_length", &max_length) ||
        name_member(r, sp, &k[2], W, "strategy", strategies, "LongestFirst, OnlyFirst or OnlySecond", &l->trunc_strategy) ||
        uint_member(r, sp, &k[3], W, "stride", &stride))
        return -1;
    l->trunc_direction = "Right";
    if (k[0].seen && name_member(r, sp, &k[0], W, "direction", DIRECTIONS, "Left or Right", &l->trunc_direction))
        return -1;
    l->truncation = 1;
    l->trunc_max_length = (size_t)max_length;
    l->trunc_stride = (size_t)stride;
    return 0;
}

/* PaddingParams: every field required but pad_to_multiple_of (an Option:
 * a whole number, null or absent); strategy "BatchLongest" or {"Fixed": n};
 * pad_id and pad_type_id u32. Keys the library would ignore are refused,
 * as everywhere in the file. */
static int read_padding(hf_rd *r, const span *sp)
{
    static const char *const keys[] = {"strategy", "direction", "pad_to_multiple_of", "pad_id", "pad_type_id", "pad_token",
                                       NULL};
    static const char W[] = "padding";
    span k[7] = {{0}};
    hf_limits *l = &r->c->limits;
    uint64_t fixed = 0, multiple = 0;
    if (sub_spans(r, sp, W, keys, k))
        return -1;
    json_t *st = member(r, sp, &k[0], W, "strategy", "\"BatchLongest\" or {\"Fixed\": length}");
    if (!st) return -1;
    json_t *fx = json_is_object(st) && json_object_size(st) == 1 ? json_object_get(st, "Fixed") : NULL;
    /* serde_json takes a unit variant as its name or as {"name": null} */
    int ok = (json_is_string(st) && !strcmp(json_string_value(st), "BatchLongest")) ||
             (json_is_object(st) && json_object_size(st) == 1 && json_is_null(json_object_get(st, "BatchLongest"))) ||
             (json_is_integer(fx) && json_integer_value(fx) >= 0);
    int is_fixed = fx != NULL;
    if (fx && ok) fixed = (uint64_t)json_integer_value(fx);
    json_decref(st);
    if (!ok)
        return hf_fail(r, k[0].at, "padding.strategy must be \"BatchLongest\" or {\"Fixed\": length}, a whole number");
    /* an Option: absent is None */
    json_t *mu = k[2].seen ? hf_span_load(r, k[2].at, k[2].len) : json_null();
    if (!mu) return -1;
    ok = json_is_null(mu) || (json_is_integer(mu) && json_integer_value(mu) >= 0);
    if (ok && !json_is_null(mu)) multiple = (uint64_t)json_integer_value(mu);
    json_decref(mu);
    if (!ok)
        return hf_fail(r, k[2].at, "padding.pad_to_multiple_of must be a whole number or null");
    if (name_member(r, sp, &k[1], W, "direction", DIRECTIONS, "Left or Right", &l->pad_direction) ||
        uint_member(r, sp, &k[3], W, "pad_id", &l->pad_id) || uint_member(r, sp, &k[4], W, "pad_type_id", &l->pad_type_id))
        return -1;
    if (l->pad_id > UINT32_MAX || l->pad_type_id > UINT32_MAX)
        return hf_fail(r, k[l->pad_id > UINT32_MAX ? 3 : 4].at, "padding.%s must be below 2^32 (the library's u32)",
                       l->pad_id > UINT32_MAX ? "pad_id" : "pad_type_id");
    json_t *tk = member(r, sp, &k[5], W, "pad_token", "a string");
    if (!tk) return -1;
    ok = json_is_string(tk);
    json_decref(tk);
    if (!ok)
        return hf_fail(r, k[5].at, "padding.pad_token must be a string");
    l->padding = 1;
    l->pad_strategy = is_fixed ? "Fixed" : "BatchLongest";
    l->pad_length = (size_t)fixed;
    l->pad_multiple = (size_t)multiple;
    return 0;
}

static int read_top(hf_rd *r, const span *sp)
{
    if (sp[T_VERSION].seen) {
        json_t *v = hf_span_load(r, sp[T_VERSION].at, sp[T_VERSION].len);
        int ok = v && json_is_string(v) && !strcmp(json_string_value(v), "1.0");
        json_decref(v);
        if (!ok) return hf_fail(r, sp[T_VERSION].at, "Unknown tokenizer version (the library reads \"1.0\")");
    }
    if ((!is_null(&sp[T_TRUNC]) && read_truncation(r, &sp[T_TRUNC])) || (!is_null(&sp[T_PAD]) && read_padding(r, &sp[T_PAD])))
        return -1;
    if (!sp[T_MODEL].seen)
        return hf_fail(r, 0, "the file has no model");
    return 0;
}

static int parse(hf_rd *r)
{
    sc s = {r, r->data, 0, r->len};
    span sp[T_NKEYS] = {{0}}, msp[M_NKEYS] = {{0}};
    const char *unk = NULL;
    json_t *scal = NULL;
    if (r->len >= 3 && !memcmp(r->data, "\xEF\xBB\xBF", 3))
        return hf_fail(r, 0, "not a tokenizer.json: it starts with a byte order mark");
    ws(&s);
    if (s.i >= s.n || s.d[s.i] != '{') return syntax(&s, "the top level is not an object");
    if (object_spans(&s, "the file", top_keys, sp, 0, msp)) return -1;
    ws(&s);
    if (s.i != s.n) return syntax(&s, "trailing characters after the top-level object");
    drop_from(r, 0);
    drop_to(r, r->len);
    int rc = read_top(r, sp) || read_part(r, &sp[T_NORM], hf_read_normalizer) ||
             read_part(r, &sp[T_PRE], hf_read_pretok) || read_model(r, &sp[T_MODEL], msp, &sp[T_ADDED], &unk, &scal) ||
             read_added(r, &sp[T_ADDED]) || read_part(r, &sp[T_POST], hf_read_post) ||
             read_part(r, &sp[T_DEC], hf_read_decoder) || (!r->check && build_added(r));
    json_decref(scal);
    return rc ? -1 : 0;
}

int hf_read_run(const char *path, const char *data, size_t len, px_hf_config *out, px_error *err, int check, int mapped)
{
    memset(out, 0, sizeof *out);
    out->model.unk_id = -1;
    px_error local = {0};
    hf_rd r = {path, data, len, err ? err : &local, out, check, 0, 0, mapped, 0};
    if (len > PX_HF_MAX_BYTES_READ)
        return px_error_set(err, PX_ERR_TOO_LARGE, path, 0, 0, "tokenizer file larger than %u MiB",
                            PX_HF_MAX_BYTES_READ >> 20);
    if (parse(&r)) {
        hf_pipe_free(out);
        return -1;
    }
    return 0;
}

