/* Atomic file replacement (src/base/atomic.c): the old bytes or the new ones,
 * never half; links written through, modes kept, devices written to. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parity/atomic.h"
#include "testlib.h"

Test(atomic, replaces_keeps_mode_and_writes_through_links)
{
    char *dir = tl_tmpdir();
    char path[256], link[256];
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    snprintf(link, sizeof link, "%s/l.yaml", dir);
    tl_write(path, "old\n");
    chmod(path, 0600);
    cr_assert_eq(symlink("f.yaml", link), 0);
    px_error err = {0};
    cr_assert_eq(atomic_write(link, "new\n", 4, &err), 0, "%s", err.msg);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link is kept");
    char *got = tl_slurp(path);
    cr_expect_str_eq(got, "new\n");
    free(got);
    stat(path, &st);
    cr_expect_eq(st.st_mode & 0777, 0600);
    unlink(link), unlink(path), rmdir(dir);
    free(dir);
}

Test(atomic, failed_write_leaves_the_original)
{
    if (geteuid() == 0)
        cr_skip_test("root ignores directory permissions");
    char *dir = tl_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    tl_write(path, "old\n");
    chmod(dir, 0500);
    px_error err = {0};
    cr_expect_neq(atomic_write(path, "new\n", 4, &err), 0);
    cr_expect_eq(err.code, PX_EXIT_IO);
    char *got = tl_slurp(path);
    cr_expect_str_eq(got, "old\n");
    free(got);
    chmod(dir, 0700);
    unlink(path), rmdir(dir);
    free(dir);
}

Test(atomic, missing_directory_is_an_error)
{
    px_error err = {0};
    cr_expect_neq(atomic_write("/nonexistent-dir/x.yaml", "x", 1, &err), 0);
    cr_expect(strstr(err.msg, "cannot create") != NULL, "%s", err.msg);
}

/* -o /dev/null must not replace the device with a regular file. */
Test(atomic, a_device_is_written_to_not_replaced)
{
    px_error err = {0};
    cr_assert_eq(atomic_write("/dev/null", "x\n", 2, &err), 0, "%s", err.msg);
    struct stat st;
    cr_assert_eq(stat("/dev/null", &st), 0);
    cr_expect(S_ISCHR(st.st_mode), "/dev/null is still a character device");
    char *dir = tl_tmpdir();
    cr_expect_neq(atomic_write(dir, "x", 1, &err), 0);
    cr_expect(strstr(err.msg, "is a directory"), "%s", err.msg);
    rmdir(dir);
    free(dir);
}
