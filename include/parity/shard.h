/* Shards: one run split over several machines by a scheduler (a Slurm job
 * array, a Kubernetes indexed Job). `parity run --shard I/N` runs the
 * examples of shard I (0 <= I < N) and writes a partial results file that
 * says so (`shard: "I/N"`); `parity merge` joins the N shard files into the
 * results file one run would have written. parity never runs a cluster.
 *
 * An example belongs to shard shard_of(id, N): the first 8 bytes of the
 * SHA-256 of its id, as a big-endian unsigned number, modulo N. It depends on
 * the id alone, so adding, removing or reordering examples moves no other
 * example; any program that writes results files can compute it. */
#ifndef PARITY_SHARD_H
#define PARITY_SHARD_H

#include <stddef.h>

#include "parity/fixture.h"

/* The most shards one run may be split into. */
#define PX_SHARD_MAX 100000

typedef struct px_shard {
    unsigned index, count; /* count 0: not a shard (a whole run) */
    int line, col;         /* where a results file says it (0: not read from one) */
} px_shard;

/* "I/N": decimal I and N, 1 <= N <= PX_SHARD_MAX, 0 <= I < N, nothing
 * else (no sign, space or suffix). 0 with *out set, or -1 with why (a
 * phrase: "the index must be below N") in msg. */
int shard_parse(const char *s, px_shard *out, char *msg, size_t size);
/* "I/N" into buf (at least 24 bytes). */
void shard_format(px_shard s, char *buf, size_t size);
/* The shard, of count, that the example with this id belongs to. */
unsigned shard_of(const char *id, unsigned count);
/* 1 when the example with this id is run in shard s, or s is no shard. */
int shard_holds(px_shard s, const char *id);
/* Per fixture example: 1 when it belongs to another shard than s (the
 * runner leaves it alone). NULL when out of memory. */
char *shard_skip_mask(const px_fixture *f, px_shard s);

#endif
