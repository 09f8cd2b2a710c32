/* No input can stall parity: fixtures, results files (they cross machines)
 * and lint are refused with one line naming file:line:column and exit 2,
 * whatever the input: nesting far deeper than any fixture needs, a file
 * past the size limit, anchors and aliases by the ten thousand, duplicate
 * ids at the end of a long list. How long refusing takes, and that it grows
 * linearly, is measured by `make bench` (tests/bench/limits.sh), not here:
 * the timeouts below are only a net against a hang. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "parity/ydoc.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"

static char *repeat(const char *unit, size_t n, const char *tail)
{
    size_t u = strlen(unit), t = tail ? strlen(tail) : 0;
    char *s = malloc(u * n + t + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(s + i * u, unit, u);
    memcpy(s + u * n, tail ? tail : "", t + 1);
    return s;
}

static char *in_tmp(const char *name, const char *text)
{
    char *dir = tl_tmpdir(), *path = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", dir, name);
    tl_write(path, text);
    free(dir);
    return path;
}

/* One line on stderr, exit 2, naming path:line:col and saying what. */
static void refused(const char *const *argv, const char *path, int line, int col, const char *what)
{
    cmd_result r = tl_run(argv);
    char want[600];
    snprintf(want, sizeof want, "parity: %s:%d:%d: ", path, line, col);
    cr_expect_eq(r.status, 2, "%s %s: exit %d: %s", argv[1], path, r.status, r.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)) && strstr(r.err, what), "%s: want '%s...%s', got %s", argv[1], want,
              what, r.err);
    tl_free(&r);
}

Test(limits, deep_nesting_is_refused_everywhere, .timeout = 60)
{
    /* 300 000 '[' took libyaml's own loader minutes (quadratic in depth). */
    const char *units[] = {"[", "{a: ", "- "};
    for (size_t u = 0; u < 3; u++) {
        char *text = repeat(units[u], 300000, "x\n"), *p = in_tmp("deep.yaml", text);
        int col = 64 * (int)strlen(units[u]) + 1;
        refused((const char *[]){"parity", "lint", p, NULL}, p, 1, col, "nesting deeper than 64 levels");
        refused((const char *[]){"parity", "check", p, "-q", NULL}, p, 1, col, "nesting deeper than 64 levels");
        refused((const char *[]){"parity", "decide", p, "a", "--decision", "accept", NULL}, p, 1, col,
                "nesting deeper than 64 levels");
        refused((const char *[]){"parity", "review", p, NULL}, p, 1, col, "nesting deeper than 64 levels");
        refused((const char *[]){"parity", "check", DEMO, "--results", p, NULL}, p, 1, col,
                "nesting deeper than 64 levels");
        unlink(p);
        free(text), free(p);
    }
    /* Block nesting: each level a line deeper. */
    char *text = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&text, &n);
    for (int i = 0; i < 200; i++)
        fprintf(o, "%*sk%d:\n", i, "", i);
    fclose(o);
    char *p = in_tmp("deep-block.yaml", text);
    refused((const char *[]){"parity", "lint", p, NULL}, p, 65, 65, "nesting deeper than 64 levels");
    unlink(p);
    free(text), free(p);
}

