/* decode(ids, skip_special_tokens) of the Hugging Face `tokenizers` library
 * (0.23.2: TokenizerImpl::decode in tokenizer/mod.rs, the decoders in
 * decoders/, pre_tokenizers/byte_level.rs and metaspace.rs,
 * normalizers/replace.rs), in C:
 *
 *   ids -> tokens: an id the vocab does not hold is dropped; an added token
 *     whose content the normalizer changes (normalized: true) is given in its
 *     normalized form (AddedVocabulary::simple_id_to_token, since 0.23); with
 *     skip_special, a token whose TEXT is the content of a special added
 *     token is dropped (is_special_token looks the string up, not the id);
 *   tokens -> each decoder's decode_chain in turn -> joined with "" (no
 *     decoder: joined with " ").
 *
 * A token list is a byte arena with (offset, length) per token; each decoder
 * reads one list and writes the other. Every token is valid UTF-8 (vocab
 * strings come from JSON; ByteLevel and ByteFallback, which make bytes,
 * produce valid text as Rust's String does). */
#include <stdlib.h>
#include <string.h>

#include "parity/hf_decode.h"
#include "parity/hf_pipe.h"

/* ---- byte strings ---------------------------------------------------------- */

static int buf_grow(hf_buf *b, size_t more, px_error *err)
{
    if (more > SIZE_MAX / 2 - b->n)
        return px_error_oom(err, NULL);
    if (b->n + more + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p)
        return px_error_oom(err, NULL);
    b->p = p, b->cap = cap;
    return 0;
}

/* Append, keeping b->p NUL-terminated. */
static int buf_add(hf_buf *b, const char *s, size_t n, px_error *err)
{
    if (buf_grow(b, n, err))
        return -1;
    if (n)
        memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

/* ---- UTF-8 ----------------------------------------------------------------- */

/* The sequence at s[0..n): its length when valid (1..4), else 0 with *bad
 * set to the maximal invalid subpart's length (>= 1): the lead byte and the
 * continuation bytes that were still acceptable (Unicode table 3-7, which
 * Rust's from_utf8 and Utf8Chunks follow: no overlongs, no surrogates,
 * nothing above U+10FFFF). *bad == n with the sequence unfinished means s
 * ends inside a sequence that could still complete. */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
    unsigned c = s[0];
    size_t need;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        need = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        *bad = 1;
        return 0;
    }
    for (size_t i = 1; i < need; i++) {
        unsigned lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xBF;
        if (i >= n || s[i] < lo_i || s[i] > hi_i) {
            *bad = i;
            return 0;
        }
    }
    return need;
}

int hf_utf8_lossy(const char *s, size_t n, hf_buf *out, px_error *err)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, run = 0;
    if (buf_grow(out, n, err))
        return -1;
    while (i < n) {
        size_t bad = 0, k = utf8_seq(u + i, n - i, &bad);
        if (k) {
            i += k, run += k;
            continue;
        }
        if (buf_add(out, s + i - run, run, err) || buf_add(out, "\xEF\xBF\xBD", 3, err))
            return -1;
        i += bad, run = 0;
    }
    return buf_add(out, s + n - run, run, err);
}

int hf_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0, bad, k; i < n; i += k)
        if (!(k = utf8_seq(u + i, n - i, &bad)))
            return 0;
    return 1;
}

size_t hf_utf8_incomplete_tail(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        unsigned c = u[n - back];
        size_t bad = 0;
        if (c < 0x80)
            return 0;
        if (c <= 0xBF)
            continue;                 /* a continuation byte: look further back */
        /* A lead byte (C2..F4 only): incomplete when all after it fit. */
        if (c < 0xC2 || c > 0xF4)
            return 0;
        return !utf8_seq(u + n - back, back, &bad) && bad == back ? back : 0;
    }
    return 0;
}

