/* The theme module: the shipped themes, the file format and its errors,
 * inheritance and fallback, the search path, and when colour is wanted. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parity/theme.h"
#include "parity/utf8.h"
#include "testlib.h"

static const char *const shipped[] = {"default", "high-contrast", "light", "mono"};
#define N_SHIPPED (sizeof shipped / sizeof shipped[0])
static const char *const repo_dirs[] = {"themes"};

static px_theme load_ok(const char *name, const char *const *dirs, size_t n)
{
    px_theme t;
    px_error err = {0};
    char msg[2048] = "";
    int rc = theme_load(name, dirs, n, &t, &err);
    if (rc)
        px_error_format(&err, msg, sizeof msg);
    cr_assert_eq(rc, 0, "theme_load(%s): %s", name, msg);
    return t;
}

static px_theme parse_ok(const char *text)
{
    px_theme t;
    px_error err = {0};
    char msg[2048] = "";
    int rc = theme_parse("t.theme", text, strlen(text), &t, &err);
    if (rc)
        px_error_format(&err, msg, sizeof msg);
    cr_assert_eq(rc, 0, "parse: %s", msg);
    return t;
}

/* The rendered error of parsing text as "t.theme" (which must fail). */
static void parse_error(const char *path, const char *text, size_t len, char *out, size_t size)
{
    px_theme t;
    memset(&t, 0x5a, sizeof t);
    px_theme before = t;
    px_error err = {0};
    cr_assert_eq(theme_parse(path, text, len, &t, &err), -1, "no error for: %s", text);
    cr_expect_eq(err.code, 2);
    cr_expect_eq(memcmp(&t, &before, sizeof t), 0, "*out changed on error");
    px_error_format(&err, out, size);
}

static int same_theme(const px_theme *a, const px_theme *b)
{
    for (int i = 0; i < PX_EL_COUNT; i++)
        if (!theme_style_equal(&a->style[i], &b->style[i]))
            return 0;
    return a->unicode_symbols == b->unicode_symbols && !strcmp(a->name, b->name);
}

/* ---- the shipped themes ------------------------------------------------- */

Test(theme_shipped, each_parses_under_its_name)
{
    for (size_t i = 0; i < N_SHIPPED; i++) {
        px_theme t = load_ok(shipped[i], repo_dirs, 1);
        cr_expect_str_eq(t.name, shipped[i]);
    }
}

/* No exceptions are documented: in every theme the outcomes differ in
 * style, and where a theme has colours they differ in colour alone. */
Test(theme_shipped, outcomes_are_distinct)
{
    for (size_t i = 0; i < N_SHIPPED; i++) {
        px_theme t = load_ok(shipped[i], repo_dirs, 1);
        int colored = strcmp(shipped[i], "mono") != 0;
        for (int a = PX_EL_FIRST_OUTCOME; a <= PX_EL_LAST_OUTCOME; a++)
            for (int b = a + 1; b <= PX_EL_LAST_OUTCOME; b++) {
                const px_style *x = &t.style[a], *y = &t.style[b];
                cr_expect(!theme_style_equal(x, y), "%s: %s and %s look the same", shipped[i],
                          theme_element_name(a), theme_element_name(b));
                if (colored)
                    cr_expect(x->fg != y->fg || x->bg != y->bg, "%s: %s and %s share colours",
                              shipped[i], theme_element_name(a), theme_element_name(b));
            }
    }
}

/* The cursor row must not look like an outcome cell. */
Test(theme_shipped, selection_is_not_an_outcome_style)
{
    for (size_t i = 0; i < N_SHIPPED; i++) {
        px_theme t = load_ok(shipped[i], repo_dirs, 1);
        for (int a = PX_EL_FIRST_OUTCOME; a <= PX_EL_LAST_OUTCOME; a++)
            cr_expect(!theme_style_equal(&t.style[PX_EL_SELECTION], &t.style[a]), "%s: selection = %s",
                      shipped[i], theme_element_name(a));
    }
}

Test(theme_shipped, mono_file_is_the_builtin_and_colourless)
{
    px_theme file = load_ok("mono", repo_dirs, 1), built;
    theme_mono(&built);
    cr_expect(same_theme(&file, &built), "themes/mono.theme differs from theme_mono()");
    for (int i = 0; i < PX_EL_COUNT; i++) {
        cr_expect_eq(built.style[i].fg, PX_COLOR_DEFAULT, "%s fg", theme_element_name(i));
        cr_expect_eq(built.style[i].bg, PX_COLOR_DEFAULT, "%s bg", theme_element_name(i));
    }
    cr_expect_eq(built.unicode_symbols, 0);
    cr_expect_str_eq(built.name, "mono");
    cr_expect(built.style[PX_EL_FAIL].attrs & PX_ATTR_BOLD);
    cr_expect(built.style[PX_EL_ERROR].attrs & PX_ATTR_REVERSE);
}

