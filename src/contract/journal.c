#define _GNU_SOURCE /* open_memstream */
#include "parity/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "parity-journal 2"
#define MAGIC_1 "parity-journal 1" /* decision, note, by, at only: still read */

/* A version-2 line holds the review record's eight fields in the table's
 * order (PX_REVIEW_RECORD). A field added to the table changes the line:
 * it needs a version 3 here, with version 2 still read as version 1 is. */
_Static_assert(PX_REVIEW_FIELDS == 8, "a new review field needs a new journal version (journal.c)");

void journal_path(const char *fixture, char *buf, size_t size)
{
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s", fixture);
    snprintf(b, sizeof b, "%s", fixture);
    snprintf(buf, size, "%s/.%s.parity-journal", dirname(a), basename(b));
}

static void put_field(FILE *o, const char *s)
{
    fputc('\t', o);
    if (!s) {
        fputs("\\-", o);
        return;
    }
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", o);
        else if (*s == '\t')
            fputs("\\t", o);
        else if (*s == '\n')
            fputs("\\n", o);
        else if (*s == '\r')
            fputs("\\r", o);
        else
            fputc(*s, o);
    }
}

static int fsync_parent(const char *path)
{
    char a[4096];
    snprintf(a, sizeof a, "%s", path);
    int fd = open(dirname(a), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int journal_append(const char *path, const px_decision *d, px_error *err)
{
    char *line = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&line, &len);
    if (!o)
        return px_error_oom(err, path);
    fputs(MAGIC, o);
    put_field(o, d->id);
    for (int i = 0; i < PX_REVIEW_FIELDS; i++)
        put_field(o, review_field(&d->review, i));
    fputc('\n', o);
    fclose(o);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    int existed_before = 0;
    if (fd < 0) {
        free(line);
        return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot open the journal: %s", strerror(errno));
    }
    off_t size = lseek(fd, 0, SEEK_END);
    existed_before = size > 0;
    /* A line a kill tore (no LF) was never acknowledged: cut it off, or it
     * would run into this one and the journal would no longer read. */
    off_t keep = size;
    char c = '\n';
    while (keep > 0 && pread(fd, &c, 1, keep - 1) == 1 && c != '\n')
        keep--;
    if (keep < size && (ftruncate(fd, keep) || lseek(fd, keep, SEEK_SET) < 0)) {
        int te = errno;
        close(fd);
        free(line);
        return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot record in the journal: %s (nothing written)",
                            strerror(te));
    }
    ssize_t w = write(fd, line, len);
    int e = w == (ssize_t)len ? 0 : w < 0 ? errno : ENOSPC;
    if (!e && fsync(fd))
        e = errno;
    close(fd);
    free(line);
    /* A new journal's name must survive a crash too. */
    if (!e && !existed_before && fsync_parent(path))
        e = errno;
    if (e)
        return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot record in the journal: %s (nothing written)",
                            strerror(e));
    return 0;
}

#define MAX_FIELDS (2 + PX_REVIEW_FIELDS)

/* Splits one line in place; returns the number of fields (magic and id
 * included) of a line of either version, -1 otherwise. */
static int split(char *line, char **f)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p; p++)
        if (*p == '\t') {
            if (n == MAX_FIELDS)
                return -1;
            *p = '\0';
            f[n++] = p + 1;
        }
    if (n == MAX_FIELDS && !strcmp(f[0], MAGIC))
        return n;
    return n == 6 && !strcmp(f[0], MAGIC_1) ? n : -1;
}

static char *unescape(const char *s)
{
    if (!strcmp(s, "\\-"))
        return NULL;
    char *out = malloc(strlen(s) + 1), *o = out;
    for (; out && *s; s++) {
        if (*s != '\\' || !s[1]) {
            *o++ = *s;
            continue;
        }
        s++;
        *o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
    }
    if (out)
        *o = '\0';
    return out;
}

int journal_read(const char *path, px_journal *out, px_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot read: %s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, rc = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[n - 1] != '\n')
            break; /* torn by a kill before it was acknowledged */
        line[n - 1] = '\0';
        char *fl[MAX_FIELDS] = {0};
        int nf = split(line, fl);
        if (nf < 0) {
            rc = px_error_set(err, PX_ERR_MALFORMED, path, lineno, 0, "not a parity journal line");
            break;
        }
        for (int i = nf; i < MAX_FIELDS; i++)
            fl[i] = "\\-";
        px_decision *d = realloc(out->d, (out->n + 1) * sizeof *d);
        if (!d) {
            rc = px_error_oom(err, path);
            break;
        }
        out->d = d;
        px_decision *got = &d[out->n++];
        *got = (px_decision){.id = unescape(fl[1])};
        for (int i = 0; i < PX_REVIEW_FIELDS; i++)
            *review_slot(&got->review, i) = unescape(fl[2 + i]);
    }
    free(line);
    fclose(f);
    if (rc)
        journal_free(out);
    return rc;
}

int journal_remove(const char *path, px_error *err)
{
    if (unlink(path) && errno != ENOENT)
        return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot remove the journal: %s", strerror(errno));
    fsync_parent(path);
    return 0;
}

void journal_free(px_journal *j)
{
    for (size_t i = 0; i < j->n; i++) {
        free((char *)j->d[i].id);
        review_clear(&j->d[i].review);
    }
    free(j->d);
    memset(j, 0, sizeof *j);
}
