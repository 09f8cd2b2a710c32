/* Tests for textcell: untrusted text made safe and measurable for a
 * terminal. Expected strings are spelled out byte by byte; the comments
 * say which characters they are. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/textcell.h"

#define ESC_PIC "\xe2\x90\x9b"  /* U+241B */
#define FFFD "\xef\xbf\xbd"     /* U+FFFD */
#define ARROW "\xe2\x86\x92"    /* → U+2192 */
#define RETURN "\xe2\x86\xb5"   /* ↵ U+21B5 */
#define ELLIPSIS "\xe2\x80\xa6" /* … U+2026 */
#define NIHONGO "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e" /* 日本語 */
#define E_ACUTE_DECOMPOSED "e\xcc\x81" /* e + U+0301 */
#define GRINNING "\xf0\x9f\x98\x80" /* 😀 U+1F600 */

static void expect_sanitized(const char *in, size_t len, const char *want)
{
    char *got = textcell_sanitize(in, len);
    cr_assert_not_null(got);
    cr_expect_str_eq(got, want);
    free(got);
}

#define SANITIZED(lit, want) expect_sanitized(lit, sizeof lit - 1, want)

Test(sanitize, ansi_colour_sequence_is_shown_not_sent)
{
    SANITIZED("\x1b[31mred\x1b[0m", ESC_PIC "[31mred" ESC_PIC "[0m");
}

Test(sanitize, bidi_controls_are_spelled_out)
{
    /* U+202E RIGHT-TO-LEFT OVERRIDE would display "abc" backwards */
    SANITIZED("x\xe2\x80\xae" "abc", "x\\u{202E}abc");
    /* isolates U+2066 and U+2069, marks U+200F and U+061C */
    SANITIZED("\xe2\x81\xa6" "a\xe2\x81\xa9", "\\u{2066}a\\u{2069}");
    SANITIZED("\xe2\x80\x8f\xd8\x9c", "\\u{200F}\\u{061C}");
}

Test(sanitize, c1_controls)
{
    /* U+009B is CSI, U+0085 NEL, U+0080 the first, U+009F the last */
    SANITIZED("\xc2\x9b" "31m", "\\u{009B}31m");
    SANITIZED("\xc2\x85\xc2\x80\xc2\x9f", "\\u{0085}\\u{0080}\\u{009F}");
    /* U+00A0 is the first character after C1 and is kept */
    SANITIZED("\xc2\xa0", "\xc2\xa0");
}

Test(sanitize, invalid_bytes_become_one_replacement_each)
{
    /* a raw 0x9B is an 8-bit CSI on some terminals */
    SANITIZED("a\x9b" "b", "a" FFFD "b");
    SANITIZED("\xff\xfe", FFFD FFFD);
    /* truncated 日, overlong '/', UTF-16 surrogate U+D800 */
    SANITIZED("\xe6\x97", FFFD FFFD);
    SANITIZED("\xc0\xaf", FFFD FFFD);
    SANITIZED("\xed\xa0\x80", FFFD FFFD FFFD);
    /* a real U+FFFD is kept as it is */
    SANITIZED(FFFD, FFFD);
}

Test(sanitize, tab_newline_and_other_c0)
{
    /* tab → U+2192, LF ↵ U+21B5, CR ␍ U+240D, NUL ␀ U+2400, DEL ␡ U+2421 */
    SANITIZED("a\tb\nc\r", "a" ARROW "b" RETURN "c\xe2\x90\x8d");
    SANITIZED("a\0b\x7f", "a\xe2\x90\x80" "b\xe2\x90\xa1");
    SANITIZED("\x01\x1f", "\xe2\x90\x81\xe2\x90\x9f");
}

Test(sanitize, safe_text_is_unchanged)
{
    const char *s = "caf\xc3\xa9 " NIHONGO " " GRINNING " " E_ACUTE_DECOMPOSED " \\u{202E}";
    expect_sanitized(s, strlen(s), s);
    cr_expect(textcell_is_safe(s, strlen(s)));
    expect_sanitized("", 0, "");
    expect_sanitized(NULL, 0, "");
    cr_expect(!textcell_is_safe("\x1b", 1));
    cr_expect(!textcell_is_safe("\t", 1));
    cr_expect(!textcell_is_safe("\xe2\x80\xae", 3));
    cr_expect(!textcell_is_safe("\xe2\x80", 2));
    /* only len bytes are looked at */
    cr_expect(textcell_is_safe("ab\x1b", 2));
}

