/* BERT WordPiece tokenizer: the pipeline is described in
 * include/parity/tokenizer.h. The reference is HuggingFace's slow
 * BertTokenizer (BasicTokenizer + WordpieceTokenizer); where this file makes
 * a choice, the comment says which HuggingFace behaviour it mirrors, because
 * the point of parity is to produce the ids the model was trained with. */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "parity/utf8.h"
#include "parity/tokenizer.h"

#include <errno.h>
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* HuggingFace's WordpieceTokenizer max_input_chars_per_word. */
#define WORD_MAX_CHARS 100
#define NO_ID SIZE_MAX

/* BERT's _is_chinese_char ranges, and _is_punctuation: every ASCII
 * non-alphanumeric printable (so $ + < = > ^ ` | ~ count although Unicode
 * calls them symbols) plus Unicode P*. A basic token is one CJK ideograph,
 * one punctuation character, or a run of anything else but white space. */
#define CJK "\\x{4E00}-\\x{9FFF}\\x{3400}-\\x{4DBF}\\x{20000}-\\x{2A6DF}" \
            "\\x{2A700}-\\x{2B73F}\\x{2B740}-\\x{2B81F}\\x{2B820}-\\x{2CEAF}" \
            "\\x{F900}-\\x{FAFF}\\x{2F800}-\\x{2FA1F}"
#define PUNCT "\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E\\p{P}"
static const char SPLIT_PATTERN[] =
    "[" CJK "]|[" PUNCT "]|[^\\s" CJK PUNCT "]+";

struct px_tokenizer {
    char *buf;           /* the vocab file; each '\n' replaced by NUL */
    const char **tokens; /* id -> token, pointing into buf */
    size_t *lens;        /* id -> token length in bytes */
    size_t n;
    size_t max_len;      /* bytes in the longest token */
    size_t *slots;       /* open addressing, linear probing: id or NO_ID */
    size_t slot_mask;    /* slot count - 1; the count is a power of two */
    int64_t pad_id, unk_id, cls_id, sep_id;
    int lowercase;
    pcre2_code *split_re;
};

/* A growable list of ids for one encoding. */
struct id_list {
    int64_t *v;
    size_t n, cap;
};

static int oom(px_error *err)
{
    return px_error_set(err, PX_EXIT_ENV, NULL, 0, 0, "out of memory");
}

/* ---- UTF-8 helpers ------------------------------------------------------ */


/* Characters, not bytes: the 100-character word limit counts code points. */
static size_t utf8_count(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* Start of the code point that ends just before `end` (never below lo). */
static size_t utf8_prev(const char *s, size_t lo, size_t end)
{
    do
        end--;
    while (end > lo && ((unsigned char)s[end] & 0xC0) == 0x80);
    return end;
}

/* ---- vocab hash table --------------------------------------------------- */

/* FNV-1a: simple, and good enough for short tokens. */
static size_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return (size_t)h;
}

/* Slot holding s, or the empty slot where it would go. The table is kept at
 * most half full, so the probe always reaches an empty slot. */
static size_t vocab_slot(const px_tokenizer *tok, const char *s, size_t len)
{
    size_t i = hash_bytes(s, len) & tok->slot_mask;
    for (;;) {
        size_t id = tok->slots[i];
        if (id == NO_ID || (tok->lens[id] == len && !memcmp(tok->tokens[id], s, len)))
            return i;
        i = (i + 1) & tok->slot_mask;
    }
}

static size_t vocab_find(const px_tokenizer *tok, const char *s, size_t len)
{
    return tok->slots[vocab_slot(tok, s, len)];
}

/* ---- vocab loading ------------------------------------------------------ */

/* Read all of f into a NUL-terminated buffer; NULL on a read error or when
 * out of memory (errno tells which). */
static char *stream_slurp(FILE *f, size_t *len_out)
{
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (ferror(f)) {
            int saved = errno;
            free(buf);
            errno = saved;
            return NULL;
        }
        if (len < cap - 1)
            break;
        char *grown = realloc(buf, cap *= 2);
        if (!grown)
            free(buf);
        buf = grown;
    }
    if (!buf)
        errno = ENOMEM;
    else
        buf[len] = '\0';
    *len_out = len;
    return buf;
}

static char *file_slurp(const char *path, size_t *len_out, px_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        px_error_set(err, PX_EXIT_USAGE, path, 0, 0, "cannot open vocab: %s", strerror(errno));
        return NULL;
    }
    errno = 0;
    char *buf = stream_slurp(f, len_out);
    if (!buf)
        px_error_set(err, errno == ENOMEM ? PX_EXIT_ENV : PX_EXIT_USAGE, path, 0, 0,
                     "cannot read vocab: %s", strerror(errno));
    fclose(f);
    return buf;
}

