#include "parity/shard.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/hash.h"

/* A decimal number of digits only, at most max; -1 when not one. */
static long long digits(const char *s, size_t n, long long max)
{
    if (n == 0 || n > 9)
        return -1;
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= max ? v : -1;
}

int shard_parse(const char *s, px_shard *out, char *msg, size_t size)
{
    const char *slash = strchr(s, '/');
    if (!slash) {
        snprintf(msg, size, "a shard is I/N (I from 0 to N-1, as Slurm's SLURM_ARRAY_TASK_ID and Kubernetes' "
                            "JOB_COMPLETION_INDEX count)");
        return -1;
    }
    long long i = digits(s, (size_t)(slash - s), PX_SHARD_MAX), n = digits(slash + 1, strlen(slash + 1), PX_SHARD_MAX);
    if (i < 0 || n < 0) {
        snprintf(msg, size, "a shard is I/N, two whole numbers (N from 1 to %d)", PX_SHARD_MAX);
        return -1;
    }
    if (n < 1) {
        snprintf(msg, size, "N, the number of shards, is at least 1");
        return -1;
    }
    if (i >= n) {
        snprintf(msg, size, "I counts from 0 to N-1 (%lld here), as SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX do",
                 n - 1);
        return -1;
    }
    *out = (px_shard){(unsigned)i, (unsigned)n, 0, 0};
    return 0;
}

void shard_format(px_shard s, char *buf, size_t size) { snprintf(buf, size, "%u/%u", s.index, s.count); }

unsigned shard_of(const char *id, unsigned count)
{
    char hex[PX_SHA256_HEX];
    hash_buffer(id, strlen(id), hex);
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        char c = hex[i];
        v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return count ? (unsigned)(v % count) : 0;
}

int shard_holds(px_shard s, const char *id) { return s.count == 0 || shard_of(id, s.count) == s.index; }

char *shard_skip_mask(const px_fixture *f, px_shard s)
{
    char *skip = calloc(f->n_examples ? f->n_examples : 1, 1);
    for (size_t k = 0; skip && k < f->n_examples; k++)
        skip[k] = !shard_holds(s, f->examples[k].id);
    return skip;
}