Test(theme_shipped, default_file_is_the_builtin)
{
    px_theme file = load_ok("default", repo_dirs, 1), built;
    theme_default(&built);
    cr_expect(same_theme(&file, &built), "themes/default.theme differs from theme_default()");
    cr_expect_eq(built.unicode_symbols, 1);
}

/* ---- element names ------------------------------------------------------ */

Test(theme_names, round_trip_lower_case_with_dashes)
{
    for (int i = 0; i < PX_EL_COUNT; i++) {
        const char *n = theme_element_name(i);
        cr_assert(n, "element %d has no name", i);
        cr_expect_eq(theme_element_from_name(n), i, "%s", n);
        for (const char *p = n; *p; p++)
            cr_expect((*p >= 'a' && *p <= 'z') || *p == '-', "%s", n);
    }
    cr_expect_str_eq(theme_element_name(PX_EL_PASS_TOL), "pass-tol");
    cr_expect_str_eq(theme_element_name(PX_EL_NOT_EVALUATED), "not-evaluated");
    cr_expect_str_eq(theme_element_name(PX_EL_SEARCH_MATCH), "search-match");
    cr_expect_null(theme_element_name(-1));
    cr_expect_null(theme_element_name(PX_EL_COUNT));
    cr_expect_eq(theme_element_from_name("Pass"), -1);
    cr_expect_eq(theme_element_from_name("nope"), -1);
    cr_expect_eq(theme_element_from_name(NULL), -1);
}

/* ---- the format --------------------------------------------------------- */

Test(theme_format, words_colours_and_attributes)
{
    px_theme t = parse_ok("# c\n"
                          "\tpass=red   # no spaces round '='\r\n"
                          "fail = 0 on 255 bold dim reverse underline\n"
                          "drift = on bright-white\n"
                          "error = underline\n"
                          "bar = bright-black bold\n"
                          "bar = bright-black\n" /* a later line wins */
                          "symbols = ascii\n"
                          "\n   \n# end");
    cr_expect_str_eq(t.name, "t");
    cr_expect_eq(t.style[PX_EL_PASS].fg, 1);
    cr_expect_eq(t.style[PX_EL_PASS].bg, PX_COLOR_DEFAULT);
    cr_expect_eq(t.style[PX_EL_FAIL].fg, 0);
    cr_expect_eq(t.style[PX_EL_FAIL].bg, 255);
    cr_expect_eq(t.style[PX_EL_FAIL].attrs,
                 PX_ATTR_BOLD | PX_ATTR_DIM | PX_ATTR_REVERSE | PX_ATTR_UNDERLINE);
    cr_expect_eq(t.style[PX_EL_DRIFT].fg, PX_COLOR_DEFAULT);
    cr_expect_eq(t.style[PX_EL_DRIFT].bg, 15);
    cr_expect_eq(t.style[PX_EL_ERROR].fg, PX_COLOR_DEFAULT);
    cr_expect_eq(t.style[PX_EL_ERROR].attrs, PX_ATTR_UNDERLINE);
    cr_expect_eq(t.style[PX_EL_BAR].fg, 8);
    cr_expect_eq(t.style[PX_EL_BAR].attrs, 0);
    cr_expect_eq(t.unicode_symbols, 0);
}

Test(theme_format, empty_text_is_the_builtin_default)
{
    px_theme t, d;
    px_error err = {0};
    cr_assert_eq(theme_parse("dir/empty.theme", "", 0, &t, &err), 0);
    theme_default(&d);
    snprintf(d.name, sizeof d.name, "empty");
    cr_expect(same_theme(&t, &d));
}

/* len, not a NUL, ends the text. */
Test(theme_format, text_need_not_be_terminated)
{
    const char text[] = "pass = red\nfail = nonsense";
    px_theme t;
    px_error err = {0};
    cr_assert_eq(theme_parse("t.theme", text, strlen("pass = red\n"), &t, &err), 0);
    cr_expect_eq(t.style[PX_EL_PASS].fg, 1);
}

/* ---- fallback and inheritance ------------------------------------------- */

Test(theme_inherit, partial_theme_falls_back_to_builtin_default)
{
    const char *dirs[] = {"tests/data"};
    px_theme t = load_ok("theme-partial", dirs, 1), d;
    theme_default(&d);
    cr_expect_str_eq(t.name, "theme-partial");
    cr_expect_eq(t.style[PX_EL_FAIL].fg, 196);
    cr_expect_eq(t.style[PX_EL_FAIL].attrs, PX_ATTR_BOLD);
    cr_expect_eq(t.unicode_symbols, 0);
    for (int i = 0; i < PX_EL_COUNT; i++)
        if (i != PX_EL_FAIL)
            cr_expect(theme_style_equal(&t.style[i], &d.style[i]), "%s", theme_element_name(i));
}

