/* parity export and parity repro. See include/parity/bundle.h. */
#define _GNU_SOURCE
#include "parity/bundle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parity/fingerprint.h"
#include "parity/fixture_emit.h"
#include "parity/hash.h"
#include "parity/modeldir.h"
#include "parity/redact.h"
#include "parity/report_html.h"
#include "parity/report_kind.h"
#include "parity/report_md.h"
#include "parity/runner.h"
#include "parity/strf.h"
#include "parity/ydoc.h"

extern char **environ;

typedef struct entry {
    char *rel;
    char sha[PX_SHA256_HEX];
} entry;

typedef struct bundle {
    char *dir;       /* the temporary directory being filled */
    char *name;      /* the top-level name (the target's last component) */
    entry *files;
    size_t n;
    px_redactor *rd;
    px_error *err;
    int anew;        /* the fixture was written anew, its results: files with it */
    char **held;     /* the results files in it, and what each holds (pairs:
                        rel, words; the export's README lists them) */
    size_t n_held;
    unsigned char named[64]; /* bit per held file: the fixture names it in
                                results: (so no --results gives it) */
    int kind_files;  /* files of the kind's own (report_kind.h's
                        export_example: an image's PNGs) */
} bundle;

/* A results file the bundle holds, for the README: rel and what it holds. */
static int hold(bundle *b, const char *rel, const char *what, int named)
{
    char **v = realloc(b->held, (b->n_held + 2) * sizeof *v);
    if (!v)
        return px_error_oom(b->err, rel);
    b->held = v;
    v[b->n_held + 1] = NULL;
    if (!(v[b->n_held] = strdup(rel)) ||
        asprintf(&v[b->n_held + 1], "%s%s", what, named ? " (the fixture names it in results:)" : "") < 0) {
        free(v[b->n_held]);
        return px_error_oom(b->err, rel);
    }
    size_t i = b->n_held / 2;
    if (named && i < 8 * sizeof b->named)
        b->named[i / 8] |= (unsigned char)(1u << (i % 8));
    b->n_held += 2;
    return 0;
}

static int fail(bundle *b, px_reason why, const char *file, const char *fmt, const char *a)
{
    return px_error_set(b->err, why, file, 0, 0, fmt, a ? a : "");
}

static int mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            int rc = mkdir(path, 0755);
            *p = '/';
            if (rc && errno != EEXIST)
                return -1;
        }
    return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* Write rel (inside the bundle) with data; recorded for SHA256SUMS. */
static int put(bundle *b, const char *rel, const void *data, size_t len)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", b->dir, rel) < 0)
        return px_error_oom(b->err, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    int rc = mkdirs(path);
    *slash = '/';
    int fd = rc ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    int e = fd < 0 ? errno : 0;
    if (fd >= 0) {
        const char *p = data;
        for (size_t left = len; left && !e;) {
            ssize_t w = write(fd, p, left);
            if (w < 0 && errno != EINTR)
                e = errno;
            else if (w > 0)
                p += w, left -= (size_t)w;
        }
        if (!e && fsync(fd))
            e = errno;
        if (close(fd) && !e)
            e = errno;
    }
    if (e) {
        px_error_set(b->err, PX_ERR_WRITE, path, 0, 0, "cannot write: %s", strerror(e));
        free(path);
        return -1;
    }
    free(path);
    entry *v = realloc(b->files, (b->n + 1) * sizeof *v);
    if (!v || !(v[b->n].rel = strdup(rel))) {
        if (v)
            b->files = v;
        return px_error_oom(b->err, rel);
    }
    b->files = v;
    hash_buffer(data, len, b->files[b->n].sha);
    b->n++;
    return 0;
}

static int put_text(bundle *b, const char *rel, const char *text) { return put(b, rel, text, strlen(text)); }

/* put for a kind's files (px_bundle_put). */
static int put_for_kind(void *ctx, const char *rel, const void *data, size_t len) { return put(ctx, rel, data, len); }

/* The kind's own files for example k (an image's pictures, difference
 * maps and divergence curves), for the environments with want[e] set
 * (NULL: every one). */
static int put_kind_files(bundle *b, const px_bundle_in *in, size_t k, const unsigned char *want)
{
    const px_report_kind *rk = report_kind_of(in->f);
    if (!rk->export_example)
        return 0;
    int n = rk->export_example(in->f, in->res, in->j, k, want, put_for_kind, b, b->err);
    if (n < 0)
        return -1;
    b->kind_files += n;
    return 0;
}

/* What FILE* writing produced, put at rel. */
typedef void (*writer)(FILE *o, const void *arg);
static int put_written(bundle *b, const char *rel, writer w, const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (!o)
        return px_error_oom(b->err, rel);
    w(o, arg);
    if (fclose(o)) {
        free(text);
        return px_error_oom(b->err, rel);
    }
    int rc = put(b, rel, text, len);
    free(text);
    return rc;
}

static char *slurp(bundle *b, const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        px_error_set(b->err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read: %s", strerror(errno));
        return NULL;
    }
    char *data = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 65536 + 1 > cap) {
            char *d = realloc(data, cap = (*len + 65536 + 1) * 2);
            if (!d) {
                free(data), fclose(fp);
                px_error_oom(b->err, path);
                return NULL;
            }
            data = d;
        }
        size_t n = fread(data + *len, 1, cap - *len - 1, fp);
        *len += n;
        if (!n)
            break;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(data);
        px_error_set(b->err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read: %s", "read error");
        return NULL;
    }
    data[*len] = '\0';
    return data;
}

static int copy_in(bundle *b, const char *from, const char *rel)
{
    size_t len;
    char *data = slurp(b, from, &len);
    if (!data)
        return -1;
    int rc = put(b, rel, data, len);
    free(data);
    return rc;
}

/* Copy from in at rel unless the bundle holds its bytes already (a
 * fixture's tokenizer: file is most often its model directory's own
 * tokenizer.json, carried with the directory): *got is the one copy's name
 * (malloc'd), which the fixture in the bundle then names. Same bytes, one
 * file, whatever the names. */
static int copy_once(bundle *b, const char *from, const char *rel, char **got)
{
    size_t len;
    char *data = slurp(b, from, &len), sha[PX_SHA256_HEX];
    *got = NULL;
    if (!data)
        return -1;
    hash_buffer(data, len, sha);
    const char *held = NULL;
    for (size_t i = 0; i < b->n && !held; i++)
        if (!strcmp(b->files[i].sha, sha))
            held = b->files[i].rel;
    int rc = held ? 0 : put(b, rel, data, len);
    free(data);
    if (!rc && !(*got = strdup(held ? held : rel)))
        rc = px_error_oom(b->err, rel);
    return rc;
}

/* resolved (as the loader made it) relative to dir, when it lies inside
 * it; NULL when it is absolute elsewhere or climbs out with "..". */