/* Whether out could make a terminal do anything but print: any C0, DEL or
 * C1 control, bidi control or invalid UTF-8 fails textcell_is_safe. */
static void expect_inert(const char *in, size_t len)
{
    char *out = textcell_sanitize(in, len);
    cr_assert_not_null(out);
    size_t n = strlen(out);
    cr_assert(textcell_is_safe(out, n), "sanitize left something unsafe (input %zu bytes)", len);
    char *again = textcell_sanitize(out, n);
    cr_assert_str_eq(again, out, "sanitize is not idempotent");
    free(again);
    free(out);
}

Test(sanitize, every_byte_pair_comes_out_inert)
{
    for (int a = 0; a < 256; a++)
        for (int b = 0; b < 256; b++) {
            char in[3] = {(char)a, (char)b, '\x80'};
            expect_inert(in, 2);
            expect_inert(in, 3);
        }
}

Test(sanitize, random_bytes_come_out_inert)
{
    unsigned seed = 12345;
    char in[64];
    for (int round = 0; round < 20000; round++) {
        for (size_t i = 0; i < sizeof in; i++) {
            seed = seed * 1103515245u + 12345u;
            /* bias towards the interesting bytes: controls, leads, continuations */
            unsigned r = (seed >> 16) & 0xff;
            in[i] = (char)(r < 64 ? 0x80 + r : r < 96 ? r - 64 : r < 112 ? 0xe2 : r);
        }
        expect_inert(in, (size_t)(seed % sizeof in));
    }
}

Test(width, columns)
{
    cr_expect_eq(textcell_width(NIHONGO), 6);
    cr_expect_eq(textcell_width(E_ACUTE_DECOMPOSED), 1);
    cr_expect_eq(textcell_width("caf\xc3\xa9"), 4);
    cr_expect_eq(textcell_width(GRINNING), 2);
    cr_expect_eq(textcell_width("a" NIHONGO GRINNING), 9);
    cr_expect_eq(textcell_width(""), 0);
    cr_expect_eq(textcell_width(NULL), 0);
    /* an invalid byte counts as the U+FFFD that sanitize shows */
    cr_expect_eq(textcell_width("a\xff"), 2);
}

Test(width, grapheme_clusters)
{
    int w;
    const char *s = E_ACUTE_DECOMPOSED "x";
    cr_expect_eq(textcell_grapheme_end(s, strlen(s), 0, &w), 3);
    cr_expect_eq(w, 1);
    cr_expect_eq(textcell_grapheme_end(s, strlen(s), 3, &w), 4);
    cr_expect_eq(textcell_grapheme_end(s, strlen(s), 4, &w), 4);
    cr_expect_eq(w, 0);
    /* a flag is two regional indicators: 🇫🇷 🇩🇪 */
    const char *flags = "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7\xf0\x9f\x87\xa9\xf0\x9f\x87\xaa";
    cr_expect_eq(textcell_grapheme_end(flags, 16, 0, NULL), 8);
    cr_expect_eq(textcell_grapheme_end(flags, 16, 8, NULL), 16);
    cr_expect_eq(textcell_grapheme_end(NIHONGO, 9, 3, &w), 6);
    cr_expect_eq(w, 2);
}

static void expect_fit(const char *s, int cols, const char *want)
{
    char out[64];
    memset(out, 'X', sizeof out);
    size_t n = textcell_fit(s, cols, out, sizeof out);
    cr_expect_str_eq(out, want, "fit(\"%s\", %d)", s, cols);
    cr_expect_eq(n, strlen(want));
    cr_expect_leq(textcell_width(out), cols < 0 ? 0 : cols);
}

