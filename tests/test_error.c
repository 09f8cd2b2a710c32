/* Errors as values (src/base/error.c): every reason has one exit status, from
 * one table; the library reports the reason a caller acts on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/ydoc.h"
#include "testlib.h"

Test(error, every_reason_has_one_row_and_a_documented_exit_status)
{
    for (int r = PX_ERR_USAGE; r < PX_ERR_END; r++) {
        int rows = 0;
        for (int i = 0; i < px_reason_count; i++)
            rows += px_reason_table[i].reason == (px_reason)r;
        cr_expect_eq(rows, 1, "reason %d has %d rows", r, rows);
        int code = px_reason_exit((px_reason)r), documented = 0;
        for (int i = 0; i < px_exit_count; i++)
            documented |= px_exit_table[i].code == code;
        cr_expect(documented, "reason %s exits %d, which is not in px_exit_table", px_reason_name((px_reason)r), code);
        cr_expect_neq(code, PX_EXIT_OK, "%s", px_reason_name((px_reason)r));
        for (int j = PX_ERR_USAGE; j < r; j++)
            cr_expect_str_neq(px_reason_name((px_reason)j), px_reason_name((px_reason)r));
    }
    cr_expect_eq(px_reason_count, PX_ERR_END - PX_ERR_USAGE);
}

Test(error, set_records_the_reason_its_exit_status_and_the_place)
{
    px_error err = {0};
    cr_expect_eq(px_error_set(&err, PX_ERR_WRITE, "out.yaml", 3, 7, "cannot write: %s", "disk full"), -1);
    cr_expect_eq(err.reason, PX_ERR_WRITE);
    cr_expect_eq(err.code, PX_EXIT_IO);
    char line[256];
    px_error_format(&err, line, sizeof line);
    cr_expect_str_eq(line, "out.yaml:3:7: cannot write: disk full");
    px_error_oom(&err, "f.yaml");
    cr_expect_eq(err.reason, PX_ERR_NO_MEMORY);
    cr_expect_eq(err.code, PX_EXIT_INTERNAL);
    px_error_format(&err, line, sizeof line);
    cr_expect_str_eq(line, "f.yaml: out of memory");
}

Test(error, an_exit_status_passed_as_a_reason_is_an_internal_error)
{
    px_error err = {0};
    px_error_set(&err, (px_reason)PX_EXIT_USAGE, NULL, 0, 0, "x");
    cr_expect_eq(err.reason, PX_ERR_INTERNAL);
    cr_expect_eq(err.code, PX_EXIT_INTERNAL);
    cr_expect_str_eq(px_reason_name((px_reason)PX_EXIT_IO), "internal");
}

Test(error, readers_report_not_found_malformed_and_too_large)
{
    px_error err = {0};
    cr_expect_null(fixture_load("/nonexistent/fixture.yaml", &err));
    cr_expect_eq(err.reason, PX_ERR_NOT_FOUND, "%s: %s", px_reason_name(err.reason), err.msg);

    char *dir = tl_tmpdir(), path[4096];
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    tl_write(path, "contract: [unclosed\n");
    err = (px_error){0};
    cr_expect_null(fixture_load(path, &err));
    cr_expect_eq(err.reason, PX_ERR_MALFORMED, "%s: %s", px_reason_name(err.reason), err.msg);
    cr_expect_eq(err.code, PX_EXIT_USAGE);

    ydoc_set_max_mb(1.0 / 1024); /* 1 KiB */
    char big[2048];
    memset(big, '#', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    tl_write(path, big);
    err = (px_error){0};
    size_t len;
    cr_expect_null(ydoc_read(path, "fixture", &len, &err));
    cr_expect_eq(err.reason, PX_ERR_TOO_LARGE, "%s: %s", px_reason_name(err.reason), err.msg);
    ydoc_set_max_mb(0);
    free(dir);
}

/* The exit statuses scripts depend on: the man page lists exactly the
 * table's codes, in its order of precedence; --help prints them; and the
 * precedence is what px_exit_worse returns. */
Test(error, the_exit_status_table_is_the_man_pages)
{
    char *man = tl_slurp("man/parity.1");
    cr_assert_not_null(man);
    char *sec = strstr(man, ".Sh EXIT STATUS"), *end = sec ? strstr(sec, ".Sh EXAMPLES") : NULL;
    cr_assert(sec && end);
    *end = '\0';
    const char *at = sec;
    int listed = 0;
    for (const char *l = sec; (l = strstr(l, "\n.It ")); l++)
        listed++;
    cr_expect_eq(listed, px_exit_count, "the man page lists %d codes, the table %d", listed, px_exit_count);
    for (int i = 0; i < px_exit_count; i++) {
        char want[32];
        snprintf(want, sizeof want, "\n.It %d\n", px_exit_table[i].code);
        const char *found = strstr(at, want);
        cr_expect_not_null(found, "exit %d missing from man/parity.1 or out of order", px_exit_table[i].code);
        if (found)
            at = found + 1;
    }
    cmd_result r = tl_run((const char *[]){"parity", "--help", NULL});
    for (int i = 0; i < px_exit_count; i++) {
        char want[32];
        snprintf(want, sizeof want, "  %-3d %.20s", px_exit_table[i].code, px_exit_table[i].meaning);
        cr_expect(strstr(r.out, want), "--help lacks '%s'", want);
    }
    tl_free(&r);
    cr_expect_eq(px_exit_worse(PX_EXIT_FAILED, PX_EXIT_ENV), PX_EXIT_ENV, "an incomplete check is worse");
    cr_expect_eq(px_exit_worse(PX_EXIT_ENV, PX_EXIT_IO), PX_EXIT_IO);
    cr_expect_eq(px_exit_worse(PX_EXIT_OK, PX_EXIT_FAILED), PX_EXIT_FAILED);
    cr_expect_eq(px_exit_worse(PX_EXIT_INTERNAL, PX_EXIT_USAGE), PX_EXIT_USAGE);
    cr_expect_eq(px_exit_worse(PX_EXIT_CUT_SHORT, PX_EXIT_ENV), PX_EXIT_CUT_SHORT);
    free(man);
}
