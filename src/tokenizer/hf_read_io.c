/* tokenizer.json (see include/parity/hf_read.h): getting the file's bytes
 * (a regular file mapped read-only, refused by its size before anything is
 * read; anything else read up to the limit) and freeing what was read. The
 * reading itself is hf_read.c. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hf_read_int.h"

int hf_read_buf(const char *path, const char *data, size_t len, px_hf_config *out, px_error *err)
{
    return hf_read_run(path, data, len, out, err, 0, 0);
}

/* The file's bytes, refused by size before reading (a device or pipe
 * reads up to the limit and no further). */
static char *slurp(const char *path, size_t *n, px_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot open the tokenizer: %s", strerror(errno));
        return NULL;
    }
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    size_t cap = size >= 0 && size <= (long)PX_HF_MAX_BYTES_READ ? (size_t)size + 1 : PX_HF_MAX_BYTES_READ + 1;
    rewind(f);
    char *buf = size > (long)PX_HF_MAX_BYTES_READ ? NULL : malloc(cap);
    *n = buf ? fread(buf, 1, cap, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (size > (long)PX_HF_MAX_BYTES_READ || *n > PX_HF_MAX_BYTES_READ)
        px_error_set(err, PX_ERR_TOO_LARGE, path, 0, 0, "tokenizer file larger than %u MiB", PX_HF_MAX_BYTES_READ >> 20);
    else if (!buf)
        px_error_oom(err, path);
    else if (bad)
        px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read the tokenizer");
    else
        return buf;
    free(buf);
    return NULL;
}

/* A regular file is mapped (read-only, private), refused by its size
 * first; anything else is read into memory. */
static const char *open_file(const char *path, size_t *n, int *mapped, px_error *err)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    *mapped = 0;
    if (fd < 0 || fstat(fd, &st)) {
        px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot open the tokenizer: %s", strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    if (S_ISREG(st.st_mode) && st.st_size > (off_t)PX_HF_MAX_BYTES_READ) {
        close(fd);
        px_error_set(err, PX_ERR_TOO_LARGE, path, 0, 0, "tokenizer file larger than %u MiB", PX_HF_MAX_BYTES_READ >> 20);
        return NULL;
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (p == MAP_FAILED) {
            px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read the tokenizer: %s", strerror(errno));
            return NULL;
        }
        *n = (size_t)st.st_size;
        *mapped = 1;
        return p;
    }
    close(fd);
    return slurp(path, n, err);
}

static void close_file(const char *data, size_t n, int mapped)
{
    if (mapped)
        munmap((void *)data, n);
    else
        free((void *)data);
}

int hf_read_file(const char *path, px_hf_config *out, px_error *err)
{
    size_t n;
    int mapped;
    memset(out, 0, sizeof *out);
    const char *buf = open_file(path, &n, &mapped, err);
    if (!buf) return -1;
    int rc = hf_read_run(path, buf, n, out, err, 0, mapped);
    close_file(buf, n, mapped);
    return rc;
}

int hf_read_check(const char *path, px_error *err)
{
    size_t n;
    int mapped;
    px_hf_config c;
    const char *buf = open_file(path, &n, &mapped, err);
    if (!buf) return -1;
    int rc = hf_read_run(path, buf, n, &c, err, 1, mapped);
    hf_pipe_free(&c);
    close_file(buf, n, mapped);
    return rc;
}

/* ---- freeing ---- */

void hf_pipe_free(px_hf_config *c)
{
    hf_vocab_free(&c->vocab);
    hf_merges_free(&c->model.merges);
    free(c->model.prefix);
    free(c->model.suffix);
    for (size_t i = 0; i < c->n_norm; i++) {
        hf_pattern_free(&c->norm[i].pattern);
        free(c->norm[i].pattern.text); /* the reader's copy */
        free(c->norm[i].content);
    }
    free(c->norm);
    for (size_t i = 0; i < c->n_pre; i++) {
        hf_pattern_free(&c->pre[i].pattern);
        free(c->pre[i].pattern.text); /* the reader's copy */
        free(c->pre[i].replacement);
    }
    free(c->pre);
    for (size_t i = 0; i < c->n_dec; i++) {
        hf_pattern_free(&c->dec[i].pattern);
        free(c->dec[i].pattern.text); /* the reader's copy */
        free(c->dec[i].replacement);
        free(c->dec[i].prefix);
        free(c->dec[i].content);
    }
    free(c->dec);
    free(c->post.before);
    free(c->post.after);
    for (size_t i = 0; i < c->n_added; i++)
        free(c->added[i].content);
    free(c->added);
    hf_added_free(c->added_raw);
    hf_added_free(c->added_norm);
    free(c->special);
    memset(c, 0, sizeof *c);
}
