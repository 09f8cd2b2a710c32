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