Test(theme_inherit, partial_theme_inherits_from_another_dir)
{
    const char *dirs[] = {"tests/data", "themes"};
    px_theme t = load_ok("theme-child", dirs, 2), light = load_ok("light", repo_dirs, 1);
    cr_expect_str_eq(t.name, "theme-child");
    cr_expect_eq(t.style[PX_EL_PASS].fg, 22);
    cr_expect_eq(t.style[PX_EL_PASS].bg, 194);
    cr_expect_eq(t.unicode_symbols, 0);
    for (int i = 0; i < PX_EL_COUNT; i++)
        if (i != PX_EL_PASS)
            cr_expect(theme_style_equal(&t.style[i], &light.style[i]), "%s", theme_element_name(i));
}

/* theme_parse looks for an inherited theme beside the file. */
Test(theme_inherit, parse_looks_beside_the_file)
{
    const char text[] = "inherit = mono\npass = green\n";
    px_theme t, mono;
    px_error err = {0};
    cr_assert_eq(theme_parse("themes/mine.theme", text, strlen(text), &t, &err), 0, "%s", err.msg);
    theme_mono(&mono);
    cr_expect_str_eq(t.name, "mine");
    cr_expect_eq(t.style[PX_EL_PASS].fg, 2);
    cr_expect(theme_style_equal(&t.style[PX_EL_ERROR], &mono.style[PX_EL_ERROR]));
    cr_expect_eq(t.unicode_symbols, 0);
}

Test(theme_inherit, cycle_is_an_error_at_the_inherit)
{
    const char *dirs[] = {"tests/data"};
    px_theme t;
    px_error err = {0};
    char msg[2048];
    cr_assert_eq(theme_load("theme-cycle-a", dirs, 1, &t, &err), -1);
    px_error_format(&err, msg, sizeof msg);
    cr_expect_eq(err.code, 2);
    cr_expect_str_eq(msg, "tests/data/theme-cycle-b.theme:3:11: cyclic inherit: "
                          "theme-cycle-a -> theme-cycle-b -> theme-cycle-a");
    cr_assert_eq(theme_load("theme-self", dirs, 1, &t, &err), -1);
    px_error_format(&err, msg, sizeof msg);
    cr_expect_str_eq(msg, "tests/data/theme-self.theme:1:11: cyclic inherit: theme-self -> theme-self");
}

Test(theme_inherit, missing_inherited_theme_points_at_the_name)
{
    char msg[2048];
    const char text[] = "# x\n  inherit =   nope  # gone\n";
    parse_error("tests/data/theme-x.theme", text, strlen(text), msg, sizeof msg);
    cr_expect_str_eq(msg, "tests/data/theme-x.theme:2:15: no theme 'nope' in: tests/data");
}

/* ---- errors ------------------------------------------------------------- */

static const struct {
    const char *text, *want;
} bad[] = {
    {"pass = green\nfial = red\n", "t.theme:2:1: unknown element 'fial'"},
    {"pass = green\r\nPass = red\r\n", "t.theme:2:1: unknown element 'Pass'"},
    {"pass = gren bold\n", "t.theme:1:8: unknown colour 'gren'"},
    {"  fail = red on blu\n", "t.theme:1:17: unknown colour 'blu'"},
    {"fail = red blod\n", "t.theme:1:12: unknown attribute 'blod'"},
    {"fail = red ✓ blod\n", "t.theme:1:12: unknown attribute '✓'"},
    {"décor red\n", "t.theme:1:7: missing '=' after 'décor'"}, /* columns count characters */
    {"fail red\n", "t.theme:1:6: missing '=' after 'fail'"},
    {"fail\n", "t.theme:1:5: missing '=' after 'fail'"},
    {"fail # = red\n", "t.theme:1:6: missing '=' after 'fail'"},
    {"= red\n", "t.theme:1:1: missing element name before '='"},
    {"# c\n\nbar = 256\n", "t.theme:3:7: colour number 256 out of range 0-255"},
    {"bar = on 300\n", "t.theme:1:10: colour number 300 out of range 0-255"},
    {"bar = red 99999999999999999999\n",
     "t.theme:1:11: colour number 99999999999999999999 out of range 0-255"},
    {"bar = -1\n", "t.theme:1:7: colour number -1 out of range 0-255"},
    {"bar = 12x\n", "t.theme:1:7: unknown colour '12x'"},
    {"bar =\n", "t.theme:1:6: missing style after 'bar ='"},
    {"bar = # nothing\n", "t.theme:1:7: missing style after 'bar ='"},
    {"fail = red green\n", "t.theme:1:12: a second colour 'green': write 'on green' for a background"},
    {"fail = on\n", "t.theme:1:10: missing colour after 'on'"},
    {"fail = on red on blue\n", "t.theme:1:15: a second 'on': one background only"},
    {"symbols = fancy\n", "t.theme:1:11: unknown symbols 'fancy': ascii or unicode"},
    {"symbols = ascii unicode\n", "t.theme:1:17: unexpected 'unicode' after 'symbols = ascii'"},
    {"symbols =\n", "t.theme:1:10: missing value after 'symbols ='"},
    {"pass = red\ninherit = default\n", "t.theme:2:1: 'inherit' must come before any other setting"},
    {"inherit = ../x\n", "t.theme:1:11: bad theme name '../x': use letters, digits, '-' and '_' (at most 63)"},
    {"inherit = a b\n", "t.theme:1:13: unexpected 'b' after 'inherit = a'"},
};

