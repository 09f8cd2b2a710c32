/* The BPE model of the Hugging Face `tokenizers` library
 * (tokenizers/src/models/bpe/model.rs and word.rs, 0.23.2), in C: one
 * pre-tokenized split -> ids.
 *
 * Hash conventions shared with the reader (src/tokenizer/hf_vocab.c builds
 * the tables, hf_vocab_find / hf_merges_find look them up):
 *   hf_vocab:  slot = FNV-1a 64-bit over the token's bytes (offset basis
 *              1469598103934665603, prime 1099511628211) & mask, linear
 *              probing; slots[] holds id + 1, 0 empty.
 *   hf_merges: built and looked up only through hf_merges_alloc,
 *              hf_merges_put and hf_merges_find (hf_pipe.h).
 *
 * What the library does, and so what this does:
 *   - ignore_merges: a split that is a whole token of the vocab is that one
 *     id, before anything else (tokenize_with_cache);
 *   - otherwise the split is cut into characters (code points); the first
 *     gets no continuing_subword_prefix, the others get it, the last gets
 *     end_of_word_suffix; each is looked up (merge_word);
 *   - a character not found: with byte_fallback, the bytes of the looked-up
 *     string (prefix and suffix included, as the library formats them) as
 *     "<0xXX>" tokens when all of them exist; else, with an unk token, an
 *     unk (consecutive ones fused with fuse_unk); with no unk token the
 *     character is dropped. A pending unk is flushed only by a character
 *     found in the vocab (or at the end), so byte-fallback tokens that follow
 *     an unk come before it, as in the library;
 *   - then the merges by rank (word.rs merge_all): a min-heap of (rank,
 *     position) over a linked list of symbols; a popped entry is applied
 *     when its symbol is alive, has a right neighbour, and the pair it forms
 *     now merges into the same id the entry recorded (the library's only
 *     staleness check). Ties of rank go to the leftmost position. O(n log n)
 *     for any word, a 100 000-letter run included.
 *
 * The cache (the library keeps up to 10 000 words under 256 bytes) is for
 * speed only: a word's ids depend on the word alone, so a hit gives what a
 * miss computes. It also holds the scratch arrays, so a call does no
 * allocation once they have grown. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/hf_pipe.h"

#define CACHE_SLOTS 16384u       /* power of two; at most half used */
#define CACHE_MAX_WORD 256u      /* the library's MAX_LENGTH: longer words are not cached */

typedef struct sym {
    uint32_t c;
    int32_t prev, next;
    uint32_t alive;
} sym;

typedef struct heap_ent {
    uint64_t key;   /* rank << 32 | position: the smallest pops first */
    uint32_t new_id;
    uint32_t a, b;  /* the pair when pushed: still there, no lookup needed */
} heap_ent;

typedef struct cache_slot {
    uint64_t hash;  /* 0: empty */
    uint32_t koff, klen, ioff, ilen;
} cache_slot;

struct hf_bpe_cache {
    cache_slot *slots;
    size_t used;
    char *keys;
    size_t keys_n, keys_cap;
    uint32_t *ids;
    size_t ids_n, ids_cap;
    /* scratch */
    sym *syms;
    size_t syms_cap;
    heap_ent *heap;
    size_t heap_cap;
    char *buf;
    size_t buf_cap;
};

hf_bpe_cache *hf_bpe_cache_new(void)
{
    /* the slots come with the first word (cache_ready): loading a
     * tokenizer costs nothing for a cache it may never use */
    return calloc(1, sizeof(hf_bpe_cache));
}

void hf_bpe_cache_free(hf_bpe_cache *c)
{
    if (!c)
        return;
    free(c->slots);
    free(c->keys);
    free(c->ids);
    free(c->syms);
    free(c->heap);
    free(c->buf);
    free(c);
}

/* Grow *p (elements of size sz) to hold at least need; 0 or -1. */
static int grow(void **p, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2 / sz)
            return -1;
        n *= 2;
    }
    void *q = realloc(*p, n * sz);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int ids_reserve(hf_ids *out, size_t more, px_error *err)
{
    void *p = out->v;
    if (more > SIZE_MAX / 16 - out->n || grow(&p, &out->cap, out->n + more, sizeof *out->v))
        return px_error_oom(err, NULL);
    out->v = p;
    return 0;
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h | 1; /* never 0, the empty mark */
}

