/* Errors as values (src/error.c): every reason has one exit status, from
 * one table; the library reports the reason a caller acts on. */
#include <criterion/criterion.h>
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
