/* A Transformers model directory against its pins (include/parity/modeldir.h). */
#define _POSIX_C_SOURCE 200809L
#include "parity/modeldir.h"
#include "parity/strf.h"

#include <dirent.h>
#include <jansson.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int by_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const px_model_file *const *)a)->name, (*(const px_model_file *const *)b)->name);
}

/* The pins in name order (pointers into v); NULL when out of memory. */
static const px_model_file **sorted(const px_model_file *v, size_t n)
{
    const px_model_file **s = calloc(n ? n : 1, sizeof *s);
    for (size_t i = 0; s && i < n; i++)
        s[i] = &v[i];
    if (s)
        qsort(s, n, sizeof *s, by_name);
    return s;
}

static void digest_of(const px_model_file **s, char *const *hex, size_t n, char out[PX_SHA256_HEX])
{
    px_hasher h;
    FILE *o = hasher_open(&h);
    for (size_t i = 0; o && i < n; i++)
        fprintf(o, "%s  %s\n", hex ? hex[i] : s[i]->sha256, s[i]->name);
    hasher_close(&h, out);
}

void modeldir_digest(const px_model_file *v, size_t n, char out[PX_SHA256_HEX])
{
    const px_model_file **s = sorted(v, n);
    if (!s) {
        out[0] = '\0';
        return;
    }
    digest_of(s, NULL, n, out);
    free(s);
}

int modeldir_readable(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && !(len >= 3 && !strcmp(name + len - 3, ".md"));
}

/* Whether name is pinned: a binary search of the pins in name order, so a
 * directory of many files against many pins stays n log n. */
static int pinned(const px_model_file **s, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s[mid]->name, name);
        if (!c)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Whether a pin names a file in folder `sub` ("vae/config.json" for
 * "vae"): a Diffusers pipeline's component folder, whose files are checked
 * as the directory's own are. Linear in the pins, once per folder. */
static int folder_pinned(const px_model_file **s, size_t n, const char *sub)
{
    size_t len = strlen(sub);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(s[i]->name, sub, len) && s[i]->name[len] == '/')
            return 1;
    return 0;
}

/* The unpinned regular files of dir/prefix (prefix "" or "FOLDER/"),
 * appended to *found as names relative to dir; a folder a pin names
 * is walked too when prefix is "" (one level, as pins go). */
static int scan_unpinned(const char *fixture, const char *dir, const char *prefix, const px_model_file **s, size_t n,
                         char ***found, size_t *n_found, px_error *err)
{
    char *at = strf("%s/%s", dir, prefix);
    DIR *d = at ? opendir(at) : NULL;
    free(at);
    if (!d)
        return 0; /* a pinned folder that is not there: its pins say so */
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        char *rel = strf("%s%s", prefix, e->d_name);
        char *p = rel ? strf("%s/%s", dir, rel) : NULL;
        struct stat st;
        if (!rel || !p) {
            free(rel), free(p);
            rc = px_error_oom(err, fixture);
            break;
        }
        int readable = modeldir_readable(e->d_name), ok = readable && stat(p, &st) == 0;
        free(p);
        if (ok && S_ISDIR(st.st_mode) && !*prefix && folder_pinned(s, n, e->d_name)) {
            char *sub = strf("%s/", e->d_name);
            rc = sub ? scan_unpinned(fixture, dir, sub, s, n, found, n_found, err) : px_error_oom(err, fixture);
            free(sub), free(rel);
            continue;
        }
        if (!ok || !S_ISREG(st.st_mode) || pinned(s, n, rel)) {
            free(rel);
            continue;
        }
        char **v = realloc(*found, (*n_found + 1) * sizeof *v);
        if (!v) {
            free(rel);
            rc = px_error_oom(err, fixture);
            break;
        }
        *found = v, v[(*n_found)++] = rel;
    }
    closedir(d);
    return rc;
}

/* Every file in dir that loading could read and no pin names, in name
 * order (so the errors are the same on every file system), a pinned
 * component folder's included: without report, -1 with the first; with
 * it, each reported and 1 when any. 0 when none; -1 with *err when the
 * directory cannot be read. */
