/* The small components of a tokenizer.json (see include/parity/hf_read.h),
 * each from the jansson value of its span: normalizer, pre_tokenizer,
 * post_processor, decoder, one added token, and the model's scalar fields.
 * Names, fields and defaults follow the library's serde definitions
 * (normalizers/, pre_tokenizers/, processors/, decoders/, models/bpe/
 * serialization.rs, pre_tokenizers/metaspace.rs's legacy add_prefix_space).
 * A Sequence is flattened: applying its members in turn is what the library
 * does. Refusals name the component and what parity reads, at the line and
 * column where the component's text starts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hf_read_int.h"

static const char NORMS[] = "NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace, Prepend, BertNormalizer, Sequence";
static const char PRES[] = "Split, ByteLevel, Metaspace, Digits, Punctuation, Whitespace, WhitespaceSplit, BertPreTokenizer, Sequence";
static const char POSTS[] = "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence";
static const char DECS[] = "ByteLevel, Metaspace, WordPiece, Replace, ByteFallback, Fuse, Strip, Sequence";

static const char *type_of(const json_t *o) { return json_string_value(json_object_get(o, "type")); }

/* Only the keys listed may appear: a field parity does not read could
 * change the ids. */
static int only_keys(hf_rd *r, size_t at, const json_t *o, const char *where, const char *const *keys)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        size_t i = 0;
        while (keys[i] && strcmp(k, keys[i]))
            i++;
        if (!keys[i])
            return hf_fail(r, at, "%s has '%s', which parity does not implement", where, k);
    }
    return 0;
}

/* A boolean member: absent (or null) gives def; def < 0: required, as
 * the library's serde structs require every field without a default. */
static int get_bool(hf_rd *r, size_t at, const json_t *o, const char *where, const char *key, int def, int *out)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        *out = def;
        return def < 0 ? hf_fail(r, at, "%s needs %s (true or false)", where, key) : 0;
    }
    if (!json_is_boolean(v))
        return hf_fail(r, at, "%s.%s must be true or false", where, key);
    *out = json_is_true(v);
    return 0;
}

/* A string member, copied (NUL-terminated); absent or null gives def (NULL:
 * required). */
static int get_str(hf_rd *r, size_t at, const json_t *o, const char *where, const char *key, const char *def,
                   char **out, size_t *len)
{
    json_t *v = json_object_get(o, key);
    const char *s = def;
    size_t n = def ? strlen(def) : 0;
    if (v && !json_is_null(v)) {
        if (!json_is_string(v))
            return hf_fail(r, at, "%s.%s must be a string", where, key);
        s = json_string_value(v);
        n = json_string_length(v);
    }
    if (!s)
        return hf_fail(r, at, "%s needs %s (a string)", where, key);
    if (!(*out = malloc(n + 1)))
        return hf_oom(r);
    memcpy(*out, s, n);
    (*out)[n] = 0;
    if (len) *len = n;
    return 0;
}

/* A Rust char: a string of exactly one code point. */
static int get_char(hf_rd *r, size_t at, const json_t *o, const char *where, const char *key, char **out, size_t *len)
{
    if (get_str(r, at, o, where, key, NULL, out, len))
        return -1;
    unsigned char c = (unsigned char)(*out)[0];
    size_t k = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (!*len || *len != k)
        return hf_fail(r, at, "%s.%s must be one character", where, key);
    return 0;
}

static int get_uint(hf_rd *r, size_t at, const json_t *o, const char *where, const char *key, size_t def, size_t *out)
{
    json_t *v = json_object_get(o, key);
    *out = def;
    if (!v || json_is_null(v))
        return def == SIZE_MAX ? hf_fail(r, at, "%s needs %s (a whole number)", where, key) : 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return hf_fail(r, at, "%s.%s must be a whole number", where, key);
    *out = (size_t)json_integer_value(v);
    return 0;
}

/* {"String": s} or {"Regex": s}, compiled now so a bad regex is refused at
 * load. */
