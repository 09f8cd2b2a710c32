/* The review screen's state, shared by its files, and what they answer the
 * loop. The screen's files, each with a header of its name, in the one
 * direction they call (no file calls one above it; the loop calls
 * drawing, drawing never calls back into the loop):
 *
 *   tui.c      the session: start-up and tear-down, the loop, the modes
 *              and what each does with a key, the search and note editor;
 *              it applies what the others answer (enum px_reaction)
 *   script.c   the key-script driver for tests (PARITY_KEYS)
 *   actions.c  the binding table's actions (parity/keys.h), one function
 *              each, and demo mode's one check before any of them
 *   load.c     where the results come from: read in the background, and
 *              judged again when the runner wakes the screen
 *   draw.c     drawing: which screens a frame draws, for the mode
 *   the screens, one file each (tig's one file a view):
 *     view_list.c    the header (the environments, their ladders) and the
 *                    list of examples
 *     view_detail.c  the example under the cursor: its text, its kind's
 *                    pane, the difference, the decision; it scrolls (J, K)
 *     view_status.c  the status line, and the editor on it
 *     view_help.c    the keys and the legend of the badges (?, b)
 *     view_whole.c   the example whole (v)
 *     summary.c      the summary (the story the reports tell)
 *   pager.c    the one scrolled screen the help, the whole example and the
 *              summary are: its top row, the keys that scroll it, its head
 *   pane.c     the example's pane for the fixture's kind of model (the one
 *              table here that names the kinds), and the parts the kinds
 *              share; one file a kind: pane_classifier.c, pane_generator.c,
 *              pane_embed.c
 *   badge.c    an environment's verdict on an example as the screens show
 *              it: its badge, its element, its line, what a wait says
 *   paint.c    the theme onto curses, and untrusted text into cells
 *   state.c    this state, and what the status line says */
#ifndef PARITY_TUI_STATE_H
#define PARITY_TUI_STATE_H

#include <stdio.h>
#include <wchar.h>

#include "parity/evidence.h"
#include "parity/history.h"
#include "parity/judge.h"
#include "parity/keys.h"
#include "parity/lineedit.h"
#include "parity/review.h"
#include "parity/runner.h"
#include "parity/session.h"
#include "parity/theme.h"

enum mode { M_LIST, M_SEARCH, M_NOTE, M_HELP, M_QUIT, M_SUMMARY, M_RELOAD, M_REPORT, M_EXPORT, M_WHOLE };

/* What a key asks the loop to do, as htop's actions answer: bits. The
 * status line is redrawn with anything else; PX_RE_JUDGE has the loop judge
 * the results again (before it draws); PX_RE_QUIT ends the loop. */
enum px_reaction {
    PX_RE_NONE = 0,
    PX_RE_STATUS = 1u << 0, /* the status line */
    PX_RE_LIST = 1u << 1,   /* the list of examples */
    PX_RE_DETAIL = 1u << 2, /* the example under the cursor */
    PX_RE_ALL = 1u << 3,    /* the whole screen (the header, a mode's own screen) */
    PX_RE_QUIT = 1u << 4,   /* leave the screen */
    PX_RE_JUDGE = 1u << 5,  /* judge the results again (tui_rejudge) */
};
#define PX_RE_CURSOR (PX_RE_LIST | PX_RE_DETAIL | PX_RE_STATUS) /* another example, or its mark */

/* A scrolled screen's place (pager.h): the row at its top, and its rows
 * when last drawn. */
typedef struct tui_pager {
    size_t top, rows;
} tui_pager;

typedef struct tui {
    const px_fixture *f;
    px_check cs;                 /* the check session (session.h): where each
                                    environment's results come from, the runs */
    px_results *res;             /* cs.res, or a stand-in while files load */
    px_runner *run;              /* cs.run */
    px_session rv;
    px_judgement j;
    int judged;
    px_since *since;             /* parallel to res->envs, from the last judgement (session_judge, against
                                    cs.history); NULL: not compared */
    px_theme theme;
    char themes[16][64];
    size_t n_themes, theme_i;
    const char *theme_dirs[3]; /* the user's, the ones that came with parity, NULL */
    int color, wake, wake_w;     /* the wake pipe's ends: the runner and the loading write it */
    FILE *script;
    const char *dump_dir;
    enum mode mode;
    px_lineedit ed;
    size_t ed_first;             /* the edit field's scroll, kept between frames */
    char search[256], msg[1200];
    int details, demo, hide_list;
    int side_labels;             /* labels a side shows in the detail now (3, or 1 when short) */
    int verdict_cap;             /* rows a side's verdict may take (0: all) */
    int line_cap;                /* rows a capped long line takes (2; 1 at the tightest) */
    int text_min;                /* rows the example's text keeps, its hint included */
    int shown_running;           /* the header last drawn said "running…" */
    const char *const *results_files; /* --results as given, for an export */
    size_t n_results_files;
    struct px_redactor *rd;      /* what the status line says is redacted */
    tui_pager summary, help;     /* the summary's scroll, the help screen's */
    int help_badges;             /* the help screen opens at its legend of the badges (b) */
    long detail_k;               /* the example the pane's scroll is for (another: from the top) */
    int detail_top;              /* the example's pane scrolled this many rows (J, K) */
    int detail_more;             /* rows of it below the pane when last drawn */
    tui_pager whole;             /* the whole view's scroll (v) */
    void *canvas;                /* the curses WINDOW the drawing goes to (NULL: the screen) */
    struct tui_load *load;       /* the results files being read in the background
                                    (NULL: read); res is a stand-in till then */
    int load_failed;             /* they could not be: load_err says why, the screen ends */
    px_error load_err;
} tui;

typedef struct key_ev {
    int fn;     /* 1: a curses KEY_* code */
    wint_t ch;
} key_ev;

/* Say something on the status line (redacted as the fixture asks). */
void tui_say(tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
