/* libFuzzer harness: the tokenizer.json reader (src/tokenizer/hf_json.c, jansson
 * underneath) on any bytes. A file is read or refused with one error that
 * names it; never a crash, a leak or a hang. What it reads must be usable:
 * every id names a token, the unknown token and the prefix are there, and
 * the added tokens are ordered longest first (the matcher relies on it). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/hf_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    px_hf_config c;
    px_error err = {0};
    if (hf_json_parse("fuzz.json", (const char *)data, size, &c, &err)) {
        if (!err.code || !err.msg[0] || strcmp(err.file, "fuzz.json"))
            abort(); /* an error must say what and where */
        return 0;
    }
    if (!c.unk_token || !c.prefix || c.n == 0)
        abort();
    for (size_t i = 0; i < c.n; i++)
        if (!c.tokens[i])
            abort();
    for (size_t i = 1; i < c.n_added; i++)
        if (c.added[i].len > c.added[i - 1].len)
            abort();
    for (size_t i = 0; i < c.n_before; i++)
        if (c.before[i] < 0 || (size_t)c.before[i] >= c.n)
            abort();
    for (size_t i = 0; i < c.n_after; i++)
        if (c.after[i] < 0 || (size_t)c.after[i] >= c.n)
            abort();
    hf_config_free(&c);
    return 0;
}