static int get_pattern(hf_rd *r, size_t at, const json_t *o, const char *where, hf_pattern *p)
{
    json_t *v = json_object_get(o, "pattern"), *s = NULL;
    if (json_is_object(v) && json_object_size(v) == 1) {
        p->regex = !!json_object_get(v, "Regex");
        s = json_object_get(v, p->regex ? "Regex" : "String");
    }
    if (!json_is_string(s))
        return hf_fail(r, at, "%s.pattern must be {\"String\": text} or {\"Regex\": text}", where);
    size_t n = json_string_length(s);
    if (!(p->text = malloc(n + 1)))
        return hf_oom(r);
    memcpy(p->text, json_string_value(s), n + 1);
    p->len = n;
    if (hf_pattern_compile(p, r->err)) {
        char msg[sizeof r->err->msg];
        snprintf(msg, sizeof msg, "%s", r->err->msg);
        return hf_fail(r, at, "%s: %s", where, msg);
    }
    return 0;
}

static int get_behavior(hf_rd *r, size_t at, const json_t *o, const char *where, int def, hf_behavior *out)
{
    static const char *const names[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};
    json_t *v = json_object_get(o, "behavior");
    if (!v && def >= 0) {
        *out = (hf_behavior)def;
        return 0;
    }
    for (int k = 0; k < 5; k++)
        if (json_is_string(v) && !strcmp(json_string_value(v), names[k])) {
            *out = (hf_behavior)k;
            return 0;
        }
    return hf_fail(r, at, "%s.behavior must be Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous", where);
}

/* prepend_scheme (default always) and the legacy add_prefix_space: false
 * means never, and contradicting an explicit scheme is an error, as
 * Metaspace's deserializer does. */
static int get_prepend(hf_rd *r, size_t at, const json_t *o, const char *where, hf_prepend *out)
{
    static const char *const names[] = {"always", "never", "first"};
    json_t *v = json_object_get(o, "prepend_scheme");
    int k = 0, aps;
    if (v) {
        for (k = 0; k < 3 && !(json_is_string(v) && !strcmp(json_string_value(v), names[k])); k++)
            ;
        if (k == 3)
            return hf_fail(r, at, "%s.prepend_scheme must be always, never or first", where);
    }
    if (get_bool(r, at, o, where, "add_prefix_space", 1, &aps))
        return -1;
    if (!aps && k != 1 && v)
        return hf_fail(r, at, "%s: add_prefix_space does not match declared prepend_scheme (as the library refuses)", where);
    *out = !aps ? HF_PREPEND_NEVER : (hf_prepend)k;
    return 0;
}

/* Room for one more element of a growing array (capacity doubles at each
 * power of two, so a long list is read in linear time). */
static void *push(hf_rd *r, void **v, size_t *n, size_t size)
{
    char *p = *v;
    if (*n == 0 || (*n & (*n - 1)) == 0) {
        p = realloc(*v, (*n ? *n * 2 : 1) * size);
        if (!p) {
            hf_oom(r);
            return NULL;
        }
    }
    *v = p;
    memset(p + *n * size, 0, size);
    return p + (*n)++ * size;
}

/* ---- normalizers ---- */

