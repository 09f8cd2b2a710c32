/* libFuzzer harness: the theme parser must turn any bytes into a whole
 * theme or a usage error with *out untouched, never a crash, leak or hang.
 * The input is parsed in memory as if it were themes/fuzz.theme or
 * tests/data/fuzz.theme (by the input's length), so an `inherit` reaches
 * the shipped themes and the test themes beside it (run from the
 * repository root). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/theme.h"

/* What theme.h promises of a parsed theme: its name is the file's base
 * name, every colour is 0-255 or the default, only known attribute bits. */
static void check(const px_theme *t)
{
    if (strcmp(t->name, "fuzz") || (t->unicode_symbols != 0 && t->unicode_symbols != 1))
        abort();
    for (int el = 0; el < PX_EL_COUNT; el++) {
        const px_style *s = &t->style[el];
        if (s->fg < PX_COLOR_DEFAULT || s->fg > 255 || s->bg < PX_COLOR_DEFAULT || s->bg > 255 ||
            (s->attrs & ~(unsigned)(PX_ATTR_BOLD | PX_ATTR_DIM | PX_ATTR_REVERSE | PX_ATTR_UNDERLINE)))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const paths[] = {"themes/fuzz.theme", "tests/data/fuzz.theme"};
    px_theme t, before;
    memset(&t, 0x5a, sizeof t);
    memcpy(&before, &t, sizeof t);
    px_error err = {0};
    if (theme_parse(paths[size % 2], (const char *)data, size, &t, &err) == 0)
        check(&t);
    else if (err.code != PX_EXIT_USAGE || !err.msg[0] || memcmp(&t, &before, sizeof t))
        abort();
    return 0;
}
