/* Untrusted text made safe and measurable for a terminal. Fixture texts,
 * labels and notes are shown in the review screen; a fixture must not be
 * able to send an escape sequence to the terminal, reorder what is shown
 * with bidi controls, or hide a difference (tab vs space) from a reviewer.
 *
 * Widths are display columns: the sum of utf8proc_charwidth over the code
 * points (wide CJK and emoji 2, combining marks 0), which is how curses
 * counts them too. Measuring functions expect sanitized text; an invalid
 * byte counts as 1 column, the width of the U+FFFD that sanitize shows.
 * Where text is cut, it is cut between grapheme clusters (UAX #29), so a
 * base character keeps its combining marks and a wide glyph is never split. */
#ifndef PARITY_TEXTCELL_H
#define PARITY_TEXTCELL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A malloc'd, NUL-terminated, valid UTF-8 copy of s[0..len) where
 *   C0 controls U+0000-U+001F  -> their control pictures U+2400+n
 *                                 (ESC -> U+241B, NUL -> U+2400, CR -> U+240D)
 *   TAB                        -> "→" U+2192 (not a space: a reviewer must
 *                                 see a tab/space difference)
 *   LF                         -> "↵" U+21B5
 *   DEL U+007F                 -> U+2421
 *   C1 controls U+0080-U+009F  -> "\u{0085}" (ASCII, 4+ hex digits)
 *   bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)
 *                              -> "\u{202E}" likewise
 *   each invalid UTF-8 byte    -> U+FFFD
 * Everything else is copied unchanged. NULL when out of memory. */
char *textcell_sanitize(const char *s, size_t len);

/* 1 when textcell_sanitize would return s[0..len) unchanged. */
int textcell_is_safe(const char *s, size_t len);

/* Display columns of s (NUL-terminated); INT_MAX if larger. */
int textcell_width(const char *s);

/* End (byte offset) of the grapheme cluster starting at byte `at` of
 * s[0..len); `at` must be a cluster boundary. *cols (if not NULL) gets the
 * cluster's width. Returns len, with *cols 0, when at >= len. */
size_t textcell_grapheme_end(const char *s, size_t len, size_t at, int *cols);

/* Copy into out the longest prefix of s that fits in cols columns. If s does
 * not fit whole, the prefix fits in cols-1 columns and "…" (1 column) is
 * appended. out is always NUL-terminated (when out_size > 0); when out_size
 * is what limits, the prefix is also cut between clusters, with "…" if
 * there are 3 bytes for it. Returns the bytes written, without the NUL. */
size_t textcell_fit(const char *s, int cols, char *out, size_t out_size);

/* A one-line excerpt of s[0..len) for a message or a table cell, malloc'd:
 * sanitized as textcell_sanitize does (a tab shows as "→", a newline as
 * "↵", an invalid byte as U+FFFD), then cut as textcell_fit does to cols
 * columns between clusters, with "…" when cut. NULL when out of memory. */
char *textcell_excerpt(const char *s, size_t len, int cols);

/* Word-wrap s to cols columns. Writes the byte offset where each line
 * starts into starts[0..max_lines) (starts may be NULL when max_lines is 0)
 * and returns the number of lines, which may exceed max_lines; -1 if
 * cols < 1. "" is one empty line.
 * Line i is s[starts[i]..starts[i+1]) (the last one runs to the end). Lines
 * break after spaces (Unicode Zs, except the no-break ones); a word longer
 * than a line is broken between clusters. Spaces at a break stay at the end
 * of the line they follow and may run past cols: draw a line without its
 * trailing spaces and it fits, except that a single glyph wider than cols
 * (a wide character when cols is 1) takes a line of its own. To draw the
 * lines, textcell_layout does that and marks a cut. */
int textcell_wrap(const char *s, int cols, size_t *starts, size_t max_lines);

/* A wrapped line as it is drawn: s[start..end), cols columns wide. */
typedef struct textcell_line {
    size_t start, end;
    int cols;
} textcell_line;

/* Wrap s as textcell_wrap does into at most max_lines lines, for drawing:
 * lines[i] leaves out the break spaces hanging at the line's end, so it
 * fits in cols (but for a single glyph wider than cols) and draws without
 * textcell_fit adding a "…", and every character of s is on some line. If
 * s needs more lines, the last line is shortened where needed so that a
 * "…" (1 column) fits after it, and *hidden (if not NULL) gets how many
 * characters (grapheme clusters) follow it, not counting the break spaces
 * right after it; else *hidden is 0. Returns the lines filled, or -1 when
 * cols or max_lines is below 1 (or s or lines is NULL). */
int textcell_layout(const char *s, int cols, textcell_line *lines, int max_lines, size_t *hidden);

#ifdef __cplusplus
}
#endif
#endif