Test(fit, whole_text_when_it_fits)
{
    expect_fit(NIHONGO, 6, NIHONGO);
    expect_fit(NIHONGO, 60, NIHONGO);
    expect_fit("abc", 3, "abc");
    expect_fit(E_ACUTE_DECOMPOSED, 1, E_ACUTE_DECOMPOSED);
    expect_fit("", 0, "");
}

Test(fit, wide_characters_at_the_boundary)
{
    /* 5 columns: 日本 (4) + … */
    expect_fit(NIHONGO, 5, "\xe6\x97\xa5\xe6\x9c\xac" ELLIPSIS);
    /* 4 columns: 本 would end in column 4, leaving none for …: 日… is 3 */
    expect_fit(NIHONGO, 4, "\xe6\x97\xa5" ELLIPSIS);
    expect_fit(NIHONGO, 3, "\xe6\x97\xa5" ELLIPSIS);
    expect_fit(NIHONGO, 2, ELLIPSIS);
    expect_fit(NIHONGO, 1, ELLIPSIS);
    expect_fit(NIHONGO, 0, "");
    /* a日本: 5 columns; in 4, a日 (3) + … */
    expect_fit("a\xe6\x97\xa5\xe6\x9c\xac", 4, "a\xe6\x97\xa5" ELLIPSIS);
    expect_fit(GRINNING "ab", 3, GRINNING ELLIPSIS);
}

Test(fit, combining_marks_stay_with_their_base)
{
    expect_fit(E_ACUTE_DECOMPOSED "x", 2, E_ACUTE_DECOMPOSED "x");
    expect_fit(E_ACUTE_DECOMPOSED "xy", 2, E_ACUTE_DECOMPOSED ELLIPSIS);
    expect_fit("ab", 1, ELLIPSIS);
}

/* An excerpt for a message: controls shown, never sent; cut between
 * clusters by columns, never inside a UTF-8 sequence. */
Test(fit, excerpt_is_safe_and_cut_by_columns)
{
    char *e = textcell_excerpt("a\tb\nc", 5, 10);
    cr_expect_str_eq(e, "a\xe2\x86\x92" "b\xe2\x86\xb5" "c");
    free(e);
    e = textcell_excerpt(NIHONGO "xyz", strlen(NIHONGO "xyz"), 5);
    cr_expect_str_eq(e, "\xe6\x97\xa5\xe6\x9c\xac" ELLIPSIS);
    free(e);
    /* a length that ends inside a character: its bytes become U+FFFD */
    e = textcell_excerpt(NIHONGO, 4, 10);
    cr_expect_str_eq(e, "\xe6\x97\xa5\xef\xbf\xbd");
    free(e);
    e = textcell_excerpt("\x1b[31mred", 8, 4);
    cr_expect_str_eq(e, "\xe2\x90\x9b[3" ELLIPSIS);
    free(e);
}

Test(fit, small_output_buffer)
{
    char out[8];
    /* 7 bytes of room: abcd + … */
    cr_expect_eq(textcell_fit("abcdefghij", 40, out, sizeof out), 7);
    cr_expect_str_eq(out, "abcd" ELLIPSIS);
    /* 日 is never cut in half by the byte limit: 3 bytes of room, … only */
    cr_expect_eq(textcell_fit(NIHONGO, 40, out, 4), 3);
    cr_expect_str_eq(out, ELLIPSIS);
    /* no room for … */
    cr_expect_eq(textcell_fit("abcdef", 40, out, 3), 2);
    cr_expect_str_eq(out, "ab");
    cr_expect_eq(textcell_fit(NIHONGO, 40, out, 3), 0);
    cr_expect_str_eq(out, "");
    cr_expect_eq(textcell_fit("abc", 40, out, 0), 0);
}

/* Wrap s at cols and compare the line starts with want[0..n). */
static void expect_wrap(const char *s, int cols, const size_t *want, int n)
{
    size_t starts[32];
    int got = textcell_wrap(s, cols, starts, 32);
    cr_assert_eq(got, n, "wrap(\"%s\", %d): %d lines, want %d", s, cols, got, n);
    for (int i = 0; i < n; i++)
        cr_expect_eq(starts[i], want[i], "wrap(\"%s\", %d) line %d", s, cols, i);
}