static const char *inside(const char *dir, const char *resolved)
{
    const char *rel = resolved;
    if (dir[0]) {
        size_t n = strlen(dir);
        if (strncmp(resolved, dir, n) || resolved[n] != '/')
            return NULL;
        rel = resolved + n + 1;
    } else if (rel[0] == '/')
        return NULL;
    for (const char *p = rel; *p;) {
        size_t seg = strcspn(p, "/");
        if ((seg == 2 && !strncmp(p, "..", 2)) || seg == 0)
            return NULL;
        p += seg + (p[seg] == '/');
    }
    return rel;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* w as one word of a shell command: as it is when it is plainly one,
 * else in single quotes (a README's commands are run as printed). */
static void put_word(FILE *o, const char *w)
{
    if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/:+@%,=") == strlen(w)) {
        fputs(w, o);
        return;
    }
    fputc('\'', o);
    for (; *w; w++)
        if (*w == '\'')
            fputs("'\\''", o);
        else
            fputc(*w, o);
    fputc('\'', o);
}

static int start(bundle *b, const char *out, px_error *err)
{
    memset(b, 0, sizeof *b);
    b->err = err;
    struct stat st;
    if (!lstat(out, &st))
        return fail(b, PX_ERR_USAGE, out, "already exists: %snothing is ever overwritten; choose another -o", "");
    char *copy = strdup(out);
    if (!copy)
        return px_error_oom(err, out);
    char *name = copy + strlen(copy);
    while (name > copy && name[-1] == '/')
        *--name = '\0';
    for (const char *sfx = bundle_is_archive(copy) ? (strstr(copy, ".tgz") ? ".tgz" : ".tar.gz") : ""; *sfx;) {
        copy[strlen(copy) - strlen(sfx)] = '\0';
        break;
    }
    b->name = strdup(base(copy));
    char *parent = copy, *slash = strrchr(copy, '/');
    if (slash)
        *slash = '\0';
    else
        parent = ".";
    if (!b->name || asprintf(&b->dir, "%s/.%s.tmp-%ld", parent, b->name, (long)getpid()) < 0) {
        free(copy);
        return px_error_oom(err, out);
    }
    free(copy);
    if (mkdir(b->dir, 0755))
        return px_error_set(err, PX_ERR_WRITE, b->dir, 0, 0, "cannot make the directory: %s", strerror(errno));
    if (!(b->rd = redact_new(NULL, 0, getenv("HOME"), err)))
        return -1;
    return 0;
}

static void remove_tree(const char *dir)
{
    if (!dir)
        return;
    pid_t pid;
    char *argv[] = {"rm", "-rf", "--", (char *)dir, NULL};
    if (!posix_spawnp(&pid, "rm", NULL, NULL, argv, environ))
        waitpid(pid, NULL, 0);
}

static void finish_free(bundle *b, int failed)
{
    if (failed)
        remove_tree(b->dir);
    for (size_t i = 0; i < b->n; i++)
        free(b->files[i].rel);
    free(b->files);
    for (size_t i = 0; i < b->n_held; i++)
        free(b->held[i]);
    free(b->held);
    free(b->dir);
    free(b->name);
    redact_free(b->rd);
}

static int cmp_entry(const void *a, const void *b) { return strcmp(((const entry *)a)->rel, ((const entry *)b)->rel); }

static int run_tar(bundle *b, const char *tmp_archive)
{
    char *parent = strdup(b->dir), *slash = strrchr(parent, '/');
    *slash = '\0';
    char *top = NULL;
    if (asprintf(&top, "%s/%s", parent, b->name) < 0 || rename(b->dir, top)) {
        int e = errno;
        free(parent), free(top);
        return px_error_set(b->err, PX_ERR_WRITE, b->dir, 0, 0, "cannot stage the archive: %s", strerror(e));
    }
    /* tar packs it under the bundle's own name: never a tarbomb. */
    free(b->dir);
    b->dir = top;
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    char *mtime = strf("--mtime=@%s", epoch && *epoch ? epoch : "0");
    if (!mtime) {
        free(parent);
        return px_error_oom(b->err, tmp_archive);
    }
    char *argv[] = {"tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", mtime, "-I", "gzip -n",
                    "-C", parent, "-cf", (char *)tmp_archive, b->name, NULL};
    pid_t pid;
    int st = -1, rc = posix_spawnp(&pid, "tar", NULL, NULL, argv, environ);
    if (!rc)
        waitpid(pid, &st, 0);
    free(parent), free(mtime);
    if (rc || !WIFEXITED(st) || WEXITSTATUS(st)) {
        unlink(tmp_archive);
        return px_error_set(b->err, PX_ERR_WRITE, tmp_archive, 0, 0, "tar could not write the archive%s",
                            rc ? " (no tar on PATH)" : "");
    }
    return 0;
}

/* SHA256SUMS, then the bundle appears whole: renamed into place, or
 * packed and the archive renamed into place. */
static int seal(bundle *b, const char *out)
{
    qsort(b->files, b->n, sizeof *b->files, cmp_entry);
    char *sums = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&sums, &len);
    if (!o)
        return px_error_oom(b->err, out);
    for (size_t i = 0; i < b->n; i++)
        fprintf(o, "%s  %s\n", b->files[i].sha, b->files[i].rel);
    if (fclose(o)) {
        free(sums);
        return px_error_oom(b->err, out);
    }
    int rc = put(b, "SHA256SUMS", sums, len);
    free(sums);
    if (rc)
        return -1;
    if (!bundle_is_archive(out)) {
        if (rename(b->dir, out))
            return px_error_set(b->err, PX_ERR_WRITE, out, 0, 0, "cannot put the bundle in place: %s",
                                strerror(errno));
        return 0;
    }
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp-%ld", out, (long)getpid()) < 0)
        return px_error_oom(b->err, out);
    rc = run_tar(b, tmp);
    if (!rc && link(tmp, out)) /* link: fails rather than replace one made meanwhile */
        rc = px_error_set(b->err, PX_ERR_WRITE, out, 0, 0, "cannot put the archive in place: %s", strerror(errno));
    unlink(tmp);
    free(tmp);
    remove_tree(b->dir);
    return rc;
}

int bundle_is_archive(const char *out)
{
    size_t n = strlen(out);
    return (n > 7 && !strcmp(out + n - 7, ".tar.gz")) || (n > 4 && !strcmp(out + n - 4, ".tgz"));
}

/* ---- what goes in ---- */

/* The reports with the judgement, for what only it holds (an embedding's
 * rankings per environment). */
static void w_markdown(FILE *o, const void *arg)
{
    const px_bundle_in *in = arg;
    report_markdown_judged(o, in->story, in->j);
}
static void w_html(FILE *o, const void *arg)
{
    const px_bundle_in *in = arg;
    report_html_judged(o, in->story, in->j);
}

