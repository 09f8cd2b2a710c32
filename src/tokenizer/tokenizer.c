/* BERT WordPiece as the Hugging Face `tokenizers` library computes it, and
 * the chars kind of generators: both described in
 * include/parity/tokenizer.h. Where this file makes a choice, the comment
 * says which library behaviour it mirrors, because the point of parity is to
 * produce the ids the model was trained with. */
#include "parity/utf8.h"
#include "parity/hf_json.h"
#include "parity/hf_tables.h"
#include "parity/tokenizer.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* WordPiece's max_input_chars_per_word, as BertTokenizerFast sets it. */
#define WORD_MAX_CHARS 100
#define NO_ID SIZE_MAX

struct px_tokenizer {
    char *buf;           /* the vocab file; each '\n' replaced by NUL */
    const char **tokens; /* id -> token, pointing into buf */
    size_t *lens;        /* id -> token length in bytes */
    size_t n;
    size_t max_len;      /* bytes in the longest token */
    size_t *slots;       /* open addressing, linear probing: id or NO_ID */
    size_t slot_mask;    /* slot count - 1; the count is a power of two */
    int64_t pad_id, unk_id, cls_id, sep_id; /* pad_id -1: none */
    int64_t bos_id;      /* kind chars: [BOS]; -1 otherwise */
    int chars;           /* kind chars: one token per code point, no hf */
    int lowercase;
    const char *prefix;  /* WordPiece continuing_subword_prefix */
    size_t prefix_len, max_chars;
    px_hf_config *hf;    /* a tokenizer.json: its pipeline, not BERT's slow one */
};

/* A growable list of ids for one encoding. */
struct id_list {
    int64_t *v;
    size_t n, cap;
};