Test(theme_errors, each_names_line_col_and_word)
{
    char msg[2048];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        parse_error("t.theme", bad[i].text, strlen(bad[i].text), msg, sizeof msg);
        cr_expect_str_eq(msg, bad[i].want, "for %s", bad[i].text);
    }
}

Test(theme_errors, nul_bytes_are_shown_not_cut)
{
    char msg[2048];
    parse_error("t.theme", "pa\0ss = red\n", 12, msg, sizeof msg);
    cr_expect_str_eq(msg, "t.theme:1:3: theme 't' is not a theme file: NUL byte \\x00 (in 'pa\\x00ss = red')");
}

/* ---- files that are not themes ------------------------------------------ */

/* What every theme error must be, whatever the file held: one line of
 * valid UTF-8 without a control character (C0, DEL or C1), so it can
 * neither garble the terminal nor drive it. */
static void expect_clean_line(const char *msg)
{
    size_t n = strlen(msg);
    cr_expect_eq(utf8_invalid_at(msg, n), -1, "not UTF-8 at byte %ld", utf8_invalid_at(msg, n));
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)msg[i], next = (unsigned char)msg[i + 1];
        cr_expect(ch >= 0x20 && ch != 0x7f, "control byte 0x%02X at %zu", ch, i);
        cr_expect(!(ch == 0xC2 && next >= 0x80 && next <= 0x9F), "C1 control at %zu", i);
    }
}

/* An escape \xNN: a backslash, 'x', two hex digits. */
static int has_escape(const char *msg)
{
    for (const char *p = strstr(msg, "\\x"); p; p = strstr(p + 1, "\\x"))
        if (strchr("0123456789ABCDEF", p[2]) && p[2] && strchr("0123456789ABCDEF", p[3]) && p[3])
            return 1;
    return 0;
}

/* Parse text as path, which must be refused as not a theme: the message
 * names the theme, the file and the line (and column), escapes the bytes. */
static void expect_not_a_theme(const char *path, const char *name, const char *text, size_t len,
                               int line, int col)
{
    px_theme t;
    px_error err = {0};
    char msg[2048], want[512];
    cr_assert_eq(theme_parse(path, text, len, &t, &err), -1, "%s: accepted", path);
    px_error_format(&err, msg, sizeof msg);
    expect_clean_line(msg);
    cr_expect_eq(err.code, 2);
    cr_expect_eq(err.line, line, "line %d, want %d: %s", err.line, line, msg);
    if (col)
        cr_expect_eq(err.col, col, "column %d, want %d: %s", err.col, col, msg);
    snprintf(want, sizeof want, "%s:%d:%d: theme '%s' is not a theme file: ", path, err.line,
             err.col, name);
    cr_expect(!strncmp(msg, want, strlen(want)), "%s\ndoes not start %s", msg, want);
}

