/* The contract's tokenizer (include/parity/tokenizer.h): a vocab.txt or
 * chars vocabulary read here, a tokenizer.json's pipeline run here from the
 * stages of include/parity/hf_pipe.h. Where this file makes a choice, the comment
 * says which library behaviour it mirrors, because the point of parity is to
 * produce the ids the model was trained with. */
#include "parity/utf8.h"
#include "parity/hf_decode.h"
#include "parity/hf_pipe.h"
#include "parity/hf_read.h"
#include "parity/tokenizer.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* WordPiece's max_input_chars_per_word, as BertTokenizerFast sets it. */
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
    px_hf_config *hf;    /* the tokenizer.json pipeline (a vocab.txt's too); NULL
                            for chars */
    hf_bpe_cache *cache; /* BPE words seen (speed only: never changes ids) */
    hf_splits raw, mid;  /* scratch of tokenizer_encode: a tokenizer is used
                            by one thread at a time */
    hf_buf norm;
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
 * around it. That file is written here, in memory, and read by the same
 * reader as any tokenizer.json: one pipeline for both kinds
 * (tests/tokenizer/make_tokenizer_json.js writes the same file, and the
 * agreement test holds both kinds to the library). */
static int json_str(hf_buf *b, const char *s, size_t len, px_error *err)
{
    static const char hex[] = "0123456789abcdef";
    if (hf_buf_put(b, "\"", 1, err))
        return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        char esc[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
        int rc = ch == '"' || ch == '\\' ? hf_buf_put(b, "\\", 1, err) || hf_buf_put(b, s + i, 1, err)
                 : ch < 0x20             ? hf_buf_put(b, esc, 6, err)
                                         : hf_buf_put(b, s + i, 1, err);
        if (rc)
            return -1;
    }
    return hf_buf_put(b, "\"", 1, err);
}

static int json_put(hf_buf *b, const char *s, px_error *err) { return hf_buf_put(b, s, strlen(s), err); }