/* The code point at s (valid UTF-8, as every token is), its length in *k. */
static uint32_t utf8_cp(const unsigned char *s, size_t *k)
{
    if (s[0] < 0x80)
        return *k = 1, s[0];
    if (s[0] < 0xE0)
        return *k = 2, (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
    if (s[0] < 0xF0)
        return *k = 3, (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
    return *k = 4, (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
                   (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
}

/* Length of the character at s[0..n): utf8_seq's, or 1 on a stray byte (a
 * token is valid UTF-8, but this never reads past n whatever it holds). */
static size_t char_len(const char *s, size_t n)
{
    size_t bad, k = utf8_seq((const unsigned char *)s, n, &bad);
    return k ? k : 1;
}

/* ---- token lists ----------------------------------------------------------- */

typedef struct toks {
    hf_buf b;
    size_t *off, *len;
    size_t n, cap;
} toks;

static void toks_clear(toks *t) { t->n = 0, t->b.n = 0; }

static void toks_free(toks *t)
{
    free(t->b.p), free(t->off), free(t->len);
    memset(t, 0, sizeof *t);
}

/* A new token holding s[0..n). */
static int toks_push(toks *t, const char *s, size_t n, px_error *err)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        size_t *o = realloc(t->off, cap * sizeof *o);
        if (!o)
            return px_error_oom(err, NULL);
        t->off = o;
        size_t *l = realloc(t->len, cap * sizeof *l);
        if (!l)
            return px_error_oom(err, NULL);
        t->len = l, t->cap = cap;
    }
    t->off[t->n] = t->b.n, t->len[t->n] = n;
    t->n++;
    return buf_add(&t->b, s, n, err);
}

/* More bytes at the end of the last token. */
static int toks_more(toks *t, const char *s, size_t n, px_error *err)
{
    if (buf_add(&t->b, s, n, err))
        return -1;
    t->len[t->n - 1] += n;
    return 0;
}

#define TOK(t, i) ((t)->b.p + (t)->off[i])

/* ---- the decoders ---------------------------------------------------------- */

/* ByteLevel's CHAR_BYTES: the GPT-2 byte-to-unicode table reversed. Bytes
 * '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand for themselves; the other 68
 * take U+0100 + k in byte order: 0x00..0x20 (k 0..32), 0x7F..0xA0 (k
 * 33..66), 0xAD (k 67). -1: not in the table. */
static int bytelevel_byte(uint32_t cp)
{
    if ((cp >= '!' && cp <= '~') || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF))
        return (int)cp;
    if (cp < 0x100 || cp > 0x143)
        return -1;
    uint32_t k = cp - 0x100;
    return k <= 32 ? (int)k : k <= 66 ? (int)(0x7F + k - 33) : 0xAD;
}

int hf_bytelevel_byte(uint32_t cp) { return bytelevel_byte(cp); }

/* Every token's characters back to bytes (a token with any character
 * outside the table is kept as its own UTF-8 bytes, as the library's
 * try_fold falls back), all into one string, then from_utf8_lossy. */
static int dec_bytelevel(const toks *in, toks *out, hf_buf *tmp, px_error *err)
{
    tmp->n = 0;
    for (size_t i = 0; i < in->n; i++) {
        const unsigned char *s = (const unsigned char *)TOK(in, i);
        size_t len = in->len[i], start = tmp->n, k;
        /* A token gives at most its length in bytes: room once, not a
         * growth check a byte. */
        if (buf_grow(tmp, len, err))
            return -1;
        for (size_t j = 0; j < len; j += k) {
            int b = bytelevel_byte(utf8_cp(s + j, &k));
            if (b < 0) {
                memcpy(tmp->p + start, s, len);
                tmp->n = start + len;
                break;
            }
            tmp->p[tmp->n++] = (char)b;
        }
        tmp->p[tmp->n] = '\0';
    }
    if (toks_push(out, "", 0, err))
        return -1;
    hf_buf lossy = out->b;
    size_t before = lossy.n;
    int rc = hf_utf8_lossy(tmp->p ? tmp->p : "", tmp->n, &lossy, err);
    out->b = lossy;
    if (rc)
        return -1;
    out->len[out->n - 1] = lossy.n - before;
    return 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "<0xXX>" (6 bytes) -> the byte, else -1. The library parses the middle
 * with u8::from_str_radix(.., 16), which also takes "+X" (one digit with a
 * plus sign) and either case. */
static int fallback_byte(const char *s, size_t n)
{
    if (n != 6 || memcmp(s, "<0x", 3) || s[5] != '>')
        return -1;
    int hi = hexval(s[3]), lo = hexval(s[4]);
    if (s[3] == '+')
        return lo;
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/* A run of byte tokens: its string when valid UTF-8, else one U+FFFD per
 * BYTE (not per invalid subpart: ByteFallback pushes "�" len times). */
static int flush_bytes(toks *out, hf_buf *run, px_error *err)
{
    if (!run->n)
        return 0;
    if (hf_utf8_valid(run->p, run->n)) {
        if (toks_push(out, run->p, run->n, err))
            return -1;
    } else {
        for (size_t i = 0; i < run->n; i++)
            if (toks_push(out, "\xEF\xBF\xBD", 3, err))
                return -1;
    }
    run->n = 0;
    return 0;
}

static int dec_bytefallback(const toks *in, toks *out, hf_buf *run, px_error *err)
{
    run->n = 0;
    for (size_t i = 0; i < in->n; i++) {
        int b = fallback_byte(TOK(in, i), in->len[i]);
        if (b >= 0) {
            char c = (char)b;
            if (buf_add(run, &c, 1, err))
                return -1;
            continue;
        }
        if (flush_bytes(out, run, err) || toks_push(out, TOK(in, i), in->len[i], err))
            return -1;
    }
    return flush_bytes(out, run, err);
}

static int dec_fuse(const toks *in, toks *out, px_error *err)
{
    if (toks_push(out, "", 0, err))
        return -1;
    for (size_t i = 0; i < in->n; i++)
        if (toks_more(out, TOK(in, i), in->len[i], err))
            return -1;
    return 0;
}

/* Strip: up to `start` leading and `stop` trailing `content` characters of
 * each token. Where the library panics (stop reaching past a token made only
 * of `content`, or the two cuts crossing: Rust aborts the process), this
 * refuses instead. */
static int dec_strip(const hf_decoder *d, const toks *in, toks *out, px_error *err)
{
    for (size_t i = 0; i < in->n; i++) {
        const char *s = TOK(in, i);
        size_t len = in->len[i], a = 0, z = len, k;
        for (size_t j = 0; j < d->start && a < len; j++) {
            k = char_len(s + a, len - a);
            if (k != d->content_len || memcmp(s + a, d->content, k))
                break;
            a += k;
        }
        for (size_t j = 0; j < d->stop; j++) {
            if (z == 0)
                return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                                    "the Strip decoder would cut %zu characters from the end of a token of fewer "
                                    "(the library panics here)", d->stop);
            size_t b = z - 1;
            while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80)
                b--;
            if (z - b != d->content_len || memcmp(s + b, d->content, z - b))
                break;
            z = b;
        }
        if (a > z)
            return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                                "the Strip decoder's start and stop cuts overlap in a token (the library panics here)");
        if (toks_push(out, s + a, z - a, err))
            return -1;
    }
    return 0;
}

