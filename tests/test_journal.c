/* The decision journal (src/contract/journal.c): a line a kill tore is never
 * acknowledged, and the next decision does not run into it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/journal.h"
#include "testlib.h"

static px_decision decision(const char *id, const char *d, const char *note)
{
    return (px_decision){id, {d, note, "sam", "2026-12-03T10:00:00Z", NULL, NULL, NULL, NULL}};
}

Test(journal, a_torn_line_is_cut_before_the_next_decision)
{
    char *dir = tl_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/.fixture.yaml.parity-journal", dir);
    px_error err = {0};
    px_decision a = decision("e1", "accept", "first"), b = decision("e2", "defect", "second");
    cr_assert_eq(journal_append(path, &a, &err), 0, "%s", err.msg);
    /* A kill in the middle of writing the next line. */
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("parity-journal 2\te9\tacc", f);
    fclose(f);
    px_journal j;
    cr_assert_eq(journal_read(path, &j, &err), 0, "%s", err.msg);
    cr_expect_eq(j.n, 1, "the torn line is not read");
    journal_free(&j);
    cr_assert_eq(journal_append(path, &b, &err), 0, "%s", err.msg);
    cr_assert_eq(journal_read(path, &j, &err), 0, "the journal reads after the append: %s", err.msg);
    cr_assert_eq(j.n, 2);
    cr_expect_str_eq(j.d[0].id, "e1");
    cr_expect_str_eq(j.d[1].id, "e2");
    cr_expect_str_eq(j.d[1].review.note, "second");
    journal_free(&j);
    /* Only a torn line: the append starts the file afresh. */
    tl_write(path, "parity-journal 2\te");
    cr_assert_eq(journal_append(path, &b, &err), 0, "%s", err.msg);
    cr_assert_eq(journal_read(path, &j, &err), 0, "%s", err.msg);
    cr_expect_eq(j.n, 1);
    journal_free(&j);
    char *text = tl_slurp(path);
    cr_expect(!strncmp(text, "parity-journal 2\te2\t", 20), "%s", text);
    free(text);
    unlink(path);
    rmdir(dir);
    free(dir);
}