static int vocab_json(const px_tokenizer *tok, hf_buf *b, px_error *err)
{
    static const char *const specials[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    char num[64];
    int rc = json_put(b, "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":[", err);
    for (size_t i = 0, k = 0; i < 5 && !rc; i++) {
        int64_t id = tokenizer_id(tok, specials[i]);
        if (id < 0)
            continue;
        snprintf(num, sizeof num, "%s{\"id\":%lld,\"content\":", k++ ? "," : "", (long long)id);
        rc = json_put(b, num, err) || json_str(b, specials[i], strlen(specials[i]), err) ||
             json_put(b, ",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,\"normalized\":false,"
                         "\"special\":true}", err);
    }
    snprintf(num, sizeof num, "%s", tok->lowercase ? "true" : "false");
    rc = rc || json_put(b, "],\"normalizer\":{\"type\":\"BertNormalizer\",\"clean_text\":true,"
                           "\"handle_chinese_chars\":true,\"strip_accents\":null,\"lowercase\":", err) ||
         json_put(b, num, err) ||
         json_put(b, "},\"pre_tokenizer\":{\"type\":\"BertPreTokenizer\"},\"post_processor\":{\"type\":"
                     "\"BertProcessing\",\"sep\":[\"[SEP]\",", err);
    snprintf(num, sizeof num, "%lld],\"cls\":[\"[CLS]\",%lld]}", (long long)tok->sep_id, (long long)tok->cls_id);
    rc = rc || json_put(b, num, err) ||
         json_put(b, ",\"decoder\":{\"type\":\"WordPiece\",\"prefix\":\"##\",\"cleanup\":true},\"model\":{\"type\":"
                     "\"WordPiece\",\"unk_token\":\"[UNK]\",\"continuing_subword_prefix\":\"##\","
                     "\"max_input_chars_per_word\":100,\"vocab\":{", err);
    for (size_t id = 0; id < tok->n && !rc; id++) {
        snprintf(num, sizeof num, ":%zu", id);
        rc = (id && json_put(b, ",", err)) || json_str(b, tok->tokens[id], tok->lens[id], err) || json_put(b, num, err);
    }
    return rc || json_put(b, "}}}", err) ? -1 : 0;
}

static int hf_attach(px_tokenizer *tok, const char *path, const char *json, size_t len, px_error *err)
{
    if (!(tok->hf = calloc(1, sizeof *tok->hf)))
        return oom(err);
    int rc = json ? hf_read_buf(path, json, len, tok->hf, err) : hf_read_file(path, tok->hf, err);
    if (rc) {
        free(tok->hf);
        tok->hf = NULL;
        return -1;
    }
    if (tok->hf->model.kind == HF_MODEL_BPE && !(tok->cache = hf_bpe_cache_new()))
        return oom(err);
    return 0;
}

static int vocab_as_library(px_tokenizer *tok, const char *path, px_error *err)
{
    hf_buf b = {0};
    int rc = vocab_json(tok, &b, err) || hf_attach(tok, path, b.p, b.n, err) ? -1 : 0;
    hf_buf_free(&b);
    return rc;
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
    size_t len = 0;
    tok->buf = file_slurp(vocab_path, &len, err);
    if (!tok->buf || vocab_split(tok, len, vocab_path, err) ||
        vocab_index(tok, vocab_path, err) || vocab_specials(tok, vocab_path, err) ||
        vocab_as_library(tok, vocab_path, err)) {
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
        hf_pipe_free(tok->hf);
        free(tok->hf);
    }
    hf_bpe_cache_free(tok->cache);
    hf_splits_free(&tok->raw);
    hf_splits_free(&tok->mid);
    hf_buf_free(&tok->norm);
    free(tok->slots);
    free(tok->lens);
    free(tok->tokens);
    free(tok->buf);
    free(tok);
}

int tokenizer_file_limits(const px_tokenizer *tok, px_tok_limits *out)
{
    memset(out, 0, sizeof *out);
    const hf_limits *l = tok && tok->hf ? &tok->hf->limits : NULL;
    if (!l || (!l->truncation && !l->padding))
        return 0;
    out->truncates = l->truncation;
    out->truncate_at = l->trunc_max_length;
    out->truncation_strategy = l->trunc_strategy;
    out->pads = l->padding;
    out->pad_to = l->pad_length;
    out->padding_strategy = l->pad_strategy;
    return 1;
}

size_t tokenizer_limits_describe(const px_tokenizer *tok, char *buf, size_t n)
{
    px_tok_limits l;
    char pad[64] = "";
    if (n) buf[0] = 0;
    if (!tokenizer_file_limits(tok, &l) || !n)
        return 0;
    if (l.pads)
        snprintf(pad, sizeof pad, l.pad_to ? "pads to %zu" : "pads a batch to its longest", l.pad_to);
    int w;
    if (l.truncates)
        w = snprintf(buf, n, "tokenizer.json truncates at %zu tokens%s%s: parity applies %s; a text over max_tokens is "
                     "rejected%s", l.truncate_at, l.pads ? " and " : "", pad, l.pads ? "neither" : "no truncation",
                     l.pads ? ", a single example never padded" : "");
    else
        w = snprintf(buf, n, "tokenizer.json %s: parity does not pad; a single example is never padded", pad);
    return w < 0 ? 0 : (size_t)w >= n ? n - 1 : (size_t)w;
}

size_t tokenizer_vocab_size(const px_tokenizer *tok)
{
    return tok->hf ? tok->hf->vocab.n : tok->n;
}

int64_t tokenizer_id(const px_tokenizer *tok, const char *token)
{
    if (!token)
        return -1;
    if (tok->hf)
        return hf_vocab_find(&tok->hf->vocab, token, strlen(token));
    size_t id = vocab_find(tok, token, strlen(token));
    return id == NO_ID ? -1 : (int64_t)id;
}

const char *tokenizer_token(const px_tokenizer *tok, int64_t id)
{
    if (tok->hf)
        return hf_vocab_token(&tok->hf->vocab, id);
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
        out->pieces[i] = (char *)tokenizer_token(tok, id); /* never written through */
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
        size_t cps = utf8_chars(tok->tokens[id], tok->lens[id]);
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

/* The library's order (tokenizer/mod.rs encode_single_sequence, and
 * include/parity/hf_pipe.h): added tokens in the raw text, each stretch
 * between them normalized, the normalized added tokens found in it, the
 * pre-tokenizers, the model on each split, the post processor's ids
 * around. */
static int model_ids(const px_tokenizer *tok, const char *s, size_t len, hf_ids *out, px_error *err)
{
    const px_hf_config *c = tok->hf;
    if (c->model.kind == HF_MODEL_BPE)
        return hf_bpe_tokenize(&c->model, &c->vocab, tok->cache, s, len, out, err);
    return hf_wordpiece_tokenize(&c->model, &c->vocab, s, len, out, err);
}

static int stretch_ids(px_tokenizer *tok, const char *s, size_t len, int first, hf_ids *out, px_error *err)
{
    const px_hf_config *c = tok->hf;
    tok->norm.n = 0;
    hf_splits_clear(&tok->mid);
    int at_start = 1;
    if (hf_buf_put(&tok->norm, s, len, err) || hf_normalize_first(c->norm, c->n_norm, &tok->norm, &at_start, err))
        return -1;
    first = first && at_start; /* Metaspace's "first": still the text's start */
    if (c->added_norm ? hf_added_split(c->added_norm, tok->norm.p, tok->norm.n, &tok->mid, err)
                      : hf_splits_push(&tok->mid, tok->norm.p, tok->norm.n, -1, err))
        return -1;
    if (hf_pretokenize(c->pre, c->n_pre, &tok->mid, first, err))
        return -1;
    for (size_t i = 0; i < tok->mid.n; i++) {
        const hf_split *m = &tok->mid.v[i];
        if (m->id >= 0 ? hf_ids_push(out, m->id, err) : model_ids(tok, tok->mid.buf.p + m->off, m->len, out, err))
            return -1;
    }
    return 0;
}

static int pipe_encode(px_tokenizer *tok, const char *text, size_t len, hf_ids *out, px_error *err)
{
    long bad = utf8_invalid_at(text, len);
    if (bad >= 0)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "invalid UTF-8 at byte %ld of the text", bad);
    const px_hf_config *c = tok->hf;
    hf_splits_clear(&tok->raw);
    if (c->added_raw ? hf_added_split(c->added_raw, text, len, &tok->raw, err)
                     : hf_splits_push(&tok->raw, text, len, -1, err))
        return -1;
    for (size_t k = 0; k < c->post.n_before; k++)
        if (hf_ids_push(out, c->post.before[k], err))
            return -1;
    for (size_t i = 0; i < tok->raw.n; i++) {
        const hf_split *r = &tok->raw.v[i];
        if (r->id >= 0 ? hf_ids_push(out, r->id, err)
                       : stretch_ids(tok, tok->raw.buf.p + r->off, r->len, r->off == 0, out, err))
            return -1;
    }
    for (size_t k = 0; k < c->post.n_after; k++)
        if (hf_ids_push(out, c->post.after[k], err))
            return -1;
    return 0;
}

px_tokenizer *tokenizer_load_hf(const char *path, px_error *err)
{
    px_tokenizer *tok = calloc(1, sizeof *tok);
    if (!tok) {
        oom(err);
        return NULL;
    }
    tok->cls_id = tok->sep_id = tok->bos_id = -1;
    if (hf_attach(tok, path, NULL, 0, err)) {
        tokenizer_free(tok);
        return NULL;
    }
    tok->pad_id = tokenizer_id(tok, "[PAD]");
    tok->unk_id = tok->hf->model.unk_id;
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
    hf_ids h = {0};
    int rc;
    if (tok->chars)
        rc = chars_encode(tok, text ? text : "", len, &ids, err);
    else /* the scratch buffers and the BPE cache change; the ids never depend on them */
        rc = pipe_encode((px_tokenizer *)tok, text ? text : "", len, &h, err);
    if (!tok->chars)
        ids.v = h.v, ids.n = h.n, ids.cap = h.cap;
    rc = rc || encoding_fill(tok, &ids, max_tokens, pad_to, out, err) ? -1 : 0;
    free(ids.v);
    return rc;
}

char *tokenizer_decode_len(const px_tokenizer *tok, const int64_t *ids, size_t n, int skip_special, size_t *len,
                           px_error *err)
{
    if (tok->chars || !tok->hf) {
        char *text = tokenizer_decode(tok, ids, n, err);
        *len = text ? strlen(text) : 0;
        return text;
    }
    return hf_decode_len(tok->hf, ids, n, skip_special, len, err);
}

char *tokenizer_decode_special(const px_tokenizer *tok, const int64_t *ids, size_t n, int skip_special,
                               px_error *err)
{
    size_t len = 0;
    char *text = tokenizer_decode_len(tok, ids, n, skip_special, &len, err);
    if (text && memchr(text, '\0', len)) {
        free(text);
        px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                     "the decoded text holds a NUL byte (a token such as <0x00>): parity keeps text as text");
        return NULL;
    }
    return text;
}

int64_t tokenizer_stop_id(const px_tokenizer *tok, const char *s)
{
    if (!tok->hf)
        return tokenizer_id(tok, s);
    size_t len = strlen(s);
    for (size_t i = 0; i < tok->hf->n_added; i++)
        if (tok->hf->added[i].len == len && !memcmp(tok->hf->added[i].content, s, len))
            return tok->hf->added[i].id;
    return -1;
}

/* The first of the stops in text: its offset, or SIZE_MAX. */
static size_t first_stop(const char *text, char *const *stops, size_t n_stops)
{
    size_t at = SIZE_MAX;
    for (size_t i = 0; i < n_stops; i++) {
        const char *p = *stops[i] ? strstr(text, stops[i]) : NULL;
        if (p && (size_t)(p - text) < at)
            at = (size_t)(p - text);
    }
    return at;
}

/* Whether the text of ids[0..t) holds a stop: 1, 0, or -1 with *err. */
static int holds_stop(const px_tokenizer *tok, const int64_t *ids, size_t t, int skip_special, char *const *stops,
                      size_t n_stops, px_error *err)
{
    char *text = tokenizer_decode_special(tok, ids, t, skip_special, err);
    if (!text)
        return -1;
    int found = first_stop(text, stops, n_stops) != SIZE_MAX;
    free(text);
    return found;
}

char *tokenizer_text_until(const px_tokenizer *tok, const int64_t *ids, size_t n, int skip_special,
                           char *const *stops, size_t n_stops, size_t *n_used, int *stopped, px_error *err)
{
    *n_used = n, *stopped = 0;
    int any = n_stops ? holds_stop(tok, ids, n, skip_special, stops, n_stops, err) : 0;
    if (any < 0)
        return NULL;
    /* The fewest ids whose text holds a stop: a text only grows as ids are
     * added, so a binary search finds it (log n decodes, not n). */
    size_t lo = 1, hi = n;
    while (any && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int h = holds_stop(tok, ids, mid, skip_special, stops, n_stops, err);
        if (h < 0)
            return NULL;
        if (h)
            hi = mid;
        else
            lo = mid + 1;
    }
    char *text = tokenizer_decode_special(tok, ids, any ? lo : n, skip_special, err);
    size_t at = text && any ? first_stop(text, stops, n_stops) : SIZE_MAX;
    if (at == SIZE_MAX && any && text) { /* not monotonic after all: the whole text */
        free(text);
        text = tokenizer_decode_special(tok, ids, lo = n, skip_special, err);
        at = text ? first_stop(text, stops, n_stops) : SIZE_MAX;
    }
    if (text && at != SIZE_MAX) {
        text[at] = '\0';
        *n_used = lo, *stopped = 1;
    }
    return text;
}

void encoding_free(px_encoding *enc)
{
    if (!enc)
        return;
    free(enc->ids); /* the pieces with them */
    memset(enc, 0, sizeof *enc);
}