/* A token of the model's vocab. The library's BPE looks up its own vocab
 * only; hf_vocab also holds the added tokens, which in the six real files
 * all have ids after the model's and are cut out of the text before the
 * model runs. (hf_pipe.h has no mark for an added token absent from
 * model.vocab yet: when it has, this is where such ids become -1.) */
static int64_t model_find(const hf_vocab *v, const char *s, size_t n)
{
    return hf_vocab_find(v, s, n);
}

/* ---- the word cache --------------------------------------------------------- */

static cache_slot *cache_probe(const hf_bpe_cache *c, uint64_t h, const char *s, size_t len)
{
    for (size_t i = (size_t)h & (CACHE_SLOTS - 1);; i = (i + 1) & (CACHE_SLOTS - 1)) {
        cache_slot *e = &c->slots[i];
        if (!e->hash || (e->hash == h && e->klen == len && !memcmp(c->keys + e->koff, s, len)))
            return e;
    }
}

/* Remember word -> ids; when full, forget everything (speed only). Out of
 * memory here is not an error: the word is just not cached, nor is one of
 * more than CACHE_MAX_WORD ids (byte fallback of a long prefix). */
static void cache_put(hf_bpe_cache *c, uint64_t h, const char *s, size_t len, const int64_t *ids,
                      size_t n)
{
    if (n > CACHE_MAX_WORD)
        return;
    if (c->used >= CACHE_SLOTS / 2) {
        memset(c->slots, 0, CACHE_SLOTS * sizeof *c->slots);
        c->used = c->keys_n = c->ids_n = 0;
    }
    void *k = c->keys, *v = c->ids;
    if (grow(&k, &c->keys_cap, c->keys_n + len, 1))
        return;
    c->keys = k;
    if (grow(&v, &c->ids_cap, c->ids_n + n, sizeof *c->ids))
        return;
    c->ids = v;
    cache_slot *e = cache_probe(c, h, s, len);
    if (e->hash)
        return;
    *e = (cache_slot){h, (uint32_t)c->keys_n, (uint32_t)len, (uint32_t)c->ids_n, (uint32_t)n};
    memcpy(c->keys + c->keys_n, s, len);
    c->keys_n += len;
    for (size_t i = 0; i < n; i++)
        c->ids[c->ids_n + i] = (uint32_t)ids[i];
    c->ids_n += n;
    c->used++;
}

/* ---- the word: characters -> symbols (merge_word) --------------------------- */

/* Bytes of the UTF-8 character at s[0] (1 for a stray byte, never past n). */
static size_t char_len(const unsigned char *s, size_t n)
{
    size_t k = s[0] < 0xC0 ? 1 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
    if (k > n)
        k = n;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80)
            return i;
    return k;
}

typedef struct word {
    sym *s;
    size_t n;
    int64_t unk;        /* pending unk id, -1 none */
} word;

static void word_add(word *w, uint32_t c)
{
    sym *s = &w->s[w->n];
    s->c = c;
    s->prev = (int32_t)w->n - 1;
    s->next = -1;
    s->alive = 1;
    if (w->n)
        w->s[w->n - 1].next = (int32_t)w->n;
    w->n++;
}

/* One character not in the vocab: byte fallback, else unk, else dropped
 * (no unk_token: unk_id -1). unk_id below -1 is an unk_token the vocab
 * lacks: the library's UnkTokenOutOfVocabulary, an error only when an unk
 * is needed. */
static int word_miss(const hf_model *m, word *w, const char *s, size_t n, px_error *err)
{
    if (m->byte_fallback) {
        size_t i = 0;
        while (i < n && m->byte_ids[(unsigned char)s[i]] >= 0)
            i++;
        if (i == n) {
            for (i = 0; i < n; i++)
                word_add(w, (uint32_t)m->byte_ids[(unsigned char)s[i]]);
            return 0;
        }
    }
    if (m->unk_id < -1)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                            "the BPE's unk_token is not in its vocab, and \"%.*s\" needs it "
                            "(the library's UnkTokenOutOfVocabulary)", (int)(n > 64 ? 64 : n), s);
    if (m->unk_id < 0)
        return 0;
    if (w->unk >= 0 && !m->fuse_unk)
        word_add(w, (uint32_t)w->unk);
    w->unk = m->unk_id;
    return 0;
}