#define WRAP(s, cols, ...)                                                   \
    do {                                                                     \
        const size_t want_[] = {__VA_ARGS__};                                \
        expect_wrap(s, cols, want_, (int)(sizeof want_ / sizeof want_[0])); \
    } while (0)

Test(wrap, at_spaces)
{
    /* "the quick " | "brown fox" */
    WRAP("the quick brown fox", 10, 0, 10);
    WRAP("the quick brown fox", 19, 0);
    /* "the " | "quick " | "brown " | "fox" */
    WRAP("the quick brown fox", 5, 0, 4, 10, 16);
    /* spaces hang at the end of a line: "ab   " | "cd" */
    WRAP("ab   cd", 3, 0, 5);
    WRAP("", 5, 0);
    WRAP("abc   ", 3, 0);
}

Test(wrap, long_words_are_broken)
{
    WRAP("abcdefghij", 4, 0, 4, 8);
    /* "a " | "veryl" | "ongwo" | "rd" */
    WRAP("a verylongword", 5, 0, 2, 7, 12);
}

Test(wrap, wide_characters)
{
    /* 日本 | 語日 | 本 */
    WRAP(NIHONGO "\xe6\x97\xa5\xe6\x9c\xac", 5, 0, 6, 12);
    WRAP(NIHONGO, 4, 0, 6);
    /* too narrow for one wide glyph: one per line */
    WRAP(NIHONGO, 1, 0, 3, 6);
    /* "ab " | 日本 | 語 */
    WRAP("ab " NIHONGO, 4, 0, 3, 9);
    /* a no-break space is not a break: hard break "a\u00a0b" | "c" */
    WRAP("a\xc2\xa0" "bc", 3, 0, 4);
    /* U+3000 IDEOGRAPHIC SPACE is (2 columns): "日　" | "本" */
    WRAP("\xe6\x97\xa5\xe3\x80\x80\xe6\x9c\xac", 3, 0, 6);
}

Test(wrap, clusters_are_not_split)
{
    const char *s = E_ACUTE_DECOMPOSED E_ACUTE_DECOMPOSED E_ACUTE_DECOMPOSED;
    WRAP(s, 2, 0, 6);
    WRAP(s, 1, 0, 3, 6);
}

/* A word ending exactly on the edge stays on its line (its space hangs);
 * one that crosses it moves to the next, a wide glyph included. */
Test(wrap, exact_fit_and_crossing_the_edge)
{
    WRAP("abcd efgh", 4, 0, 5);
    WRAP("abcd efgh", 3, 0, 3, 5, 8);
    /* "abc日 " | "x": 5 columns exactly */
    WRAP("abc\xe6\x97\xa5 x", 5, 0, 7);
    /* "abc" | "日 x": 日 would straddle column 4-5 */
    WRAP("abc\xe6\x97\xa5 x", 4, 0, 3);
}

Test(wrap, counts_lines_beyond_max_and_rejects_no_columns)
{
    size_t starts[2] = {99, 99};
    cr_expect_eq(textcell_wrap("abcdefghij", 2, starts, 1), 5);
    cr_expect_eq(starts[0], 0);
    cr_expect_eq(starts[1], 99);
    cr_expect_eq(textcell_wrap("abcdefghij", 2, NULL, 0), 5);
    cr_expect_eq(textcell_wrap("abc", 0, starts, 2), -1);
    cr_expect_eq(textcell_wrap(NULL, 3, starts, 2), -1);
}

/* Every line, without its trailing spaces, fits in cols (no glyph here is
 * wider than the narrowest cols tried), and the lines cover the text. */
Test(wrap, lines_fit)
{
    const char *s = "Le caf\xc3\xa9 " NIHONGO " est " GRINNING " tr" E_ACUTE_DECOMPOSED "s   bon, vraiment tr\xc3\xa8s bon!";
    size_t len = strlen(s);
    for (int cols = 2; cols < 30; cols++) {
        size_t starts[64];
        int n = textcell_wrap(s, cols, starts, 64);
        cr_assert(n > 0 && n <= 64);
        cr_expect_eq(starts[0], 0);
        for (int i = 0; i < n; i++) {
            size_t end = i + 1 < n ? starts[i + 1] : len;
            cr_assert_gt(end, starts[i], "cols %d: empty line %d", cols, i);
            while (end > starts[i] && s[end - 1] == ' ')
                end--;
            char line[128];
            memcpy(line, s + starts[i], end - starts[i]);
            line[end - starts[i]] = '\0';
            cr_expect_leq(textcell_width(line), cols, "cols %d line %d: \"%s\"", cols, i, line);
        }
    }
}

