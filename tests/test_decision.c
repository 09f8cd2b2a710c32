/* The decisions' one table (src/contract/decision.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parity/decision.h"
#include "testlib.h"

/* The decisions' one table: names round-trip, the lists the messages use,
 * the review list's symbols, and which settle an ambiguous example. */
Test(decision, one_table_names_symbols_and_what_settles)
{
    for (int k = 0; k < PX_DEC_COUNT; k++)
        cr_expect_eq(decision_kind(px_decision_table[k].name), k, "%s", px_decision_table[k].name);
    cr_expect_eq(decision_kind(NULL), PX_DEC_NONE);
    cr_expect_eq(decision_kind("accepted"), PX_DEC_NONE);
    cr_expect_str_eq(decision_list(0), "accept, defect, unsupported, needs-rule or flag");
    cr_expect_str_eq(decision_list(1), "accept, defect, unsupported, needs-rule, flag or clear");
    cr_expect_str_eq(px_decision_table[PX_DEC_DEFECT].symbol, "X");
    cr_expect_str_eq(px_decision_table[PX_DEC_NEEDS_RULE].symbol, "P");
    cr_expect(px_decision_table[PX_DEC_ACCEPT].settles && px_decision_table[PX_DEC_UNSUPPORTED].settles);
    cr_expect(!px_decision_table[PX_DEC_FLAG].settles && !px_decision_table[PX_DEC_NEEDS_RULE].settles);
}

/* The review record's one table: each field is read and set by its index,
 * under the key the fixture writes, in the order every writer uses. */
Test(decision, review_record_fields_by_index_and_key)
{
    static const char *const keys[] = {"decision", "note", "by", "at", "note_by", "note_at", "env", "results_sha256"};
    cr_assert_eq(PX_REVIEW_FIELDS, sizeof keys / sizeof *keys);
    for (int i = 0; i < PX_REVIEW_FIELDS; i++)
        cr_expect_str_eq(px_review_keys[i], keys[i]);
    cr_expect_null(px_review_keys[PX_REVIEW_FIELDS], "the keys end in NULL (an allowed-keys list)");

    px_review r = {0};
    cr_expect(review_empty(&r));
    for (int i = 0; i < PX_REVIEW_FIELDS; i++) {
        cr_assert_not_null(review_slot(&r, i));
        *review_slot(&r, i) = strdup(keys[i]);
    }
    cr_expect(!review_empty(&r));
    cr_expect_str_eq(r.decision, "decision");
    cr_expect_str_eq(r.note_at, "note_at");
    cr_expect_str_eq(r.results, "results_sha256");
    for (int i = 0; i < PX_REVIEW_FIELDS; i++)
        cr_expect_str_eq(review_field(&r, i), keys[i]);
    cr_expect_null(review_field(&r, -1));
    cr_expect_null(review_field(&r, PX_REVIEW_FIELDS));
    cr_expect_null(review_slot(&r, PX_REVIEW_FIELDS));
    review_clear(&r); /* frees what it owns: the sanitizer run sees a leak otherwise */
    cr_expect(review_empty(&r));
}