static int oom(px_error *err)
{
    return px_error_oom(err, NULL);
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
        px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot open vocab: %s", strerror(errno));
        return NULL;
    }
    errno = 0;
    char *buf = stream_slurp(f, len_out);
    if (!buf)
        px_error_set(err, errno == ENOMEM ? PX_ERR_NO_MEMORY : PX_ERR_NOT_FOUND, path, 0, 0,
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
        return px_error_set(err, PX_ERR_MALFORMED, path, (int)line, (int)(nul - s) + 1,
                            "NUL byte in vocab token");
    if (len && s[len - 1] == '\r')
        return px_error_set(err, PX_ERR_MALFORMED, path, (int)line, (int)len,
                            "vocab line ends in CR (CRLF file?); the CR would be part of the token");
    long bad = utf8_invalid_at(s, len);
    if (bad >= 0)
        return px_error_set(err, PX_ERR_MALFORMED, path, (int)line, (int)bad + 1,
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
            return px_error_set(err, PX_ERR_MALFORMED, path, (int)id + 1, 0,
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
        return px_error_set(err, PX_ERR_MALFORMED, path, 0, 0,
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

/* A vocab.txt with its lowercase flag means what Hugging Face's
 * BertTokenizerFast makes of it (what `transformers` gives by default, and
 * so what produced most models' ids): the tokenizer.json it would save,
 * BertNormalizer {clean_text, handle_chinese_chars, strip_accents and
 * lowercase as the flag}, BertPreTokenizer, WordPiece ("##", 100 characters,
 * [UNK]), its special tokens matched literally in the text, [CLS] ... [SEP]
 * around it. tests/tokenizer/make_tokenizer_json.js writes that file, and
 * the agreement test holds both kinds to the library. */
static int vocab_as_library(px_tokenizer *tok, px_error *err)
{
    static const char *const specials[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    px_hf_config *c = tok->hf = calloc(1, sizeof *tok->hf);
    if (!c || !(c->added = calloc(5, sizeof *c->added)) || !(c->before = malloc(sizeof *c->before)) ||
        !(c->after = malloc(sizeof *c->after)))
        return oom(err);
    c->clean_text = c->handle_chinese_chars = 1;
    c->strip_accents = c->lowercase = tok->lowercase;
    c->before[0] = tok->cls_id, c->after[0] = tok->sep_id;
    c->n_before = c->n_after = 1;
    for (size_t i = 0; i < 5; i++) {
        int64_t id = tokenizer_id(tok, specials[i]);
        if (id < 0)
            continue;
        px_hf_added *a = &c->added[c->n_added++];
        if (!(a->content = strdup(specials[i])))
            return oom(err);
        a->len = strlen(a->content), a->id = id, a->special = 1;
    }
    /* Longest first, as hf_json orders them: [MASK] before [PAD]. */
    for (size_t i = 1; i < c->n_added; i++)
        for (size_t j = i; j > 0 && c->added[j].len > c->added[j - 1].len; j--) {
            px_hf_added t = c->added[j];
            c->added[j] = c->added[j - 1], c->added[j - 1] = t;
        }
    return 0;
}

px_tokenizer *tokenizer_load(const char *vocab_path, int lowercase, px_error *err)
{
    px_tokenizer *tok = calloc(1, sizeof *tok);
    if (!tok) {
        oom(err);
        return NULL;
    }
    tok->lowercase = lowercase != 0;
    tok->bos_id = -1;
    tok->prefix = "##", tok->prefix_len = 2, tok->max_chars = WORD_MAX_CHARS;
    size_t len = 0;
    tok->buf = file_slurp(vocab_path, &len, err);
    if (!tok->buf || vocab_split(tok, len, vocab_path, err) ||
        vocab_index(tok, vocab_path, err) || vocab_specials(tok, vocab_path, err) ||
        vocab_as_library(tok, err)) {
        tokenizer_free(tok);
        return NULL;
    }
    return tok;
}

void tokenizer_free(px_tokenizer *tok)
{
    if (!tok)
        return;
    if (tok->hf) {
        hf_config_free(tok->hf);
        free(tok->hf);
    }
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

/* Look up w[start..end), prefixed ("##") unless it starts the word; scratch
 * holds the prefix and has room for a whole word after it. */
static size_t piece_find(const px_tokenizer *tok, const char *w, size_t start, size_t end,
                         char *scratch)
{
    if (start == 0)
        return vocab_find(tok, w, end);
    memcpy(scratch + tok->prefix_len, w + start, end - start);
    return vocab_find(tok, scratch, end - start + tok->prefix_len);
}

/* Greedy longest-match-first; a word with any uncovered part becomes one
 * [UNK] (its partial pieces are taken back), as in HuggingFace. */
static int word_piece(const px_tokenizer *tok, const char *w, size_t len, struct id_list *ids,
                      px_error *err)
{
    if (utf8_count(w, len) > tok->max_chars)
        return ids_push(ids, tok->unk_id, err);
    char *scratch = malloc(tok->prefix_len + len + 1);
    if (!scratch)
        return oom(err);
    memcpy(scratch, tok->prefix, tok->prefix_len);
    size_t mark = ids->n, start = 0;
    int rc = 0;
    while (start < len) {
        /* No piece longer than the longest token (with the prefix after the
         * start) can be in the vocab, so the search begins at the last
         * character boundary within that length: the same match, without
         * looking up every longer prefix of a 100-character word. */
        size_t room = !start ? tok->max_len : tok->max_len > tok->prefix_len ? tok->max_len - tok->prefix_len : 0;
        size_t id = NO_ID, end = len - start > room ? start + room : len;
        while (end < len && end > start && ((unsigned char)w[end] & 0xC0) == 0x80)
            end--;
        for (; end > start; end = utf8_prev(w, start, end))
            if ((id = piece_find(tok, w, start, end, scratch)) != NO_ID)
                break;
        if (id == NO_ID) {
            ids->n = mark;
            rc = ids_push(ids, tok->unk_id, err);
            break;
        }
        if ((rc = ids_push(ids, (int64_t)id, err)))
            break;
        start = end;
    }
    free(scratch);
    return rc;
}

/* Copy ids into out, padding to pad_to: the ids and the piece pointers in
 * one allocation (10 000 examples: one each, not three), each piece the
 * vocabulary's own string, not a copy. */
static int encoding_fill(const px_tokenizer *tok, const struct id_list *ids, size_t max_tokens,
                         size_t pad_to, px_encoding *out, px_error *err)
{
    size_t n = ids->n > pad_to ? ids->n : pad_to;
    if (n > SIZE_MAX / 64)
        return oom(err);
    if (n > ids->n && tok->pad_id < 0)
        return px_error_set(err, PX_ERR_MISMATCH, NULL, 0, 0, "pad_to needs a [PAD] token, and the tokenizer has none");
    _Static_assert(sizeof(int64_t) % sizeof(char *) == 0, "pieces follow the ids aligned");
    if (!(out->ids = malloc((n ? n : 1) * (sizeof *out->ids + sizeof *out->pieces))))
        return oom(err);
    out->pieces = (char **)(out->ids + n);
    for (size_t i = 0; i < n; i++) {
        int64_t id = i < ids->n ? ids->v[i] : tok->pad_id;
        out->ids[i] = id;
        out->pieces[i] = (char *)tok->tokens[id]; /* never written through */
    }
    out->n = n;
    out->n_real = ids->n;
    out->over_limit = max_tokens && ids->n > max_tokens;
    return 0;
}

/* ---- kind chars ---------------------------------------------------------- */

/* The chars kind's vocab.txt: [PAD] [BOS] [EOS] [UNK] on lines 1-4, each
 * line after them exactly one code point, none twice. vocab_split has
 * already refused NUL, a CR at a line's end and invalid UTF-8, each at its
 * line. */
static int chars_check(const px_tokenizer *tok, const char *path, px_error *err)
{
    static const char *const specials[] = {"[PAD]", "[BOS]", "[EOS]", "[UNK]"};
    for (size_t i = 0; i < 4; i++) {
        if (i >= tok->n)
            return px_error_set(err, PX_ERR_MALFORMED, path, (int)i + 1, 0,
                                "the vocab ends before line %zu, which must read exactly '%s' (lines 1-4 of "
                                "a chars vocab are [PAD] [BOS] [EOS] [UNK])",
                                i + 1, specials[i]);
        if (strcmp(tok->tokens[i], specials[i]))
            return px_error_set(err, PX_ERR_MALFORMED, path, (int)i + 1, 1,
                                "line %zu must read exactly '%s' (lines 1-4 of a chars vocab are [PAD] [BOS] "
                                "[EOS] [UNK])",
                                i + 1, specials[i]);
    }
    for (size_t id = 4; id < tok->n; id++) {
        size_t cps = utf8_count(tok->tokens[id], tok->lens[id]);
        if (!cps)
            return px_error_set(err, PX_ERR_MALFORMED, path, (int)id + 1, 1,
                                "empty line: each line of a chars vocab after the specials holds one character");
        if (cps > 1)
            return px_error_set(err, PX_ERR_MALFORMED, path, (int)id + 1, 1,
                                "a chars vocab line holds one character, this one holds %zu ('%.40s')", cps,
                                tok->tokens[id]);
    }
    return 0;
}

px_tokenizer *tokenizer_load_chars(const char *vocab_path, px_error *err)
{
    px_tokenizer *tok = calloc(1, sizeof *tok);
    if (!tok) {
        oom(err);
        return NULL;
    }
    size_t len = 0;
    tok->chars = 1;
    tok->pad_id = 0, tok->bos_id = 1, tok->unk_id = 3;
    tok->cls_id = tok->sep_id = -1;
    tok->buf = file_slurp(vocab_path, &len, err);
    if (!tok->buf || vocab_split(tok, len, vocab_path, err) || chars_check(tok, vocab_path, err) ||
        vocab_index(tok, vocab_path, err)) {
        tokenizer_free(tok);
        return NULL;
    }
    return tok;
}

int tokenizer_is_chars(const px_tokenizer *tok)
{
    return tok && tok->chars;
}

/* [BOS], then one id per code point: [UNK] for one not in the vocab. */
static int chars_encode(const px_tokenizer *tok, const char *text, size_t len, struct id_list *ids,
                        px_error *err)
{
    long bad = utf8_invalid_at(text, len);
    if (bad >= 0)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "invalid UTF-8 at byte %ld of the text", bad);
    if (ids_push(ids, tok->bos_id, err))
        return -1;
    for (size_t i = 0; i < len;) {
        size_t k = 1;
        while (i + k < len && ((unsigned char)text[i + k] & 0xC0) == 0x80)
            k++;
        size_t id = vocab_find(tok, text + i, k);
        if (ids_push(ids, id == NO_ID ? tok->unk_id : (int64_t)id, err))
            return -1;
        i += k;
    }
    return 0;
}

char *tokenizer_decode(const px_tokenizer *tok, const int64_t *ids, size_t n, px_error *err)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    if (!tok->chars) {
        px_error_set(err, PX_ERR_MISMATCH, NULL, 0, 0, "decoding needs a tokenizer of kind chars");
        return NULL;
    }
    size_t bytes = 1;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || (uint64_t)ids[i] >= tok->n) {
            px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                         "generated token %zu has id %lld, not in the vocab (0..%zu)", i, (long long)ids[i],
                         tok->n - 1);
            return NULL;
        }
        bytes += ids[i] == tok->unk_id ? sizeof replacement - 1 : ids[i] < 4 ? 0 : tok->lens[ids[i]];
    }
    char *out = malloc(bytes), *p = out;
    if (!out) {
        oom(err);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (ids[i] == tok->unk_id)
            memcpy(p, replacement, sizeof replacement - 1), p += sizeof replacement - 1;
        else if (ids[i] >= 4)
            memcpy(p, tok->tokens[ids[i]], tok->lens[ids[i]]), p += tok->lens[ids[i]];
    }
    *p = '\0';
    return out;
}

/* ---- the tokenizer.json pipeline ---------------------------------------- */

/* What the Hugging Face `tokenizers` library does with a BERT tokenizer.json
 * (normalizers/bert.rs, pre_tokenizers/bert.rs, models/wordpiece,
 * added_vocabulary.rs), with its own character classes: the tables in
 * src/tokenizer/hf_tables.c were generated by probing the library
 * (tests/tokenizer/gen_tables.js), because its Unicode data is older than
 * utf8proc's and the point is the ids the model was trained with. */

struct cp_list {
    uint32_t *v;
    size_t n, cap;
};

static int cps_push(struct cp_list *l, uint32_t cp, px_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        uint32_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return oom(err);
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = cp;
    return 0;
}

/* Push the code points of a table's UTF-8 string. */
static int cps_push_utf8(struct cp_list *l, const char *s, px_error *err)
{
    for (utf8proc_ssize_t k; *s; s += k) {
        utf8proc_int32_t cp;
        k = utf8proc_iterate((const utf8proc_uint8_t *)s, -1, &cp);
        if (k <= 0 || cps_push(l, (uint32_t)cp, err))
            return k <= 0 ? px_error_set(err, PX_ERR_INTERNAL, NULL, 0, 0, "bad table entry") : -1;
    }
    return 0;
}

static int ccc(uint32_t cp) { return (int)hf_ccc(cp); }

/* NFD's last step: each run of non-starters sorted by combining class,
 * stably. */
static void cps_reorder(uint32_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int c = ccc(v[i]);
        for (size_t j = i; c && j > 0 && ccc(v[j - 1]) > c; j--) {
            uint32_t t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    }
}

/* BertNormalizer: clean_text, handle_chinese_chars, strip_accents (NFD,
 * then drop non-spacing marks), lowercase; in that order. */
static int hf_normalize(const px_hf_config *c, struct cp_list *a, struct cp_list *b, px_error *err)
{
    b->n = 0;
    for (size_t i = 0; i < a->n; i++) {
        uint32_t cp = a->v[i];
        if (c->clean_text && hf_in(hf_other_ranges, hf_other_count, cp))
            continue;
        if (c->clean_text && hf_in(hf_space_ranges, hf_space_count, cp))
            cp = ' ';
        int cjk = c->handle_chinese_chars && hf_in(hf_chinese_ranges, hf_chinese_count, cp);
        if ((cjk && cps_push(b, ' ', err)) || cps_push(b, cp, err) || (cjk && cps_push(b, ' ', err)))
            return -1;
    }
    if (c->strip_accents) {
        a->n = 0;
        for (size_t i = 0; i < b->n; i++) {
            const char *d = hf_map(hf_nfd, hf_nfd_count, b->v[i]);
            if (d ? cps_push_utf8(a, d, err) : cps_push(a, b->v[i], err))
                return -1;
        }
        cps_reorder(a->v, a->n);
        b->n = 0;
        for (size_t i = 0; i < a->n; i++)
            if (!hf_in(hf_mn_ranges, hf_mn_count, a->v[i]) && cps_push(b, a->v[i], err))
                return -1;
    }
    if (c->lowercase) {
        a->n = 0;
        for (size_t i = 0; i < b->n; i++) {
            const char *l = hf_map(hf_lower, hf_lower_count, b->v[i]);
            if (l ? cps_push_utf8(a, l, err) : cps_push(a, b->v[i], err))
                return -1;
        }
        struct cp_list t = *a;
        *a = *b, *b = t;
    }
    return 0;
}

/* BertPreTokenizer (split on white space, each punctuation character a word
 * of its own), then WordPiece on each word. */
static int hf_words(const px_tokenizer *tok, const struct cp_list *v, struct id_list *ids, px_error *err)
{
    char *w = malloc(v->n * 4 + 1);
    if (!w)
        return oom(err);
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i <= v->n && !rc; i++) {
        uint32_t cp = i < v->n ? v->v[i] : ' ';
        int space = hf_in(hf_split_space_ranges, hf_split_space_count, cp) || i == v->n;
        int punct = !space && hf_in(hf_punct_ranges, hf_punct_count, cp);
        if ((space || punct) && n) {
            rc = word_piece(tok, w, n, ids, err);
            n = 0;
        }
        if (!space && !rc)
            n += (size_t)utf8proc_encode_char((utf8proc_int32_t)cp, (utf8proc_uint8_t *)w + n);
        if (punct && !rc) {
            rc = word_piece(tok, w, n, ids, err);
            n = 0;
        }
    }
    free(w);
    return rc;
}