/* ---- layout: wrapped lines as they are drawn ----------------------------- */

/* The lines of textcell_layout(s, cols, max) as "line|line|...", with "…"
 * after the last when it reports hidden text, and that count in *hidden. */
static char *laid_out(const char *s, int cols, int max, size_t *hidden)
{
    textcell_line lines[64];
    static char out[4096];
    int n = textcell_layout(s, cols, lines, max, hidden);
    cr_assert(n >= 1 && n <= max, "layout(\"%s\", %d, %d): %d lines", s, cols, max, n);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(lines[i].end - lines[i].start), s + lines[i].start);
        cr_expect_eq(lines[i].cols, textcell_width(line), "\"%s\": cols %d", line, lines[i].cols);
        int room = *hidden && i == n - 1 ? cols - 1 : cols;
        cr_expect_leq(lines[i].cols, room, "\"%s\" is wider than %d", line, room);
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "|" : "", line);
    }
    if (*hidden)
        snprintf(out + strlen(out), sizeof out - strlen(out), ELLIPSIS);
    return out;
}

#define LAID_OUT(s, cols, max, want, want_hidden)                                   \
    do {                                                                            \
        size_t hidden_ = 99;                                                        \
        cr_expect_str_eq(laid_out(s, cols, max, &hidden_), want, "cols %d", cols); \
        cr_expect_eq(hidden_, (size_t)(want_hidden), "\"%s\" hidden", s);           \
    } while (0)

/* The review screen at 120 columns: the word that ends exactly on the edge
 * keeps its last letter, and nothing is cut, so no "…". */
Test(layout, word_ending_on_the_edge_keeps_every_letter)
{
    const char *film = "Film club screening of Tarkovsky's Stalker on Thursday at 7pm in Geography room G3, "
                       "with a short discussion afterwards.";
    LAID_OUT(film, 79, 4,
             "Film club screening of Tarkovsky's Stalker on Thursday at 7pm in Geography room|"
             "G3, with a short discussion afterwards.",
             0);
    /* exact fits: the hanging space is not drawn */
    LAID_OUT("abcd efgh", 4, 4, "abcd|efgh", 0);
    LAID_OUT("abcd   efgh  ", 4, 4, "abcd|efgh", 0);
}

Test(layout, word_crossing_the_edge_moves_to_the_next_line)
{
    LAID_OUT("the quick brown fox", 12, 4, "the quick|brown fox", 0);
    LAID_OUT("the quick brown fox", 5, 4, "the|quick|brown|fox", 0);
    LAID_OUT("the quick brown fox", 19, 4, "the quick brown fox", 0);
    LAID_OUT("", 5, 4, "", 0);
}

Test(layout, word_longer_than_the_line_is_broken)
{
    LAID_OUT("a verylongword", 5, 8, "a|veryl|ongwo|rd", 0);
    LAID_OUT("abcdefghij", 4, 8, "abcd|efgh|ij", 0);
}

/* A wide character never straddles the edge: it moves on, leaving a blank
 * column; a base character keeps its combining marks. */
Test(layout, wide_characters_and_marks_at_the_edge)
{
    LAID_OUT("abc\xe6\x97\xa5\xe6\x9c\xac", 4, 4, "abc|\xe6\x97\xa5\xe6\x9c\xac", 0); /* abc|日本 */
    LAID_OUT(NIHONGO, 5, 4, "\xe6\x97\xa5\xe6\x9c\xac|\xe8\xaa\x9e", 0);              /* 日本|語 */
    LAID_OUT("ab " NIHONGO, 4, 4, "ab|\xe6\x97\xa5\xe6\x9c\xac|\xe8\xaa\x9e", 0);
    LAID_OUT("a" GRINNING GRINNING, 4, 4, "a" GRINNING "|" GRINNING, 0);
    LAID_OUT(E_ACUTE_DECOMPOSED E_ACUTE_DECOMPOSED E_ACUTE_DECOMPOSED, 2, 4,
             E_ACUTE_DECOMPOSED E_ACUTE_DECOMPOSED "|" E_ACUTE_DECOMPOSED, 0);
}

