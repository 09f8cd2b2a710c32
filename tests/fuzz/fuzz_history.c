/* libFuzzer harness: the history reader (the last good configurations)
 * must turn any bytes into a whole history or a usage error naming a place,
 * with nothing kept, never a crash, leak or hang; what it reads must write
 * back to a text that reads again to the same entries. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    px_history h;
    px_error err = {0};
    if (history_parse("fuzz.yaml", (const char *)data, size, &h, &err)) {
        if (err.code != PX_EXIT_USAGE || !err.msg[0] || err.line < 1 || err.col < 1 || h.n || h.v)
            abort();
        return 0;
    }
    size_t len;
    char *text = history_text(&h, "fixture.yaml", &len);
    if (!text)
        abort();
    px_history again;
    if (history_parse("again.yaml", text, len, &again, &err) || again.n != h.n)
        abort();
    for (size_t i = 0; i < h.n; i++)
        if (strcmp(again.v[i].env, h.v[i].env) || history_compare(&again.v[i].config, &h.v[i].config))
            abort();
    history_free(&again);
    history_free(&h);
    free(text);
    return 0;
}