/* A fixed generator, so a failure is reproducible. */
static unsigned next_random(unsigned *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

Test(theme_garbage, an_image_is_one_escaped_error)
{
    const char *dirs[] = {"tests/data"};
    px_theme t;
    px_error err = {0};
    char msg[2048];
    cr_assert_eq(theme_load("theme-garbage", dirs, 1, &t, &err), -1);
    px_error_format(&err, msg, sizeof msg);
    cr_expect_eq(err.code, 2);
    cr_expect_str_eq(msg, "tests/data/theme-garbage.theme:1:1: theme 'theme-garbage' is not a "
                          "theme file: byte \\x89 is not UTF-8 text (in '\\x89PNG')");
    expect_clean_line(msg);
    /* Inherited, the garbage is reported where it is. */
    const char text[] = "inherit = theme-garbage\n";
    parse_error("tests/data/mine.theme", text, strlen(text), msg, sizeof msg);
    cr_expect_str_eq(msg, "tests/data/theme-garbage.theme:1:1: theme 'theme-garbage' is not a "
                          "theme file: byte \\x89 is not UTF-8 text (in '\\x89PNG')");
}

Test(theme_garbage, random_bytes)
{
    static char buf[65536 + 1];
    for (unsigned seed = 1; seed <= 64; seed++) {
        unsigned st = seed * 2654435761u;
        size_t len = 1 + next_random(&st) % (sizeof buf - 1);
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)(next_random(&st) >> 11);
        buf[len] = '\0';
        px_theme t;
        px_error err = {0};
        char msg[2048];
        cr_assert_eq(theme_parse("dir/rnd.theme", buf, len, &t, &err), -1, "seed %u accepted", seed);
        px_error_format(&err, msg, sizeof msg);
        expect_clean_line(msg);
        cr_expect(err.line >= 1 && err.col >= 1, "seed %u: %s", seed, msg);
        cr_expect(!strncmp(msg, "dir/rnd.theme:", 14), "seed %u: %s", seed, msg);
        cr_expect(strstr(msg, "theme 'rnd' is not a theme file: ") != NULL, "seed %u: %s", seed, msg);
        cr_expect(has_escape(msg), "seed %u: %s", seed, msg);
    }
    /* After good lines, the line and column of the first bad byte. */
    memcpy(buf, "pass = red\n# ok\nfail = \xff\xfe\x01", 26);
    expect_not_a_theme("t.theme", "t", buf, 26, 3, 8);
}