static int normalizer(hf_rd *r, const json_t *n, size_t at)
{
    static const char *const k_type[] = {"type", NULL}, *const k_strip[] = {"type", "strip_left", "strip_right", NULL};
    static const char *const k_rep[] = {"type", "pattern", "content", NULL}, *const k_pre[] = {"type", "prepend", NULL};
    static const char *const k_bert[] = {"type", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase", NULL};
    static const char *const k_seq[] = {"type", "normalizers", NULL};
    static const char *const simple[] = {"NFC", "NFD", "NFKC", "NFKD", "Lowercase", NULL};
    const char *t = type_of(n);
    if (!json_is_object(n) || !t)
        return hf_fail(r, at, "normalizer without a type (parity reads %s)", NORMS);
    if (!strcmp(t, "Sequence")) {
        json_t *list = json_object_get(n, "normalizers"), *e;
        size_t i;
        if (only_keys(r, at, n, "normalizer Sequence", k_seq)) return -1;
        if (!json_is_array(list)) return hf_fail(r, at, "normalizer Sequence needs a list normalizers");
        json_array_foreach(list, i, e)
            if (normalizer(r, e, at)) return -1;
        return 0;
    }
    hf_normalizer *x = push(r, (void **)&r->c->norm, &r->c->n_norm, sizeof *x);
    if (!x) return -1;
    for (int k = 0; simple[k]; k++)
        if (!strcmp(t, simple[k])) {
            x->kind = (hf_norm_kind)(HF_NORM_NFC + k);
            return only_keys(r, at, n, "normalizer", k_type);
        }
    if (!strcmp(t, "StripAccents")) {
        x->kind = HF_NORM_STRIP_ACCENTS;
        return only_keys(r, at, n, "normalizer StripAccents", k_type);
    }
    if (!strcmp(t, "Strip")) {
        x->kind = HF_NORM_STRIP;
        return only_keys(r, at, n, "normalizer Strip", k_strip) ||
               get_bool(r, at, n, "normalizer Strip", "strip_left", -1, &x->left) ||
               get_bool(r, at, n, "normalizer Strip", "strip_right", -1, &x->right) ? -1 : 0;
    }
    if (!strcmp(t, "Replace")) {
        x->kind = HF_NORM_REPLACE;
        return only_keys(r, at, n, "normalizer Replace", k_rep) ||
               get_str(r, at, n, "normalizer Replace", "content", NULL, &x->content, &x->content_len) ||
               get_pattern(r, at, n, "normalizer Replace", &x->pattern) ? -1 : 0;
    }
    if (!strcmp(t, "Prepend")) {
        x->kind = HF_NORM_PREPEND;
        return only_keys(r, at, n, "normalizer Prepend", k_pre) ||
               get_str(r, at, n, "normalizer Prepend", "prepend", NULL, &x->content, &x->content_len) ? -1 : 0;
    }
    if (!strcmp(t, "BertNormalizer")) {
        x->kind = HF_NORM_BERT;
        json_t *s = json_object_get(n, "strip_accents");
        if (only_keys(r, at, n, "normalizer BertNormalizer", k_bert) ||
            get_bool(r, at, n, "normalizer BertNormalizer", "clean_text", -1, &x->clean_text) ||
            get_bool(r, at, n, "normalizer BertNormalizer", "handle_chinese_chars", -1, &x->handle_chinese_chars) ||
            get_bool(r, at, n, "normalizer BertNormalizer", "lowercase", -1, &x->lowercase))
            return -1;
        if (s && !json_is_null(s) && !json_is_boolean(s))
            return hf_fail(r, at, "normalizer BertNormalizer.strip_accents must be true, false or null");
        /* null: strip accents when lowercasing, as the library does */
        x->strip_accents = s && json_is_boolean(s) ? json_is_true(s) : x->lowercase;
        return 0;
    }
    r->c->n_norm--;
    return hf_fail(r, at, "normalizer %s is not implemented (parity reads %s)", t, NORMS);
}

int hf_read_normalizer(hf_rd *r, const json_t *v, size_t at) { return normalizer(r, v, at); }

/* ---- pre-tokenizers ---- */

static int pretok(hf_rd *r, const json_t *p, size_t at)
{
    static const char *const k_type[] = {"type", NULL}, *const k_split[] = {"type", "pattern", "behavior", "invert", NULL};
    static const char *const k_bl[] = {"type", "add_prefix_space", "trim_offsets", "use_regex", NULL};
    static const char *const k_ms[] = {"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep", NULL};
    static const char *const k_dig[] = {"type", "individual_digits", NULL}, *const k_pun[] = {"type", "behavior", NULL};
    static const char *const k_seq[] = {"type", "pretokenizers", NULL};
    const char *t = type_of(p);
    int ign;
    if (!json_is_object(p) || !t)
        return hf_fail(r, at, "pre_tokenizer without a type (parity reads %s)", PRES);
    if (!strcmp(t, "Sequence")) {
        json_t *list = json_object_get(p, "pretokenizers"), *e;
        size_t i;
        if (only_keys(r, at, p, "pre_tokenizer Sequence", k_seq)) return -1;
        if (!json_is_array(list)) return hf_fail(r, at, "pre_tokenizer Sequence needs a list pretokenizers");
        json_array_foreach(list, i, e)
            if (pretok(r, e, at)) return -1;
        return 0;
    }
    hf_pretok *x = push(r, (void **)&r->c->pre, &r->c->n_pre, sizeof *x);
    if (!x) return -1;
    if (!strcmp(t, "Split")) {
        x->kind = HF_PRE_SPLIT;
        return only_keys(r, at, p, "pre_tokenizer Split", k_split) ||
               get_behavior(r, at, p, "pre_tokenizer Split", -1, &x->behavior) ||
               get_bool(r, at, p, "pre_tokenizer Split", "invert", -1, &x->invert) ||
               get_pattern(r, at, p, "pre_tokenizer Split", &x->pattern) ? -1 : 0;
    }
    if (!strcmp(t, "ByteLevel")) {
        x->kind = HF_PRE_BYTELEVEL;
        return only_keys(r, at, p, "pre_tokenizer ByteLevel", k_bl) ||
               get_bool(r, at, p, "pre_tokenizer ByteLevel", "add_prefix_space", -1, &x->add_prefix_space) ||
               get_bool(r, at, p, "pre_tokenizer ByteLevel", "trim_offsets", -1, &ign) ||
               get_bool(r, at, p, "pre_tokenizer ByteLevel", "use_regex", 1, &x->use_regex) ? -1 : 0;
    }
    if (!strcmp(t, "Metaspace")) {
        x->kind = HF_PRE_METASPACE;
        return only_keys(r, at, p, "pre_tokenizer Metaspace", k_ms) ||
               get_char(r, at, p, "pre_tokenizer Metaspace", "replacement", &x->replacement, &x->replacement_len) ||
               get_prepend(r, at, p, "pre_tokenizer Metaspace", &x->prepend_scheme) ||
               get_bool(r, at, p, "pre_tokenizer Metaspace", "split", 1, &x->split) ? -1 : 0;
    }
    if (!strcmp(t, "Digits")) {
        x->kind = HF_PRE_DIGITS;
        return only_keys(r, at, p, "pre_tokenizer Digits", k_dig) ||
               get_bool(r, at, p, "pre_tokenizer Digits", "individual_digits", -1, &x->individual_digits) ? -1 : 0;
    }
    if (!strcmp(t, "Punctuation")) {
        x->kind = HF_PRE_PUNCTUATION;
        return only_keys(r, at, p, "pre_tokenizer Punctuation", k_pun) ||
               get_behavior(r, at, p, "pre_tokenizer Punctuation", HF_ISOLATED, &x->behavior) ? -1 : 0;
    }
    static const char *const simple[] = {"Whitespace", "WhitespaceSplit", "BertPreTokenizer"};
    static const hf_pretok_kind kinds[] = {HF_PRE_WHITESPACE, HF_PRE_WHITESPACE_SPLIT, HF_PRE_BERT};
    for (int k = 0; k < 3; k++)
        if (!strcmp(t, simple[k])) {
            x->kind = kinds[k];
            return only_keys(r, at, p, "pre_tokenizer", k_type);
        }
    r->c->n_pre--;
    return hf_fail(r, at, "pre_tokenizer %s is not implemented (parity reads %s)", t, PRES);
}

int hf_read_pretok(hf_rd *r, const json_t *v, size_t at) { return pretok(r, v, at); }

/* ---- post processors ---- */

static int id_ok(hf_rd *r, size_t at, json_t *id, const char *what)
{
    if (!json_is_integer(id) || json_integer_value(id) < 0 || (size_t)json_integer_value(id) >= r->n_ids)
        return hf_fail(r, at, "post_processor: %s: its id must be a whole number below the vocab's size %zu", what, r->n_ids);
    return 0;
}

/* Add ids around what the processors before added: a later processor
 * wraps the encoding the earlier ones made. */
static int wrap(hf_rd *r, const int64_t *before, size_t nb, const int64_t *after, size_t na)
{
    hf_post *p = &r->c->post;
    int64_t *b = malloc((p->n_before + nb + 1) * sizeof *b), *a = realloc(p->after, (p->n_after + na + 1) * sizeof *a);
    if (!b || !a) {
        free(b);
        if (a) p->after = a;
        return hf_oom(r);
    }
    if (nb)
        memcpy(b, before, nb * sizeof *b);
    if (p->n_before) memcpy(b + nb, p->before, p->n_before * sizeof *b);
    free(p->before);
    p->before = b;
    p->n_before += nb;
    if (na)
        memcpy(a + p->n_after, after, na * sizeof *a);
    p->after = a;
    p->n_after += na;
    return 0;
}

/* TemplateProcessing "single": SpecialToken pieces before and after the one
 * Sequence A piece, each special token's ids from special_tokens. */
static int template(hf_rd *r, const json_t *p, size_t at)
{
    static const char *const keys[] = {"type", "single", "pair", "special_tokens", NULL};
    json_t *single = json_object_get(p, "single"), *specials = json_object_get(p, "special_tokens"), *item;
    if (only_keys(r, at, p, "post_processor TemplateProcessing", keys)) return -1;
    if (!json_is_array(single) || !json_is_object(specials) || !json_is_array(json_object_get(p, "pair")))
        return hf_fail(r, at, "post_processor TemplateProcessing needs a list single, a list pair and an object special_tokens");
    int64_t *ids[2] = {NULL, NULL};
    size_t n[2] = {0, 0}, i, k;
    int seen_a = 0, rc = -1;
    json_array_foreach(single, i, item) {
        json_t *seq = json_object_get(item, "Sequence"), *sp = json_object_get(item, "SpecialToken"), *id;
        if (seq) {
            const char *which = json_string_value(json_object_get(seq, "id"));
            if (!which || strcmp(which, "A") || seen_a++) {
                hf_fail(r, at, "post_processor TemplateProcessing: the single template must hold sequence A once");
                goto out;
            }
            continue;
        }
        const char *name = json_string_value(json_object_get(sp, "id"));
        json_t *list = name ? json_object_get(json_object_get(specials, name), "ids") : NULL;
        if (!json_is_array(list)) {
            hf_fail(r, at, "post_processor TemplateProcessing: special token '%s' is not in special_tokens (the library: Missing SpecialToken(s))", name ? name : "?");
            goto out;
        }
        json_array_foreach(list, k, id) {
            if (id_ok(r, at, id, name) || !push(r, (void **)&ids[seen_a], &n[seen_a], sizeof(int64_t))) goto out;
            ids[seen_a][n[seen_a] - 1] = json_integer_value(id);
        }
    }
    if (!seen_a) {
        hf_fail(r, at, "post_processor TemplateProcessing: the single template has no sequence A");
        goto out;
    }
    rc = wrap(r, ids[0], n[0], ids[1], n[1]);
out:
    free(ids[0]);
    free(ids[1]);
    return rc;
}

/* BertProcessing and RobertaProcessing: cls before, sep after, each
 * [token, id] (Roberta's trim_offsets and add_prefix_space only move
 * offsets). */
static int cls_sep(hf_rd *r, const json_t *p, size_t at, const char *name, const char *const *keys)
{
    int64_t id[2];
    static const char *const which[] = {"cls", "sep"};
    if (only_keys(r, at, p, name, keys)) return -1;
    for (int k = 0; k < 2; k++) {
        json_t *pair = json_object_get(p, which[k]), *v = json_array_get(pair, 1);
        if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_string(json_array_get(pair, 0)))
            return hf_fail(r, at, "post_processor %s needs %s: [token, id]", name, which[k]);
        if (id_ok(r, at, v, which[k])) return -1;
        id[k] = json_integer_value(v);
    }
    return wrap(r, &id[0], 1, &id[1], 1);
}

