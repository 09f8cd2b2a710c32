/* Words per second of hf_bpe_tokenize on the words tests/tokenizer/bpe_words.js
 * wrote (the same words its --bench ROUNDS times through the library):
 *
 *   node tests/tokenizer/bpe_words.js FILE DIR --gen 20000 --bench 5
 *   cc -O2 -Iinclude -Itests -o build/bpe-bench tests/bench/bpe_bench.c build/libparity.a \
 *      $(pkg-config --libs ...) ; build/bpe-bench DIR 5
 *
 * Single-threaded. Three figures: every round with a fresh cache (each word
 * computed once per round, then hits for repeats within it), one cache
 * across the rounds (as the library's cache across its rounds), and no cache.
 * Each word is checked against the library's ids once first. Not a test:
 * no figure is asserted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bpe_bench.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* mode 0: fresh cache per round; 1: one cache; 2: none. */
static double run(const bpe_tables *t, int rounds, int mode, size_t *total_ids)
{
    hf_ids ids = {0};
    px_error err = {0};
    hf_bpe_cache *shared = mode == 1 ? hf_bpe_cache_new() : NULL;
    double t0 = now();
    *total_ids = 0;
    for (int r = 0; r < rounds; r++) {
        hf_bpe_cache *c = mode == 0 ? hf_bpe_cache_new() : shared;
        for (size_t i = 0; i < t->n_words; i++) {
            ids.n = 0;
            hf_bpe_tokenize(&t->m, &t->v, c, t->words[i], t->word_len[i], &ids, &err);
            *total_ids += ids.n;
        }
        if (mode == 0)
            hf_bpe_cache_free(c);
    }
    double sec = now() - t0;
    hf_bpe_cache_free(shared);
    free(ids.v);
    return sec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bpe-bench DIR [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    bpe_tables t;
    if (bpe_tables_load(&t, argv[1])) {
        fprintf(stderr, "bpe-bench: cannot read the tables in %s\n", argv[1]);
        return 1;
    }
    size_t bad = 0, total;
    hf_ids ids = {0};
    px_error err = {0};
    for (size_t i = 0; i < t.n_words; i++) {
        ids.n = 0;
        if (hf_bpe_tokenize(&t.m, &t.v, NULL, t.words[i], t.word_len[i], &ids, &err) || !bt_same(t.expect[i], &ids))
            bad++;
    }
    printf("parity %s: %zu words, %zu differ from the library\n", argv[1], t.n_words, bad);
    const char *name[] = {"fresh cache per round", "one cache", "no cache"};
    for (int mode = 0; mode < 3; mode++) {
        double sec = run(&t, rounds, mode, &total);
        printf("parity %s: %zu words in %.3f s: %.0f words/s (%s, %zu ids)\n", argv[1], t.n_words * rounds, sec,
               (double)(t.n_words * rounds) / sec, name[mode], total);
    }
    free(ids.v);
    return bad != 0;
}