/* Reject lines HuggingFace would load into tokens no text can ever produce,
 * so a broken vocab fails loudly here instead of silently yielding [UNK]s. */
static int vocab_line_check(const char *path, size_t line, const char *s, size_t len,
                            px_error *err)
{
    const char *nul = memchr(s, '\0', len);
    if (nul)
        return px_error_set(err, PX_EXIT_USAGE, path, (int)line, (int)(nul - s) + 1,
                            "NUL byte in vocab token");
    if (len && s[len - 1] == '\r')
        return px_error_set(err, PX_EXIT_USAGE, path, (int)line, (int)len,
                            "vocab line ends in CR (CRLF file?); the CR would be part of the token");
    long bad = utf8_invalid_at(s, len);
    if (bad >= 0)
        return px_error_set(err, PX_EXIT_USAGE, path, (int)line, (int)bad + 1,
                            "invalid UTF-8 in vocab token");
    return 0;
}

/* Split buf into lines (id = 0-based line number, like HuggingFace's
 * load_vocab, which strips only the '\n'). */
static int vocab_split(px_tokenizer *tok, size_t len, const char *path, px_error *err)
{
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += tok->buf[i] == '\n';
    lines += len && tok->buf[len - 1] != '\n';
    tok->tokens = malloc((lines + 1) * sizeof *tok->tokens);
    tok->lens = malloc((lines + 1) * sizeof *tok->lens);
    if (!tok->tokens || !tok->lens)
        return oom(err);
    for (char *p = tok->buf, *end = tok->buf + len; p < end; tok->n++) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (vocab_line_check(path, tok->n + 1, p, l, err))
            return -1;
        p[l] = '\0';
        tok->tokens[tok->n] = p;
        tok->lens[tok->n] = l;
        if (l > tok->max_len)
            tok->max_len = l;
        p += l + 1;
    }
    return 0;
}

/* Build the hash index; a duplicate is an error because HuggingFace would
 * silently give the token the later id, which is rarely what was meant. */
static int vocab_index(px_tokenizer *tok, const char *path, px_error *err)
{
    size_t cap = 16;
    while (cap < tok->n * 2)
        cap *= 2;
    tok->slots = malloc(cap * sizeof *tok->slots);
    if (!tok->slots)
        return oom(err);
    for (size_t i = 0; i < cap; i++)
        tok->slots[i] = NO_ID;
    tok->slot_mask = cap - 1;
    for (size_t id = 0; id < tok->n; id++) {
        size_t slot = vocab_slot(tok, tok->tokens[id], tok->lens[id]);
        if (tok->slots[slot] != NO_ID)
            return px_error_set(err, PX_EXIT_USAGE, path, (int)id + 1, 0,
                                "duplicate vocab token '%s' (first on line %zu)",
                                tok->tokens[id], tok->slots[slot] + 1);
        tok->slots[slot] = id;
    }
    return 0;
}

static int vocab_special(px_tokenizer *tok, const char *name, int64_t *id,
                         const char *path, px_error *err)
{
    size_t found = vocab_find(tok, name, strlen(name));
    if (found == NO_ID)
        return px_error_set(err, PX_EXIT_USAGE, path, 0, 0,
                            "vocab lacks the required special token %s (one line reading exactly '%s')",
                            name, name);
    *id = (int64_t)found;
    return 0;
}

static int vocab_specials(px_tokenizer *tok, const char *path, px_error *err)
{
    if (vocab_special(tok, "[PAD]", &tok->pad_id, path, err) ||
        vocab_special(tok, "[UNK]", &tok->unk_id, path, err) ||
        vocab_special(tok, "[CLS]", &tok->cls_id, path, err) ||
        vocab_special(tok, "[SEP]", &tok->sep_id, path, err))
        return -1;
    return 0;
}

static int split_compile(px_tokenizer *tok, px_error *err)
{
    int code;
    PCRE2_SIZE offset;
    tok->split_re = pcre2_compile((PCRE2_SPTR)SPLIT_PATTERN, PCRE2_ZERO_TERMINATED,
                                  PCRE2_UTF | PCRE2_UCP, &code, &offset, NULL);
    if (tok->split_re)
        return 0;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    return px_error_set(err, PX_EXIT_ENV, NULL, 0, 0, "tokenizer split pattern: %s at offset %zu",
                        (const char *)msg, (size_t)offset);
}

