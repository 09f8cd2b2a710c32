/* libFuzzer harness: the review splice on any bytes either refuses or
 * produces text that verifies (splice_apply re-parses its own output and
 * checks that nothing outside the review changed), and the check on its own
 * (splice_verify, from a fresh read of the input) agrees. The first line
 * of the input chooses the example id. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/splice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nl = memchr(data, '\n', size);
    if (!nl)
        return 0;
    size_t head = (size_t)(nl - (const char *)data);
    char *id = strndup((const char *)data, head < 64 ? head : 64);
    static const char *const words[] = {"accept", "flag", "clear", "defect"};
    px_decision d = {id, {words[size % 4], "fuzz \"note\": #\n\x01", "fuzzer", "2026-12-02T00:00:00Z", NULL, NULL, NULL, NULL}};
    char *out = NULL;
    size_t out_len = 0;
    px_error err = {0};
    const char *in = (const char *)nl + 1;
    size_t in_len = size - head - 1;
    if (splice_apply("fuzz.yaml", in, in_len, &d, 1, &out, &out_len, &err) == 0) {
        if (splice_verify("fuzz.yaml", in, in_len, out, out_len, &d, &err))
            abort();
        /* Two decisions at once (the second read from the first's check)
         * give what two one at a time give. */
        px_decision two[2] = {d, d};
        two[1].review.decision = words[(size + 1) % 4], two[1].review.note = NULL, two[1].review.by = "second";
        char *both = NULL, *then = NULL;
        size_t both_len = 0, then_len = 0;
        int rc_both = splice_apply("fuzz.yaml", in, in_len, two, 2, &both, &both_len, &err);
        int rc_then = splice_apply("fuzz.yaml", out, out_len, &two[1], 1, &then, &then_len, &err);
        if ((rc_both == 0) != (rc_then == 0) ||
            (rc_both == 0 && (both_len != then_len || memcmp(both, then, both_len))))
            abort();
        free(both);
        free(then);
        free(out);
    }
    free(id);
    return 0;
}