static void w_manifest(FILE *o, const void *arg)
{
    const px_env_result *e = arg;
    fprintf(o, "# %s: what it ran on, as its results recorded it\n", e->name);
    results_write_manifest(o, e);
}

static int put_results(bundle *b, const px_fixture *f, const char *from, const char *rel);

/* The fixture's own text, redacted, and the files it names at the same
 * places relative to it (they all lie inside its directory). */
static int put_fixture_as_is(bundle *b, const px_fixture *f, const char *fixture_rel, const char *vocab_rel)
{
    size_t len;
    char *text = slurp(b, f->path, &len);
    if (!text)
        return -1;
    char *red = redact_text(b->rd, text);
    free(text);
    if (!red)
        return px_error_oom(b->err, f->path);
    /* A note is redacted; the contract must not be. */
    px_error perr = {0};
    px_fixture *again = fixture_parse(f->path, red, strlen(red), &perr);
    px_fingerprint was, now;
    fingerprint_contract(f, &was);
    if (again)
        fingerprint_contract(again, &now);
    int same = again && !memcmp(&was, &now, sizeof was);
    fixture_free(again);
    int rc = same ? put_text(b, fixture_rel, red)
                  : px_error_set(b->err, PX_ERR_USAGE, f->path, 0, 0,
                                 "a secret-shaped value is part of the contract, so the fixture cannot be "
                                 "exported redacted; move it out of the contract or name it in redact:");
    free(red);
    if (rc)
        return -1;
    if (f->vocab_path && copy_in(b, f->vocab_path, vocab_rel))
        return -1;
    for (size_t i = 0; i < f->n_envs; i++)
        if (f->envs[i].own_vocab && copy_in(b, f->envs[i].vocab_path, inside(f->dir, f->envs[i].vocab_path)))
            return -1;
    return 0;
}

/* The fixture written anew (fixture_emit): each file it names under files/
 * (results: files under results/), the fixture pointing there. */
