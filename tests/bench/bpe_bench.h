/* Shared by tests/test_hf_bpe.c and tests/bench/bpe_bench.c: the tables
 * tests/tokenizer/bpe_words.js writes (model.txt, vocab.txt, merges.txt,
 * words.txt) loaded into an hf_model and hf_vocab built by the hash
 * convention of include/parity/hf_pipe.h's reader (see src/tokenizer/hf_bpe.c):
 * vocab slot = FNV-1a 64 & mask, merges slot = splitmix64(key) & mask, both
 * linear probing. A later merge of the same pair replaces the earlier one, as
 * the library's HashMap collect does. */
#ifndef PARITY_BPE_BENCH_H
#define PARITY_BPE_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/hf_pipe.h"

typedef struct bpe_tables {
    hf_vocab v;
    hf_model m;
    char **words;       /* the words (NUL-terminated; len beside) */
    size_t *word_len;
    char **expect;      /* the library's ids ("1 2 3") or "ERROR ..." */
    size_t n_words;
    char *text[4];      /* the files read (words point into them) */
} bpe_tables;

static inline size_t bt_pow2(size_t n)
{
    size_t s = 16;
    while (s < 2 * n)
        s *= 2;
    return s;
}

/* hex -> bytes in place ("-" is the empty string); returns the length. */
static inline size_t bt_unhex(char *s)
{
    if (!strcmp(s, "-"))
        return s[0] = 0, 0;
    size_t n = 0;
    for (size_t i = 0; s[i] && s[i + 1]; i += 2) {
        unsigned b;
        sscanf(s + i, "%2x", &b);
        s[n++] = (char)b;
    }
    s[n] = 0;
    return n;
}

static inline void bt_vocab_add(hf_vocab *v, uint32_t id)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < v->len[id]; i++)
        h = (h ^ (unsigned char)v->arena[v->off[id] + i]) * 1099511628211ull;
    size_t i = (size_t)h & v->mask;
    while (v->slots[i])
        i = (i + 1) & v->mask;
    v->slots[i] = id + 1;
}


static inline char *bt_read(const char *dir, const char *name, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(*n + 1);
    *n = fread(s, 1, *n, f);
    s[*n] = 0;
    fclose(f);
    return s;
}

static inline void bt_load_vocab(bpe_tables *t, char *text, size_t size)
{
    hf_vocab *v = &t->v;
    size_t n = 0, lines = 0;
    for (char *p = text; (p = strchr(p, '\n')); p++)
        lines++;
    uint32_t *ids = calloc(lines + 1, sizeof *ids);
    char **toks = calloc(lines + 1, sizeof *toks);
    size_t k = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), k++) {
        char *sp = strchr(line, ' ');
        *sp = 0;
        ids[k] = (uint32_t)strtoul(line, NULL, 10);
        toks[k] = sp + 1;
        if (ids[k] + 1 > n)
            n = ids[k] + 1;
    }
    v->n = n;
    v->arena = malloc(size + n + 1);
    v->off = calloc(n, sizeof *v->off);
    v->len = calloc(n, sizeof *v->len);
    v->arena[0] = 0; /* absent ids: "" at 0 */
    size_t o = 1;
    for (size_t i = 0; i < k; i++) {
        size_t len = bt_unhex(toks[i]);
        memcpy(v->arena + o, toks[i], len + 1);
        v->off[ids[i]] = (uint32_t)o;
        v->len[ids[i]] = (uint32_t)len;
        o += len + 1;
    }
    v->arena_len = o;
    v->mask = bt_pow2(k) - 1;
    v->slots = calloc(v->mask + 1, sizeof *v->slots);
    for (size_t i = 0; i < k; i++)
        bt_vocab_add(v, ids[i]);
    free(ids);
    free(toks);
}

static inline void bt_load_merges(bpe_tables *t, char *text)
{
    hf_merges *m = &t->m.merges;
    size_t lines = 0;
    for (char *p = text; (p = strchr(p, '\n')); p++)
        lines++;
    if (hf_merges_alloc(m, lines + 1))
        abort();
    uint32_t rank = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), rank++) {
        unsigned long a, b, c;
        if (sscanf(line, "%lu %lu %lu", &a, &b, &c) == 3)
            hf_merges_put(m, (uint32_t)a, (uint32_t)b, rank, (uint32_t)c);
    }
    m->n = rank;
}