Test(theme_garbage, nul_and_control_characters)
{
    static const struct {
        const char *text;
        size_t len;
        int line, col;
        const char *want;
    } cases[] = {
        {"pass = green\nfail = r\0ed\n", 26, 2, 9, "NUL byte \\x00 (in 'fail = r\\x00ed')"},
        {"pass = \x1b[31mred\n", 17, 1, 8, "control character \\x1B (in 'pass = \\x1B[31mred')"},
        {"pass = red \xc2\x9b" "1m\n", 16, 1, 12, "control character \\xC2\\x9B (in 'pass = red \\xC2\\x9B1m')"},
        {"# \xe2\x80\xae der\n", 10, 1, 3, "control character \\xE2\\x80\\xAE (in '# \\xE2\\x80\\xAE der')"},
        {"pass = red\x7f\n", 12, 1, 11, "control character \\x7F (in 'pass = red\\x7F')"},
        {"pass = red\rfail = blue\r\n", 24, 1, 11, "control character \\x0D (in 'pass = red\\x0Dfail = blue')"},
        {"pass =\vred\n", 11, 1, 7, "control character \\x0B (in 'pass =\\x0Bred')"},
        {"\n\n\f\n", 4, 3, 1, "control character \\x0C (in '\\x0C')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char msg[2048], want[512];
        parse_error("t.theme", cases[i].text, cases[i].len, msg, sizeof msg);
        snprintf(want, sizeof want, "t.theme:%d:%d: theme 't' is not a theme file: %s", cases[i].line,
                 cases[i].col, cases[i].want);
        cr_expect_str_eq(msg, want);
        expect_clean_line(msg);
    }
}

Test(theme_garbage, invalid_utf8_in_a_name_or_a_value)
{
    const char *dirs[] = {"tests/data"};
    px_theme t;
    px_error err = {0};
    char msg[2048];
    cr_assert_eq(theme_load("theme-garbage-latin1", dirs, 1, &t, &err), -1);
    px_error_format(&err, msg, sizeof msg);
    cr_expect_str_eq(msg, "tests/data/theme-garbage-latin1.theme:3:2: theme 'theme-garbage-latin1' "
                          "is not a theme file: byte \\xE9 is not UTF-8 text (in 'd\\xE9cor = red')");
    expect_clean_line(msg);
    static const struct {
        const char *text;
        int col;
        const char *want;
    } cases[] = {
        /* a valid é, then a lead byte without its continuation */
        {"pass = gr\xc3\xa9\xc3n\n", 11, "byte \\xC3 is not UTF-8 text (in 'pass = gré\\xC3n')"},
        {"fail = red on bl\xffue\n", 17, "byte \\xFF is not UTF-8 text (in 'fail = red on bl\\xFFue')"},
        {"pass = \xc0\xafred\n", 8, "byte \\xC0 is not UTF-8 text (in 'pass = \\xC0\\xAFred')"}, /* overlong */
        {"pass = \xed\xa0\x80\n", 8, "byte \\xED is not UTF-8 text (in 'pass = \\xED\\xA0\\x80')"}, /* surrogate */
        {"pass = red \xe2\x9c", 12, "byte \\xE2 is not UTF-8 text (in 'pass = red \\xE2\\x9C')"}, /* cut short */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[512];
        parse_error("t.theme", cases[i].text, strlen(cases[i].text), msg, sizeof msg);
        snprintf(want, sizeof want, "t.theme:1:%d: theme 't' is not a theme file: %s", cases[i].col,
                 cases[i].want);
        cr_expect_str_eq(msg, want);
        expect_clean_line(msg);
    }
}

/* The name comes from the path, which may hold anything. */
Test(theme_garbage, name_from_the_path_is_escaped_too)
{
    char msg[2048];
    parse_error("d/caf\xe9\x1b.theme", "\x01", 1, msg, sizeof msg);
    cr_expect_str_eq(msg, "d/caf\xe9\x1b.theme:1:1: theme 'caf\\xE9\\x1B' is not a theme file: "
                          "control character \\x01 (in '\\x01')");
    px_theme t;
    px_error err = {0};
    cr_assert_eq(theme_load("\x1b[2Jx\xff", repo_dirs, 1, &t, &err), -1);
    cr_expect_str_eq(err.msg, "bad theme name '\\x1B[2Jx\\xFF': use letters, digits, '-' and '_' "
                              "(at most 63)");
}

/* A megabyte on one line is refused at the limit, whatever it holds. */
Test(theme_garbage, one_mebibyte_line, .timeout = 20)
{
    size_t len = 1 << 20;
    char *text = malloc(len + 1);
    cr_assert_not_null(text);
    memset(text, 'a', len);
    memcpy(text, "# ", 2); /* a comment: without a limit, quietly accepted */
    text[len] = '\0';
    expect_not_a_theme("t.theme", "t", text, len, 1, 4097);
    char msg[2048];
    parse_error("t.theme", text, len, msg, sizeof msg);
    cr_expect_str_eq(msg, "t.theme:1:4097: theme 't' is not a theme file: a line longer than 4096 "
                          "bytes (in '...aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...')");
    /* Binary on one line: the first bad byte, escaped, on line 1. */
    unsigned st = 7;
    for (size_t i = 0; i < len; i++) {
        text[i] = (char)(next_random(&st) >> 9);
        if (text[i] == '\n')
            text[i] = '\xff';
    }
    expect_not_a_theme("t.theme", "t", text, len, 1, 0);
    parse_error("t.theme", text, len, msg, sizeof msg);
    cr_expect(has_escape(msg), "%s", msg);
    /* The same through a file, as the review screen loads it. */
    char *dir = tl_tmpdir(), path[512], want[1024];
    snprintf(path, sizeof path, "%s/long.theme", dir);
    memset(text, ' ', len);
    memcpy(text, "pass = red", 10);
    memcpy(text + 4200, "\xc3\x28", 2);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite(text, 1, len, f);
    fclose(f);
    const char *dirs[] = {dir};
    px_theme t;
    px_error err = {0};
    cr_assert_eq(theme_load("long", dirs, 1, &t, &err), -1);
    px_error_format(&err, msg, sizeof msg);
    snprintf(want, sizeof want, "%s:1:4097: theme 'long' is not a theme file: a line longer than 4096 bytes", path);
    cr_expect(!strncmp(msg, want, strlen(want)), "%s", msg);
    expect_clean_line(msg);
    unlink(path);
    rmdir(dir);
    free(dir);
    free(text);
}

/* One pass over the text: a megabyte of anything is refused or accepted
 * at once (a loop quadratic in the size would take hours here). */
Test(theme_garbage, large_inputs_in_linear_time, .timeout = 20)
{
    size_t len = 1 << 20;
    char *text = malloc(len + 1), msg[2048];
    cr_assert_not_null(text);
    const char *units[] = {"pass = red\n", "\n", "# \xc3\xa9\n", "fail = bold bold bold bold\n"};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t k = strlen(units[u]), n = 0;
        while (n + k <= len)
            memcpy(text + n, units[u], k), n += k;
        text[n] = '\0';
        px_theme t;
        px_error err = {0};
        cr_expect_eq(theme_parse("t.theme", text, n, &t, &err), 0, "%s", err.msg);
    }
    memset(text, 0, len); /* a megabyte of NULs: refused at the first */
    parse_error("t.theme", text, len, msg, sizeof msg);
    cr_expect_str_eq(msg, "t.theme:1:1: theme 't' is not a theme file: NUL byte \\x00 (in "
                          "'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
                          "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
                          "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
                          "\\x00\\x00\\x00...')");
    free(text);
}

