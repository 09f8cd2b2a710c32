/* The note editor's model: a single-line UTF-8 buffer and a cursor that
 * moves by grapheme cluster. Cluster boundaries depend on what precedes
 * them (flags pair up from the start of a run), so positions are found by
 * scanning from the start of the line; a note is short, so that is cheap. */
#include "parity/lineedit.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "parity/textcell.h"

int lineedit_init(px_lineedit *ed, const char *initial)
{
    memset(ed, 0, sizeof *ed);
    char *text = textcell_sanitize(initial ? initial : "", initial ? strlen(initial) : 0);
    if (!text) {
        ed->buf = calloc(1, 1);
        ed->cap = ed->buf ? 1 : 0;
        return -1;
    }
    ed->buf = text;
    ed->len = ed->cursor = strlen(text);
    ed->cap = ed->len + 1;
    return 0;
}

void lineedit_free(px_lineedit *ed)
{
    if (!ed)
        return;
    free(ed->buf);
    memset(ed, 0, sizeof *ed);
}

/* The last cluster boundary at or before pos. */
static size_t floor_boundary(const px_lineedit *ed, size_t pos)
{
    size_t i = 0;
    while (i < ed->len) {
        size_t next = textcell_grapheme_end(ed->buf, ed->len, i, NULL);
        if (next > pos)
            break;
        i = next;
    }
    return i;
}

/* The first cluster boundary at or after pos. */
static size_t ceil_boundary(const px_lineedit *ed, size_t pos)
{
    size_t i = 0;
    while (i < pos && i < ed->len)
        i = textcell_grapheme_end(ed->buf, ed->len, i, NULL);
    return i;
}

static size_t prev_boundary(const px_lineedit *ed, size_t pos)
{
    return pos ? floor_boundary(ed, pos - 1) : 0;
}

static int reserve(px_lineedit *ed, size_t extra)
{
    if (extra > SIZE_MAX - ed->len - 1)
        return -1;
    size_t need = ed->len + extra + 1;
    if (need <= ed->cap)
        return 0;
    size_t cap = ed->cap > 16 ? ed->cap : 16;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *buf = realloc(ed->buf, cap);
    if (!buf)
        return -1;
    ed->buf = buf;
    ed->cap = cap;
    return 0;
}

/* A typed combining mark or joiner can merge with its neighbours into one
 * cluster; the cursor then goes to that cluster's end, after what was
 * typed. */
static int insert(px_lineedit *ed, const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || !textcell_is_safe(s, n))
        return PX_LE_CONTINUE;
    if (reserve(ed, n))
        return PX_LE_ERROR;
    memmove(ed->buf + ed->cursor + n, ed->buf + ed->cursor, ed->len - ed->cursor + 1);
    memcpy(ed->buf + ed->cursor, s, n);
    ed->len += n;
    ed->cursor = ceil_boundary(ed, ed->cursor + n);
    return PX_LE_CONTINUE;
}

/* Delete [from, to); deleting between a base and a mark can join clusters,
 * so the cursor is put back on a boundary. */
static void erase(px_lineedit *ed, size_t from, size_t to)
{
    if (from >= to)
        return;
    memmove(ed->buf + from, ed->buf + to, ed->len - to + 1);
    ed->len -= to - from;
    ed->cursor = ceil_boundary(ed, from);
}

static int is_space_cluster(const char *s, size_t n)
{
    utf8proc_int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)(n < 4 ? n : 4), &cp);
    return k > 0 && (size_t)k == n && utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

/* Where Ctrl-W deletes from, as in readline's unix-word-rubout: the start
 * of the last word before the cursor, so the spaces after it go too. */
static size_t word_start(const px_lineedit *ed)
{
    size_t i = 0, start = 0;
    int prev_space = 1;
    while (i < ed->cursor) {
        size_t next = textcell_grapheme_end(ed->buf, ed->len, i, NULL);
        int space = is_space_cluster(ed->buf + i, next - i);
        if (!space && prev_space)
            start = i;
        prev_space = space;
        i = next;
    }
    return start;
}

