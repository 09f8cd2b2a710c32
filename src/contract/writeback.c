#define _GNU_SOURCE /* strdup, gmtime_r */
#include "parity/writeback.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "parity/atomic.h"
#include "parity/fixture.h"
#include "parity/journal.h"

int writeback_open(px_writeback *s, const char *path, px_error *err)
{
    memset(s, 0, sizeof *s);
    s->text = fixture_read(path, &s->len, err);
    if (!s->text)
        return -1;
    s->path = strdup(path);
    hash_buffer(s->text, s->len, s->hash);
    journal_path(path, s->journal, sizeof s->journal);
    return 0;
}

void writeback_lean(px_writeback *s)
{
    free(s->text);
    s->text = NULL;
    s->lean = 1;
}

static int stale(const px_writeback *s, px_error *err)
{
    return px_error_set(err, PX_ERR_STALE, s->path, 0, 0,
                        "changed on disk since it was read; nothing written, the decisions wait in %s "
                        "(parity decide %s --recover)",
                        s->journal, s->path);
}

void writeback_close(px_writeback *s)
{
    free(s->path);
    free(s->text);
    memset(s, 0, sizeof *s);
}

int writeback_writable(const px_writeback *s, px_error *err)
{
    struct stat st;
    if (stat(s->path, &st))
        return px_error_set(err, PX_ERR_NOT_FOUND, s->path, 0, 0, "cannot read fixture: %s", strerror(errno));
    if (!(st.st_mode & 0222))
        return px_error_set(err, PX_ERR_WRITE, s->path, 0, 0, "the fixture is read-only; nothing written");
    return 0;
}

char *writeback_edit(const px_writeback *s, const px_decision *d, size_t n, size_t *out_len, px_error *err)
{
    char *out = NULL, *text = s->text, hash[PX_SHA256_HEX];
    size_t len = s->len;
    if (s->lean) {
        if (!(text = fixture_read(s->path, &len, err)))
            return NULL;
        hash_buffer(text, len, hash);
        if (strcmp(hash, s->hash)) {
            free(text);
            stale(s, err);
            return NULL;
        }
    }
    int rc = splice_apply(s->path, text, len, d, n, &out, out_len, err);
    if (text != s->text)
        free(text);
    if (rc)
        return NULL;
    px_fixture *f = fixture_parse(s->path, out, *out_len, err);
    if (!f) {
        free(out);
        return NULL;
    }
    fixture_free(f);
    return out;
}

int writeback_commit(px_writeback *s, char *out, size_t out_len, px_error *err)
{
    size_t now_len = 0;
    char *now = fixture_read(s->path, &now_len, err), hash[PX_SHA256_HEX] = "";
    if (now)
        hash_buffer(now, now_len, hash);
    free(now);
    int rc = 0;
    /* Someone else's edit since we read it wins: refuse, keep the journal. */
    if (strcmp(hash, s->hash))
        rc = stale(s, err);
    else if (atomic_write(s->path, out, out_len, err)) {
        char why[sizeof err->msg]; /* err->msg is also where the new message goes */
        snprintf(why, sizeof why, "%s", err->msg);
        rc = px_error_set(err, PX_ERR_WRITE, s->path, 0, 0, "%s (the decisions wait in %s)", why, s->journal);
    }
    else if (journal_remove(s->journal, err))
        rc = -1;
    if (rc) {
        free(out);
        return -1;
    }
    hash_buffer(out, out_len, s->hash);
    free(s->text);
    s->text = out, s->len = out_len;
    if (s->lean)
        writeback_lean(s);
    return 0;
}

void writeback_now(char *buf, size_t size)
{
    /* A fixed clock for reproducible screens and files (tests, demos). */
    const char *fixed = getenv("PARITY_NOW");
    if (fixed && *fixed) {
        snprintf(buf, size, "%s", fixed);
        return;
    }
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
