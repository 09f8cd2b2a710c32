/* Tests for the note editor's model: editing sessions key by key, with the
 * buffer, cursor and view worked out by hand in the comments. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/lineedit.h"
#include "parity/textcell.h"

#define E_ACUTE "\xc3\xa9"          /* é U+00E9, 2 bytes */
#define COMBINING_ACUTE "\xcc\x81"  /* U+0301, 2 bytes, 0 columns */
#define NI "\xe6\x97\xa5"           /* 日, 3 bytes, 2 columns */
#define HON "\xe6\x9c\xac"          /* 本 */
#define GO "\xe8\xaa\x9e"           /* 語 */
#define ESC_PIC "\xe2\x90\x9b"      /* U+241B */

static px_lineedit editor(const char *initial)
{
    px_lineedit ed;
    cr_assert_eq(lineedit_init(&ed, initial), 0);
    return ed;
}

static void type(px_lineedit *ed, const char *ch)
{
    cr_assert_eq(lineedit_key(ed, PX_KEY_CHAR, ch), PX_LE_CONTINUE);
}

static void press(px_lineedit *ed, int key, int times)
{
    for (int i = 0; i < times; i++)
        cr_assert_eq(lineedit_key(ed, key, NULL), PX_LE_CONTINUE);
}

static void expect_state(const px_lineedit *ed, const char *text, size_t cursor)
{
    cr_expect_str_eq(ed->buf, text);
    cr_expect_eq(ed->len, strlen(text));
    cr_expect_eq(ed->cursor, cursor, "cursor %zu, want %zu", ed->cursor, cursor);
    cr_expect_lt(ed->len, ed->cap);
}

Test(lineedit, init)
{
    px_lineedit ed = editor(NULL);
    expect_state(&ed, "", 0);
    lineedit_free(&ed);
    ed = editor("note");
    expect_state(&ed, "note", 4);
    lineedit_free(&ed);
    /* an old note with an escape sequence is edited in its visible form */
    ed = editor("a\x1b[31m\tb");
    expect_state(&ed, "a" ESC_PIC "[31m\xe2\x86\x92" "b", 12);
    lineedit_free(&ed);
    lineedit_free(&ed); /* freeing twice is harmless */
}

Test(lineedit, typing_moving_over_wide_and_combining)
{
    px_lineedit ed = editor("");
    /* "café 日本" with é typed as e + U+0301 */
    const char *keys[] = {"c", "a", "f", "e", COMBINING_ACUTE, " ", NI, HON};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        type(&ed, keys[i]);
    const char *text = "cafe" COMBINING_ACUTE " " NI HON;
    /* c0 a1 f2 e3 U+0301 4..5, space 6, 日 7..9, 本 10..12 */
    expect_state(&ed, text, 13);
    press(&ed, PX_KEY_LEFT, 1);
    expect_state(&ed, text, 10); /* before 本 */
    press(&ed, PX_KEY_LEFT, 1);
    expect_state(&ed, text, 7); /* over the wide 日 */
    press(&ed, PX_KEY_LEFT, 1);
    expect_state(&ed, text, 6);
    press(&ed, PX_KEY_LEFT, 1);
    expect_state(&ed, text, 3); /* e + U+0301 is one step */
    press(&ed, PX_KEY_LEFT, 3);
    expect_state(&ed, text, 0);
    press(&ed, PX_KEY_LEFT, 1);
    expect_state(&ed, text, 0);
    press(&ed, PX_KEY_RIGHT, 4);
    expect_state(&ed, text, 6);
    press(&ed, PX_KEY_RIGHT, 3);
    expect_state(&ed, text, 13);
    press(&ed, PX_KEY_RIGHT, 1);
    expect_state(&ed, text, 13);
    lineedit_free(&ed);
}

Test(lineedit, backspace_over_wide_and_combining)
{
    px_lineedit ed = editor("cafe" COMBINING_ACUTE " " NI HON);
    press(&ed, PX_KEY_BACKSPACE, 1);
    expect_state(&ed, "cafe" COMBINING_ACUTE " " NI, 10);
    press(&ed, PX_KEY_ASCII_DEL, 1); /* what a terminal sends for Backspace */
    expect_state(&ed, "cafe" COMBINING_ACUTE " ", 7);
    press(&ed, PX_KEY_CTRL_H, 1);
    expect_state(&ed, "cafe" COMBINING_ACUTE, 6);
    press(&ed, PX_KEY_BACKSPACE, 1); /* the whole e + U+0301 */
    expect_state(&ed, "caf", 3);
    press(&ed, PX_KEY_HOME, 1);
    press(&ed, PX_KEY_BACKSPACE, 1);
    expect_state(&ed, "caf", 0);
    lineedit_free(&ed);
}