/* What a theme file may hold: tabs, CRLF, a byte order mark, UTF-8 in comments. */
Test(theme_garbage, text_that_is_a_theme)
{
    px_theme t = parse_ok("\xef\xbb\xbfpass = red\r\n# café ✓ 色\r\nfail\t=\tblue\r");
    cr_expect_eq(t.style[PX_EL_PASS].fg, 1);
    cr_expect_eq(t.style[PX_EL_FAIL].fg, 4);
    char msg[2048];
    const char text[] = "\xef\xbb\xbf" "fial = red\n";
    parse_error("t.theme", text, strlen(text), msg, sizeof msg);
    cr_expect_str_eq(msg, "t.theme:1:1: unknown element 'fial'"); /* columns start after the mark */
}

/* A quoted word is cut between characters, never inside one. */
Test(theme_garbage, long_words_are_cut_between_characters)
{
    char text[512] = "fail = red a", msg[2048];
    for (int i = 0; i < 100; i++)
        strcat(text, "é");
    strcat(text, "\n");
    parse_error("t.theme", text, strlen(text), msg, sizeof msg);
    expect_clean_line(msg);
    cr_expect(strstr(msg, "unknown attribute 'aéé") != NULL, "%s", msg);
    cr_expect(strstr(msg, "é...'") != NULL, "%s", msg);
}

Test(theme_errors, missing_theme_names_the_dirs)
{
    const char *dirs[] = {"/nonexistent/user", NULL, "", "themes"};
    px_theme t;
    px_error err = {0};
    char msg[2048];
    cr_assert_eq(theme_load("nope", dirs, 4, &t, &err), -1);
    px_error_format(&err, msg, sizeof msg);
    cr_expect_eq(err.code, 2);
    cr_expect_str_eq(msg, "no theme 'nope' in: /nonexistent/user, themes");
    cr_assert_eq(theme_load("nope", dirs, 0, &t, &err), -1);
    cr_expect_str_eq(err.msg, "no theme 'nope': no theme directories to look in");
}

Test(theme_errors, bad_name_is_refused_before_any_path)
{
    px_theme t;
    px_error err = {0};
    cr_assert_eq(theme_load("../themes/default", repo_dirs, 1, &t, &err), -1);
    cr_expect_eq(err.code, 2);
    cr_expect_str_eq(err.msg, "bad theme name '../themes/default': use letters, digits, '-' and "
                              "'_' (at most 63)");
    cr_assert_eq(theme_load("", repo_dirs, 1, &t, &err), -1);
    cr_assert_eq(theme_load(NULL, repo_dirs, 1, &t, &err), -1);
}

