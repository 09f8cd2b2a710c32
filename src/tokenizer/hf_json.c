/* tokenizer.json (Hugging Face `tokenizers`), the BERT family: see
 * include/parity/hf_json.h. Field names and defaults follow the library's
 * serde definitions (normalizers/bert.rs, models/wordpiece/mod.rs,
 * processors/template.rs, processors/bert.rs, tokenizer/added_vocabulary.rs),
 * so a file the library writes reads here as the library reads it. */
#include "parity/hf_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ctx {
    const char *path;
    px_error *err;
    px_hf_config *c;
} ctx;

static int fail(ctx *x, const char *fmt, const char *a, const char *b)
{
    return px_error_set(x->err, PX_ERR_MALFORMED, x->path, 0, 0, fmt, a ? a : "", b ? b : "");
}

static int oom(ctx *x) { return px_error_oom(x->err, x->path); }

/* The object's "type", or NULL. */
static const char *type_of(const json_t *o) { return json_string_value(json_object_get(o, "type")); }

/* A boolean member: absent gives def; anything but true/false is an error. */
static int get_bool(ctx *x, const json_t *o, const char *where, const char *key, int def, int *out)
{
    json_t *v = json_object_get(o, key);
    *out = def;
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return fail(x, "%s.%s must be true or false", where, key);
    *out = json_is_true(v);
    return 0;
}

/* Only the keys listed may appear: a field this reader does not know could
 * change the ids. */
static int only_keys(ctx *x, const json_t *o, const char *where, const char *const *keys)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        int ok = 0;
        for (size_t i = 0; keys[i] && !ok; i++)
            ok = !strcmp(k, keys[i]);
        if (!ok)
            return fail(x, "%s has '%s', which parity does not implement", where, k);
    }
    return 0;
}

static int read_normalizer(ctx *x, const json_t *n)
{
    static const char *const keys[] = {"type", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase", NULL};
    if (json_is_null(n) || !n) /* no normalizer: the text as it is */
        return 0;
    const char *t = type_of(n);
    if (!json_is_object(n) || !t || strcmp(t, "BertNormalizer"))
        return fail(x, "normalizer %s%s is not implemented (BertNormalizer only)", t ? t : "without a type", NULL);
    if (only_keys(x, n, "normalizer", keys) || get_bool(x, n, "normalizer", "clean_text", 1, &x->c->clean_text) ||
        get_bool(x, n, "normalizer", "handle_chinese_chars", 1, &x->c->handle_chinese_chars) ||
        get_bool(x, n, "normalizer", "lowercase", 1, &x->c->lowercase))
        return -1;
    /* strip_accents: null means "as lowercase". */
    json_t *s = json_object_get(n, "strip_accents");
    if (!s || json_is_null(s))
        x->c->strip_accents = x->c->lowercase;
    else if (json_is_boolean(s))
        x->c->strip_accents = json_is_true(s);
    else
        return fail(x, "normalizer.strip_accents must be true, false or null%s%s", NULL, NULL);
    return 0;
}

static int read_pre_tokenizer(ctx *x, const json_t *p)
{
    const char *t = type_of(p);
    if (!json_is_object(p) || !t || strcmp(t, "BertPreTokenizer"))
        return fail(x, "pre_tokenizer %s%s is not implemented (BertPreTokenizer only)",
                    t ? t : json_is_null(p) || !p ? "null" : "without a type", NULL);
    static const char *const keys[] = {"type", NULL};
    return only_keys(x, p, "pre_tokenizer", keys);
}

static int set_token(ctx *x, size_t id, const char *token, const char *what)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", id);
    if (x->c->tokens[id] && strcmp(x->c->tokens[id], token))
        return fail(x, "two tokens have id %s (%s)", num, what);
    if (!x->c->tokens[id] && !(x->c->tokens[id] = strdup(token)))
        return oom(x);
    return 0;
}

/* A whole number in [0, limit) from a JSON integer. */
static int get_id(ctx *x, const json_t *v, size_t limit, const char *what, size_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (json_int_t)limit <= json_integer_value(v)) {
        char msg[160];
        if (json_is_integer(v))
            snprintf(msg, sizeof msg, "%s: id %lld is not between 0 and %zu (there are %zu tokens)", what,
                     (long long)json_integer_value(v), limit - 1, limit);
        else
            snprintf(msg, sizeof msg, "%s: an id must be a whole number", what);
        return fail(x, "%s%s", msg, NULL);
    }
    *out = (size_t)json_integer_value(v);
    return 0;
}