/* The looked-up string of the character s[i..i+k): prefix unless first,
 * suffix when last. Points into s itself when neither applies. */
static const char *char_key(const hf_model *m, char *buf, const char *s, size_t len, size_t i,
                            size_t k, size_t *n)
{
    int pre = i > 0 && m->prefix_len, suf = i + k == len && m->suffix_len;
    if (!pre && !suf) {
        *n = k;
        return s + i;
    }
    size_t o = 0;
    if (pre) {
        memcpy(buf, m->prefix, m->prefix_len);
        o = m->prefix_len;
    }
    memcpy(buf + o, s + i, k);
    o += k;
    if (suf) {
        memcpy(buf + o, m->suffix, m->suffix_len);
        o += m->suffix_len;
    }
    *n = o;
    return buf;
}

static int word_build(const hf_model *m, const hf_vocab *v, hf_bpe_cache *c, const char *s,
                      size_t len, word *w, px_error *err)
{
    w->n = 0;
    w->unk = -1;
    for (size_t i = 0; i < len;) {
        size_t k = char_len((const unsigned char *)s + i, len - i), n;
        const char *key = char_key(m, c->buf, s, len, i, k, &n);
        int64_t id = model_find(v, key, n);
        if (id >= 0) {
            if (w->unk >= 0)
                word_add(w, (uint32_t)w->unk);
            w->unk = -1;
            word_add(w, (uint32_t)id);
        } else {
            if (word_miss(m, w, key, n, err))
                return -1;
        }
        i += k;
    }
    if (w->unk >= 0)
        word_add(w, (uint32_t)w->unk);
    return 0;
}

/* ---- the merges (merge_all) ------------------------------------------------- */

/* A 4-ary min-heap (as the library's QuaternaryHeap; any heap gives the
 * same merges: equal keys are the same merge at the same place). */