static inline void bt_load_model(bpe_tables *t, char *text)
{
    hf_model *m = &t->m;
    char name[64], val[4096];
    m->kind = HF_MODEL_BPE;
    m->prefix = m->suffix = "";
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (sscanf(line, "%63s %4095s", name, val) != 2)
            continue;
        if (!strcmp(name, "byte_fallback"))
            m->byte_fallback = atoi(val);
        else if (!strcmp(name, "ignore_merges"))
            m->ignore_merges = atoi(val);
        else if (!strcmp(name, "fuse_unk"))
            m->fuse_unk = atoi(val);
        else if (!strcmp(name, "type"))
            m->kind = strcmp(val, "wordpiece") ? HF_MODEL_BPE : HF_MODEL_WORDPIECE;
        else if (!strcmp(name, "max_chars"))
            m->max_chars = (size_t)strtoull(val, NULL, 10);
        else if (!strcmp(name, "unk_id"))
            m->unk_id = atoll(val);
        else if (!strcmp(name, "prefix") || !strcmp(name, "suffix")) {
            size_t n = bt_unhex(val);
            if (!n)
                continue; /* stays "" */
            char *s = malloc(n + 1);
            memcpy(s, val, n + 1);
            if (name[0] == 'p')
                m->prefix = s, m->prefix_len = n;
            else
                m->suffix = s, m->suffix_len = n;
        }
    }
}

static inline void bt_load_words(bpe_tables *t, char *text)
{
    size_t lines = 0;
    for (char *p = text; (p = strchr(p, '\n')); p++)
        lines++;
    t->words = calloc(lines + 1, sizeof *t->words);
    t->word_len = calloc(lines + 1, sizeof *t->word_len);
    t->expect = calloc(lines + 1, sizeof *t->expect);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = 0;
        t->word_len[t->n_words] = bt_unhex(line);
        t->words[t->n_words] = line;
        t->expect[t->n_words++] = tab + 1;
    }
}

/* Does the library's line (ids, or "ERROR ...") equal ids? */
static inline int bt_same(const char *expect, const hf_ids *ids)
{
    const char *p = expect;
    for (size_t i = 0; i < ids->n; i++) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v != ids->v[i])
            return 0;
        p = end;
    }
    while (*p == ' ')
        p++;
    return !*p;
}

/* Load dir's tables; 0, or -1 when a file is missing (bpe_tables_free
 * frees what was read either way). */
static inline int bpe_tables_load(bpe_tables *t, const char *dir)
{
    memset(t, 0, sizeof *t);
    size_t n;
    char *model = bt_read(dir, "model.txt", &n), *vocab = model ? bt_read(dir, "vocab.txt", &n) : NULL;
    if (!vocab)
        return -1;
    t->text[0] = model;
    t->text[1] = vocab;
    bt_load_model(t, model);
    bt_load_vocab(t, vocab, n);
    char *merges = bt_read(dir, "merges.txt", &n), *words = merges ? bt_read(dir, "words.txt", &n) : NULL;
    t->text[2] = merges;
    t->text[3] = words;
    if (!words)
        return -1;
    bt_load_merges(t, merges);
    bt_load_words(t, words);
    for (int b = 0; b < 256; b++) {
        char tok[8];
        snprintf(tok, sizeof tok, "<0x%02X>", b);
        t->m.byte_ids[b] = hf_vocab_find(&t->v, tok, 6);
    }
    return 0;
}

static inline void bpe_tables_free(bpe_tables *t)
{
    free(t->v.arena);
    free(t->v.off);
    free(t->v.len);
    free(t->v.slots);
    hf_merges_free(&t->m.merges);
    if (t->m.prefix_len)
        free(t->m.prefix);
    if (t->m.suffix_len)
        free(t->m.suffix);
    free(t->words);
    free(t->word_len);
    free(t->expect);
    for (int i = 0; i < 4; i++)
        free(t->text[i]);
}

/* ids as the library's line ("1 2 3") into buf. */
static inline void bt_ids_str(const hf_ids *ids, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < ids->n && o + 24 < size; i++)
        o += (size_t)snprintf(buf + o, size - o, i ? " %lld" : "%lld", (long long)ids->v[i]);
}

#endif