/* Only a text that needs more lines than there are gets a "…", after the
 * last line shown, which makes room for it; hidden counts what is left. */
Test(layout, cut_only_when_the_lines_run_out)
{
    LAID_OUT("one two three four", 5, 2, "one|two" ELLIPSIS, 10); /* "three four" */
    LAID_OUT("one two", 3, 2, "one|two", 0);                      /* exactly the lines there are */
    LAID_OUT("abcde fghij klm", 5, 1, "abcd" ELLIPSIS, 11);       /* "e fghij klm" */
    LAID_OUT("abc d efg", 5, 1, "abc" ELLIPSIS, 5);               /* "d efg" */
    LAID_OUT(NIHONGO " x", 4, 1, "\xe6\x97\xa5" ELLIPSIS, 4);     /* 日…, then 本語 x */
    LAID_OUT(E_ACUTE_DECOMPOSED E_ACUTE_DECOMPOSED " " E_ACUTE_DECOMPOSED, 2, 1,
             E_ACUTE_DECOMPOSED ELLIPSIS, 3);
    LAID_OUT("abcdefghij", 4, 2, "abcd|efg" ELLIPSIS, 3);
    size_t hidden = 99;
    textcell_line one;
    cr_expect_eq(textcell_layout("a b", 1, &one, 1, &hidden), 1);
    cr_expect_eq(one.end, 0); /* no column left but the "…"'s */
    cr_expect_eq(hidden, 3); /* "a b" */
}

Test(layout, rejects_no_room)
{
    textcell_line lines[2];
    size_t hidden = 99;
    cr_expect_eq(textcell_layout("abc", 0, lines, 2, &hidden), -1);
    cr_expect_eq(hidden, 0);
    cr_expect_eq(textcell_layout("abc", 3, lines, 0, NULL), -1);
    cr_expect_eq(textcell_layout(NULL, 3, lines, 2, NULL), -1);
    cr_expect_eq(textcell_layout("abc", 3, NULL, 2, NULL), -1);
}

/* For any width: every line fits and textcell_fit draws it unchanged (no
 * "…" where nothing is cut), and between lines only spaces are left out,
 * so every character of the text is shown. */
Test(layout, every_character_is_shown)
{
    const char *texts[] = {
        "Le caf\xc3\xa9 " NIHONGO " est " GRINNING " tr" E_ACUTE_DECOMPOSED "s   bon, vraiment tr\xc3\xa8s bon!",
        "Charity 5K around the lake this Saturday; run, jog or walk, and every entry fee goes to the "
        "campus food bank. We also need helpers to staff water stations and hand out medals.",
        NIHONGO NIHONGO " " NIHONGO "a" NIHONGO,
    };
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        const char *s = texts[k];
        for (int cols = 2; cols < 100; cols++) {
            textcell_line lines[128];
            size_t hidden = 99, at = 0;
            int n = textcell_layout(s, cols, lines, 128, &hidden);
            cr_assert(n >= 1 && hidden == 0, "text %zu cols %d: %d lines, %zu hidden", k, cols, n, hidden);
            for (int i = 0; i < n; i++) {
                for (; at < lines[i].start; at++)
                    cr_assert_eq(s[at], ' ', "text %zu cols %d: '%c' left out", k, cols, s[at]);
                char line[512], fit[512];
                snprintf(line, sizeof line, "%.*s", (int)(lines[i].end - lines[i].start), s + lines[i].start);
                textcell_fit(line, cols, fit, sizeof fit);
                cr_expect_str_eq(fit, line, "text %zu cols %d line %d", k, cols, i);
                at = lines[i].end;
            }
            for (; s[at]; at++)
                cr_assert_eq(s[at], ' ', "text %zu cols %d: '%c' left out at the end", k, cols, s[at]);
        }
    }
}