/* One stretch of text between added tokens: normalized and split. */
static int hf_segment(const px_tokenizer *tok, const char *s, size_t len, struct cp_list *a, struct cp_list *b,
                      struct id_list *ids, px_error *err)
{
    a->n = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);
        if (k <= 0 || cps_push(a, (uint32_t)cp, err))
            return k <= 0 ? px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "invalid UTF-8 in the text") : -1;
        i += (size_t)k;
    }
    return hf_normalize(tok->hf, a, b, err) || hf_words(tok, b, ids, err) ? -1 : 0;
}

/* The added tokens (the special ones: [CLS], [SEP], ...) are found in the raw
 * text first, leftmost and then longest, and become their ids whatever the
 * normalizer would have made of them; the stretches between go through the
 * pipeline; the post processor's ids go around the whole. */
static int hf_encode(const px_tokenizer *tok, const char *text, size_t len, struct id_list *ids, px_error *err)
{
    long bad = utf8_invalid_at(text, len);
    if (bad >= 0)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "invalid UTF-8 at byte %ld of the text", bad);
    const px_hf_config *c = tok->hf;
    struct cp_list a = {0}, b = {0};
    int rc = 0;
    for (size_t k = 0; k < c->n_before && !rc; k++)
        rc = ids_push(ids, c->before[k], err);
    size_t seg = 0;
    for (size_t i = 0; i < len && !rc;) {
        const px_hf_added *m = NULL;
        for (size_t k = 0; k < c->n_added && !m; k++)
            if (c->added[k].len <= len - i && !memcmp(text + i, c->added[k].content, c->added[k].len))
                m = &c->added[k];
        if (!m) {
            i++;
            continue;
        }
        rc = hf_segment(tok, text + seg, i - seg, &a, &b, ids, err) || ids_push(ids, m->id, err);
        i += m->len;
        seg = i;
    }
    if (!rc)
        rc = hf_segment(tok, text + seg, len - seg, &a, &b, ids, err);
    for (size_t k = 0; k < c->n_after && !rc; k++)
        rc = ids_push(ids, c->after[k], err);
    free(a.v);
    free(b.v);
    return rc ? -1 : 0;
}

