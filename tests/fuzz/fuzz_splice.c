/* libFuzzer harness: the review splice on any bytes either refuses or
 * produces text that verifies (yamledit_apply re-parses its own output and
 * checks that nothing outside the review changed). The first line of the
 * input chooses the example id and the note. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/yamledit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nl = memchr(data, '\n', size);
    if (!nl)
        return 0;
    size_t head = (size_t)(nl - (const char *)data);
    char *id = strndup((const char *)data, head < 64 ? head : 64);
    static const char *const words[] = {"accept", "flag", "clear", "defect"};
    px_decision d = {id, words[size % 4], "fuzz \"note\": #\n\x01", "fuzzer", "2026-12-02T00:00:00Z", NULL, NULL, NULL, NULL};
    char *out = NULL;
    size_t out_len = 0;
    px_error err = {0};
    if (yamledit_apply("fuzz.yaml", (const char *)nl + 1, size - head - 1, &d, 1, &out, &out_len, &err) == 0)
        free(out);
    free(id);
    return 0;
}
