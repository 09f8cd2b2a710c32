/* Joining shard files (parity run --shard I/N, one per scheduler task) into
 * the results one run of every example would have written. The shards must
 * be one run cut in N: the same fixture (each environment's recorded
 * contract fingerprint is the fixture's now, all parts), the same
 * configuration (the same environments, reference and label maps, and in
 * each manifest the same parity_version, executor, runtime,
 * libtorch_version, backend_modules, backend_versions, device, device_name,
 * dtype, tf32, matmul_precision, ignored, threads, model_sha256 and
 * vocab_sha256; host, started_at, load_ms, first_forward_ms and restarts
 * may differ), every shard 0..N-1 exactly once. */
#ifndef PARITY_MERGE_H
#define PARITY_MERGE_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/results.h"

/* shards[i], read from paths[i] by results_load against f, in any order.
 * Their results are moved into the merged ones (free the shards after, as
 * usual). The merged results are no shard: each example comes from the
 * shard it belongs to; an environment is down when it was down in a shard
 * (its message says which); its manifest is that of the lowest shard whose
 * executor started (host, started_at, load_ms and first_forward_ms are that
 * shard's), its restarts the sum; merged_from names every shard file, in
 * shard order, with its host and start. The loaded shards' warnings are
 * carried over.
 * NULL with *err (PX_EXIT_USAGE; the file, and line:col where the problem
 * is at a place in it) for a file that is no shard (a whole run's, or a
 * merged one), shards of different N, a shard given twice, an environment
 * or reference not in every shard, a contract fingerprint that is not the
 * fixture's, a label map or manifest field that differs (named, with both
 * values), and a shard missing (named). */
px_results *merge_shards(const px_fixture *f, px_results *const *shards, const char *const *paths, size_t n,
                         px_error *err);

#endif