/* Metaspace: each `replacement` character becomes ' ', except in the first
 * token where every one of them is dropped (prepend_scheme always or
 * first). */
static int dec_metaspace(const hf_decoder *d, const toks *in, toks *out, px_error *err)
{
    for (size_t i = 0; i < in->n; i++) {
        const char *s = TOK(in, i);
        size_t len = in->len[i], k;
        int drop = i == 0 && d->prepend_scheme != HF_PREPEND_NEVER;
        if (toks_push(out, "", 0, err))
            return -1;
        for (size_t j = 0; j < len; j += k) {
            k = char_len(s + j, len - j);
            int rep = k == d->replacement_len && !memcmp(s + j, d->replacement, k);
            if (rep && drop)
                continue;
            if (toks_more(out, rep ? " " : s + j, rep ? 1 : k, err))
                return -1;
        }
    }
    return 0;
}

/* Rust's str::replace: every non-overlapping `from`, left to right, by `to`;
 * src[0..n) is appended to *dst. */
static int replace_all(const char *src, size_t n, const char *from, const char *to, hf_buf *dst, px_error *err)
{
    size_t fl = strlen(from), tl = strlen(to), i = 0, last = 0;
    while (i + fl <= n) {
        if (!memcmp(src + i, from, fl)) {
            if (buf_add(dst, src + last, i - last, err) || buf_add(dst, to, tl, err))
                return -1;
            i += fl, last = i;
        } else {
            i++;
        }
    }
    return buf_add(dst, src + last, n - last, err);
}