Test(lineedit, delete_under_cursor)
{
    px_lineedit ed = editor("cafe" COMBINING_ACUTE NI "x");
    press(&ed, PX_KEY_CTRL_A, 1);
    press(&ed, PX_KEY_RIGHT, 3);
    press(&ed, PX_KEY_DELETE, 1);
    expect_state(&ed, "caf" NI "x", 3);
    press(&ed, PX_KEY_DELETE, 1);
    expect_state(&ed, "cafx", 3);
    press(&ed, PX_KEY_CTRL_E, 1);
    press(&ed, PX_KEY_DELETE, 1);
    expect_state(&ed, "cafx", 4);
    lineedit_free(&ed);
}

Test(lineedit, insert_in_the_middle_and_combining_after_base)
{
    px_lineedit ed = editor("ac");
    press(&ed, PX_KEY_LEFT, 1);
    type(&ed, NI);
    expect_state(&ed, "a" NI "c", 4);
    /* a mark typed after a base joins it; the cursor stays after it */
    press(&ed, PX_KEY_HOME, 1);
    press(&ed, PX_KEY_RIGHT, 1);
    type(&ed, COMBINING_ACUTE);
    expect_state(&ed, "a" COMBINING_ACUTE NI "c", 3);
    press(&ed, PX_KEY_LEFT, 1);
    expect_state(&ed, "a" COMBINING_ACUTE NI "c", 0);
    /* a pasted string goes in whole */
    type(&ed, "x" E_ACUTE);
    expect_state(&ed, "x" E_ACUTE "a" COMBINING_ACUTE NI "c", 3);
    lineedit_free(&ed);
}

Test(lineedit, flags_and_emoji_are_one_step)
{
    /* 🇫🇷 is two regional indicators; 👍🏽 a thumb and a skin tone */
    const char *fr = "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7";
    const char *thumb = "\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd";
    px_lineedit ed = editor("");
    type(&ed, fr);
    type(&ed, thumb);
    cr_expect_eq(ed.len, 16);
    press(&ed, PX_KEY_LEFT, 1);
    cr_expect_eq(ed.cursor, 8);
    press(&ed, PX_KEY_BACKSPACE, 1);
    cr_expect_str_eq(ed.buf, thumb);
    cr_expect_eq(ed.cursor, 0);
    lineedit_free(&ed);
}

