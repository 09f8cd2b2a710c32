/* A Transformers model directory against its pins (include/parity/modeldir.h). */
#define _POSIX_C_SOURCE 200809L
#include "parity/modeldir.h"
#include "parity/strf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The first file in dir (in name order, so the error is the same on every
 * file system) that loading could read and no pin names; 0 when none. */
static int unpinned(const char *fixture, int line, int col, const char *dir, const px_model_file **s, size_t n,
                    px_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return px_error_set(err, PX_ERR_MALFORMED, fixture, line, col, "model directory %s: %s", dir,
                            strerror(errno));
    char *first = NULL;
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (!modeldir_readable(e->d_name) || pinned(s, n, e->d_name))
            continue;
        char *p = strf("%s/%s", dir, e->d_name);
        struct stat st;
        if (!p) {
            rc = px_error_oom(err, fixture);
            break;
        }
        int regular = stat(p, &st) == 0 && S_ISREG(st.st_mode);
        free(p);
        if (regular && (!first || strcmp(e->d_name, first) < 0)) {
            free(first);
            if (!(first = strdup(e->d_name)))
                rc = px_error_oom(err, fixture);
        }
    }
    closedir(d);
    if (!rc && first)
        rc = px_error_set(err, PX_ERR_MISMATCH, fixture, line, col,
                          "model directory %s holds %s, which no pin in files: names: a file Transformers may read "
                          "is part of the model; pin it (sha256sum) or remove it",
                          dir, first);
    free(first);
    return rc;
}

int modeldir_check(const char *fixture, int line, int col, const char *dir, const px_model_file *v, size_t n,
                   char out[PX_SHA256_HEX], px_error *err)
{
    struct stat st;
    int bad = stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (bad)
        return px_error_set(err, PX_ERR_MALFORMED, fixture, line, col,
                            "model directory %s: %s (format transformers is a save_pretrained directory)", dir,
                            strerror(bad));
    const px_model_file **s = sorted(v, n);
    char **hex = calloc(n ? n : 1, sizeof *hex);
    int rc = s && hex ? 0 : px_error_oom(err, fixture);
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
                              "model file %s has sha256 %.12s…, not the pinned %.12s…: a different file is a "
                              "different model (re-pin it only after review)",
                              p, hex[i], s[i]->sha256);
        free(p);
    }
    if (!rc)
        rc = unpinned(fixture, line, col, dir, s, n, err);
    if (!rc)
        digest_of(s, hex, n, out);
    for (size_t i = 0; hex && i < n; i++)
        free(hex[i]);
    free(hex);
    free(s);
    return rc;
}