static void heap_push(heap_ent *h, size_t *n, heap_ent e)
{
    size_t i = (*n)++;
    while (i) {
        size_t p = (i - 1) / 4;
        if (h[p].key <= e.key)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static void heap_sift_down(heap_ent *h, size_t n, size_t i)
{
    heap_ent e = h[i];
    for (;;) {
        size_t l = 4 * i + 1, end = l + 4 < n ? l + 4 : n;
        if (l >= n)
            break;
        for (size_t j = l + 1; j < end; j++)
            if (h[j].key < h[l].key)
                l = j;
        if (e.key <= h[l].key)
            break;
        h[i] = h[l];
        i = l;
    }
    h[i] = e;
}

static heap_ent heap_pop(heap_ent *h, size_t *n)
{
    heap_ent top = h[0];
    h[0] = h[--*n];
    if (*n)
        heap_sift_down(h, *n, 0);
    return top;
}

/* Push the merge of the pair at pos (with its right neighbour), if any. */
static void pair_push(const hf_merges *mg, const sym *s, heap_ent *h, size_t *n, int32_t pos)
{
    uint32_t rank, merged;
    if (hf_merges_find(mg, s[pos].c, s[s[pos].next].c, &rank, &merged))
        heap_push(h, n, (heap_ent){(uint64_t)rank << 32 | (uint32_t)pos, merged, s[pos].c, s[s[pos].next].c});
}

static void word_merge(const hf_merges *mg, sym *s, size_t ns, heap_ent *h)
{
    size_t n = 0;
    for (size_t i = 0; i + 1 < ns; i++) {
        uint32_t rank, merged;
        if (hf_merges_find(mg, s[i].c, s[i + 1].c, &rank, &merged))
            h[n++] = (heap_ent){(uint64_t)rank << 32 | i, merged, s[i].c, s[i + 1].c};
    }
    for (size_t i = n / 4 + 1; i-- > 0;)
        heap_sift_down(h, n, i);
    while (n) {
        heap_ent top = heap_pop(h, &n);
        int32_t pos = (int32_t)(uint32_t)top.key, right = s[pos].next;
        uint32_t rank, merged;
        if (!s[pos].alive || right < 0)
            continue;
        /* An expired entry, as the library tells them: the pair there now
         * does not merge into the recorded id. The same pair still there
         * does, without a lookup. */
        if ((s[pos].c != top.a || s[right].c != top.b) &&
            (!hf_merges_find(mg, s[pos].c, s[right].c, &rank, &merged) || merged != top.new_id))
            continue;
        s[pos].c = top.new_id;
        s[pos].next = s[right].next;
        s[right].alive = 0;
        if (s[pos].next >= 0)
            s[s[pos].next].prev = pos;
        if (s[pos].prev >= 0)
            pair_push(mg, s, h, &n, s[pos].prev);
        if (s[pos].next >= 0)
            pair_push(mg, s, h, &n, pos);
    }
}

/* ---- the model -------------------------------------------------------------- */

/* Scratch for a word of len bytes. Symbols: with byte fallback a character
 * may become one per byte of its looked-up string, prefix and suffix
 * included, so at most len * (1 + prefix) + suffix. Heap entries: the
 * initial pairs plus two per merge, under three per symbol. */
static int scratch_reserve(const hf_model *m, hf_bpe_cache *c, size_t len, px_error *err)
{
    size_t per = 1 + m->prefix_len, ns;
    if (len > (size_t)INT32_MAX / per || (ns = len * per) > (size_t)INT32_MAX - m->suffix_len - 1)
        return px_error_set(err, PX_ERR_TOO_LARGE, NULL, 0, 0,
                            "a pre-tokenized piece of %zu bytes is over the BPE's limit", len);
    ns += m->suffix_len + 1;
    void *a = c->syms, *b = c->heap, *d = c->buf;
    int bad = grow(&a, &c->syms_cap, ns, sizeof *c->syms);
    c->syms = a;
    bad = bad || grow(&b, &c->heap_cap, 3 * ns, sizeof *c->heap);
    c->heap = b;
    bad = bad || grow(&d, &c->buf_cap, 4 + m->prefix_len + m->suffix_len, 1);
    c->buf = d;
    return bad ? px_error_oom(err, NULL) : 0;
}

static int tokenize_word(const hf_model *m, const hf_vocab *v, hf_bpe_cache *c, const char *s,
                         size_t len, hf_ids *out, px_error *err)
{
    if (scratch_reserve(m, c, len, err))
        return -1;
    word w = {c->syms, 0, -1};
    if (word_build(m, v, c, s, len, &w, err))
        return -1;
    word_merge(&m->merges, w.s, w.n, c->heap);
    size_t n = 0;
    for (int32_t i = w.n ? 0 : -1; i >= 0; i = w.s[i].next)
        n++;
    if (ids_reserve(out, n, err))
        return -1;
    for (int32_t i = w.n ? 0 : -1; i >= 0; i = w.s[i].next)
        out->v[out->n++] = w.s[i].c;
    return 0;
}

int hf_bpe_tokenize(const hf_model *m, const hf_vocab *v, hf_bpe_cache *cache, const char *s,
                    size_t len, hf_ids *out, px_error *err)
{
    if (!len)
        return 0;
    if (m->ignore_merges) {
        int64_t id = model_find(v, s, len);
        if (id >= 0) {
            if (ids_reserve(out, 1, err))
                return -1;
            out->v[out->n++] = id;
            return 0;
        }
    }
    hf_bpe_cache scratch = {0}; /* no cache given: scratch arrays only, freed below */
    hf_bpe_cache *c = cache ? cache : &scratch;
    uint64_t h = 0;
    if (cache && !cache->slots)
        cache->slots = calloc(CACHE_SLOTS, sizeof *cache->slots); /* NULL: no caching, same ids */
    if (cache && cache->slots && len < CACHE_MAX_WORD) {
        h = fnv1a(s, len);
        cache_slot *e = cache_probe(c, h, s, len);
        if (e->hash) {
            if (ids_reserve(out, e->ilen, err))
                return -1;
            for (uint32_t i = 0; i < e->ilen; i++)
                out->v[out->n++] = c->ids[e->ioff + i];
            return 0;
        }
    }
    size_t mark = out->n;
    int rc = tokenize_word(m, v, c, s, len, out, err);
    if (!rc && h)
        cache_put(c, h, s, len, out->v + mark, out->n - mark);
    if (!cache) {
        free(scratch.syms);
        free(scratch.heap);
        free(scratch.buf);
    }
    return rc;
}