Test(lineedit, unsafe_input_is_ignored)
{
    px_lineedit ed = editor("ok");
    const char *bad[] = {"\x1b", "\x1b[2J", "\t", "\n", "\x7f", "\xc2\x9b", "\xe2\x80\xae", "\xff", "\xe6\x97", "", "a\x01"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        type(&ed, bad[i]);
    cr_expect_eq(lineedit_key(&ed, PX_KEY_CHAR, NULL), PX_LE_CONTINUE);
    /* unknown keys, and printable codes without utf8_char */
    press(&ed, 'x', 1);
    press(&ed, 0x10FFFF, 1);
    press(&ed, -5, 1);
    expect_state(&ed, "ok", 2);
    lineedit_free(&ed);
}

Test(lineedit, ctrl_u_and_ctrl_k)
{
    px_lineedit ed = editor("hello world");
    press(&ed, PX_KEY_LEFT, 6);
    press(&ed, PX_KEY_CTRL_U, 1);
    expect_state(&ed, " world", 0);
    press(&ed, PX_KEY_CTRL_U, 1);
    expect_state(&ed, " world", 0);
    press(&ed, PX_KEY_END, 1);
    press(&ed, PX_KEY_LEFT, 3);
    press(&ed, PX_KEY_CTRL_K, 1);
    expect_state(&ed, " wo", 3);
    press(&ed, PX_KEY_CTRL_K, 1);
    expect_state(&ed, " wo", 3);
    lineedit_free(&ed);
}

Test(lineedit, ctrl_w_deletes_the_previous_word)
{
    px_lineedit ed = editor("foo bar  ");
    press(&ed, PX_KEY_CTRL_W, 1); /* the word and the spaces after it */
    expect_state(&ed, "foo ", 4);
    press(&ed, PX_KEY_CTRL_W, 1);
    expect_state(&ed, "", 0);
    press(&ed, PX_KEY_CTRL_W, 1);
    expect_state(&ed, "", 0);
    lineedit_free(&ed);

    ed = editor("foo bar baz");
    press(&ed, PX_KEY_LEFT, 4); /* after "bar" */
    press(&ed, PX_KEY_CTRL_W, 1);
    expect_state(&ed, "foo  baz", 4);
    lineedit_free(&ed);

    /* in mid-word it deletes only the part before the cursor */
    ed = editor("caf" E_ACUTE " " NI HON GO);
    press(&ed, PX_KEY_LEFT, 1);
    press(&ed, PX_KEY_CTRL_W, 1);
    expect_state(&ed, "caf" E_ACUTE " " GO, 6);
    press(&ed, PX_KEY_CTRL_W, 1);
    expect_state(&ed, GO, 0);
    lineedit_free(&ed);

    ed = editor("   ");
    press(&ed, PX_KEY_CTRL_W, 1);
    expect_state(&ed, "", 0);
    lineedit_free(&ed);
}

Test(lineedit, enter_and_escape)
{
    px_lineedit ed = editor("keep");
    cr_expect_eq(lineedit_key(&ed, PX_KEY_ENTER, NULL), PX_LE_DONE);
    cr_expect_eq(lineedit_key(&ed, PX_KEY_RETURN, NULL), PX_LE_DONE);
    cr_expect_eq(lineedit_key(&ed, PX_KEY_ESC, NULL), PX_LE_CANCEL);
    expect_state(&ed, "keep", 4);
    cr_expect_eq(lineedit_key(NULL, PX_KEY_ENTER, NULL), PX_LE_ERROR);
    lineedit_free(&ed);
    cr_expect_eq(lineedit_key(&ed, PX_KEY_ENTER, NULL), PX_LE_ERROR);
}

Test(lineedit, long_text_grows_the_buffer)
{
    px_lineedit ed = editor("");
    for (int i = 0; i < 1000; i++)
        type(&ed, i % 2 ? NI : "a");
    cr_expect_eq(ed.len, 2000);
    cr_expect_eq(ed.cursor, 2000);
    cr_expect_eq(textcell_width(ed.buf), 1500);
    press(&ed, PX_KEY_CTRL_U, 1);
    expect_state(&ed, "", 0);
    lineedit_free(&ed);
}

/* Call lineedit_view and check the shown bytes and the cursor column. */
static void expect_view(const px_lineedit *ed, int cols, size_t *first, size_t want_first,
                        int want_bytes, int want_col)
{
    int col = -1;
    int n = lineedit_view(ed, cols, first, &col);
    cr_expect_eq(*first, want_first, "first %zu, want %zu", *first, want_first);
    cr_expect_eq(n, want_bytes, "bytes %d, want %d", n, want_bytes);
    cr_expect_eq(col, want_col, "col %d, want %d", col, want_col);
}

Test(view, ascii_scrolls_only_as_needed)
{
    px_lineedit ed = editor("abcdefghij");
    size_t first = 0;
    /* cursor at the end needs a free cell: "hij" + cursor */
    expect_view(&ed, 4, &first, 7, 3, 3);
    press(&ed, PX_KEY_LEFT, 2); /* the view stays put */
    expect_view(&ed, 4, &first, 7, 3, 1);
    press(&ed, PX_KEY_HOME, 1);
    expect_view(&ed, 4, &first, 0, 4, 0);
    press(&ed, PX_KEY_RIGHT, 3);
    expect_view(&ed, 4, &first, 0, 4, 3);
    press(&ed, PX_KEY_RIGHT, 1); /* one step past the edge scrolls one */
    expect_view(&ed, 4, &first, 1, 4, 3);
    press(&ed, PX_KEY_LEFT, 1);
    expect_view(&ed, 4, &first, 1, 4, 2);
    /* the whole text fits in a wide field */
    expect_view(&ed, 11, &first, 0, 10, 3);
    lineedit_free(&ed);
}

Test(view, scrolls_back_after_deleting)
{
    px_lineedit ed = editor("abcdefghij");
    size_t first = 0;
    expect_view(&ed, 4, &first, 7, 3, 3);
    press(&ed, PX_KEY_BACKSPACE, 8);
    expect_view(&ed, 4, &first, 0, 2, 2);
    lineedit_free(&ed);
}

Test(view, wide_characters_count_two)
{
    px_lineedit ed = editor(NI HON GO);
    size_t first = 0;
    /* 日本語 is 6 columns; with the cursor cell, only 語 fits in 4 */
    expect_view(&ed, 4, &first, 6, 3, 2);
    press(&ed, PX_KEY_LEFT, 1);
    expect_view(&ed, 4, &first, 6, 3, 0);
    press(&ed, PX_KEY_LEFT, 1);
    expect_view(&ed, 4, &first, 3, 6, 0);
    /* in 5 columns: 本語 and the cursor cell */
    press(&ed, PX_KEY_END, 1);
    first = 0;
    expect_view(&ed, 5, &first, 3, 6, 4);
    lineedit_free(&ed);
}

Test(view, wide_glyph_under_cursor_is_whole)
{
    px_lineedit ed = editor("a" NI "b");
    size_t first = 0;
    press(&ed, PX_KEY_HOME, 1);
    press(&ed, PX_KEY_RIGHT, 1); /* on 日: a日 fills 3 columns */
    expect_view(&ed, 3, &first, 0, 4, 1);
    press(&ed, PX_KEY_RIGHT, 1); /* on b: 日b */
    expect_view(&ed, 3, &first, 1, 4, 2);
    lineedit_free(&ed);

    /* ab日 in 3 columns: 日 would need columns 3-4, so it is not drawn */
    ed = editor("ab" NI);
    first = 0;
    press(&ed, PX_KEY_HOME, 1);
    expect_view(&ed, 3, &first, 0, 2, 0);
    lineedit_free(&ed);
}

Test(view, narrowest_fields_and_bad_arguments)
{
    px_lineedit ed = editor(NI "ab");
    size_t first = 0;
    int col = 0;
    expect_view(&ed, 1, &first, 5, 0, 0);
    press(&ed, PX_KEY_LEFT, 1);
    expect_view(&ed, 1, &first, 4, 1, 0);
    press(&ed, PX_KEY_HOME, 1); /* a 2-column glyph cannot be shown in 1 */
    expect_view(&ed, 1, &first, 0, 0, 0);
    cr_expect_eq(lineedit_view(&ed, 0, &first, &col), -1);
    cr_expect_eq(lineedit_view(&ed, 5, NULL, &col), -1);
    cr_expect_eq(lineedit_view(NULL, 5, &first, &col), -1);
    /* a garbage or mid-character first_byte is clamped to a boundary */
    press(&ed, PX_KEY_END, 1);
    first = SIZE_MAX;
    expect_view(&ed, 3, &first, 3, 2, 2);
    first = 1; /* inside 日 */
    expect_view(&ed, 6, &first, 0, 5, 4);
    cr_expect_eq(lineedit_view(&ed, 6, &first, NULL), 5);
    lineedit_free(&ed);
}

/* Every cursor position in every narrow field: the cursor and its cluster
 * are inside the field, the view starts on a boundary at or before the
 * cursor, and what is drawn fits. */
Test(view, cursor_always_visible)
{
    px_lineedit ed = editor("x" NI "e" COMBINING_ACUTE " " HON "yz" GO);
    for (int cols = 1; cols <= 12; cols++) {
        size_t first = 0;
        press(&ed, PX_KEY_HOME, 1);
        for (int step = 0; step < 20; step++) {
            int col, under;
            int n = lineedit_view(&ed, cols, &first, &col);
            cr_assert_geq(n, 0);
            cr_assert_leq(first, ed.cursor);
            size_t end = textcell_grapheme_end(ed.buf, ed.len, ed.cursor, &under);
            (void)end;
            if (under < 1)
                under = 1;
            if (under <= cols)
                cr_expect_leq(col + under, cols, "cols %d cursor %zu", cols, ed.cursor);
            char shown[64];
            memcpy(shown, ed.buf + first, (size_t)n);
            shown[n] = '\0';
            cr_expect_leq(textcell_width(shown), cols);
            press(&ed, step < 10 ? PX_KEY_RIGHT : PX_KEY_LEFT, 1);
        }
    }
    lineedit_free(&ed);
}