/* decoders/wordpiece.rs cleanup(), its replacements in its order. */
static const char *const wp_cleanup[][2] = {
    {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
    {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
};

static int cleanup(hf_buf *a, hf_buf *b, px_error *err)
{
    for (size_t r = 0; r < sizeof wp_cleanup / sizeof wp_cleanup[0]; r++) {
        b->n = 0;
        if (replace_all(a->p ? a->p : "", a->n, wp_cleanup[r][0], wp_cleanup[r][1], b, err))
            return -1;
        hf_buf t = *a;
        *a = *b, *b = t;
    }
    return 0;
}

/* WordPiece: tokens after the first lose the prefix, or get a ' ' before
 * them when they lack it; then each token (the first too) is cleaned up. */
static int dec_wordpiece(const hf_decoder *d, const toks *in, toks *out, hf_buf tmp[2], px_error *err)
{
    for (size_t i = 0; i < in->n; i++) {
        const char *s = TOK(in, i);
        size_t len = in->len[i];
        tmp[0].n = 0;
        if (i != 0 && len >= d->prefix_len && !memcmp(s, d->prefix, d->prefix_len))
            s += d->prefix_len, len -= d->prefix_len;
        else if (i != 0 && buf_add(&tmp[0], " ", 1, err))
            return -1;
        if (buf_add(&tmp[0], s, len, err))
            return -1;
        if (d->cleanup && cleanup(&tmp[0], &tmp[1], err))
            return -1;
        if (toks_push(out, tmp[0].p, tmp[0].n, err))
            return -1;
    }
    return 0;
}

/* Replace: each match of the pattern (a literal or a regex, the library's
 * find_iter) replaced by content, per token. */
static int dec_replace(const hf_decoder *d, const toks *in, toks *out, px_error *err)
{
    hf_offsets m = {0};
    int rc = 0;
    for (size_t i = 0; i < in->n && !rc; i++) {
        const char *s = TOK(in, i);
        size_t len = in->len[i], prev = 0;
        m.n = 0;
        rc = hf_pattern_find(&d->pattern, s, len, &m, err) || toks_push(out, "", 0, err);
        for (size_t j = 0; j + 1 < m.n && !rc; j += 2) {
            size_t a = m.v[j], z = m.v[j + 1];
            if (a < prev || z < a || z > len) {
                rc = px_error_set(err, PX_ERR_INTERNAL, NULL, 0, 0, "pattern match out of order");
                break;
            }
            rc = toks_more(out, s + prev, a - prev, err) || toks_more(out, d->content, d->content_len, err);
            prev = z;
        }
        if (!rc)
            rc = toks_more(out, s + prev, len - prev, err);
    }
    free(m.v);
    return rc ? -1 : 0;
}

typedef struct scratch {
    hf_buf b[2];
} scratch;

static int dec_one(const hf_decoder *d, const toks *in, toks *out, scratch *sc, px_error *err)
{
    switch (d->kind) {
    case HF_DEC_BYTELEVEL: return dec_bytelevel(in, out, &sc->b[0], err);
    case HF_DEC_METASPACE: return dec_metaspace(d, in, out, err);
    case HF_DEC_WORDPIECE: return dec_wordpiece(d, in, out, sc->b, err);
    case HF_DEC_REPLACE: return dec_replace(d, in, out, err);
    case HF_DEC_BYTEFALLBACK: return dec_bytefallback(in, out, &sc->b[0], err);
    case HF_DEC_FUSE: return dec_fuse(in, out, err);
    case HF_DEC_STRIP: return dec_strip(d, in, out, err);
    }
    return px_error_set(err, PX_ERR_INTERNAL, NULL, 0, 0, "unknown decoder kind %d", (int)d->kind);
}

/* ---- ids -> tokens --------------------------------------------------------- */

/* The added tokens with normalized: true, by id, when there is a normalizer:
 * their decode form is the normalized content (only those the normalizer
 * changes differ). Sorted for bsearch. */
typedef struct norm_added {
    int64_t id;
    size_t at;                        /* index in c->added */
} norm_added;

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const norm_added *)a)->id, y = ((const norm_added *)b)->id;
    return (x > y) - (x < y);
}