static int unpinned(const modeldir_at *at, const char *dir, const px_model_file **s, size_t n,
                    modeldir_report report, void *ctx, px_error *err)
{
    const char *fixture = at->fixture;
    DIR *d = opendir(dir);
    if (!d)
        return px_error_set(err, PX_ERR_MALFORMED, fixture, at->path_line, at->path_col, "model directory %s: %s",
                            dir, strerror(errno));
    closedir(d);
    char **found = NULL;
    size_t n_found = 0;
    int rc = scan_unpinned(fixture, dir, "", s, n, &found, &n_found, err);
    if (!rc && n_found)
        qsort(found, n_found, sizeof *found, by_str);
    int reported = 0;
    for (size_t i = 0; !rc && i < n_found; i++) {
        rc = px_error_set(err, PX_ERR_MISMATCH, fixture, at->files_line, at->files_col,
                          "model directory %s holds %s, which no pin in files: names: a file from_pretrained may "
                          "read is part of the model; pin it (parity pin %s) or remove it",
                          dir, found[i], fixture);
        if (report)
            report(ctx, err), rc = 0, reported = 1;
    }
    for (size_t i = 0; i < n_found; i++)
        free(found[i]);
    free(found);
    return rc ? rc : reported;
}

int modeldir_check_each(const modeldir_at *at, const char *dir, const px_model_file *v, size_t n,
                        char out[PX_SHA256_HEX], modeldir_report report, void *ctx, px_error *err)
{
    const char *fixture = at->fixture;
    struct stat st;
    int bad = stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    /* Said at path:, the one thing to correct when the directory moved */
    if (bad)
        return px_error_set(err, PX_ERR_MALFORMED, fixture, at->path_line, at->path_col,
                            "model directory %s: %s: correct path: (relative to the fixture) to the "
                            "save_pretrained directory format transformers loads",
                            dir, strerror(bad));
    const px_model_file **s = sorted(v, n);
    char **hex = calloc(n ? n : 1, sizeof *hex);
    int rc = s && hex ? 0 : px_error_oom(err, fixture), found = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        char *p = strf("%s/%s", dir, s[i]->name);
        if (!(hex[i] = malloc(PX_SHA256_HEX)) || !p) {
            free(p);
            rc = px_error_oom(err, fixture);
            break;
        }
        px_error herr = {0};
        if (hash_file(p, hex[i], &herr))
            rc = px_error_set(err, PX_ERR_MALFORMED, fixture, s[i]->line, s[i]->col, "model file %s: %s", p,
                              herr.msg);
        else if (strcmp(hex[i], s[i]->sha256))
            rc = px_error_set(err, PX_ERR_MISMATCH, fixture, s[i]->line, s[i]->col,
                              "model file %s has sha256 %s, not the pinned %s: a different file is a different "
                              "model: re-pin after review with: parity pin %s",
                              p, hex[i], s[i]->sha256, fixture);
        free(p);
        if (rc && report && err->reason != PX_ERR_NO_MEMORY) {
            report(ctx, err);
            rc = 0, found = 1;
        }
    }
    if (!rc) {
        rc = unpinned(at, dir, s, n, report, ctx, err);
        found |= rc == 1;
        rc = rc == 1 ? 0 : rc;
    }
    if (!rc && found)
        rc = -1; /* each was reported */
    if (!rc)
        digest_of(s, hex, n, out);
    for (size_t i = 0; hex && i < n; i++)
        free(hex[i]);
    free(hex);
    free(s);
    return rc;
}

int modeldir_check(const modeldir_at *at, const char *dir, const px_model_file *v, size_t n,
                   char out[PX_SHA256_HEX], px_error *err)
{
    return modeldir_check_each(at, dir, v, n, out, NULL, NULL, err);
}

long modeldir_config_long(const char *dir, const char *key)
{
    char *path = strf("%s/config.json", dir);
    json_t *cfg = path ? json_load_file(path, 0, NULL) : NULL;
    free(path);
    json_t *v = json_object_get(cfg, key);
    long n = json_is_integer(v) && json_integer_value(v) > 0 ? (long)json_integer_value(v) : 0;
    json_decref(cfg);
    return n;
}

int modeldir_vocab_check(const char *fixture, int line, int col, const char *dir, const char *tokenizer,
                         size_t n_ids, px_error *err)
{
    long rows = modeldir_config_long(dir, "vocab_size");
    if (!rows || n_ids <= (size_t)rows)
        return 0;
    return px_error_set(err, PX_ERR_MISMATCH, fixture, line, col,
                        "tokenizer %s gives ids up to %zu (added tokens included), but %s/config.json has "
                        "vocab_size %ld: the model has no embedding row for ids %ld to %zu, and a forward that meets "
                        "one fails with \"index out of range in self\": use the tokenizer the model was trained "
                        "with, or resize its embeddings to %zu (resize_token_embeddings) and save it again",
                        tokenizer, n_ids - 1, dir, rows, rows, n_ids - 1, n_ids);
}
