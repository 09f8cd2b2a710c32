/* libFuzzer harness: the tokenizer.json reader (src/tokenizer/hf_read.c: its
 * own scanner for the vocab and merges, jansson for the small components)
 * on any bytes. A file is read or refused with one error that names it;
 * never a crash, a leak or a hang. What it reads must be usable: ids run
 * 0..n-1, each with its token and found again by hf_vocab_find, every merge
 * names ids of the vocab, the post processors' and added tokens' ids are in
 * range, the unknown token is there. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/hf_read.h"

static void check_config(const px_hf_config *c)
{
    const hf_vocab *v = &c->vocab;
    for (size_t id = 0; id < v->n; id++) {
        const char *t = hf_vocab_token(v, (int64_t)id);
        if (!t || hf_vocab_find(v, t, v->len[id]) != (int64_t)id)
            abort();
    }
    for (size_t i = 0; i <= c->model.merges.mask && c->model.merges.keys; i++) {
        uint64_t k = c->model.merges.keys[i];
        if (k && ((k - 1) >> 32 >= v->n || ((k - 1) & 0xffffffffu) >= v->n || c->model.merges.merged[i] >= v->n))
            abort();
    }
    if (c->model.unk_id >= (int64_t)v->n)
        abort();
    for (size_t i = 0; i < c->post.n_before; i++)
        if (c->post.before[i] < 0 || (size_t)c->post.before[i] >= v->n)
            abort();
    for (size_t i = 0; i < c->post.n_after; i++)
        if (c->post.after[i] < 0 || (size_t)c->post.after[i] >= v->n)
            abort();
    for (size_t i = 0; i < c->n_added; i++)
        if (c->added[i].id < 0 || (size_t)c->added[i].id >= v->n || !c->added[i].len)
            abort();
    for (int b = 0; b < 256; b++)
        if (c->model.byte_ids[b] >= (int64_t)v->n)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    px_hf_config c;
    px_error err = {0};
    if (hf_read_buf("fuzz.json", (const char *)data, size, &c, &err)) {
        if (!err.code || !err.msg[0] || strcmp(err.file, "fuzz.json"))
            abort(); /* an error must say what and where */
        return 0;
    }
    check_config(&c);
    hf_pipe_free(&c);
    return 0;
}