static int read_model(ctx *x, const json_t *m, const json_t *added)
{
    static const char *const keys[] = {"type", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word",
                                       "vocab", NULL};
    const char *t = type_of(m);
    if (!json_is_object(m) || !t || strcmp(t, "WordPiece"))
        return fail(x, "model %s%s is not implemented (WordPiece only)", t ? t : "without a type", NULL);
    if (only_keys(x, m, "model", keys))
        return -1;
    json_t *unk = json_object_get(m, "unk_token"), *pre = json_object_get(m, "continuing_subword_prefix");
    json_t *max = json_object_get(m, "max_input_chars_per_word"), *vocab = json_object_get(m, "vocab");
    if (unk && !json_is_string(unk))
        return fail(x, "model.unk_token must be a string%s%s", NULL, NULL);
    if (pre && !json_is_string(pre))
        return fail(x, "model.continuing_subword_prefix must be a string%s%s", NULL, NULL);
    if (max && (!json_is_integer(max) || json_integer_value(max) < 0))
        return fail(x, "model.max_input_chars_per_word must be a whole number%s%s", NULL, NULL);
    if (!json_is_object(vocab) || json_object_size(vocab) == 0)
        return fail(x, "model.vocab must be an object of token: id, not empty%s%s", NULL, NULL);
    x->c->unk_token = strdup(unk ? json_string_value(unk) : "[UNK]");
    x->c->prefix = strdup(pre ? json_string_value(pre) : "##");
    x->c->max_chars = max ? (size_t)json_integer_value(max) : 100;
    if (!x->c->unk_token || !x->c->prefix)
        return oom(x);
    /* Ids run from 0 without a gap over the vocab and the added tokens. */
    size_t n = json_object_size(vocab) + json_array_size(added);
    if (!(x->c->tokens = calloc(n, sizeof *x->c->tokens)))
        return oom(x);
    x->c->n = n; /* for hf_config_free until the real count is known */
    const char *k;
    json_t *v;
    size_t top = 0;
    json_object_foreach(vocab, k, v) {
        size_t id;
        if (get_id(x, v, n, "model.vocab", &id) || set_token(x, id, k, "model.vocab"))
            return -1;
        top = id + 1 > top ? id + 1 : top;
    }
    size_t i;
    json_array_foreach(added, i, v) {
        size_t id;
        const char *content = json_string_value(json_object_get(v, "content"));
        if (!content || get_id(x, json_object_get(v, "id"), n, "added_tokens", &id) ||
            set_token(x, id, content, "an added token and the vocab"))
            return content ? -1 : fail(x, "added_tokens: each needs a string content%s%s", NULL, NULL);
        top = id + 1 > top ? id + 1 : top;
    }
    for (size_t id = 0; id < top; id++)
        if (!x->c->tokens[id]) {
            char num[32];
            snprintf(num, sizeof num, "%zu", id);
            return fail(x, "model.vocab: no token has id %s (ids must run from 0 without gaps)%s", num, NULL);
        }
    x->c->n = top;
    return 0;
}

static int cmp_added(const void *a, const void *b)
{
    const px_hf_added *p = a, *q = b;
    return p->len < q->len ? 1 : p->len > q->len ? -1 : strcmp(p->content, q->content);
}