static int move_or_delete(px_lineedit *ed, int key)
{
    size_t cur = ed->cursor;
    switch (key) {
    case PX_KEY_LEFT:
        ed->cursor = prev_boundary(ed, cur);
        break;
    case PX_KEY_RIGHT:
        ed->cursor = textcell_grapheme_end(ed->buf, ed->len, cur, NULL);
        break;
    case PX_KEY_HOME:
    case PX_KEY_CTRL_A:
        ed->cursor = 0;
        break;
    case PX_KEY_END:
    case PX_KEY_CTRL_E:
        ed->cursor = ed->len;
        break;
    case PX_KEY_BACKSPACE:
    case PX_KEY_CTRL_H:
    case PX_KEY_ASCII_DEL:
        erase(ed, prev_boundary(ed, cur), cur);
        break;
    case PX_KEY_DELETE:
        erase(ed, cur, textcell_grapheme_end(ed->buf, ed->len, cur, NULL));
        break;
    case PX_KEY_CTRL_U:
        erase(ed, 0, cur);
        break;
    case PX_KEY_CTRL_K:
        erase(ed, cur, ed->len);
        break;
    case PX_KEY_CTRL_W:
        erase(ed, word_start(ed), cur);
        break;
    default: /* unknown keys are ignored */
        break;
    }
    return PX_LE_CONTINUE;
}

int lineedit_key(px_lineedit *ed, int key, const char *utf8_char)
{
    if (!ed || !ed->buf)
        return PX_LE_ERROR;
    switch (key) {
    case PX_KEY_CHAR: return utf8_char ? insert(ed, utf8_char) : PX_LE_CONTINUE;
    case PX_KEY_ENTER:
    case PX_KEY_RETURN: return PX_LE_DONE;
    case PX_KEY_ESC: return PX_LE_CANCEL;
    default: return move_or_delete(ed, key);
    }
}

/* Columns of the clusters in [from, to); both on boundaries. */
static long long span_width(const px_lineedit *ed, size_t from, size_t to)
{
    long long w = 0;
    while (from < to) {
        int g;
        from = textcell_grapheme_end(ed->buf, ed->len, from, &g);
        w += g;
    }
    return w;
}

/* The first byte shown: the old one, moved right just enough that the
 * cursor and its cluster fit, then left while the whole rest of the text
 * (and the cell past its end) still fits, to fill space freed by deleting. */
static size_t view_start(const px_lineedit *ed, int cols, size_t first)
{
    size_t cur = ed->cursor;
    first = floor_boundary(ed, first < cur ? first : cur);
    int under;
    textcell_grapheme_end(ed->buf, ed->len, cur, &under);
    if (under < 1)
        under = 1; /* the end of the text, or a zero-width cluster */
    long long w = span_width(ed, first, cur);
    while (first < cur && w + under > cols) {
        int g;
        first = textcell_grapheme_end(ed->buf, ed->len, first, &g);
        w -= g;
    }
    long long tail = span_width(ed, first, ed->len) + 1;
    while (first > 0) {
        size_t p = prev_boundary(ed, first);
        long long g = span_width(ed, p, first);
        if (tail + g > cols)
            break;
        tail += g;
        first = p;
    }
    return first;
}

int lineedit_view(const px_lineedit *ed, int cols, size_t *first_byte, int *cursor_col)
{
    if (!ed || !ed->buf || !first_byte || cols < 1)
        return -1;
    size_t first = view_start(ed, cols, *first_byte);
    long long col = span_width(ed, first, ed->cursor);
    size_t end = first;
    long long shown = 0;
    while (end < ed->len) {
        int g;
        size_t next = textcell_grapheme_end(ed->buf, ed->len, end, &g);
        if (shown + g > cols)
            break;
        shown += g;
        end = next;
    }
    *first_byte = first;
    if (cursor_col)
        *cursor_col = (int)(col < INT_MAX ? col : INT_MAX);
    return end - first < INT_MAX ? (int)(end - first) : INT_MAX;
}