static int post(hf_rd *r, const json_t *p, size_t at)
{
    static const char *const k_bert[] = {"type", "cls", "sep", NULL};
    static const char *const k_rob[] = {"type", "cls", "sep", "trim_offsets", "add_prefix_space", NULL};
    static const char *const k_bl[] = {"type", "add_prefix_space", "trim_offsets", "use_regex", NULL};
    static const char *const k_seq[] = {"type", "processors", NULL};
    const char *t = type_of(p);
    if (!json_is_object(p) || !t)
        return hf_fail(r, at, "post_processor without a type (parity reads %s)", POSTS);
    if (!strcmp(t, "Sequence")) {
        json_t *list = json_object_get(p, "processors"), *e;
        size_t i;
        if (only_keys(r, at, p, "post_processor Sequence", k_seq)) return -1;
        if (!json_is_array(list)) return hf_fail(r, at, "post_processor Sequence needs a list processors");
        /* each member wraps the ids of those before it: bounded, so that a
         * hostile file cannot make that quadratic */
        if (json_array_size(list) > 64)
            return hf_fail(r, at, "post_processor Sequence has %zu processors (parity reads at most 64)", json_array_size(list));
        json_array_foreach(list, i, e)
            if (post(r, e, at)) return -1;
        return 0;
    }
    int ign;
    if (!strcmp(t, "TemplateProcessing")) return template(r, p, at);
    if (!strcmp(t, "BertProcessing")) return cls_sep(r, p, at, "BertProcessing", k_bert);
    if (!strcmp(t, "RobertaProcessing"))
        return cls_sep(r, p, at, "RobertaProcessing", k_rob) ||
               get_bool(r, at, p, "post_processor RobertaProcessing", "trim_offsets", -1, &ign) ||
               get_bool(r, at, p, "post_processor RobertaProcessing", "add_prefix_space", -1, &ign) ? -1 : 0;
    if (!strcmp(t, "ByteLevel"))
        return only_keys(r, at, p, "post_processor ByteLevel", k_bl) ||
               get_bool(r, at, p, "post_processor ByteLevel", "add_prefix_space", -1, &ign) ||
               get_bool(r, at, p, "post_processor ByteLevel", "trim_offsets", -1, &ign) ||
               get_bool(r, at, p, "post_processor ByteLevel", "use_regex", 1, &ign) ? -1 : 0;
    return hf_fail(r, at, "post_processor %s is not implemented (parity reads %s)", t, POSTS);
}

