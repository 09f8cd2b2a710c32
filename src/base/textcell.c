/* Untrusted text made safe and measurable for a terminal: sanitizing,
 * widths, truncation and word wrap, all without curses so they can be
 * tested without a terminal. */
#include "parity/textcell.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#define REPLACEMENT 0xFFFD
#define ESCAPE_MAX 12 /* "\u{10FFFF}" and its NUL */

/* The character at s (n > 0 bytes left): its length, code point in *cp.
 * An invalid byte is taken as a one-byte U+FFFD, so every caller makes
 * progress and measures it as sanitize will show it. */
static size_t char_at(const char *s, size_t n, utf8proc_int32_t *cp)
{
    /* no sequence is longer than 4; clamping also keeps the cast exact */
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)(n < 4 ? n : 4), cp);
    if (k > 0)
        return (size_t)k;
    *cp = REPLACEMENT;
    return 1;
}

/* Bidi_Control: invisible, and they reorder or redirect what follows, so a
 * fixture could make text display other than it is (Trojan Source). */
static int is_bidi_control(utf8proc_int32_t cp)
{
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

static int needs_escape(utf8proc_int32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || is_bidi_control(cp);
}

/* Write how cp is shown into out (ESCAPE_MAX bytes); returns the length. */
static size_t escape_char(utf8proc_int32_t cp, char *out)
{
    utf8proc_int32_t pic;
    if (cp == '\t')
        pic = 0x2192; /* → */
    else if (cp == '\n')
        pic = 0x21B5; /* ↵ */
    else if (cp < 0x20)
        pic = 0x2400 + cp;
    else if (cp == 0x7F)
        pic = 0x2421;
    else
        return (size_t)snprintf(out, ESCAPE_MAX, "\\u{%04X}", (unsigned)cp);
    return (size_t)utf8proc_encode_char(pic, (utf8proc_uint8_t *)out);
}

/* The worst case is 4 output bytes per input byte: a 2-byte C1 control or
 * U+061C becomes 8 ASCII bytes; everything else grows less. */
char *textcell_sanitize(const char *s, size_t len)
{
    if (!s)
        len = 0;
    if (len > (SIZE_MAX - 1) / 4)
        return NULL;
    char *out = malloc(len * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        size_t k = char_at(s + i, len - i, &cp);
        if (cp == REPLACEMENT) /* a real U+FFFD or an invalid byte */
            o += (size_t)utf8proc_encode_char(cp, (utf8proc_uint8_t *)out + o);
        else if (needs_escape(cp))
            o += escape_char(cp, out + o);
        else {
            memcpy(out + o, s + i, k);
            o += k;
        }
        i += k;
    }
    out[o] = '\0';
    char *fit = realloc(out, o + 1);
    return fit ? fit : out;
}

int textcell_is_safe(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                              (utf8proc_ssize_t)(len - i < 4 ? len - i : 4), &cp);
        if (k <= 0 || needs_escape(cp))
            return 0;
        i += (size_t)k;
    }
    return 1;
}

int textcell_width(const char *s)
{
    size_t len = s ? strlen(s) : 0;
    long long w = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        i += char_at(s + i, len - i, &cp);
        w += utf8proc_charwidth(cp);
        if (w >= INT_MAX)
            return INT_MAX;
    }
    return (int)w;
}

size_t textcell_grapheme_end(const char *s, size_t len, size_t at, int *cols)
{
    int w = 0;
    size_t i = at;
    if (s && at < len) {
        utf8proc_int32_t prev, cp, state = 0;
        i += char_at(s + i, len - i, &prev);
        w = utf8proc_charwidth(prev);
        while (i < len) {
            size_t k = char_at(s + i, len - i, &cp);
            if (utf8proc_grapheme_break_stateful(prev, cp, &state))
                break;
            /* a long run of marks could otherwise overflow */
            if (w < INT_MAX - 2)
                w += utf8proc_charwidth(cp);
            i += k;
            prev = cp;
        }
    } else
        i = len;
    if (cols)
        *cols = w;
    return i;
}

#define ELLIPSIS "\xe2\x80\xa6" /* … U+2026, 1 column */
#define ELLIPSIS_LEN (sizeof ELLIPSIS - 1)

size_t textcell_fit(const char *s, int cols, char *out, size_t out_size)
{
    if (!out || out_size == 0)
        return 0;
    out[0] = '\0';
    if (!s || cols <= 0)
        return 0;
    size_t len = strlen(s), room = out_size - 1;
    int ellipsis = room >= ELLIPSIS_LEN;
    /* the prefix kept if s does not fit whole leaves room for the "…" */
    size_t cut_room = ellipsis ? room - ELLIPSIS_LEN : room;
    long long cut_cols = ellipsis ? cols - 1 : cols;
    size_t i = 0, cut = 0;
    long long width = 0;
    while (i < len) {
        int w;
        size_t end = textcell_grapheme_end(s, len, i, &w);
        width += w;
        if (width > cols || end > room)
            break;
        if (width <= cut_cols && end <= cut_room)
            cut = end;
        i = end;
    }
    if (i >= len) {
        memcpy(out, s, len);
        out[len] = '\0';
        return len;
    }
    memcpy(out, s, cut);
    if (ellipsis) {
        memcpy(out + cut, ELLIPSIS, ELLIPSIS_LEN);
        cut += ELLIPSIS_LEN;
    }
    out[cut] = '\0';
    return cut;
}