static int put_fixture_anew(bundle *b, const px_fixture *f, const char *fixture_rel)
{
    b->anew = 1;
    px_fixture copy = *f;
    px_env *envs = calloc(f->n_envs ? f->n_envs : 1, sizeof *envs);
    char **names = calloc(2 * f->n_envs + 1, sizeof *names);
    int rc = envs && names ? 0 : px_error_oom(b->err, f->path);
    /* (An image's pipeline has no vocabulary.) */
    if (!rc && f->vocab_path && asprintf(&names[2 * f->n_envs], "files/%s", base(f->vocab_path)) < 0)
        rc = px_error_oom(b->err, f->path);
    if (!rc && f->vocab_path)
        rc = copy_in(b, f->vocab_path, names[2 * f->n_envs]);
    for (size_t i = 0; !rc && i < f->n_envs; i++) {
        envs[i] = f->envs[i];
        if (envs[i].own_vocab) {
            if (asprintf(&names[2 * i], "files/%s-%s", envs[i].name, base(envs[i].vocab_path)) < 0)
                rc = px_error_oom(b->err, f->path);
            else if (!(rc = copy_in(b, envs[i].vocab_path, names[2 * i])))
                envs[i].vocab_path = names[2 * i];
        }
        if (!rc && envs[i].results) {
            if (asprintf(&names[2 * i + 1], "results/%s-%s", envs[i].name, base(envs[i].results)) < 0)
                rc = px_error_oom(b->err, f->path);
            else if (!access(envs[i].results, R_OK) && !(rc = put_results(b, f, envs[i].results, names[2 * i + 1])))
                rc = hold(b, names[2 * i + 1], envs[i].name, 1);
            envs[i].results = names[2 * i + 1];
        }
    }
    copy.envs = envs;
    copy.vocab_path = rc ? NULL : names[2 * f->n_envs];
    px_emit_opts o = {.model_path = f->model_path, .keep_results_keys = 1, .keep_reviews = 1};
    char *text = NULL;
    size_t len = 0;
    FILE *fp = rc ? NULL : open_memstream(&text, &len);
    if (!rc && (!fp || fixture_emit(fp, &copy, &o)))
        rc = px_error_oom(b->err, f->path);
    if (fp && fclose(fp) && !rc)
        rc = px_error_oom(b->err, f->path);
    char *red = rc ? NULL : redact_text(b->rd, text);
    if (!rc)
        rc = red ? put_text(b, fixture_rel, red) : px_error_oom(b->err, f->path);
    free(red), free(text), free(envs);
    for (size_t i = 0; names && i < 2 * f->n_envs + 1; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* The fixture and the files it names, at the same places relative to it
 * when they lie inside its directory; else the fixture is written anew
 * (fixture_emit) with those files under files/. Returns the fixture's name
 * in the bundle. */
static int put_fixture(bundle *b, const px_fixture *f, const char **fixture_rel)
{
    *fixture_rel = base(f->path);
    /* An image's pipeline reads no text: no vocabulary to place. */
    const char *vocab_rel = f->vocab_path ? inside(f->dir, f->vocab_path) : NULL;
    int anew = f->vocab_path && !vocab_rel;
    for (size_t i = 0; i < f->n_envs; i++)
        anew |= (f->envs[i].own_vocab && !inside(f->dir, f->envs[i].vocab_path)) ||
                (f->envs[i].results && !inside(f->dir, f->envs[i].results));
    return anew ? put_fixture_anew(b, f, *fixture_rel) : put_fixture_as_is(b, f, *fixture_rel, vocab_rel);
}

/* A results file, redacted; it must still read as results. */
static int put_results(bundle *b, const px_fixture *f, const char *from, const char *rel)
{
    size_t len;
    char *text = slurp(b, from, &len);
    if (!text)
        return -1;
    char *red = redact_text(b->rd, text);
    free(text);
    if (!red)
        return px_error_oom(b->err, from);
    px_error perr = {0};
    px_results *r = results_parse(from, red, strlen(red), f, &perr);
    int rc = r ? put_text(b, rel, red) : px_error_set(b->err, PX_ERR_MALFORMED, from, 0, 0, "redacted, it no longer "
                                                                                          "reads as results: %s",
                                                   perr.msg);
    results_free(r);
    free(red);
    return rc;
}

/* What ran here (not what was read from a file, which is there as its
 * file), as results/run.yaml. */
static int put_run(bundle *b, const px_results *res, const px_fixture *f)
{
    px_results here = *res;
    here.envs = calloc(res->n_envs ? res->n_envs : 1, sizeof *here.envs);
    if (!here.envs)
        return px_error_oom(b->err, f->path);
    here.n_envs = 0;
    here.reference = -1;
    for (size_t e = 0; e < res->n_envs; e++)
        if (res->envs[e].origin == PX_ORIGIN_RUN && res->envs[e].selected) {
            if ((int)e == res->reference)
                here.reference = (int)here.n_envs;
            here.envs[here.n_envs++] = res->envs[e];
        }
    int rc = 0;
    if (here.n_envs) {
        char *text = NULL, *path = NULL;
        size_t len = 0;
        if (asprintf(&path, "%s/.run.yaml", b->dir) < 0)
            rc = px_error_oom(b->err, f->path);
        else if (!(rc = results_write(&here, f, path, b->err)) && (text = slurp(b, path, &len)))
            rc = put(b, "results/run.yaml", text, len);
        else
            rc = -1;
        char *names = NULL;
        size_t nl = 0;
        FILE *o = rc ? NULL : open_memstream(&names, &nl);
        for (size_t e = 0; o && e < here.n_envs; e++)
            fprintf(o, "%s%s", e ? ", " : "", here.envs[e].name);
        if (o)
            fputs(" (run here when the bundle was made)", o);
        if (o && !fclose(o))
            rc = hold(b, "results/run.yaml", names, 0);
        else if (!rc)
            rc = px_error_oom(b->err, f->path);
        free(names);
        if (path)
            unlink(path);
        free(text), free(path);
    }
    free(here.envs);
    return rc;
}

/* The environments a results file given as `file` provided (their
 * source), ", "-separated, into o. */
static int provided_by(FILE *o, const px_results *res, const char *file)
{
    int n = 0;
    for (size_t e = 0; e < res->n_envs; e++)
        if (res->envs[e].origin == PX_ORIGIN_FILE && res->envs[e].selected && res->envs[e].source &&
            !strcmp(res->envs[e].source, file))
            fprintf(o, "%s%s", n++ ? ", " : "", res->envs[e].name);
    return n;
}

/* The export's README: what each file holds, where it really is, and the
 * commands that use them. Every command it prints is run as printed by
 * tests/test_cmd_report.c. The judge and review commands give every
 * results file the fixture does not name itself, and -e for the
 * environments that have results when some have none, so that nothing is
 * run here (no libtorch needed) whether or not parity would run the rest. */
static void export_readme(FILE *o, const bundle *b, const px_bundle_in *in, const char *fx_rel, const char *journal)
{
    const px_fixture *f = in->f;
    fprintf(o, "# What this bundle holds\n\n"
               "An experiment made with parity, kept so that it can be explained after the machines are gone.\n\n"
               "- `report.md`, `report.html`: the report: the task, the environments, the contract, every example, "
               "what\n  was not evaluated.\n"
               "- `%s`: the fixture, with the files it names (vocabulary or tokenizer.json) %s.\n",
            fx_rel, b->anew ? "under `files/` (it was written anew to name them there)" : "beside it");
    if (b->n_held) {
        fprintf(o, "- The results files, each with the environments it holds:\n");
        for (size_t i = 0; i < b->n_held; i += 2)
            fprintf(o, "  - `%s`: %s\n", b->held[i], b->held[i + 1]);
    } else {
        fprintf(o, "- No results file: no environment has results.\n");
    }
    fprintf(o, "- `manifests/`: what each environment ran on, one file each.\n");
    if (b->kind_files && report_kind_of(f)->export_readme)
        fprintf(o, "- %s\n", report_kind_of(f)->export_readme);
    if (journal)
        fprintf(o, "- `%s`: the decisions that were waiting to be written into the fixture.\n", journal);
    fprintf(o, "- `SHA256SUMS`: every file, as the bundle was made.\n\n");
    /* --results: each file the fixture does not name with results:. */
    char *args = NULL;
    size_t al = 0;
    FILE *a = open_memstream(&args, &al);
    if (!a)
        return;
    for (size_t i = 0; i < b->n_held; i += 2) {
        size_t h = i / 2;
        if (h >= 8 * sizeof b->named || !(b->named[h / 8] & (1u << (h % 8))))
            fprintf(a, " --results "), put_word(a, b->held[i]);
    }
    size_t with = 0;
    for (size_t e = 0; e < in->res->n_envs; e++)
        with += in->res->envs[e].origin != PX_ORIGIN_NONE && in->res->envs[e].selected;
    for (size_t e = 0; with < f->n_envs && e < in->res->n_envs; e++)
        if (in->res->envs[e].origin != PX_ORIGIN_NONE && in->res->envs[e].selected)
            fprintf(a, " -e "), put_word(a, in->res->envs[e].name);
    if (fclose(a)) {
        free(args);
        return;
    }
    if (with) {
        fprintf(o, "Judge it again, without libtorch (each environment from its results file%s):\n\n"
                   "    parity check ",
                with < f->n_envs ? "; -e leaves out those without results" : "");
        put_word(o, fx_rel);
        fprintf(o, "%s\n\nIt exits 0 when the contract is met in every environment it judges, 1 when not, 3 when "
                   "one could not run or is not compared.\n\nLook at it on the review screen (q leaves):\n\n"
                   "    parity review ",
                args);
        put_word(o, fx_rel);
        fprintf(o, "%s\n\n", args);
    }
    fprintf(o, "Check every file:\n\n    sha256sum -c SHA256SUMS\n\n"
               "Secrets, the home directory and the fixture's own redact: patterns were redacted before anything "
               "was written here.\n");
    free(args);
}

/* The results files given with --results, each once, under results/ (a
 * name given twice gets its position in front). */
static int put_given_results(bundle *b, const px_bundle_in *in, const char *out)
{
    const px_fixture *f = in->f;
    char **rels = calloc(in->n_results_files + 1, sizeof *rels);
    int rc = !rels ? px_error_oom(b->err, out) : 0;
    for (size_t i = 0; !rc && i < in->n_results_files; i++) {
        /* One that is also an environment's results: file is there already
         * (twice would be two places for one environment). */
        int named = 0;
        for (size_t j = 0; j < f->n_envs; j++)
            named |= f->envs[j].results && same_file(f->envs[j].results, in->results_files[i]);
        if (named)
            continue;
        const char *name = base(in->results_files[i]);
        int dup = 0;
        for (size_t j = 0; j < i; j++)
            dup |= !strcmp(base(in->results_files[j]), name);
        if (asprintf(&rels[i], dup ? "results/%zu-%s" : "results/%.0zu%s", dup ? i + 1 : 0, name) < 0)
            rc = px_error_oom(b->err, out);
        else
            rc = put_results(b, f, in->results_files[i], rels[i]);
        char *what = NULL;
        size_t wl = 0;
        FILE *wo = rc ? NULL : open_memstream(&what, &wl);
        if (wo) {
            if (!provided_by(wo, in->res, in->results_files[i]))
                fputs("given with --results; no environment judged came from it", wo);
        }
        if (!rc)
            rc = wo && !fclose(wo) ? hold(b, rels[i], what, 0) : px_error_oom(b->err, out);
        free(what);
    }
    for (size_t i = 0; rels && i < in->n_results_files; i++)
        free(rels[i]);
    free(rels);
    return rc;
}

/* manifests/ENV.yaml: what one environment ran on. */
static int put_manifest(bundle *b, const px_env_result *er, const char *out)
{
    char *rel = NULL;
    int rc = asprintf(&rel, "manifests/%s.yaml", er->name) < 0 ? px_error_oom(b->err, out)
                                                               : put_written(b, rel, w_manifest, er);
    free(rel);
    return rc;
}

/* The fixture's journal (decisions not yet written into it), redacted,
 * when there is one; *rel its name in the bundle (inside journal[], the
 * caller's), else NULL. */
static int put_journal(bundle *b, const px_fixture *f, char *journal, size_t size, const char **rel)
{
    *rel = NULL;
    journal_path(f->path, journal, size);
    if (access(journal, R_OK))
        return 0;
    size_t len;
    char *text = slurp(b, journal, &len), *red = text ? redact_text(b->rd, text) : NULL;
    *rel = inside(f->dir, journal) ? inside(f->dir, journal) : base(journal);
    int rc = red ? put_text(b, *rel, red) : text ? px_error_oom(b->err, journal) : -1; /* slurp said why */
    free(text), free(red);
    return rc;
}

int bundle_export(const px_bundle_in *in, const char *out, px_error *err)
{
    bundle b;
    if (start(&b, out, err)) {
        finish_free(&b, 1);
        return -1;
    }
    const px_fixture *f = in->f;
    const char *fx_rel;
    int rc = put_fixture(&b, f, &fx_rel);
    /* results: each file given, then each environment's own results: file,
     * then what ran here. */
    if (!rc)
        rc = put_given_results(&b, in, out);
    for (size_t i = 0; !rc && !b.anew && i < f->n_envs; i++) {
        const char *rel = f->envs[i].results ? inside(f->dir, f->envs[i].results) : NULL;
        if (rel && !access(f->envs[i].results, R_OK) && !(rc = put_results(&b, f, f->envs[i].results, rel)))
            rc = hold(&b, rel, f->envs[i].name, 1);
    }
    if (!rc)
        rc = put_run(&b, in->res, f);
    if (!rc)
        rc = put_written(&b, "report.md", w_markdown, in) || put_written(&b, "report.html", w_html, in);
    for (size_t e = 0; !rc && e < in->res->n_envs; e++)
        if (in->res->envs[e].origin != PX_ORIGIN_NONE && in->res->envs[e].selected)
            rc = put_manifest(&b, &in->res->envs[e], out);
    /* The kind's own files: the environments judged, each example. */
    unsigned char *want = rc ? NULL : calloc(in->res->n_envs + 1, 1);
    if (!rc && !want)
        rc = px_error_oom(err, out);
    for (size_t e = 0; want && e < in->res->n_envs; e++)
        want[e] = in->res->envs[e].origin != PX_ORIGIN_NONE && in->res->envs[e].selected;
    for (size_t k = 0; !rc && k < in->res->n_examples; k++)
        rc = put_kind_files(&b, in, k, want);
    free(want);
    char journal[4200];
    const char *journal_rel = NULL;
    if (!rc)
        rc = put_journal(&b, f, journal, sizeof journal, &journal_rel);
    if (!rc) {
        char *readme = NULL;
        size_t rl = 0;
        FILE *ro = open_memstream(&readme, &rl);
        if (ro)
            export_readme(ro, &b, in, fx_rel, journal_rel);
        char *red = ro && !fclose(ro) ? redact_text(b.rd, readme) : NULL;
        rc = red ? put_text(&b, "README.md", red) : px_error_oom(err, out);
        free(readme), free(red);
    }
    if (!rc)
        rc = seal(&b, out);
    finish_free(&b, rc != 0);
    return rc;
}

/* ---- parity repro ---- */

typedef struct repro_names {
    char *model, *vocab, *env_model[2], *env_vocab[2];
} repro_names;

/* A Transformers model directory: every file loading could read
 * (modeldir.h), at rel/NAME, when together they fit the limit; else
 * referred to where it is. */
static char *carry_model_dir(bundle *b, const char *path, const char *rel, int *carried)
{
    DIR *d = opendir(path);
    if (!d)
        return px_error_set(b->err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read the model: %s", strerror(errno)),
               NULL;
    unsigned long long total = 0;
    char **names = NULL;
    size_t n = 0;
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        char *p = NULL;
        struct stat st;
        if (!modeldir_readable(e->d_name))
            continue;
        if (asprintf(&p, "%s/%s", path, e->d_name) < 0)
            rc = px_error_oom(b->err, path);
        else if (!stat(p, &st) && S_ISREG(st.st_mode)) {
            char **more = realloc(names, (n + 1) * sizeof *names);
            if (!more || !(more[n] = strdup(e->d_name)))
                rc = px_error_oom(b->err, path);
            else
                names = more, n++, total += (unsigned long long)st.st_size;
            if (!more)
                free(names), names = NULL, n = 0;
        }
        free(p);
    }
    closedir(d);
    char *out = NULL;
    if (!rc && total > PX_REPRO_MODEL_MAX)
        out = realpath(path, NULL);
    for (size_t i = 0; !rc && !out && i < n; i++) {
        char *from = NULL, *to = NULL;
        if (asprintf(&from, "%s/%s", path, names[i]) < 0 || asprintf(&to, "%s/%s", rel, names[i]) < 0)
            rc = px_error_oom(b->err, path);
        else
            rc = copy_in(b, from, to);
        free(from), free(to);
    }
    if (!rc && !out && (out = strdup(rel)))
        *carried = 1;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc ? (free(out), NULL) : out;
}

/* A model directory pinned file by file (contract.model.files: a
 * diffusers pipeline's are in subdirectories): exactly those files at
 * rel/NAME, when together they are small enough; else its absolute path,
 * as carry_model_dir does. */
static char *carry_model_files(bundle *b, const char *path, const px_model_file *files, size_t n, const char *rel,
                               int *carried)
{
    unsigned long long total = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        char *p = NULL;
        struct stat st;
        if (asprintf(&p, "%s/%s", path, files[i].name) < 0)
            rc = px_error_oom(b->err, path);
        else if (stat(p, &st))
            rc = px_error_set(b->err, PX_ERR_NOT_FOUND, p, 0, 0, "cannot read the model: %s", strerror(errno));
        else
            total += (unsigned long long)st.st_size;
        free(p);
    }
    if (rc)
        return NULL;
    if (total > PX_REPRO_MODEL_MAX)
        return realpath(path, NULL);
    for (size_t i = 0; !rc && i < n; i++) {
        char *from = NULL, *to = NULL;
        if (asprintf(&from, "%s/%s", path, files[i].name) < 0 ||
            asprintf(&to, "%s/%s", rel, files[i].name) < 0)
            rc = px_error_oom(b->err, path);
        else
            rc = copy_in(b, from, to);
        free(from), free(to);
    }
    char *out = rc ? NULL : strdup(rel);
    if (out)
        *carried = 1;
    else if (!rc)
        px_error_oom(b->err, rel);
    return out;
}

/* Copy a model when small enough; the name it has in the repro, or its
 * absolute path when too big to carry (the README says so). */
static char *carry_model(bundle *b, const char *path, const px_model_file *files, size_t n_files, const char *rel,
                         int *carried)
{
    struct stat st;
    *carried = 0;
    if (stat(path, &st))
        return px_error_set(b->err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read the model: %s", strerror(errno)),
               NULL;
    if (S_ISDIR(st.st_mode) && n_files)
        return carry_model_files(b, path, files, n_files, rel, carried);
    if (S_ISDIR(st.st_mode))
        return carry_model_dir(b, path, rel, carried);
    if ((unsigned long long)st.st_size <= PX_REPRO_MODEL_MAX) {
        if (copy_in(b, path, rel))
            return NULL;
        *carried = 1;
        return strdup(rel);
    }
    return realpath(path, NULL);
}

static void w_str(FILE *o, const void *s) { fputs(s, o); }

/* How each of the repro's two environments is run again, and from which
 * file it is judged: [0] the reference, [1] the environment. */
typedef struct repro_env {
    const px_env *env;        /* as the repro's fixture has it */
    const px_env_result *er;  /* what it recorded */
    const char *file;         /* reference.yaml or observed.yaml */
    const char *again;        /* the file a run again writes */
} repro_env;

/* Whether running on dev takes a backend library (--backend-lib): a
 * PrivateUse1 device under its own name, or under a name torch does not
 * know itself, such as tpu, which an executor gives the library's device
 * on torch 2. */
static int library_device(const char *dev)
{
    static const char *const torch_own[] = {"cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep",
                                            "hip", "ve", "fpga", "maia", "ort", "xla", "lazy", "vulkan", "mps",
                                            "meta", "hpu", "mtia", NULL};
    size_t n = strcspn(dev, ":");
    for (size_t k = 0; torch_own[k]; k++)
        if (strlen(torch_own[k]) == n && !strncmp(dev, torch_own[k], n))
            return 0;
    return 1;
}

/* `parity run` of one environment, with placeholders for what a fixture
 * never says (the interpreter, the backend module, a backend library). */
static void run_command(FILE *o, const repro_env *r)
{
    const char *dev = r->env->device;
    fprintf(o, "    parity run fixture.yaml -e ");
    put_word(o, r->env->name);
    int modules = r->env->python && r->er->m.backend_modules;
    if (r->env->python)
        fprintf(o, " --python PYTHON");
    /* A compile backend the fixture does not name came from the command
     * line (--compile-backend): said again, by the name recorded. */
    const char *cb = r->er->m.compile_backend;
    int cb_again = r->env->compile.present && cb && strcmp(cb, r->env->compile.backend);
    /* On a device torch opens itself, and not compiled with a backend the
     * command line names, a module goes to the environment named (the
     * runner's rule: runner_device_builtin). */
    if (modules && runner_device_builtin(dev) && !cb_again) {
        fprintf(o, " --backend-module ");
        put_word(o, r->env->name);
        fprintf(o, "=MODULE");
    } else if (modules)
        fprintf(o, " --backend-module MODULE");
    else if (dev && library_device(dev))
        fprintf(o, " --backend-lib LIB"); /* either executor loads one */
    if (cb_again) {
        char *w = strf("%s=%s", r->env->name, cb);
        fprintf(o, " --compile-backend ");
        put_word(o, w ? w : "?");
        free(w);
    }
    fprintf(o, " -o %s\n\n", r->again);
}

/* Where and how it ran, and what its placeholders stand for. */
static void run_words(FILE *o, const repro_env *r)
{
    const px_manifest *m = &r->er->m;
    if (r->er->origin == PX_ORIGIN_RUN)
        fprintf(o, "`%s` ran here", r->env->name);
    else
        fprintf(o, "`%s` was read from a results file, recorded on the host `%s` (manifests/%s.yaml): run it again "
                   "there",
                r->env->name, m->host ? m->host : "not recorded", r->env->name);
    fprintf(o, ", on the device `%s`", r->env->device);
    if (r->env->python) {
        fprintf(o, " through the Python executor: PYTHON is an interpreter with torch");
        if (m->backend_modules)
            fprintf(o, ", MODULE the backend module it imported (recorded: `%s`; one --backend-module for each)",
                    m->backend_modules);
    } else {
        fprintf(o, " with libtorch (parity-torch)");
    }
    if (!(r->env->python && m->backend_modules) && library_device(r->env->device))
        fprintf(o, "; LIB is the PrivateUse1 backend library it loaded");
    fprintf(o, ":\n\n");
}

static void repro_readme(FILE *o, const px_bundle_in *in, size_t k, size_t e, const repro_names *nm, int carried,
                         const repro_env re[2])
{
    const px_story *s = in->story;
    const px_story_example *x = &s->examples[k];
    size_t ref = (size_t)in->res->reference;
    const px_env_result *er[2] = {&in->res->envs[ref], &in->res->envs[e]};
    const px_story_cell *c[2] = {&x->cells[ref], &x->cells[e]};
    fprintf(o, "# Reproduction: example `%s` on `%s`\n\n", x->id, er[1]->name);
    fprintf(o, "Task: %s\n\nThe same contract and pins as the original fixture, with one example and two "
               "environments: `%s` (the reference: what the other is compared with, not the truth) and `%s`.\n\n",
            s->task, er[0]->name, er[1]->name);
    fprintf(o, "## Expected\n\n%s (the contract's expectation for this example; why: %s)\n\n", x->expect,
            x->why ? x->why : "not written");
    fprintf(o, "## Observed\n\n| Environment | Outcome | Label | Difference from the reference |\n|---|---|---|---|\n");
    for (int i = 0; i < 2; i++)
        fprintf(o, "| %s | %s | %s | %s |\n", er[i]->name, c[i]->present ? outcome_name(c[i]->outcome) : "no results",
                c[i]->label ? c[i]->label : "—", c[i]->diff_words ? c[i]->diff_words : "—");
    fprintf(o, "\n");
    for (int i = 0; i < 2; i++) {
        if (c[i]->detail)
            fprintf(o, "- %s: %s\n", er[i]->name, c[i]->detail);
        if (c[i]->divergence)
            fprintf(o, "- Earliest divergence in %s: %s\n", er[i]->name, c[i]->divergence);
        if (c[i]->cause)
            fprintf(o, "- Cause in %s: %s\n", er[i]->name, c[i]->cause);
    }
    fprintf(o, "\nWhat each recorded for this example (cleaned text, token ids, the output) is in "
               "`reference.yaml` and `observed.yaml`: whole results files of this fixture.\n\n");
    fprintf(o, "## Versions\n\n");
    for (int i = 0; i < 2; i++) {
        const px_story_env *se = &s->envs[i ? e : ref];
        fprintf(o, "- %s (%s): %s %s%s%s%s, executor %s, torch %s%s%s, host %s, run at %s%s%s\n", se->name, se->what,
                se->device, se->dtype, *se->device_name ? " (" : "", se->device_name, *se->device_name ? ")" : "",
                *se->executor ? se->executor : "?", *se->torch ? se->torch : "?", *se->backends ? ", " : "",
                se->backends, *se->host ? se->host : "?", *se->date ? se->date : "?", *se->settings ? "; " : "",
                se->settings);
    }
    fprintf(o, "- manifests/: each environment's manifest as recorded\n\n## Re-run\n\n");
    /* Every command below is run as printed by tests/test_cmd_report.c.
     * Each names the files that provide both environments, so none runs
     * anything here that it does not say it runs. */
    fprintf(o, "Judge what was recorded, anywhere (no libtorch, no device: both come from their files):\n\n"
               "    parity check fixture.yaml");
    for (int i = 0; i < 2; i++)
        if (!re[i].env->results)
            fprintf(o, " --results %s", re[i].file);
    fprintf(o, "\n\nIt exits 0 when both meet the contract on this example, 1 when one does not (the table above), "
               "3 when one could not run.\n\n");
    if (re[1].env->device) {
        run_words(o, &re[1]);
        run_command(o, &re[1]);
        fprintf(o, "and judge that run beside the recorded reference (no libtorch needed):\n\n"
                   "    parity check fixture.yaml --results %s --results %s\n\n",
                re[0].file, re[1].again);
    } else {
        fprintf(o, "`%s`'s results record no device, so how to run it again is not known; its recorded results "
                   "are in observed.yaml, which fixture.yaml names.\n\n", er[1]->name);
    }
    if (re[0].env->device) {
        fprintf(o, "The reference again: ");
        run_words(o, &re[0]);
        run_command(o, &re[0]);
    }
    int here = 1;
    for (int i = 0; i < 2; i++)
        here &= re[i].env->device && !re[i].env->python && !library_device(re[i].env->device);
    if (here)
        fprintf(o, "Or both at once, run and judged with libtorch where the devices are (`%s`, `%s`):\n\n"
                   "    parity check fixture.yaml\n\n",
                re[0].env->device, re[1].env->device);
    if (!carried)
        fprintf(o, "The model is larger than %u MB and is not included: fixture.yaml names it at `%s`, pinned by "
                   "sha256 %s.\n\n",
                PX_REPRO_MODEL_MAX >> 20, nm->model, in->f->model_sha256 ? in->f->model_sha256 : "(not pinned)");
    fprintf(o, "`SHA256SUMS` lists every file of the bundle as made; check them with\n\n    sha256sum -c SHA256SUMS\n\n"
               "Secrets and the home directory were redacted.\n");
}

/* A repro being made: what it is made from, and what its steps share. */
typedef struct repro {
    const px_bundle_in *in;
    size_t k;           /* the example */
    size_t idx[2];      /* [0] the reference's index, [1] the environment's */
    const char *out;
    px_error *err;
    bundle b;
    repro_names nm;
    int carried;        /* the fixture's model is in the repro */
    px_env envs[2];     /* as the repro's fixture has them */
    px_fixture *back;   /* the repro's fixture, read back */
} repro;

/* Refuse what cannot be a repro: the reference against itself, or an
 * environment with nothing recorded. */
static int repro_refuse(const px_bundle_in *in, size_t e, px_error *err)
{
    const px_fixture *f = in->f;
    const px_results *res = in->res;
    if (res->reference < 0 || (size_t)res->reference == e)
        return px_error_set(err, PX_ERR_USAGE, f->path, 0, 0, "a repro compares an environment with the "
                                                              "reference; choose an environment other than '%s'",
                            res->reference >= 0 ? res->envs[res->reference].name : "(none)");
    /* Both recorded files are whole results files: an environment with no
     * results (not run, not provided) would leave one empty. */
    for (int i = 0; i < 2; i++) {
        const px_env_result *er = &res->envs[i ? e : (size_t)res->reference];
        if (er->origin == PX_ORIGIN_NONE || !er->selected)
            return px_error_set(err, PX_ERR_ENV, f->path, 0, 0,
                                "a repro holds what both environments recorded, and '%s' has no results (%s): run "
                                "it, or give its results file with --results",
                                er->name, er->selected ? er->source ? er->source : "not evaluated" : "not selected");
    }
    return 0;
}

/* Environment i of the repro's fixture: its own model and vocabulary
 * carried in, and, when it was imported from a results file, made
 * runnable as its manifest recorded it. */
static int repro_make_env(repro *r, int i)
{
    px_env *env = &r->envs[i];
    *env = r->in->f->envs[r->idx[i]];
    int rc = 0, own_carried;
    char *rel = NULL;
    if (env->own_model) {
        if (asprintf(&rel, "models/%s-%s", env->name, base(env->model_path)) < 0)
            rc = px_error_oom(r->err, r->out);
        else if (!(r->nm.env_model[i] = carry_model(&r->b, env->model_path, env->model_files, env->n_model_files, rel,
                                                            &own_carried)))
            rc = -1;
        free(rel);
        rel = NULL;
        env->model_path = r->nm.env_model[i];
    }
    if (!rc && env->own_vocab) {
        if (asprintf(&rel, "vocab-%s-%s", env->name, base(env->vocab_path)) < 0)
            rc = px_error_oom(r->err, r->out);
        else
            rc = copy_once(&r->b, env->vocab_path, rel, &r->nm.env_vocab[i]);
        free(rel);
        env->vocab_path = r->nm.env_vocab[i];
    }
    /* An imported environment runs again on its own host: the repro's
     * fixture has it runnable, as its manifest recorded it (device,
     * executor, dtype, threads), and the README's commands give its
     * recorded results with --results. Without a recorded device it
     * stays imported, from its own file. */
    const px_manifest *m = &r->in->res->envs[r->idx[i]].m;
    if (env->results && m->device) {
        env->results = NULL;
        env->device = m->device;
        env->python = m->executor && !strcmp(m->executor, "python");
        if (m->dtype)
            env->dtype = m->dtype;
        if (m->threads > 0)
            env->threads = m->threads;
    } else if (env->results) {
        env->results = i == 0 ? "reference.yaml" : "observed.yaml";
    }
    return rc;
}

/* fixture.yaml: the original's contract, the two environments, the one
 * example (its review left out: it is the question), redacted; read back
 * into r->back the way `parity check` will, and it must have the
 * original's contract. */
static int repro_fixture(repro *r)
{
    const px_fixture *f = r->in->f;
    px_fixture one = *f;
    one.model_path = r->nm.model;
    one.vocab_path = r->nm.vocab;
    one.envs = r->envs;
    one.n_envs = 2;
    one.examples = (px_example *)&f->examples[r->k];
    one.n_examples = 1;
    px_emit_opts opts = {.keep_results_keys = 1, .keep_reviews = 0};
    char *text = NULL, *red = NULL, *fx_path = NULL;
    size_t len = 0;
    int rc = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp || fixture_emit(fp, &one, &opts))
        rc = px_error_oom(r->err, r->out);
    if (fp && fclose(fp) && !rc)
        rc = px_error_oom(r->err, r->out);
    if (!rc && !(red = redact_text(r->b.rd, text)))
        rc = px_error_oom(r->err, r->out);
    if (!rc)
        rc = put_text(&r->b, "fixture.yaml", red);
    if (!rc && asprintf(&fx_path, "%s/fixture.yaml", r->b.dir) < 0)
        rc = px_error_oom(r->err, r->out);
    if (!rc && !(r->back = fixture_parse("fixture.yaml", red, strlen(red), r->err)))
        rc = -1;
    if (!rc) {
        px_fingerprint was, now;
        fingerprint_contract(f, &was);
        fingerprint_contract(r->back, &now);
        for (int p = 0; p < PX_PART_EXAMPLES; p++)
            if (strcmp(was.part[p], now.part[p]))
                rc = px_error_set(r->err, PX_ERR_INTERNAL, fx_path, 0, 0,
                                  "the repro's contract differs from the original's in %s (please report this)",
                                  fingerprint_part_name((px_part)p));
    }
    free(fx_path), free(text), free(red);
    return rc;
}

/* What environment i recorded for the example, as a whole results file of
 * the repro's fixture (reference.yaml or observed.yaml). Its recorded
 * contract is the original's; where it was the original's as it is now
 * (orig), it is the repro's (mine: the same but for the examples), so
 * that reading it back warns of nothing that did not change. */
static int repro_results(repro *r, int i, const px_fingerprint *orig, const px_fingerprint *mine)
{
    const px_results *res = r->in->res;
    px_env_result one_env = res->envs[r->idx[i]];
    one_env.env_index = i;
    one_env.selected = 1;
    one_env.ex = &res->envs[r->idx[i]].ex[r->k];
    for (int p = 0; p < PX_PART_COUNT; p++)
        if (!strcmp(one_env.recorded.part[p], orig->part[p]))
            memcpy(one_env.recorded.part[p], mine->part[p], sizeof mine->part[p]);
    px_results r1 = {.envs = &one_env, .n_envs = 1, .n_examples = 1, .reference = i == 0 ? 0 : -1};
    const char *rel = i == 0 ? "reference.yaml" : "observed.yaml";
    char *path = NULL, *rtext = NULL;
    size_t rlen;
    int rc;
    if (asprintf(&path, "%s/.%s", r->b.dir, rel) < 0)
        rc = px_error_oom(r->err, r->out);
    else if (!(rc = results_write(&r1, r->back, path, r->err)) && (rtext = slurp(&r->b, path, &rlen)))
        rc = put(&r->b, rel, rtext, rlen);
    else
        rc = -1;
    /* Read back as `parity check` will: whole, and the environment in it. */
    px_error lerr = {0};
    px_results *again = rc ? NULL : results_parse(rel, rtext, rlen, r->back, &lerr);
    if (!rc && (!again || again->n_envs != 1 || strcmp(again->envs[0].name, one_env.name)))
        rc = px_error_set(r->err, PX_ERR_INTERNAL, rel, 0, 0, "the repro's results file does not read back (please "
                                                              "report this): %s",
                          again ? "it lacks its environment" : lerr.msg);
    results_free(again);
    if (path)
        unlink(path);
    free(path), free(rtext);
    return rc;
}

/* README.md: what was expected and observed, and the commands that run it
 * again (repro_readme), redacted. */
static int repro_put_readme(repro *r, size_t e)
{
    char *readme = NULL;
    size_t rl = 0;
    int rc = 0;
    FILE *ro = open_memstream(&readme, &rl);
    if (!ro)
        rc = px_error_oom(r->err, r->out);
    else {
        repro_env re[2];
        for (int i = 0; i < 2; i++)
            re[i] = (repro_env){&r->envs[i], &r->in->res->envs[r->idx[i]], i ? "observed.yaml" : "reference.yaml",
                                i ? "observed-again.yaml" : "reference-again.yaml"};
        repro_readme(ro, r->in, r->k, e, &r->nm, r->carried, re);
        const px_report_kind *rk = report_kind_of(r->in->f);
        if (r->b.kind_files && rk->export_readme)
            fprintf(ro, "\nAlso here: %s\n", rk->export_readme);
        if (fclose(ro))
            rc = px_error_oom(r->err, r->out);
        char *rr = rc ? NULL : redact_text(r->b.rd, readme);
        rc = rc ? rc : rr ? put_written(&r->b, "README.md", w_str, rr) : px_error_oom(r->err, r->out);
        free(rr);
    }
    free(readme);
    return rc;
}

int bundle_repro(const px_bundle_in *in, size_t k, size_t e, const char *out, px_error *err)
{
    const px_fixture *f = in->f;
    if (repro_refuse(in, e, err))
        return -1;
    repro r = {.in = in, .k = k, .idx = {(size_t)in->res->reference, e}, .out = out, .err = err};
    if (start(&r.b, out, err)) {
        finish_free(&r.b, 1);
        return -1;
    }
    int rc = 0;
    const char *mbase = base(f->model_path);
    if (!(r.nm.model = carry_model(&r.b, f->model_path, f->model_files, f->n_model_files, mbase, &r.carried)))
        rc = -1;
    if (!rc && f->vocab_path)
        rc = copy_once(&r.b, f->vocab_path, base(f->vocab_path), &r.nm.vocab);
    for (int i = 0; !rc && i < 2; i++)
        rc = repro_make_env(&r, i);
    if (!rc)
        rc = repro_fixture(&r);
    px_fingerprint orig, mine;
    fingerprint_contract(f, &orig);
    if (r.back)
        fingerprint_contract(r.back, &mine);
    for (int i = 0; !rc && i < 2; i++)
        rc = repro_results(&r, i, &orig, &mine);
    for (int i = 0; !rc && i < 2; i++)
        rc = put_manifest(&r.b, &in->res->envs[r.idx[i]], out);
    /* The kind's own files for the example, the two environments' only. */
    unsigned char *want = rc ? NULL : calloc(in->res->n_envs + 1, 1);
    if (!rc && !want)
        rc = px_error_oom(err, out);
    if (want) {
        want[r.idx[0]] = want[r.idx[1]] = 1;
        rc = put_kind_files(&r.b, in, k, want);
        free(want);
    }
    if (!rc)
        rc = repro_put_readme(&r, e);
    if (!rc)
        rc = seal(&r.b, out);
    fixture_free(r.back);
    free(r.nm.model), free(r.nm.vocab);
    for (int i = 0; i < 2; i++)
        free(r.nm.env_model[i]), free(r.nm.env_vocab[i]);
    finish_free(&r.b, rc != 0);
    return rc;
}