px_tokenizer *tokenizer_load(const char *vocab_path, int lowercase, px_error *err)
{
    px_tokenizer *tok = calloc(1, sizeof *tok);
    if (!tok) {
        oom(err);
        return NULL;
    }
    tok->lowercase = lowercase != 0;
    size_t len = 0;
    tok->buf = file_slurp(vocab_path, &len, err);
    if (!tok->buf || vocab_split(tok, len, vocab_path, err) ||
        vocab_index(tok, vocab_path, err) || vocab_specials(tok, vocab_path, err) ||
        split_compile(tok, err)) {
        tokenizer_free(tok);
        return NULL;
    }
    return tok;
}

void tokenizer_free(px_tokenizer *tok)
{
    if (!tok)
        return;
    pcre2_code_free(tok->split_re);
    free(tok->slots);
    free(tok->lens);
    free(tok->tokens);
    free(tok->buf);
    free(tok);
}

size_t tokenizer_vocab_size(const px_tokenizer *tok)
{
    return tok->n;
}

int64_t tokenizer_id(const px_tokenizer *tok, const char *token)
{
    if (!token)
        return -1;
    size_t id = vocab_find(tok, token, strlen(token));
    return id == NO_ID ? -1 : (int64_t)id;
}

const char *tokenizer_token(const px_tokenizer *tok, int64_t id)
{
    if (id < 0 || (uint64_t)id >= tok->n)
        return NULL;
    return tok->tokens[id];
}

/* ---- step 1: clean ------------------------------------------------------ */

/* HuggingFace's _is_control tests category "C*" (Cc, Cf, Co, Cn; Cs cannot
 * occur in valid UTF-8), not just the Cc/Cf of Google's original BERT. */
static int char_is_dropped(utf8proc_int32_t cp)
{
    if (cp == 0 || cp == 0xFFFD)
        return 1;
    if (cp == '\t' || cp == '\n' || cp == '\r')
        return 0;
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
        return 1;
    default:
        return 0;
    }
}

/* BERT maps Zs and tab/CR/LF to ' '; Python's str.split() then also splits
 * on Zl/Zp (U+2028/9). Other \s characters (VT, FF, NEL) are Cc, dropped
 * above, so after this step ' ' is the only white space left. */
static int char_is_space(utf8proc_int32_t cp)
{
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r')
        return 1;
    utf8proc_category_t cat = utf8proc_category(cp);
    return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL ||
           cat == UTF8PROC_CATEGORY_ZP;
}

/* Validate and clean; the result is never longer than the input. */
static int text_clean(const char *text, size_t len, char **out, size_t *out_len, px_error *err)
{
    char *buf = malloc(len + 1);
    if (!buf)
        return oom(err);
    size_t i = 0, o = 0;
    while (i < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)text + i,
                                              (utf8proc_ssize_t)(len - i), &cp);
        if (k <= 0) {
            free(buf);
            return px_error_set(err, PX_EXIT_USAGE, NULL, 0, 0,
                                "invalid UTF-8 at byte %zu of the text", i);
        }
        if (char_is_space(cp))
            buf[o++] = ' ';
        else if (!char_is_dropped(cp)) {
            memcpy(buf + o, text + i, (size_t)k);
            o += (size_t)k;
        }
        i += (size_t)k;
    }
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    return 0;
}

/* ---- step 3: normalize -------------------------------------------------- */

#define CAPITAL_SIGMA 0x03A3
#define SMALL_SIGMA 0x03C3
#define FINAL_SIGMA 0x03C2

/* Python's str.lower() applies Unicode's Final_Sigma rule, so "ΟΔΟΣ" becomes
 * "οδος"; utf8proc_tolower alone would give "οδοσ". Cased and
 * Case_Ignorable are approximated from general categories plus the
 * Word_Break MidLetter/MidNumLet/Single_Quote characters. */
static int char_is_cased(utf8proc_int32_t cp)
{
    utf8proc_category_t cat = utf8proc_category(cp);
    return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL ||
           cat == UTF8PROC_CATEGORY_LT;
}

static int char_is_case_ignorable(utf8proc_int32_t cp)
{
    static const utf8proc_int32_t mid[] = {
        0x27, 0x2E, 0x3A, 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019,
        0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A,
    };
    for (size_t i = 0; i < sizeof mid / sizeof mid[0]; i++)
        if (cp == mid[i])
            return 1;
    utf8proc_category_t cat = utf8proc_category(cp);
    return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_ME ||
           cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_LM ||
           cat == UTF8PROC_CATEGORY_SK;
}

