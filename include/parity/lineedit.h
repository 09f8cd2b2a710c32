/* The note editor's model: an inline single-line UTF-8 editor with no
 * terminal in it. The curses layer maps its keys onto PX_KEY_* and draws
 * what lineedit_view says; everything else is here and unit-tested.
 *
 * The cursor moves and deletes by grapheme cluster (UAX #29): a base
 * character with its combining marks, an emoji sequence or a flag is one
 * step. The text only ever holds what textcell_sanitize leaves unchanged
 * (no controls, no bidi controls, valid UTF-8), so what is shown is what is
 * stored and every width is the one textcell measures. */
#ifndef PARITY_LINEEDIT_H
#define PARITY_LINEEDIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct px_lineedit {
    char *buf;       /* NUL-terminated; never NULL between init and free */
    size_t len, cap; /* bytes used (without the NUL) and allocated */
    size_t cursor;   /* byte offset, always on a character boundary */
} px_lineedit;

/* What lineedit_key tells the caller. */
enum px_le_result {
    PX_LE_ERROR = -1,   /* out of memory; the text is unchanged */
    PX_LE_CONTINUE = 0, /* keep editing */
    PX_LE_DONE = 1,     /* Enter: the text in buf is the answer */
    PX_LE_CANCEL = 2,   /* Esc: discard the edit */
};

/* Keys. The control keys have their ASCII values, so a terminal's raw byte
 * can be passed as is; the others are above anything curses returns. */
enum px_key {
    PX_KEY_CHAR = 0,         /* a typed character, given as utf8_char */
    PX_KEY_CTRL_A = 0x01,    /* to line start */
    PX_KEY_CTRL_E = 0x05,    /* to line end */
    PX_KEY_CTRL_H = 0x08,    /* backspace, as some terminals send it */
    PX_KEY_ENTER = 0x0A,     /* done (LF) */
    PX_KEY_CTRL_K = 0x0B,    /* delete to line end */
    PX_KEY_RETURN = 0x0D,    /* done (CR) */
    PX_KEY_CTRL_U = 0x15,    /* delete to line start */
    PX_KEY_CTRL_W = 0x17,    /* delete the previous word */
    PX_KEY_ESC = 0x1B,       /* cancel */
    PX_KEY_ASCII_DEL = 0x7F, /* backspace, as most terminals send it */
    PX_KEY_LEFT = 0x10000,
    PX_KEY_RIGHT,
    PX_KEY_HOME,
    PX_KEY_END,
    PX_KEY_BACKSPACE, /* delete the cluster before the cursor */
    PX_KEY_DELETE,    /* delete the cluster under the cursor */
};

/* Start editing a copy of initial (NULL: empty), cursor at its end.
 * initial goes through textcell_sanitize, so an old note holding a control
 * character is edited, and saved if confirmed, in its visible form.
 * Returns 0, or -1 when out of memory (ed is then empty and freeable). */
int lineedit_init(px_lineedit *ed, const char *initial);
void lineedit_free(px_lineedit *ed);

/* Apply one key. For PX_KEY_CHAR, utf8_char is the typed character's UTF-8
 * (a pasted string of several is inserted whole); it is ignored unless
 * textcell_is_safe accepts it, so Tab, Esc sequences and invalid bytes
 * never enter the text. Unknown keys are ignored. Returns enum
 * px_le_result. */
int lineedit_key(px_lineedit *ed, int key, const char *utf8_char);

/* Horizontal scrolling for a field of cols columns. *first_byte is in and
 * out: pass the value from the previous call (0 the first time) and the
 * view moves only as far as needed to keep the cursor, and the whole
 * cluster under it, visible (at the end of the text the cursor needs one
 * free cell); it scrolls back when text is deleted so no cells stay empty
 * while text is hidden on the left. A stale or garbage value is clamped.
 * On return, draw buf + *first_byte for the returned number of bytes
 * (never a partial wide glyph) and put the cursor at column *cursor_col
 * (if not NULL). Returns -1 when cols < 1. */
int lineedit_view(const px_lineedit *ed, int cols, size_t *first_byte, int *cursor_col);

#ifdef __cplusplus
}
#endif
#endif