char *textcell_excerpt(const char *s, size_t len, int cols)
{
    char *safe = textcell_sanitize(s, len);
    if (!safe)
        return NULL;
    /* the fit is never longer than the text and its "…" */
    size_t size = strlen(safe) + ELLIPSIS_LEN + 1;
    char *out = malloc(size);
    if (out)
        textcell_fit(safe, cols, out, size);
    free(safe);
    return out;
}

/* A cluster where a line may break: one breaking space character. */
static int is_break_space(const char *s, size_t n)
{
    utf8proc_int32_t cp;
    size_t k = char_at(s, n, &cp);
    if (k != n || cp == 0x00A0 || cp == 0x2007 || cp == 0x202F)
        return 0;
    return utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

/* Where the line starting at pos ends, i.e. the next line's start: after the
 * last space before the first cluster that would overflow, or right before
 * that cluster when the line has no space (a word longer than the line).
 * Spaces never overflow; they hang, so the next line starts with a word. */
static size_t line_end(const char *s, size_t len, size_t pos, int cols)
{
    size_t i = pos, brk = pos;
    long long width = 0;
    while (i < len) {
        int w;
        size_t end = textcell_grapheme_end(s, len, i, &w);
        if (is_break_space(s + i, end - i))
            brk = end;
        else if (width + w > cols && i > pos)
            return brk > pos ? brk : i;
        width += w;
        i = end;
    }
    return len;
}

/* The end of the text of line s[start..next): before the break spaces that
 * hang there. Its width goes to *cols. */
static size_t visible_end(const char *s, size_t start, size_t next, int *cols)
{
    size_t i = start, end = start;
    long long width = 0, at_end = 0;
    while (i < next) {
        int w;
        size_t e = textcell_grapheme_end(s, next, i, &w);
        width += w;
        if (!is_break_space(s + i, e - i))
            end = e, at_end = width;
        i = e;
    }
    *cols = at_end < INT_MAX ? (int)at_end : INT_MAX;
    return end;
}

/* Shorten a line to cols columns (cols >= 0), between clusters, without
 * the break spaces the cut leaves at its end. */
static void line_shorten(const char *s, textcell_line *line, int cols)
{
    size_t i = line->start, keep = line->start;
    long long width = 0;
    while (i < line->end) {
        int w;
        size_t e = textcell_grapheme_end(s, line->end, i, &w);
        if (width + w > cols)
            break;
        width += w;
        i = keep = e;
    }
    line->end = visible_end(s, line->start, keep, &line->cols);
}

/* Characters (clusters) in s[from..len), less the break spaces it starts with. */
static size_t clusters_from(const char *s, size_t len, size_t from)
{
    size_t n = 0;
    for (size_t i = from, e; i < len; i = e) {
        e = textcell_grapheme_end(s, len, i, NULL);
        if (n || !is_break_space(s + i, e - i))
            n++;
    }
    return n;
}

int textcell_layout(const char *s, int cols, textcell_line *lines, int max_lines, size_t *hidden)
{
    if (hidden)
        *hidden = 0;
    if (!s || !lines || cols < 1 || max_lines < 1)
        return -1;
    size_t len = strlen(s), pos = 0;
    for (int n = 0; n < max_lines; n++) {
        size_t next = line_end(s, len, pos, cols);
        lines[n].start = pos;
        lines[n].end = visible_end(s, pos, next, &lines[n].cols);
        if (next >= len)
            return n + 1;
        pos = next;
    }
    /* More text than lines: the last one leaves a column for the "…"; the
     * hidden text starts after it (pos, the next line's start) or, when it
     * had to give way, where it now ends. */
    textcell_line *last = &lines[max_lines - 1];
    size_t from = pos;
    if (last->cols > cols - 1) {
        line_shorten(s, last, cols - 1);
        from = last->end;
    }
    if (hidden)
        *hidden = clusters_from(s, len, from);
    return max_lines;
}

int textcell_wrap(const char *s, int cols, size_t *starts, size_t max_lines)
{
    if (!s || cols < 1)
        return -1;
    size_t len = strlen(s), pos = 0;
    int lines = 0;
    for (;;) {
        if ((size_t)lines < max_lines)
            starts[lines] = pos;
        lines++;
        pos = line_end(s, len, pos, cols);
        if (pos >= len || lines == INT_MAX)
            return lines;
    }
}
