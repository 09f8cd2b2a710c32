/* The growable string (src/base/sbuf.c): text of any length comes out whole,
 * in order, NUL-terminated; taking it leaves the buffer empty. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "parity/sbuf.h"

Test(sbuf, grows_past_any_fixed_size_and_keeps_every_byte)
{
    px_sbuf b = PX_SBUF_INIT;
    cr_assert_str_eq(sbuf_str(&b), "");
    for (int i = 0; i < 5000; i++)
        sbuf_addf(&b, "%04d|", i);
    cr_assert_eq(b.len, 5000u * 5);
    cr_assert_eq(strlen(sbuf_str(&b)), b.len);
    cr_assert(!strncmp(sbuf_str(&b), "0000|0001|", 10));
    cr_assert_str_eq(sbuf_str(&b) + b.len - 5, "4999|");
    cr_assert(!sbuf_failed(&b));
    sbuf_free(&b);
}

Test(sbuf, add_addn_addc_and_take)
{
    px_sbuf b = PX_SBUF_INIT;
    sbuf_add(&b, "ab");
    sbuf_addn(&b, "cdef", 2);
    sbuf_addc(&b, '!');
    sbuf_addn(&b, "x\0y", 3); /* bytes, NUL included, counted by length */
    cr_assert_eq(b.len, 8u);
    cr_assert(!memcmp(b.s, "abcd!x\0y", 9));
    sbuf_reset(&b);
    cr_assert_str_eq(sbuf_str(&b), "");
    sbuf_add(&b, "again");
    char *s = sbuf_take(&b);
    cr_assert_str_eq(s, "again");
    cr_assert_null(b.s);
    cr_assert_eq(b.len, 0u);
    free(s);
    s = sbuf_take(&b); /* an empty buffer gives "", not NULL */
    cr_assert_not_null(s);
    cr_assert_str_eq(s, "");
    free(s);
}
