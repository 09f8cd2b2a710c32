/* The WordPiece model of the Hugging Face `tokenizers` library
 * (tokenizers/src/models/wordpiece/mod.rs, 0.23.2), against hf_vocab:
 *   - a split of more than max_input_chars_per_word characters is the unk
 *     token;
 *   - otherwise, from the start, the longest piece found in the vocab (the
 *     continuing_subword_prefix before every piece but the first), shrinking
 *     a character at a time from the end; if some position has no piece at
 *     all, the whole split is the one unk token;
 *   - an unk needed with no unk token in the vocab is the library's
 *     MissingUnkToken error.
 * The same logic as word_piece() of src/tokenizer/tokenizer.c, which reads
 * the BERT family's own tables. */
#include <stdlib.h>
#include <string.h>

#include "parity/hf_pipe.h"
#include "parity/utf8.h"

static int push(hf_ids *out, int64_t id, px_error *err)
{
    if (out->n == out->cap) {
        size_t cap = out->cap ? out->cap * 2 : 64;
        int64_t *v = cap > SIZE_MAX / sizeof *v ? NULL : realloc(out->v, cap * sizeof *v);
        if (!v)
            return px_error_oom(err, NULL);
        out->v = v;
        out->cap = cap;
    }
    out->v[out->n++] = id;
    return 0;
}

static int push_unk(const hf_model *m, hf_ids *out, px_error *err)
{
    if (m->unk_id < 0)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                            "WordPiece needs its unk_token for a word it cannot cut, and the vocab has none "
                            "(the library's MissingUnkToken)");
    return push(out, m->unk_id, err);
}

/* Start of the character that ends at s[end] (never before start). */
static size_t char_back(const char *s, size_t start, size_t end)
{
    end--;
    while (end > start && ((unsigned char)s[end] & 0xC0) == 0x80)
        end--;
    return end;
}

int hf_wordpiece_tokenize(const hf_model *m, const hf_vocab *v, const char *s, size_t len,
                          hf_ids *out, px_error *err)
{
    if (utf8_chars(s, len) > m->max_chars)
        return push_unk(m, out, err);
    if (len > SIZE_MAX - m->prefix_len - 1)
        return px_error_oom(err, NULL);
    /* scratch: the prefix, then the word from the current start */
    char *buf = malloc(m->prefix_len + len + 1);
    if (!buf)
        return px_error_oom(err, NULL);
    memcpy(buf, m->prefix, m->prefix_len);
    size_t mark = out->n, start = 0;
    int rc = 0;
    while (start < len) {
        const char *piece = start ? buf : s;
        size_t pre = start ? m->prefix_len : 0;
        if (start)
            memcpy(buf + pre, s + start, len - start);
        /* No piece is longer than the vocab's longest token: starting the
         * search there keeps a long word's cost linear in its length (from
         * its full length, a 100-character word cost a million bytes
         * hashed). The ends skipped can never be found. */
        int64_t id = -1;
        size_t room = !v->max_len ? SIZE_MAX : v->max_len > pre ? v->max_len - pre : 0, end = len;
        if (len - start > room) {
            end = start + room;
            while (end > start && ((unsigned char)s[end] & 0xC0) == 0x80)
                end--;
        }
        for (; end > start; end = char_back(s, start, end))
            if ((id = hf_vocab_find(v, piece, pre + end - start)) >= 0)
                break;
        if (id < 0) {
            out->n = mark;
            rc = push_unk(m, out, err);
            break;
        }
        if ((rc = push(out, id, err)))
            break;
        start = end;
    }
    free(buf);
    return rc;
}