Test(limits, the_size_limit_names_where_it_falls)
{
    /* 1 KiB: the demo fixture's 1025th byte is on line 23. */
    refused((const char *[]){"parity", "lint", DEMO, "--max-size", "0.0009765625", NULL}, DEMO, 23, 68,
            "a fixture of more than 1024 bytes (0.0009766 MiB), here: refused before parsing (--max-size MIB raises "
            "the limit)");
    refused((const char *[]){"parity", "--max-size=0.0009765625", "check", DEMO, "--results",
                             "tests/data/campus-results.yaml", NULL},
            DEMO, 23, 68, "a fixture of more than 1024 bytes");
    /* A results file: the fixture fits under 16 KiB, the results do not. */
    refused((const char *[]){"parity", "check", DEMO, "--results", "tests/data/campus-results.yaml", "--max-size",
                             "0.015625", NULL},
            "tests/data/campus-results.yaml", 179, 369, "a results file of more than 16384 bytes");
    cmd_result r = tl_run((const char *[]){"parity", "lint", DEMO, "--max-size", "zero", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--max-size must be a size in MiB above 0"), "%s", r.err);
    tl_free(&r);
}

Test(limits, the_default_limits)
{
    cr_expect_eq(ydoc_max_bytes("fixture"), (size_t)PX_FIXTURE_MAX_MB << 20);
    cr_expect_eq(ydoc_max_bytes("results file"), (size_t)PX_RESULTS_MAX_MB << 20);
    /* A fixture one byte over 16 MiB, all comment. */
    size_t n = ((size_t)PX_FIXTURE_MAX_MB << 20) + 1;
    char *text = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        text[i] = i % 64 == 63 ? '\n' : i % 64 == 0 ? '#' : 'x';
    text[n] = '\0';
    char *p = in_tmp("huge.yaml", text);
    refused((const char *[]){"parity", "lint", p, NULL}, p, 262145, 1, "a fixture of more than 16777216 bytes");
    /* --max-size raises it: then the file is read (and found empty). */
    refused((const char *[]){"parity", "lint", p, "--max-size", "17", NULL}, p, 1, 1, "empty file: not a parity fixture");
    unlink(p);
    free(text), free(p);
}

/* Anchors are looked up in a hash: fifty thousand of them, and as many
 * aliases, load; an undefined or repeated one is named where it is. */
Test(limits, anchors_and_aliases, .timeout = 60)
{
    char *text = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&text, &n);
    fputs("parity: 1\nshared:\n", o);
    for (int i = 0; i < 50000; i++)
        fprintf(o, "  - &a%d v%d\n", i, i);
    fputs("again:\n", o);
    for (int i = 0; i < 50000; i++)
        fprintf(o, "  - *a%d\n", 49999 - i);
    fclose(o);
    px_error err = {0};
    yaml_document_t doc;
    cr_assert_eq(ydoc_load("anchors.yaml", text, n, "fixture", &doc, &err), 0, "%s", err.msg);
    yaml_node_t *again = ydoc_get(&doc, yaml_document_get_root_node(&doc), "again");
    cr_assert_not_null(again);
    yaml_node_t *first = yaml_document_get_node(&doc, again->data.sequence.items.start[0]);
    cr_expect_str_eq((const char *)first->data.scalar.value, "v49999", "an alias is its anchor's node");
    yaml_document_delete(&doc);
    free(text);
    const char *undefined = "a: &x 1\nb: *y\n";
    cr_expect_neq(ydoc_load("u.yaml", undefined, strlen(undefined), "fixture", &doc, &err), 0);
    cr_expect(err.line == 2 && err.col == 4 && strstr(err.msg, "alias '*y' names no anchor defined before it"),
              "%d:%d: %s", err.line, err.col, err.msg);
    const char *twice = "a: &x 1\nb: &x 2\n";
    cr_expect_neq(ydoc_load("t.yaml", twice, strlen(twice), "fixture", &doc, &err), 0);
    cr_expect(err.line == 2 && err.col == 4 && strstr(err.msg, "anchor '&x' is defined twice"), "%d:%d: %s", err.line,
              err.col, err.msg);
    const char *two_docs = "a: 1\n---\nb: 2\n";
    cr_expect_neq(ydoc_load("d.yaml", two_docs, strlen(two_docs), "fixture", &doc, &err), 0);
    cr_expect(err.line == 2 && strstr(err.msg, "a second YAML document: a fixture is one document"), "%s", err.msg);
}

/* Duplicate ids and environment names at the end of long lists are found
 * through a hash, named with the line of the first. */
Test(limits, duplicates_at_the_end_of_long_lists, .timeout = 60)
{
    char *head = tl_slurp(DEMO), *cut = strstr(head, "examples:\n");
    cr_assert_not_null(cut);
    cut[strlen("examples:\n")] = '\0';
    char *text = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&text, &n);
    fputs(head, o);
    for (int i = 0; i < 20000; i++)
        fprintf(o, "  - {id: e%d, text: t, expect: {label: film}}\n", i);
    fprintf(o, "  - {id: e7, text: t, expect: {label: film}}\n");
    fclose(o);
    px_error err = {0};
    px_fixture *f = fixture_parse("long.yaml", text, n, &err);
    cr_expect_null(f);
    int first_line = 0;
    for (const char *l = text; l < strstr(text, "{id: e7,"); l++)
        first_line += *l == '\n';
    char want[80];
    snprintf(want, sizeof want, "duplicate example id 'e7' (first at line %d)", first_line + 1);
    cr_expect(strstr(err.msg, want), "%s (want %s)", err.msg, want);
    fixture_free(f);
    free(head), free(text);
}
