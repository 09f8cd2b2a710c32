/* libFuzzer harness: the fixture loader must turn any bytes into a fixture
 * or a located error, never a crash, leak or hang. */
#include <stddef.h>
#include <stdint.h>

#include "parity/fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    px_error err = {0};
    px_fixture *f = fixture_parse("fuzz.yaml", (const char *)data, size, &err);
    fixture_free(f);
    return 0;
}