int hf_read_post(hf_rd *r, const json_t *v, size_t at) { return post(r, v, at); }

/* ---- decoders ---- */

static int decoder(hf_rd *r, const json_t *d, size_t at)
{
    static const char *const k_type[] = {"type", NULL}, *const k_seq[] = {"type", "decoders", NULL};
    static const char *const k_bl[] = {"type", "add_prefix_space", "trim_offsets", "use_regex", NULL};
    static const char *const k_ms[] = {"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep", NULL};
    static const char *const k_wp[] = {"type", "prefix", "cleanup", NULL}, *const k_rep[] = {"type", "pattern", "content", NULL};
    static const char *const k_strip[] = {"type", "content", "start", "stop", NULL};
    const char *t = type_of(d);
    int ign;
    if (!json_is_object(d) || !t)
        return hf_fail(r, at, "decoder without a type (parity reads %s)", DECS);
    r->c->has_decoder = 1;
    if (!strcmp(t, "Sequence")) {
        json_t *list = json_object_get(d, "decoders"), *e;
        size_t i;
        if (only_keys(r, at, d, "decoder Sequence", k_seq)) return -1;
        if (!json_is_array(list)) return hf_fail(r, at, "decoder Sequence needs a list decoders");
        json_array_foreach(list, i, e)
            if (decoder(r, e, at)) return -1;
        return 0;
    }
    hf_decoder *x = push(r, (void **)&r->c->dec, &r->c->n_dec, sizeof *x);
    if (!x) return -1;
    if (!strcmp(t, "ByteLevel")) {
        x->kind = HF_DEC_BYTELEVEL;
        return only_keys(r, at, d, "decoder ByteLevel", k_bl) ||
               get_bool(r, at, d, "decoder ByteLevel", "add_prefix_space", -1, &ign) ||
               get_bool(r, at, d, "decoder ByteLevel", "trim_offsets", -1, &ign) ||
               get_bool(r, at, d, "decoder ByteLevel", "use_regex", 1, &ign) ? -1 : 0;
    }
    if (!strcmp(t, "Metaspace")) {
        x->kind = HF_DEC_METASPACE;
        return only_keys(r, at, d, "decoder Metaspace", k_ms) ||
               get_char(r, at, d, "decoder Metaspace", "replacement", &x->replacement, &x->replacement_len) ||
               get_prepend(r, at, d, "decoder Metaspace", &x->prepend_scheme) ||
               get_bool(r, at, d, "decoder Metaspace", "split", 1, &ign) ? -1 : 0;
    }
    if (!strcmp(t, "WordPiece")) {
        x->kind = HF_DEC_WORDPIECE;
        return only_keys(r, at, d, "decoder WordPiece", k_wp) ||
               get_str(r, at, d, "decoder WordPiece", "prefix", NULL, &x->prefix, &x->prefix_len) ||
               get_bool(r, at, d, "decoder WordPiece", "cleanup", -1, &x->cleanup) ? -1 : 0;
    }
    if (!strcmp(t, "Replace")) {
        x->kind = HF_DEC_REPLACE;
        return only_keys(r, at, d, "decoder Replace", k_rep) ||
               get_str(r, at, d, "decoder Replace", "content", NULL, &x->content, &x->content_len) ||
               get_pattern(r, at, d, "decoder Replace", &x->pattern) ? -1 : 0;
    }
    if (!strcmp(t, "ByteFallback") || !strcmp(t, "Fuse")) {
        x->kind = t[0] == 'B' ? HF_DEC_BYTEFALLBACK : HF_DEC_FUSE;
        return only_keys(r, at, d, "decoder", k_type);
    }
    if (!strcmp(t, "Strip")) {
        x->kind = HF_DEC_STRIP;
        return only_keys(r, at, d, "decoder Strip", k_strip) ||
               get_char(r, at, d, "decoder Strip", "content", &x->content, &x->content_len) ||
               get_uint(r, at, d, "decoder Strip", "start", SIZE_MAX, &x->start) ||
               get_uint(r, at, d, "decoder Strip", "stop", SIZE_MAX, &x->stop) ? -1 : 0;
    }
    r->c->n_dec--;
    return hf_fail(r, at, "decoder %s is not implemented (parity reads %s)", t, DECS);
}

