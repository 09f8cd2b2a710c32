/* Tests for the cleaning rules (ordered PCRE2 substitutions). */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "parity/clean.h"

static px_cleaner *with_rule(const char *pattern, const char *replace)
{
    px_cleaner *c = cleaner_new();
    cr_assert_not_null(c);
    px_error err = {0};
    cr_assert_eq(cleaner_add(c, pattern, replace, &err), 0, "%s", err.msg);
    return c;
}

/* Apply c to text and compare with want. */
static void expect_clean(const px_cleaner *c, const char *text, const char *want)
{
    px_error err = {0};
    size_t len = 12345;
    char *got = cleaner_apply(c, text, strlen(text), &len, &err);
    cr_assert_not_null(got, "'%s': %s", text, err.msg);
    cr_expect_str_eq(got, want);
    cr_expect_eq(len, strlen(want));
    free(got);
}

Test(clean, collapse_white_space)
{
    px_cleaner *c = with_rule("\\s+", " ");
    cr_expect_eq(cleaner_count(c), 1);
    expect_clean(c, "a  \t b\n\n\nc", "a b c");
    /* U+3000 IDEOGRAPHIC SPACE is \s only under UCP */
    expect_clean(c, "a\xe3\x80\x80" "b", "a b");
    expect_clean(c, "", "");
    cleaner_free(c);
}

Test(clean, rules_apply_in_order)
{
    px_cleaner *c = with_rule("cat", "dog");
    px_error err = {0};
    cr_assert_eq(cleaner_add(c, "dog", "bird", &err), 0, "%s", err.msg);
    cr_expect_eq(cleaner_count(c), 2);
    /* the second rule sees the first one's output */
    expect_clean(c, "cat dog", "bird bird");
    cleaner_free(c);

    c = with_rule("dog", "bird");
    cr_assert_eq(cleaner_add(c, "cat", "dog", &err), 0, "%s", err.msg);
    expect_clean(c, "cat dog", "dog bird");
    cleaner_free(c);
}

Test(clean, backreferences_and_extended_syntax)
{
    px_cleaner *c = with_rule("(\\w+)@(\\w+)", "$2 at ${1}");
    expect_clean(c, "mail user@host now", "mail host at user now");
    cleaner_free(c);
    /* PCRE2_SUBSTITUTE_EXTENDED: case forcing and conditional groups */
    c = with_rule("(\\w+)(!)?", "\\U$1\\E${2:+(loud):}");
    expect_clean(c, "hi yo!", "HI YO(loud)");
    cleaner_free(c);
}

Test(clean, compile_error_reports_offset)
{
    px_cleaner *c = cleaner_new();
    px_error err = {0};
    cr_expect_eq(cleaner_add(c, "(ab", "x", &err), -1);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect(strstr(err.msg, "pattern '(ab'"), "message: %s", err.msg);
    cr_expect(strstr(err.msg, "missing closing parenthesis"), "message: %s", err.msg);
    cr_expect(strstr(err.msg, "at offset 3"), "message: %s", err.msg);
    cr_expect_eq(cleaner_count(c), 0);
    /* \C could split a UTF-8 character, so it is refused */
    cr_expect_eq(cleaner_add(c, "a\\Cb", "x", &err), -1);
    cr_expect(strstr(err.msg, "offset"), "message: %s", err.msg);
    cr_expect_eq(cleaner_count(c), 0);
    cleaner_free(c);
}

Test(clean, catastrophic_pattern_hits_the_limit, .timeout = 10)
{
    px_cleaner *c = with_rule("(a+)+$", "x");
    px_error err = {0};
    const char *text = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab";
    char *got = cleaner_apply(c, text, strlen(text), NULL, &err);
    cr_expect_null(got);
    free(got);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect(strstr(err.msg, "limit"), "message: %s", err.msg);
    cr_expect(strstr(err.msg, "(a+)+$"), "message: %s", err.msg);
    cleaner_free(c);
}

Test(clean, unicode_letters_under_ucp)
{
    px_cleaner *c = with_rule("\\p{L}+", "W");
    expect_clean(c, "caf\xc3\xa9 日本 123 Zo\xc3\xab!", "W W 123 W!");
    cleaner_free(c);
    /* \w is Unicode-aware under UCP too */
    c = with_rule("\\w", ".");
    expect_clean(c, "\xc3\xa9t\xc3\xa9 \xce\xb1", "... .");
    cleaner_free(c);
}

Test(clean, output_larger_than_first_guess)
{
    /* each 'a' grows tenfold: the first buffer is too small, so this takes
     * the PCRE2_ERROR_NOMEMORY retry path */
    px_cleaner *c = with_rule("a", "0123456789");
    char text[1001];
    memset(text, 'a', 1000);
    text[1000] = '\0';
    px_error err = {0};
    size_t len = 0;
    char *got = cleaner_apply(c, text, 1000, &len, &err);
    cr_assert_not_null(got, "%s", err.msg);
    cr_expect_eq(len, 10000);
    cr_expect_eq(strlen(got), 10000);
    cr_expect_eq(strncmp(got + 9990, "0123456789", 10), 0);
    free(got);
    cleaner_free(c);
}

Test(clean, empty_matches_and_no_rules)
{
    px_cleaner *c = with_rule("x*", "-");
    expect_clean(c, "abc", "-a-b-c-");
    cleaner_free(c);
    c = cleaner_new();
    expect_clean(c, "unchanged \xc3\xa9", "unchanged \xc3\xa9");
    cleaner_free(c);
}

Test(clean, embedded_nul_is_kept)
{
    px_cleaner *c = with_rule("b", "B");
    px_error err = {0};
    size_t len = 0;
    char *got = cleaner_apply(c, "a\0b", 3, &len, &err);
    cr_assert_not_null(got, "%s", err.msg);
    cr_expect_eq(len, 3);
    cr_expect_eq(memcmp(got, "a\0B", 4), 0);
    free(got);
    cleaner_free(c);
}

Test(clean, invalid_utf8_text_is_an_error)
{
    px_cleaner *c = with_rule("a", "b");
    px_error err = {0};
    char *got = cleaner_apply(c, "ok\xff", 3, NULL, &err);
    cr_expect_null(got);
    free(got);
    cr_expect_eq(err.code, PX_EXIT_USAGE);
    cr_expect(strstr(err.msg, "UTF-8"), "message: %s", err.msg);
    cr_expect(strstr(err.msg, "byte 2"), "message: %s", err.msg);
    cleaner_free(c);
}

Test(clean, bad_replacement_is_reported)
{
    px_error err = {0};
    px_cleaner *c = cleaner_new();
    cr_expect_eq(cleaner_add(c, "a", "\xff", &err), -1);
    cr_expect(strstr(err.msg, "UTF-8"), "message: %s", err.msg);
    cr_expect_eq(cleaner_count(c), 0);
    /* a reference to a group that does not exist shows up on first match */
    cr_assert_eq(cleaner_add(c, "(a)", "$2", &err), 0, "%s", err.msg);
    char *got = cleaner_apply(c, "bab", 3, NULL, &err);
    cr_expect_null(got);
    free(got);
    cr_expect(strstr(err.msg, "'(a)'"), "message: %s", err.msg);
    cleaner_free(c);
}