/* before[0..nb) is the text already folded, after[0..na) what follows. Both
 * sides are valid context: folding keeps cased letters cased and only
 * removes Mn, which is case-ignorable anyway. */
static int sigma_is_final(const utf8proc_int32_t *before, utf8proc_ssize_t nb,
                          const utf8proc_int32_t *after, utf8proc_ssize_t na)
{
    while (nb > 0 && char_is_case_ignorable(before[nb - 1]))
        nb--;
    if (nb == 0 || !char_is_cased(before[nb - 1]))
        return 0;
    utf8proc_ssize_t i = 0;
    while (i < na && char_is_case_ignorable(after[i]))
        i++;
    return i == na || !char_is_cased(after[i]);
}

/* In place: drop Mn (accents, after NFD) and lowercase. */
static utf8proc_ssize_t cps_fold(utf8proc_int32_t *cps, utf8proc_ssize_t n)
{
    utf8proc_ssize_t o = 0;
    for (utf8proc_ssize_t i = 0; i < n; i++) {
        utf8proc_int32_t cp = cps[i];
        if (utf8proc_category(cp) == UTF8PROC_CATEGORY_MN)
            continue;
        if (cp == CAPITAL_SIGMA)
            cp = sigma_is_final(cps, o, cps + i + 1, n - i - 1) ? FINAL_SIGMA : SMALL_SIGMA;
        else
            cp = utf8proc_tolower(cp);
        cps[o++] = cp;
    }
    return o;
}

/* Lowercasing: NFD then fold. Otherwise NFC, which current HuggingFace
 * BasicTokenizer applies before splitting so that "é" and "e\u0301" give
 * the same tokens; with lowercasing NFC is moot since NFD follows. */
static int text_normalize(const px_tokenizer *tok, const char *s, size_t len, char **out,
                          size_t *out_len, px_error *err)
{
    utf8proc_option_t opt = UTF8PROC_STABLE | (tok->lowercase ? UTF8PROC_DECOMPOSE : UTF8PROC_COMPOSE);
    utf8proc_ssize_t n = utf8proc_decompose((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len,
                                            NULL, 0, opt);
    utf8proc_int32_t *cps = n >= 0 ? malloc(((size_t)n + 1) * sizeof *cps) : NULL;
    char *buf = n >= 0 ? malloc((size_t)n * 4 + 1) : NULL;
    if (n >= 0 && cps && buf)
        n = utf8proc_decompose((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, cps, n, opt);
    if (n >= 0 && cps && buf)
        n = tok->lowercase ? cps_fold(cps, n) : utf8proc_normalize_utf32(cps, n, opt);
    if (n < 0 || !cps || !buf) {
        free(cps);
        free(buf);
        if (n < 0)
            return px_error_set(err, PX_EXIT_USAGE, NULL, 0, 0, "normalizing text: %s",
                                utf8proc_errmsg(n));
        return oom(err);
    }
    size_t o = 0;
    for (utf8proc_ssize_t i = 0; i < n; i++)
        o += (size_t)utf8proc_encode_char(cps[i], (utf8proc_uint8_t *)buf + o);
    buf[o] = '\0';
    free(cps);
    *out = buf;
    *out_len = o;
    return 0;
}

/* ---- steps 4-6: split, WordPiece, assemble ------------------------------ */

static int ids_push(struct id_list *ids, int64_t id, px_error *err)
{
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? ids->cap * 2 : 64;
        int64_t *v = realloc(ids->v, cap * sizeof *v);
        if (!v)
            return oom(err);
        ids->v = v;
        ids->cap = cap;
    }
    ids->v[ids->n++] = id;
    return 0;
}

/* Look up w[start..end), "##"-prefixed unless it starts the word; scratch
 * has room for "##" and a whole word. */
static size_t piece_find(const px_tokenizer *tok, const char *w, size_t start, size_t end,
                         char *scratch)
{
    if (start == 0)
        return vocab_find(tok, w, end);
    memcpy(scratch + 2, w + start, end - start);
    return vocab_find(tok, scratch, end - start + 2);
}

/* Greedy longest-match-first; a word with any uncovered part becomes one
 * [UNK] (its partial pieces are taken back), as in HuggingFace. */
static int word_piece(const px_tokenizer *tok, const char *w, size_t len, struct id_list *ids,
                      px_error *err)
{
    if (utf8_count(w, len) > WORD_MAX_CHARS)
        return ids_push(ids, tok->unk_id, err);
    char scratch[2 + 4 * WORD_MAX_CHARS] = "##";
    size_t mark = ids->n, start = 0;
    while (start < len) {
        /* No piece longer than the longest token (with "##" after the
         * start) can be in the vocab, so the search begins at the last
         * character boundary within that length: the same match, without
         * looking up every longer prefix of a 100-character word. */
        size_t room = start ? tok->max_len - 2 : tok->max_len;
        size_t id = NO_ID, end = len - start > room ? start + room : len;
        while (end < len && end > start && ((unsigned char)w[end] & 0xC0) == 0x80)
            end--;
        for (; end > start; end = utf8_prev(w, start, end))
            if ((id = piece_find(tok, w, start, end, scratch)) != NO_ID)
                break;
        if (id == NO_ID) {
            ids->n = mark;
            return ids_push(ids, tok->unk_id, err);
        }
        if (ids_push(ids, (int64_t)id, err))
            return -1;
        start = end;
    }
    return 0;
}

/* Every non-space character is matched by one alternative of the split
 * pattern, so matches never have length zero and each is a basic token. */
static int text_pieces(const px_tokenizer *tok, const char *s, size_t len, struct id_list *ids,
                       px_error *err)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(tok->split_re, NULL);
    if (!md)
        return oom(err);
    PCRE2_SIZE off = 0;
    int rc = 0;
    while (rc == 0 && off < len) {
        int m = pcre2_match(tok->split_re, (PCRE2_SPTR)s, len, off, PCRE2_NO_UTF_CHECK, md, NULL);
        if (m == PCRE2_ERROR_NOMATCH)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        if (m < 0 || ov[1] <= ov[0]) {
            rc = px_error_set(err, PX_EXIT_ENV, NULL, 0, 0, "tokenizer split failed (%d)", m);
            break;
        }
        rc = word_piece(tok, s + ov[0], ov[1] - ov[0], ids, err);
        off = ov[1];
    }
    pcre2_match_data_free(md);
    return rc;
}