int hf_read_decoder(hf_rd *r, const json_t *v, size_t at) { return decoder(r, v, at); }

/* ---- one added token ---- */

int hf_read_added_one(hf_rd *r, const json_t *v, size_t at)
{
    static const char *const keys[] = {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special", NULL};
    if (!json_is_object(v))
        return hf_fail(r, at, "added_tokens: each must be an object");
    hf_added *a = &r->c->added[r->c->n_added];
    json_t *id = json_object_get(v, "id");
    if (only_keys(r, at, v, "an added token", keys) ||
        get_str(r, at, v, "an added token", "content", NULL, &a->content, &a->len))
        return -1;
    r->c->n_added++;
    if (!json_is_integer(id) || json_integer_value(id) < 0 || json_integer_value(id) >= (json_int_t)UINT32_MAX)
        return hf_fail(r, at, "added token '%s': id must be a whole number", a->content);
    a->id = json_integer_value(id);
    /* every field is required, as AddedToken's serde struct has no default */
    if (get_bool(r, at, v, "added token", "single_word", -1, &a->single_word) ||
        get_bool(r, at, v, "added token", "lstrip", -1, &a->lstrip) ||
        get_bool(r, at, v, "added token", "rstrip", -1, &a->rstrip) ||
        get_bool(r, at, v, "added token", "special", -1, &a->special) ||
        get_bool(r, at, v, "added token", "normalized", -1, &a->normalized))
        return -1;
    if (memchr(a->content, 0, a->len))
        return hf_fail(r, at, "added token: a NUL in its content");
    return 0;
}

/* ---- the model's scalar fields ---- */

int hf_read_model_fields(hf_rd *r, const json_t *m, size_t at, const char **unk)
{
    static const char *const k_bpe[] = {"type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix",
                                        "fuse_unk", "byte_fallback", "ignore_merges", NULL};
    static const char *const k_wp[] = {"type", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word", NULL};
    hf_model *x = &r->c->model;
    const char *t = type_of(m);
    json_t *u = json_object_get(m, "unk_token");
    if (u && !json_is_null(u) && !json_is_string(u))
        return hf_fail(r, at, "model.unk_token must be a string");
    if (t && !strcmp(t, "WordPiece")) {
        x->kind = HF_MODEL_WORDPIECE;
        *unk = u && json_is_string(u) ? json_string_value(u) : "[UNK]";
        return only_keys(r, at, m, "model WordPiece", k_wp) ||
               get_str(r, at, m, "model WordPiece", "continuing_subword_prefix", NULL, &x->prefix, &x->prefix_len) ||
               get_str(r, at, m, "model WordPiece", "end_of_word_suffix", "", &x->suffix, &x->suffix_len) ||
               get_uint(r, at, m, "model WordPiece", "max_input_chars_per_word", SIZE_MAX, &x->max_chars) ? -1 : 0;
    }
    if (!t || strcmp(t, "BPE"))
        return hf_fail(r, at, "model %s is not implemented (parity reads BPE and WordPiece)", t ? t : "without a type");
    x->kind = HF_MODEL_BPE;
    *unk = u && json_is_string(u) ? json_string_value(u) : NULL;
    json_t *d = json_object_get(m, "dropout");
    if (only_keys(r, at, m, "model BPE", k_bpe)) return -1;
    if (d && !json_is_null(d))
        return hf_fail(r, at, "model BPE sets dropout: parity does not implement BPE dropout (set \"dropout\": null)");
    return get_str(r, at, m, "model BPE", "continuing_subword_prefix", "", &x->prefix, &x->prefix_len) ||
           get_str(r, at, m, "model BPE", "end_of_word_suffix", "", &x->suffix, &x->suffix_len) ||
           get_bool(r, at, m, "model BPE", "fuse_unk", 0, &x->fuse_unk) ||
           get_bool(r, at, m, "model BPE", "byte_fallback", 0, &x->byte_fallback) ||
           get_bool(r, at, m, "model BPE", "ignore_merges", 0, &x->ignore_merges) ? -1 : 0;
}
