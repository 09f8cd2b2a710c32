/* check's JSON against the table its man page is made from (issue 38):
 * every key the writer prints, in every object, is a row of
 * PX_CHECK_JSON_KEYS (check_report.h), or is named in the braces of its
 * parent's row ("{stat, value, ...}"), so a key cannot be added to the
 * output without its line in parity(1). Run on a classifier's, an
 * embedding's and a generator's results, judged from files. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "parity/check_report.h"
#include "parity/decision.h"
#include "parity/verdict.h"
#include "testlib.h"

static const struct {
    const char *object, *key, *doc;
} rows[] = {
#define PX_CJ_ROW(object, key, doc) {object, key, doc},
    PX_CHECK_JSON_KEYS(PX_CJ_ROW)
#undef PX_CJ_ROW
};
#define N_ROWS (sizeof rows / sizeof *rows)

static int has_object(const char *object)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (!strcmp(rows[i].object, object))
            return 1;
    return 0;
}

static const char *row_doc(const char *object, const char *key)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (!strcmp(rows[i].object, object) && !strcmp(rows[i].key, key))
            return rows[i].doc;
    return NULL;
}

/* key as a whole word inside doc's braces. */
static int in_braces(const char *doc, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = doc ? strchr(doc, '{') : NULL; p && *p; p++)
        if (!strncmp(p, key, n) && strchr("{ ,", p[-1]) && strchr("}, ", p[n]))
            return 1;
    return 0;
}

static int known_key(const char *where, const char *key)
{
    if (!strcmp(where, "counts")) {
        for (int o = 0; o < PX_OC_COUNT; o++)
            if (!strcmp(outcome_name((px_outcome)o), key))
                return 1;
        return 0;
    }
    if (!strcmp(where, "review")) {
        for (int i = 0; px_review_keys[i]; i++)
            if (!strcmp(px_review_keys[i], key))
                return 1;
        return !strcmp(key, "applies");
    }
    return 0;
}

static size_t n_seen; /* keys the walk looked at */

/* Object j at `where` (a table object, or a key whose parent row's doc
 * lists its keys in braces: doc). */
static void walk(json_t *j, const char *where, const char *doc, const char *path)
{
    if (json_is_array(j)) {
        size_t i;
        json_t *x;
        char elem[128];
        snprintf(elem, sizeof elem, "%s[]", where);
        json_array_foreach(j, i, x) walk(x, elem, doc, path);
        return;
    }
    /* history.h's fields; a training run's tensor groups, by their names */
    if (!json_is_object(j) || !strcmp(where, "configuration") || !strcmp(where, "params"))
        return;
    const char *key;
    json_t *v;
    int table = has_object(where);
    json_object_foreach(j, key, v)
    {
        char sub[512];
        snprintf(sub, sizeof sub, "%s.%s", path, key);
        n_seen++;
        if (table) {
            const char *d = row_doc(where, key);
            cr_expect_not_null(d, "check's JSON has %s, not in PX_CHECK_JSON_KEYS under \"%s\"", sub, where);
            walk(v, key, d, sub);
        } else {
            cr_expect(known_key(where, key) || in_braces(doc, key),
                      "check's JSON has %s, not named by its parent's row: %s", sub, doc ? doc : "(none)");
        }
    }
}

/* check keeps a last good record beside the fixture (.NAME.parity-history.yaml):
 * one it makes here, in the source tree, is removed again. */
static void check_keys(const char *fixture, const char *results)
{
    char history[512];
    const char *slash = strrchr(fixture, '/');
    snprintf(history, sizeof history, "%.*s/.%s.parity-history.yaml", (int)(slash - fixture), fixture, slash + 1);
    int had = access(history, F_OK) == 0;
    cmd_result r = tl_run((const char *[]){"parity", "check", fixture, "--results", results, "--format", "json",
                                           "--executor", "/nonexistent", NULL});
    json_error_t e;
    json_t *j = json_loads(r.out, 0, &e);
    cr_assert_not_null(j, "%s: %s\n%s", fixture, e.text, r.err);
    walk(j, "the object", NULL, "");
    json_decref(j);
    tl_free(&r);
    if (!had)
        unlink(history);
}

Test(man_tables, check_json_keys_are_in_the_table)
{
    check_keys("fixtures/campus-club/fixture.yaml", "tests/data/campus-results.yaml");
    check_keys("tests/data/embed/search.yaml", "tests/data/embed/search-results.yaml");
    check_keys("tests/data/gen/fixture.yaml", "tests/data/gen/results.yaml");
    check_keys("tests/data/training/fixture.yaml", "tests/data/training/results.yaml");
    cr_expect_gt(n_seen, 500, "the walk saw only %zu keys", n_seen);
}

/* The walk itself finds a key that is not there. */
Test(man_tables, a_key_missing_from_the_table_is_found)
{
    cr_expect_null(row_doc("examples[]", "no_such_key"));
    cr_expect(in_braces(row_doc("examples[]", "compare"), "smallest_passing_atol"));
    cr_expect_not(in_braces(row_doc("examples[]", "compare"), "value_x"));
    cr_expect_not(in_braces(row_doc("examples[]", "compare"), "pas"));
}