/* Copy ids into out, padding to pad_to. All pieces share one allocation
 * (the pointer array followed by the strings) so encoding_free is simple. */
static int encoding_fill(const px_tokenizer *tok, const struct id_list *ids, size_t max_tokens,
                         size_t pad_to, px_encoding *out, px_error *err)
{
    size_t n = ids->n > pad_to ? ids->n : pad_to;
    if (n > SIZE_MAX / 64)
        return oom(err);
    size_t bytes = n * sizeof(char *);
    for (size_t i = 0; i < n; i++)
        bytes += tok->lens[i < ids->n ? ids->v[i] : tok->pad_id] + 1;
    out->ids = malloc(n * sizeof *out->ids);
    out->mask = malloc(n * sizeof *out->mask);
    out->pieces = malloc(bytes);
    if (!out->ids || !out->mask || !out->pieces) {
        encoding_free(out);
        return oom(err);
    }
    char *text = (char *)(out->pieces + n);
    for (size_t i = 0; i < n; i++) {
        int64_t id = i < ids->n ? ids->v[i] : tok->pad_id;
        out->ids[i] = id;
        out->mask[i] = i < ids->n;
        out->pieces[i] = text;
        memcpy(text, tok->tokens[id], tok->lens[id] + 1);
        text += tok->lens[id] + 1;
    }
    out->n = n;
    out->n_real = ids->n;
    out->over_limit = max_tokens && ids->n > max_tokens;
    return 0;
}

int tokenizer_encode(const px_tokenizer *tok, const char *text, size_t len,
                     size_t max_tokens, size_t pad_to, px_encoding *out,
                     px_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text && len)
        return px_error_set(err, PX_EXIT_USAGE, NULL, 0, 0, "no text");
    if (len > (size_t)PTRDIFF_MAX / 4)
        return px_error_set(err, PX_EXIT_USAGE, NULL, 0, 0, "text too long");
    char *clean = NULL, *norm = NULL;
    size_t clean_len = 0, norm_len = 0;
    struct id_list ids = {0};
    int rc = -1;
    if (!text_clean(text ? text : "", len, &clean, &clean_len, err) &&
        !text_normalize(tok, clean, clean_len, &norm, &norm_len, err) &&
        !ids_push(&ids, tok->cls_id, err) &&
        !text_pieces(tok, norm, norm_len, &ids, err) &&
        !ids_push(&ids, tok->sep_id, err) &&
        !encoding_fill(tok, &ids, max_tokens, pad_to, out, err))
        rc = 0;
    free(clean);
    free(norm);
    free(ids.v);
    return rc;
}

void encoding_free(px_encoding *enc)
{
    if (!enc)
        return;
    free(enc->ids);
    free(enc->mask);
    free(enc->pieces);
    memset(enc, 0, sizeof *enc);
}