px_tokenizer *tokenizer_load_hf(const char *path, px_error *err)
{
    px_tokenizer *tok = calloc(1, sizeof *tok);
    if (tok && !(tok->hf = calloc(1, sizeof *tok->hf))) {
        free(tok);
        tok = NULL;
    }
    if (!tok) {
        oom(err);
        return NULL;
    }
    if (hf_json_read(path, tok->hf, err)) {
        tokenizer_free(tok);
        return NULL;
    }
    const px_hf_config *c = tok->hf;
    size_t bytes = 1;
    for (size_t id = 0; id < c->n; id++)
        bytes += strlen(c->tokens[id]) + 1;
    tok->buf = malloc(bytes);
    tok->tokens = malloc((c->n + 1) * sizeof *tok->tokens);
    tok->lens = malloc((c->n + 1) * sizeof *tok->lens);
    if (!tok->buf || !tok->tokens || !tok->lens) {
        oom(err);
        tokenizer_free(tok);
        return NULL;
    }
    char *p = tok->buf;
    for (size_t id = 0; id < c->n; id++) {
        size_t l = strlen(c->tokens[id]);
        memcpy(p, c->tokens[id], l + 1);
        tok->tokens[id] = p, tok->lens[id] = l;
        tok->max_len = l > tok->max_len ? l : tok->max_len;
        p += l + 1;
    }
    tok->n = c->n;
    tok->prefix = c->prefix, tok->prefix_len = strlen(c->prefix), tok->max_chars = c->max_chars;
    tok->lowercase = c->lowercase;
    if (vocab_index(tok, path, err)) {
        tokenizer_free(tok);
        return NULL;
    }
    tok->unk_id = tokenizer_id(tok, c->unk_token);
    tok->pad_id = tokenizer_id(tok, "[PAD]");
    tok->cls_id = tok->sep_id = tok->bos_id = -1;
    if (tok->unk_id < 0) {
        px_error_set(err, PX_ERR_MALFORMED, path, 0, 0, "model.unk_token '%s' is not in the vocab", c->unk_token);
        tokenizer_free(tok);
        return NULL;
    }
    return tok;
}

int tokenizer_encode(const px_tokenizer *tok, const char *text, size_t len,
                     size_t max_tokens, size_t pad_to, px_encoding *out,
                     px_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text && len)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "no text");
    if (len > (size_t)PTRDIFF_MAX / 4)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "text too long");
    struct id_list ids = {0};
    int rc = (tok->chars ? chars_encode(tok, text ? text : "", len, &ids, err)
                         : hf_encode(tok, text ? text : "", len, &ids, err)) ||
                     encoding_fill(tok, &ids, max_tokens, pad_to, out, err)
                 ? -1
                 : 0;
    free(ids.v);
    return rc;
}

void encoding_free(px_encoding *enc)
{
    if (!enc)
        return;
    free(enc->ids); /* the pieces with them */
    memset(enc, 0, sizeof *enc);
}

char *tokenizer_decode_special(const px_tokenizer *tok, const int64_t *ids, size_t n, int skip_special,
                               px_error *err)
{
    (void)skip_special;
    return tokenizer_decode(tok, ids, n, err);
}
