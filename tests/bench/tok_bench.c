/* make bench (part): parity's tokenizer.json tokenizer through its public
 * API (parity/tokenizer.h), measured as tests/bench/tok_bench.js measures the
 * Hugging Face library (tests/bench/tokenizers.sh runs both and prints the
 * ratios):
 *
 *   tok-bench TOKENIZER_JSON LOADS STRINGS.jsonl...
 *
 * prints, one "key value..." a line:
 *   rss_before_kib N   VmRSS before the first load (the process has done
 *                      nothing else yet)
 *   load_peak_kib N    VmHWM after the first load minus rss_before_kib: the
 *                      memory the load took at its peak (the peak resident
 *                      set is reset first through /proc/self/clear_refs
 *                      where the kernel allows it)
 *   rss_loaded_kib N   VmRSS with the tokenizer loaded, minus rss_before_kib
 *   load_s S           median wall time of LOADS loads (each freed after)
 *   encode FILE BYTES STRINGS SECONDS REPS
 *                      every string of FILE (one JSON string a line)
 *                      encoded REPS times (max_tokens 0, pad_to 0), at least
 *                      1 s in all; SECONDS for all REPS
 *   refused MESSAGE    when the file does not load (nothing else follows)
 * Single-threaded, as parity is. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parity/tokenizer.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A field of /proc/self/status in KiB ("VmRSS:", "VmHWM:"); -1 unknown. */
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field))) {
            v = strtol(line + strlen(field), NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct strings {
    char **s;
    size_t *len, n, bytes;
} strings;

static int read_strings(const char *path, strings *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    memset(out, 0, sizeof *out);
    while ((got = getline(&line, &cap, f)) > 0) {
        json_t *j = json_loadb(line, (size_t)got, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        if (!json_is_string(j)) {
            json_decref(j);
            continue;
        }
        out->s = realloc(out->s, (out->n + 1) * sizeof *out->s);
        out->len = realloc(out->len, (out->n + 1) * sizeof *out->len);
        out->len[out->n] = json_string_length(j);
        out->s[out->n] = malloc(out->len[out->n] + 1);
        memcpy(out->s[out->n], json_string_value(j), out->len[out->n] + 1);
        out->bytes += out->len[out->n++];
        json_decref(j);
    }
    free(line);
    fclose(f);
    return 0;
}

static void encode_bench(const px_tokenizer *tok, const char *path)
{
    strings st;
    if (read_strings(path, &st)) {
        printf("error cannot read %s\n", path);
        return;
    }
    size_t reps = 0, failed = 0;
    double t0 = now(), t;
    do {
        for (size_t i = 0; i < st.n; i++) {
            px_encoding enc;
            px_error err = {0};
            if (tokenizer_encode(tok, st.s[i], st.len[i], 0, 0, &enc, &err))
                failed++;
            else
                encoding_free(&enc);
        }
        reps++;
        t = now() - t0;
    } while (t < 1.0 && reps < 1000);
    printf("encode %s %zu %zu %.6f %zu\n", path, st.bytes, st.n, t, reps);
    if (failed)
        printf("encode_failed %s %zu\n", path, failed / reps);
    for (size_t i = 0; i < st.n; i++)
        free(st.s[i]);
    free(st.s), free(st.len);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tok-bench TOKENIZER_JSON LOADS STRINGS.jsonl...\n");
        return 2;
    }
    int loads = atoi(argv[2]);
    if (loads < 1)
        loads = 1;
    FILE *cr = fopen("/proc/self/clear_refs", "w");
    if (cr) {
        fputs("5", cr); /* reset VmHWM to VmRSS */
        fclose(cr);
    }
    long before = status_kib("VmRSS:");
    px_error err = {0};
    double t0 = now();
    px_tokenizer *tok = tokenizer_load_hf(argv[1], &err);
    double *times = malloc((size_t)loads * sizeof *times);
    times[0] = now() - t0;
    long peak = status_kib("VmHWM:"), loaded = status_kib("VmRSS:");
    if (!tok) {
        printf("refused %s\n", err.msg);
        free(times);
        return 0;
    }
    printf("rss_before_kib %ld\nload_peak_kib %ld\nrss_loaded_kib %ld\n", before, peak - before, loaded - before);
    for (int i = 1; i < loads; i++) {
        tokenizer_free(tok);
        t0 = now();
        tok = tokenizer_load_hf(argv[1], &err);
        times[i] = now() - t0;
        if (!tok) {
            printf("refused %s\n", err.msg);
            free(times);
            return 0;
        }
    }
    qsort(times, (size_t)loads, sizeof *times, cmp_double);
    printf("load_s %.6f\n", loads % 2 ? times[loads / 2] : (times[loads / 2 - 1] + times[loads / 2]) / 2);
    free(times);
    fflush(stdout);
    for (int i = 3; i < argc; i++)
        encode_bench(tok, argv[i]);
    tokenizer_free(tok);
    return 0;
}
