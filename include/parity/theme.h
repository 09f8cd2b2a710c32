/* Semantic colours for the review screen, htop style: drawing code asks for
 * an element ("fail", "selection"), never for a colour, so one theme file
 * restyles the whole screen. This module knows no curses: it only parses
 * and resolves themes; the curses module maps a px_theme onto colour pairs
 * and attributes. That keeps every theme testable without a terminal.
 *
 * A theme file (NAME.theme) is text, one setting a line; '#' starts a
 * comment where a word could start, blank lines are allowed:
 *
 *     inherit = default          # optional; only before any other setting
 *     symbols = unicode          # or ascii; optional
 *     fail    = bright-red bold
 *     header  = black on cyan
 *     ELEMENT = [FG] [on BG] [bold] [dim] [reverse] [underline]
 *
 * At least one word follows '='; "default" is the terminal's own colour.
 * Colours: default, black, red, green, yellow, blue, magenta, cyan, white,
 * bright-black .. bright-white (8-15), or a number 0-255. Names are
 * lower-case and case matters. A later line for the same element wins.
 * Elements a file does not set come from the theme it inherits, else from
 * the built-in default (theme_default), so a partial file is a whole theme.
 *
 * The file is UTF-8 text (a leading byte order mark is skipped) with lines
 * of at most 4096 bytes and no control characters but tab and CR before LF.
 * Anything else is refused as a whole before any setting is read, at the
 * first offending byte: "theme 'NAME' is not a theme file: byte \x89 is not
 * UTF-8 text (in '\x89PNG')", in time linear in the size.
 *
 * Every error is code 2 (PX_EXIT_USAGE) with file:line:col, the column (in
 * characters) of the offending word or byte. What an error quotes has its
 * control characters and non-UTF-8 bytes written \xNN, so the message is
 * one line of valid UTF-8 whatever the file holds. */
#ifndef PARITY_THEME_H
#define PARITY_THEME_H

#include <stddef.h>

#include "parity/error.h"

/* The screen's elements; the name a theme file uses is in the comment. */
enum px_element {
    PX_EL_NORMAL,        /* normal: ordinary text */
    PX_EL_DIM,           /* dim: secondary text (ids, hints, units) */
    PX_EL_BORDER,        /* border: frames and separators */
    PX_EL_TITLE,         /* title: pane titles */
    PX_EL_HEADER,        /* header: column headings, the top bar */
    PX_EL_SELECTION,     /* selection: the cursor row */
    PX_EL_REFERENCE,     /* reference: the reference environment's values */
    PX_EL_CANDIDATE,     /* candidate: the candidate environment's values */
    PX_EL_PASS,          /* pass */
    PX_EL_PASS_TOL,      /* pass-tol: pass within tolerance */
    PX_EL_FAIL,          /* fail: wrong-label, not-rejected, wrongly-rejected */
    PX_EL_DRIFT,         /* drift: numeric-drift */
    PX_EL_ERROR,         /* error: exception, crash, timeout, bad-shape, empty */
    PX_EL_UNSUPPORTED,   /* unsupported */
    PX_EL_REJECTED,      /* rejected: rejected-as-expected */
    PX_EL_NOT_EVALUATED, /* not-evaluated */
    PX_EL_RUNNING,       /* running: an example still being run */
    PX_EL_DECISION,      /* decision: a reviewer's recorded decision */
    PX_EL_FLAG,          /* flag: an example flagged for attention */
    PX_EL_CHANGED,       /* changed: a value that differs from last run */
    PX_EL_BAR,           /* bar: probability bars */
    PX_EL_STATUS,        /* status: the status line */
    PX_EL_SEARCH_MATCH,  /* search-match: text matching the search */
    PX_EL_HELP_KEY,      /* help-key: key names in help and the key bar */
    PX_EL_COUNT
};

/* The outcome elements, first to last, for code that walks them. */
#define PX_EL_FIRST_OUTCOME PX_EL_PASS
#define PX_EL_LAST_OUTCOME PX_EL_NOT_EVALUATED

#define PX_COLOR_DEFAULT (-1)

enum px_attr_bits {
    PX_ATTR_BOLD = 1u << 0,
    PX_ATTR_DIM = 1u << 1,
    PX_ATTR_REVERSE = 1u << 2,
    PX_ATTR_UNDERLINE = 1u << 3,
};

typedef struct px_style {
    int fg, bg;     /* 0-255, or PX_COLOR_DEFAULT */
    unsigned attrs; /* PX_ATTR_* bits */
} px_style;

typedef struct px_theme {
    char name[64];   /* the name it was loaded as (a file: its base name) */
    px_style style[PX_EL_COUNT];
    int unicode_symbols; /* 1: draw outcome symbols in Unicode; 0: ASCII */
} px_theme;

/* Find NAME.theme in dirs, first directory first (the user's directory
 * comes first so it shadows shipped themes), and parse it; an `inherit`
 * is looked up in the same dirs. NULL or "" entries in dirs are skipped.
 * A name is letters, digits, '-' and '_' only (it becomes a path). On
 * error *out is untouched. A missing theme is "no theme 'x' in: d1, d2". */
int theme_load(const char *name, const char *const *dirs, size_t n_dirs, px_theme *out,
               px_error *err);

/* Parse text (len bytes, need not be NUL-terminated) as the theme file at
 * path; the theme's name is path's base name less ".theme". An `inherit`
 * is looked up in path's own directory. On error *out is untouched. */
int theme_parse(const char *path, const char *text, size_t len, px_theme *out, px_error *err);

/* The built-in dark-terminal theme, "default"; themes/default.theme holds
 * the same values. Elements a theme file leaves out come from here. */
void theme_default(px_theme *out);

/* The built-in "mono" theme: no colours at all, only attributes and ASCII
 * symbols; every outcome has its own attributes. themes/mono.theme holds
 * the same values. For NO_COLOR and --color=never. */
void theme_mono(px_theme *out);

/* Whether to use colour. color_flag is the --color value ("auto", "always",
 * "never"; NULL means "auto"). "never" gives 0 and "always" 1; with "auto",
 * NO_COLOR set to a non-empty value gives 0 (no-color.org: a command-line
 * flag overrides NO_COLOR, so "always" wins), else is_tty decides.
 * Returns -1 for any other color_flag, for the caller to report. */
int theme_color_wanted(const char *color_flag, int is_tty);

/* The element's name as a theme file writes it; NULL when el is not one. */
const char *theme_element_name(int el);
/* The element named name, or -1. */
int theme_element_from_name(const char *name);

/* 1 when a and b draw the same. */
int theme_style_equal(const px_style *a, const px_style *b);

/* The names of the themes in dirs (files NAME.theme with a valid name),
 * sorted and de-duplicated, at most max of them (the first in sort order);
 * returns how many it stored. Unreadable directories are skipped. */
size_t theme_list(const char *const *dirs, size_t n_dirs, char names[][64], size_t max);

/* The user's theme directory: $XDG_CONFIG_HOME/parity/themes when that is
 * an absolute path, else $HOME/.config/parity/themes. Returns -1 (buf "")
 * when neither is set or the path does not fit. */
int theme_user_dir(char *buf, size_t size);
/* The themes that came with this parity, found from where it runs:
 * installed (PREFIX/bin/parity: ../share/parity/themes), or the source
 * tree's (build/parity: ../themes; build/san-x/parity: ../../themes): the
 * first that exists. */
void theme_shipped_dir(char *buf, size_t size);

#endif