static int read_added(ctx *x, const json_t *added)
{
    static const char *const keys[] = {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special", NULL};
    if (!added || json_is_null(added))
        return 0;
    if (!json_is_array(added))
        return fail(x, "added_tokens must be a list%s%s", NULL, NULL);
    if (!(x->c->added = calloc(json_array_size(added) + 1, sizeof *x->c->added)))
        return oom(x);
    size_t i;
    json_t *v;
    json_array_foreach(added, i, v) {
        if (!json_is_object(v) || only_keys(x, v, "an added token", keys))
            return json_is_object(v) ? -1 : fail(x, "added_tokens: each must be an object%s%s", NULL, NULL);
        const char *content = json_string_value(json_object_get(v, "content"));
        int single, lstrip, rstrip, normalized, special;
        if (get_bool(x, v, "added token", "single_word", 0, &single) ||
            get_bool(x, v, "added token", "lstrip", 0, &lstrip) ||
            get_bool(x, v, "added token", "rstrip", 0, &rstrip) ||
            get_bool(x, v, "added token", "special", 0, &special) ||
            get_bool(x, v, "added token", "normalized", !special, &normalized))
            return -1;
        if (single || lstrip || rstrip || normalized)
            return fail(x, "added token '%s': %s is not implemented (only tokens matched literally in the raw text)",
                        content, single ? "single_word" : lstrip ? "lstrip" : rstrip ? "rstrip" : "normalized: true");
        if (!*content)
            return fail(x, "an added token is empty%s%s", NULL, NULL);
        px_hf_added *a = &x->c->added[x->c->n_added++];
        a->content = strdup(content);
        a->len = strlen(content);
        a->id = json_integer_value(json_object_get(v, "id"));
        a->special = special;
        if (!a->content)
            return oom(x);
    }
    qsort(x->c->added, x->c->n_added, sizeof *x->c->added, cmp_added);
    return 0;
}

static int push_id(ctx *x, int64_t **v, size_t *n, int64_t id)
{
    int64_t *p = realloc(*v, (*n + 1) * sizeof *p);
    if (!p)
        return oom(x);
    p[(*n)++] = id;
    *v = p;
    return 0;
}

static int check_id(ctx *x, json_int_t id, const char *what)
{
    if (id < 0 || (size_t)id >= x->c->n)
        return fail(x, "post_processor: %s has an id outside the vocab%s", what, NULL);
    return 0;
}

/* TemplateProcessing "single": SpecialToken items before and after the one
 * Sequence A item; each special token's ids from "special_tokens". */
static int read_template(ctx *x, const json_t *p)
{
    json_t *single = json_object_get(p, "single"), *specials = json_object_get(p, "special_tokens");
    if (!json_is_array(single) || (specials && !json_is_object(specials)))
        return fail(x, "post_processor: TemplateProcessing needs a single list and a special_tokens object%s%s", NULL,
                    NULL);
    int seen_a = 0;
    size_t i;
    json_t *item;
    json_array_foreach(single, i, item) {
        json_t *seq = json_object_get(item, "Sequence"), *sp = json_object_get(item, "SpecialToken");
        if (seq) {
            const char *which = json_string_value(json_object_get(seq, "id"));
            if (!which || strcmp(which, "A") || seen_a++)
                return fail(x, "post_processor: the single template must hold sequence A once%s%s", NULL, NULL);
            continue;
        }
        const char *name = json_string_value(json_object_get(sp, "id"));
        json_t *ids = name ? json_object_get(json_object_get(specials, name), "ids") : NULL;
        if (!json_is_array(ids))
            return fail(x, "post_processor: special token '%s' has no ids in special_tokens%s", name ? name : "?", NULL);
        size_t k;
        json_t *id;
        json_array_foreach(ids, k, id) {
            if (!json_is_integer(id) || check_id(x, json_integer_value(id), name))
                return json_is_integer(id) ? -1 : fail(x, "post_processor: the ids of '%s' must be whole numbers%s",
                                                       name, NULL);
            if (push_id(x, seen_a ? &x->c->after : &x->c->before, seen_a ? &x->c->n_after : &x->c->n_before,
                        json_integer_value(id)))
                return -1;
        }
    }
    if (!seen_a)
        return fail(x, "post_processor: the single template has no sequence A%s%s", NULL, NULL);
    return 0;
}

/* BertProcessing: {"cls": [token, id], "sep": [token, id]}. */
static int read_bert_processing(ctx *x, const json_t *p)
{
    const char *which[] = {"cls", "sep"};
    for (int k = 0; k < 2; k++) {
        json_t *pair = json_object_get(p, which[k]), *id = json_array_get(pair, 1);
        if (!json_is_integer(id) || check_id(x, json_integer_value(id), which[k]))
            return json_is_integer(id) ? -1 : fail(x, "post_processor: BertProcessing needs %s: [token, id]%s",
                                                   which[k], NULL);
        if (push_id(x, k ? &x->c->after : &x->c->before, k ? &x->c->n_after : &x->c->n_before,
                    json_integer_value(id)))
            return -1;
    }
    return 0;
}

static int read_post(ctx *x, const json_t *p)
{
    if (!p || json_is_null(p)) /* the library then adds nothing around the text */
        return 0;
    const char *t = type_of(p);
    if (t && !strcmp(t, "TemplateProcessing"))
        return read_template(x, p);
    if (t && !strcmp(t, "BertProcessing"))
        return read_bert_processing(x, p);
    return fail(x, "post_processor %s%s is not implemented (TemplateProcessing or BertProcessing)",
                t ? t : "without a type", NULL);
}

int hf_json_parse(const char *path, const char *data, size_t len, px_hf_config *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    ctx x = {path, err, out};
    json_error_t je;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return px_error_set(err, PX_ERR_MALFORMED, path, je.line > 0 ? je.line : 0, je.column > 0 ? je.column : 0,
                            "not a tokenizer.json: %s", je.text);
    int rc = -1;
    json_t *added = json_object_get(root, "added_tokens"), *none = json_array();
    static const char *const top[] = {"version", "truncation", "padding", "added_tokens", "normalizer",
                                      "pre_tokenizer", "model", "post_processor", "decoder", NULL};
    if (!json_is_object(root))
        fail(&x, "not a tokenizer.json: the top level is not an object%s%s", NULL, NULL);
    else if (only_keys(&x, root, "the file", top))
        ;
    else if (json_object_get(root, "truncation") && !json_is_null(json_object_get(root, "truncation")))
        fail(&x, "it sets truncation: parity rejects a long input, it never cuts one (set \"truncation\": null)%s%s",
             NULL, NULL);
    else if (json_object_get(root, "padding") && !json_is_null(json_object_get(root, "padding")))
        fail(&x, "it sets padding: the contract's pad_to pads (set \"padding\": null)%s%s", NULL, NULL);
    else if (added && !json_is_array(added))
        fail(&x, "added_tokens must be a list%s%s", NULL, NULL);
    else if (!read_normalizer(&x, json_object_get(root, "normalizer")) &&
             !read_pre_tokenizer(&x, json_object_get(root, "pre_tokenizer")) &&
             !read_model(&x, json_object_get(root, "model"), added ? added : none) && !read_added(&x, added) &&
             !read_post(&x, json_object_get(root, "post_processor")))
        rc = 0;
    json_decref(root);
    json_decref(none);
    if (rc)
        hf_config_free(out);
    return rc;
}

int hf_json_read(const char *path, px_hf_config *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot open the tokenizer: %s", strerror(errno));
    /* Refused by its size before it is read (a device or a pipe reads up
     * to the limit and no further). */
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    size_t cap = size >= 0 && size <= (long)PX_HF_MAX_BYTES ? (size_t)size + 1 : PX_HF_MAX_BYTES + 1;
    rewind(f);
    char *buf = size > (long)PX_HF_MAX_BYTES ? NULL : malloc(cap);
    size_t n = buf ? fread(buf, 1, cap, f) : 0;
    int bad = ferror(f);
    fclose(f);
    int rc;
    if (size > (long)PX_HF_MAX_BYTES || n > PX_HF_MAX_BYTES)
        rc = px_error_set(err, PX_ERR_TOO_LARGE, path, 0, 0, "tokenizer file larger than %u MiB", PX_HF_MAX_BYTES >> 20);
    else if (!buf)
        rc = px_error_oom(err, path);
    else if (bad)
        rc = px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read the tokenizer");
    else
        rc = hf_json_parse(path, buf, n, out, err);
    free(buf);
    return rc;
}

void hf_config_free(px_hf_config *c)
{
    for (size_t i = 0; c->tokens && i < c->n; i++)
        free(c->tokens[i]);
    free(c->tokens);
    for (size_t i = 0; i < c->n_added; i++)
        free(c->added[i].content);
    free(c->added);
    free(c->unk_token);
    free(c->prefix);
    free(c->before);
    free(c->after);
    memset(c, 0, sizeof *c);
}
