/* The last good configuration: for each environment of a fixture, the
 * configuration it last met the contract with (device and its name, dtype,
 * threads, precision settings, executor, torch and backend versions, the
 * model and vocabulary it ran, parity's version; a training run's recipe
 * and the environment's precision recipe and parallel plan), and where
 * that came from
 * (host, when the results were made, the results file). Kept in a small
 * YAML file beside the fixture, ".<fixture name>.parity-history.yaml"
 * (parity-fixture(5)), one entry per environment.
 *
 * Only `parity check` records it, and only for the environments that met
 * the contract in that check (run there, or read from a results file: one
 * from another machine counts equally); an environment that did not meet
 * it, or was cut short, never overwrites its last good. The file is read as
 * strictly as any other (ydoc: size-limited, linear time, every refusal
 * naming file:line:col) and written atomically. */
#ifndef PARITY_HISTORY_H
#define PARITY_HISTORY_H

#include <stddef.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/judge.h"
#include "parity/results.h"

/* The history format this program writes and reads. */
#define PX_HISTORY_VERSION 1

/* What a configuration is made of, in the order they are listed. */
typedef enum px_cfg_field {
    PX_CF_DEVICE,
    PX_CF_DEVICE_NAME,
    PX_CF_DTYPE,
    PX_CF_THREADS,
    PX_CF_TF32,
    PX_CF_MATMUL_PRECISION,
    PX_CF_COMPILE,      /* torch.compile's settings, "inductor, mode default,
                           dynamic true"; NULL: eager (the key is then left
                           out of the file, as before compiled environments) */
    PX_CF_EXECUTOR,
    PX_CF_RUNTIME,
    PX_CF_TORCH,
    PX_CF_BACKEND_MODULES,
    PX_CF_BACKEND_VERSIONS,
    PX_CF_MODEL,
    PX_CF_VOCAB,
    PX_CF_PARITY,
    PX_CF_ENV,          /* the environment variables that change numerics
                           (envrec.h): its text is envrec_text's, compared
                           and told by name */
    PX_CF_RECIPE,       /* a training run's recipe in words: the contract's
                           optimizer, lr and schedule, steps, batch, and
                           the environment's precision recipe and parallel
                           plan ("adamw lr 0.0003, ...; 2 processes, fsdp,
                           gloo"); NULL for other kinds (the key is then
                           left out of the file) */
    PX_CF_RECIPE_SHA,   /* the digest of every run's recipe in full (an
                           example's own train: keys included), the data's
                           pin and the environment's plan: a run's own
                           override changes it when the words do not */
    PX_CF_COUNT
} px_cfg_field;

/* Its key in the history file and in check's JSON ("libtorch_version"), the
 * manifest's key. */
const char *history_field_key(px_cfg_field c);
/* Its name for a person ("torch"), as check and the review screen say it. */
const char *history_field_name(px_cfg_field c);

/* One configuration: each field as text (threads in decimal), NULL when not
 * recorded; the environment variables also one by one (env; v[PX_CF_ENV]
 * is their envrec_text). */
typedef struct px_config {
    char *v[PX_CF_COUNT];
    px_envvars env;
} px_config;

/* The configuration an environment's manifest records (malloc'd copies;
 * -1 on out of memory, *out then empty). */
int history_config_of(const px_manifest *m, px_config *out);
/* The same for environment er of a check of f: its manifest's, and the
 * training recipe (PX_CF_RECIPE, PX_CF_RECIPE_SHA) when f's runs have one
 * (each example's recipe, fixture.h), from the fixture and the
 * environment's precision recipe and parallel plan. */
int history_config_for(const px_fixture *f, const px_env_result *er, px_config *out);
/* The recipe's words and digest for environment env of f (malloc'd into
 * *words and hex); 0 with *words NULL when f has no training runs, -1 on
 * out of memory. */
int history_recipe(const px_fixture *f, const px_env *env, char **words, char hex[PX_SHA256_HEX]);
void history_config_clear(px_config *c);
/* The fields that differ (bit 1u << field); a field recorded on one side
 * only differs too. */
unsigned history_compare(const px_config *last, const px_config *now);
/* "dtype: float32 → bfloat16" (hashes shortened to 12 digits, "not
 * recorded" for a missing side) into buf; the environment variables by
 * name: "XLA_FLAGS: '--a' → '--b'; OMP_NUM_THREADS: not set → '4'". */
void history_change_text(px_cfg_field c, const px_config *last, const px_config *now, char *buf, size_t size);

typedef struct px_history_entry {
    char *env;              /* the environment's name */
    char *host, *started_at; /* of the results that met the contract; NULL not recorded */
    char *results;          /* the results file they were read from; NULL: run by that check */
    px_config config;
} px_history_entry;

typedef struct px_history {
    px_history_entry *v; /* in the file's order; new environments at the end */
    size_t n, cap;
} px_history;

/* Where a last good configuration came from, in words: "2026-12-02T14:34:04Z
 * on vm, from runs/tpu.yaml" (each part said when not recorded). */
void history_where(const px_history_entry *l, char *buf, size_t size);

/* ".../.<fixture name>.parity-history.yaml" beside the fixture. */
void history_path(const char *fixture, char *buf, size_t size);
/* Read the history; a file that does not exist reads as empty. Strict: NULL
 * entries and -1 with *err (PX_ERR_MALFORMED or PX_ERR_TOO_LARGE, or
 * PX_ERR_NOT_FOUND for an unreadable one; path:line:col) on anything else
 * than this program writes: an unknown key, a wrong type, a newer format,
 * an environment twice. *h is empty then. */
int history_load(const char *path, px_history *h, px_error *err);
/* The same from bytes in memory (path names it in errors). */
int history_parse(const char *path, const char *data, size_t len, px_history *h, px_error *err);
void history_free(px_history *h);
const px_history_entry *history_find(const px_history *h, const char *env);

/* One environment of a check beside its last good configuration. */
typedef struct px_since {
    const px_history_entry *last; /* borrowed from the history; NULL: it never
                                     met the contract before (as far as the
                                     history knows) */
    int compared;     /* 1: it has a configuration now (it ran up, here or
                         in a results file) and `changed` says what differs */
    unsigned changed; /* bits 1u << px_cfg_field */
    int regressed;    /* it met the contract before (last) and does not now,
                         down included; never for one not selected (-e),
                         for one without results (nothing is known), nor
                         for one judged only in part with nothing failed
                         (px_env_verdict.incomplete: a shard's file, no
                         reference to compare with) */
} px_since;

/* For each environment of r (out parallel to r->envs). -1 on out of
 * memory. */
int history_since(const px_history *h, const px_fixture *f, const px_results *r, const px_judgement *j, px_since *out, px_error *err);

/* Record, in h, the configuration of every selected environment that met
 * the contract in j, with where it came from; the others keep their entry.
 * Returns how many entries changed (0: the file need not be written), -1 on
 * out of memory. Borrowed pointers into h (px_since.last) may move. */
int history_record(px_history *h, const px_fixture *f, const px_results *r, const px_judgement *j, px_error *err);

/* The file's text (malloc'd, NUL-terminated; NULL on out of memory). */
char *history_text(const px_history *h, const char *fixture_name, size_t *len);
/* Write it atomically (atomic.h) to path. */
int history_write(const px_history *h, const char *path, const char *fixture_name, px_error *err);

#endif