/* Something there that cannot be read stops the search with its reason. */
Test(theme_errors, unreadable_theme)
{
    char *dir = tl_tmpdir(), path[512], msg[2048];
    snprintf(path, sizeof path, "%s/odd.theme", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    const char *dirs[] = {dir, "themes"};
    px_theme t;
    px_error err = {0};
    cr_assert_eq(theme_load("odd", dirs, 2, &t, &err), -1);
    px_error_format(&err, msg, sizeof msg);
    char want[2048];
    snprintf(want, sizeof want, "%s: cannot read theme 'odd' (%s): not a regular file", path, path);
    cr_expect_str_eq(msg, want);
    rmdir(path);
    if (geteuid() != 0) { /* root reads a mode-000 file anyway */
        tl_write(path, "pass = red\n");
        chmod(path, 0);
        cr_assert_eq(theme_load("odd", dirs, 2, &t, &err), -1);
        px_error_format(&err, msg, sizeof msg);
        snprintf(want, sizeof want, "%s: cannot read theme 'odd' (%s): Permission denied", path,
                 path);
        cr_expect_str_eq(msg, want);
        unlink(path);
    }
    rmdir(dir);
    free(dir);
}

/* ---- colour wanted ------------------------------------------------------ */

Test(theme_color, flag_and_tty_without_no_color)
{
    unsetenv("NO_COLOR");
    cr_expect_eq(theme_color_wanted("auto", 1), 1);
    cr_expect_eq(theme_color_wanted("auto", 0), 0);
    cr_expect_eq(theme_color_wanted(NULL, 1), 1);
    cr_expect_eq(theme_color_wanted(NULL, 0), 0);
    cr_expect_eq(theme_color_wanted("always", 0), 1);
    cr_expect_eq(theme_color_wanted("never", 1), 0);
    cr_expect_eq(theme_color_wanted("sometimes", 1), -1);
    cr_expect_eq(theme_color_wanted("", 1), -1);
}

Test(theme_color, no_color_set_and_non_empty_turns_auto_off)
{
    setenv("NO_COLOR", "1", 1);
    cr_expect_eq(theme_color_wanted("auto", 1), 0);
    cr_expect_eq(theme_color_wanted(NULL, 1), 0);
    cr_expect_eq(theme_color_wanted("never", 1), 0);
    /* no-color.org: a command-line flag overrides NO_COLOR. */
    cr_expect_eq(theme_color_wanted("always", 1), 1);
    setenv("NO_COLOR", "0", 1); /* any value at all, even "0" */
    cr_expect_eq(theme_color_wanted("auto", 1), 0);
    setenv("NO_COLOR", "", 1); /* empty is as if unset */
    cr_expect_eq(theme_color_wanted("auto", 1), 1);
    cr_expect_eq(theme_color_wanted("auto", 0), 0);
    unsetenv("NO_COLOR");
    cr_expect_eq(theme_color_wanted("auto", 1), 1);
}

/* ---- listing and the search path ---------------------------------------- */

Test(theme_list, shipped_plus_user_sorted_and_deduplicated)
{
    char *dir = tl_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/default.theme", dir);
    tl_write(path, "pass = 46\n");
    snprintf(path, sizeof path, "%s/mine.theme", dir);
    tl_write(path, "inherit = default\n");
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    tl_write(path, "not a theme\n");
    snprintf(path, sizeof path, "%s/bad name.theme", dir);
    tl_write(path, "pass = red\n");
    snprintf(path, sizeof path, "%s/.theme", dir);
    tl_write(path, "pass = red\n");
    snprintf(path, sizeof path, "%s/sub.theme", dir);
    mkdir(path, 0755);
    const char *dirs[] = {dir, "/nonexistent", "themes"};
    char names[16][64];
    size_t n = theme_list(dirs, 3, names, 16);
    const char *want[] = {"default", "high-contrast", "light", "mine", "mono"};
    cr_assert_eq(n, 5);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(names[i], want[i]);
    /* A short array keeps the first names in order. */
    cr_assert_eq(theme_list(dirs, 3, names, 2), 2);
    cr_expect_str_eq(names[0], "default");
    cr_expect_str_eq(names[1], "high-contrast");
    cr_expect_eq(theme_list(dirs, 3, names, 0), 0);
    /* The user's default shadows the shipped one; mine inherits the user's. */
    px_theme t = load_ok("default", dirs, 3), mine = load_ok("mine", dirs, 3);
    cr_expect_eq(t.style[PX_EL_PASS].fg, 46);
    cr_expect_eq(mine.style[PX_EL_PASS].fg, 46);
    cr_expect_str_eq(mine.name, "mine");
    const char *made[] = {"default.theme", "mine.theme", "notes.txt", "bad name.theme", ".theme"};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, made[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/sub.theme", dir);
    rmdir(path);
    rmdir(dir);
    free(dir);
}

Test(theme_list, user_dir_from_xdg_or_home)
{
    char buf[256];
    setenv("XDG_CONFIG_HOME", "/x/cfg", 1);
    setenv("HOME", "/home/u", 1);
    cr_expect_eq(theme_user_dir(buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "/x/cfg/parity/themes");
    setenv("XDG_CONFIG_HOME", "relative/cfg", 1); /* ignored, per the XDG spec */
    cr_expect_eq(theme_user_dir(buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "/home/u/.config/parity/themes");
    unsetenv("XDG_CONFIG_HOME");
    cr_expect_eq(theme_user_dir(buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "/home/u/.config/parity/themes");
    cr_expect_eq(theme_user_dir(buf, 8), -1);
    cr_expect_str_eq(buf, "");
    unsetenv("HOME");
    cr_expect_eq(theme_user_dir(buf, sizeof buf), -1);
}

/* The review screen asked for a theme that is not one: refused before
 * anything starts, one line naming the theme, its file and line, exit 2,
 * whether or not colour is on. */
Test(theme_garbage, review_refuses_a_bad_theme_by_name)
{
    char *dir = tl_tmpdir(), themes[300], path[400], cmd[800];
    snprintf(themes, sizeof themes, "%s/parity/themes", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp tests/data/theme-garbage.theme '%s/png.theme'", themes, themes);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/png.theme", themes);
    setenv("XDG_CONFIG_HOME", dir, 1);
    const char *colors[] = {"--color=always", "--color=never"};
    for (int i = 0; i < 2; i++) {
        cmd_result r = tl_run((const char *[]){"parity", "review", "fixtures/campus-club/fixture.yaml", "--results",
                                               "tests/data/campus-results.yaml", "--theme", "png", colors[i], NULL});
        cr_expect_eq(r.status, 2, "%s: %s", colors[i], r.err);
        cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
        cr_expect(strstr(r.err, path) && strstr(r.err, ":1:1: theme 'png' is not a theme file") &&
                      strstr(r.err, "\\x89"),
                  "%s", r.err);
        cr_expect(utf8_invalid_at(r.err, strlen(r.err)) < 0, "the message is UTF-8 text");
        tl_free(&r);
    }
    unsetenv("XDG_CONFIG_HOME");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}