static int norm_added_list(const px_hf_config *c, norm_added **out, size_t *n, px_error *err)
{
    *out = NULL, *n = 0;
    if (!c->n_norm)
        return 0;
    for (size_t i = 0; i < c->n_added; i++)
        if (c->added[i].normalized && c->added[i].len) {
            if (!*out && !(*out = malloc(c->n_added * sizeof **out)))
                return px_error_oom(err, NULL);
            (*out)[(*n)++] = (norm_added){c->added[i].id, i};
        }
    if (*n)
        qsort(*out, *n, sizeof **out, by_id);
    return 0;
}

/* A string is special when it is the content of a special added token: the
 * vocab maps each added content to its id, and special[] flags that id. */
static int special_text(const px_hf_config *c, const char *s, size_t len)
{
    int64_t id = c->special ? hf_vocab_find(&c->vocab, s, len) : -1;
    return id >= 0 && (size_t)id < c->vocab.n && c->special[id];
}

/* The token of one id appended to *t (or nothing: unknown, or skipped). */
static int id_token(const px_hf_config *c, int64_t id, int skip_special, const norm_added *na, size_t n_na,
                    hf_buf *tmp, toks *t, px_error *err)
{
    const char *s = hf_vocab_token(&c->vocab, id);
    if (!s)
        return 0;
    size_t len = c->vocab.len[id];
    norm_added key = {id, 0}, *hit = n_na ? bsearch(&key, na, n_na, sizeof *na, by_id) : NULL;
    if (hit) {
        const hf_added *a = &c->added[hit->at];
        tmp->n = 0;
        if (buf_add(tmp, a->content, a->len, err) || hf_normalize(c->norm, c->n_norm, tmp, err))
            return -1;
        if (tmp->n != len || memcmp(tmp->p, s, len)) {
            if (skip_special && special_text(c, tmp->p, tmp->n))
                return 0;
            return toks_push(t, tmp->p, tmp->n, err);
        }
    }
    if (skip_special && c->special && c->special[id])
        return 0;
    return toks_push(t, s, len, err);
}

static int ids_tokens(const px_hf_config *c, const int64_t *ids, size_t n, int skip_special, toks *t,
                      hf_buf *tmp, px_error *err)
{
    norm_added *na;
    size_t n_na;
    if (norm_added_list(c, &na, &n_na, err))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = id_token(c, ids[i], skip_special, na, n_na, tmp, t, err);
    free(na);
    return rc;
}

/* ---- decode ---------------------------------------------------------------- */

static char *join(const toks *t, const char *sep, size_t *len, px_error *err)
{
    hf_buf out = {0};
    if (buf_add(&out, "", 0, err))
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if ((i && buf_add(&out, sep, strlen(sep), err)) || buf_add(&out, TOK(t, i), t->len[i], err)) {
            free(out.p);
            return NULL;
        }
    if (len)
        *len = out.n;
    return out.p;
}

char *hf_decode_len(const px_hf_config *c, const int64_t *ids, size_t n, int skip_special, size_t *len,
                    px_error *err)
{
    toks a = {0}, b = {0};
    scratch sc = {{{0}}};
    char *res = NULL;
    if (ids_tokens(c, ids, n, skip_special, &a, &sc.b[0], err))
        goto done;
    for (size_t i = 0; i < c->n_dec; i++) {
        toks_clear(&b);
        if (dec_one(&c->dec[i], &a, &b, &sc, err))
            goto done;
        toks t = a;
        a = b, b = t;
    }
    /* Decoder::decode joins with ""; no decoder: tokens.join(" "). */
    res = join(&a, c->has_decoder || c->n_dec ? "" : " ", len, err);
done:
    toks_free(&a), toks_free(&b);
    free(sc.b[0].p), free(sc.b[1].p);
    return res;
}

char *hf_decode(const px_hf_config *c, const int64_t *ids, size_t n, int skip_special, px_error *err)
{
    return hf_decode_len(c, ids, n, skip_special, NULL, err);
}
