/* The review screen's insides, shared by its files (no public header):
 *
 *   tui.c      the session: start-up and tear-down, the loop, the modes
 *              and what each does with a key, the search and note editor
 *   draw.c     drawing: the theme onto curses, the header, the list, the
 *              example, the status line, the help and the demo's summary
 *   actions.c  the binding table's actions (parity/keys.h), one function
 *              each, and demo mode's one check before any of them
 *   script.c   the key-script driver for tests (PARITY_KEYS) */
#ifndef PARITY_TUI_IMPL_H
#define PARITY_TUI_IMPL_H

#include <stdio.h>
#include <wchar.h>

#include "parity/evidence.h"
#include "parity/history.h"
#include "parity/judge.h"
#include "parity/keys.h"
#include "parity/lineedit.h"
#include "parity/tui.h"
#include "parity/review.h"
#include "parity/runner.h"
#include "parity/session.h"
#include "parity/theme.h"

enum mode { M_LIST, M_SEARCH, M_NOTE, M_HELP, M_QUIT, M_SUMMARY, M_RELOAD, M_REPORT, M_EXPORT };

/* What a key asks the loop to redraw, as htop's actions answer: bits. The
 * status line is redrawn with anything else; PX_RE_QUIT ends the loop. */
enum px_reaction {
    PX_RE_NONE = 0,
    PX_RE_STATUS = 1u << 0, /* the status line */
    PX_RE_LIST = 1u << 1,   /* the list of examples */
    PX_RE_DETAIL = 1u << 2, /* the example under the cursor */
    PX_RE_ALL = 1u << 3,    /* the whole screen (the header, a mode's own screen) */
    PX_RE_QUIT = 1u << 4,   /* leave the screen */
};
#define PX_RE_CURSOR (PX_RE_LIST | PX_RE_DETAIL | PX_RE_STATUS) /* another example, or its mark */

typedef struct tui {
    const px_fixture *f;
    px_check cs;                 /* the check session (session.h): where each
                                    environment's results come from, the runs */
    px_results *res;             /* cs.res, or a stand-in while files load */
    px_runner *run;              /* cs.run */
    px_session rv;
    px_judgement j;
    int judged;
    px_history history;          /* the last good configurations (read only: check records them) */
    px_since *since;             /* parallel to res->envs, from the last judgement; NULL: not compared */
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
    int shown_running;           /* the header last drawn said "running…" */
    const px_tui_opts *opts;     /* as given: the results files, for an export */
    struct px_redactor *rd;      /* what the status line says is redacted */
    size_t summary_top, summary_rows; /* the summary's scroll, and its length when last drawn */
    size_t help_top;             /* the help screen's scroll */
    struct tui_load *load;       /* the results files being read in the background
                                    (NULL: read); res is a stand-in till then */
    int load_failed;             /* they could not be: load_err says why, the screen ends */
    px_error load_err;
} tui;

typedef struct key_ev {
    int fn;     /* 1: a curses KEY_* code */
    wint_t ch;
} key_ev;

/* tui.c */
void tui_say(tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Judge the results again (under the runner's lock when one runs). */
void tui_rejudge(tui *t);
/* Empty the runner's wake pipe and judge again; returns PX_RE_ALL
 * (PX_RE_QUIT when the results files could not be read). */
unsigned tui_drain_wake(tui *t);
/* Wait for the results files being read, and take them; what to redraw
 * (PX_RE_QUIT when they could not be read). */
unsigned tui_load_wait(tui *t);

/* draw.c */
void tui_apply_theme(tui *t);
/* Draw what the reaction bits ask for (nothing for PX_RE_NONE). */
void tui_draw(tui *t, unsigned what);
/* The rows above the list: the header and a blank. */
int tui_top_rows(const tui *t);
/* Untrusted text, made safe and cut to cols columns. */
void tui_put(tui *t, int y, int x, int cols, int el, const char *s);

/* summary.c */
/* The story (story.h) of what the screen shows now; NULL with *err while a
 * run is still going. */
struct px_story *tui_story(tui *t, px_error *err);
/* The summary screen, scrolled to t->summary_top. */
void tui_draw_summary(tui *t);

/* actions.c */
/* Run action a (PX_ACT_NONE: nothing); demo mode refuses the ones that
 * change the fixture or the journal here. Returns what to redraw. */
unsigned tui_act(tui *t, px_action a);
/* Write the decisions; a fixture changed on disk since it was read asks
 * first (M_RELOAD). */
unsigned tui_write(tui *t);
/* Read the fixture again and write the decisions on top. */
unsigned tui_reload_and_write(tui *t);
/* Write the report (HTML; Markdown for a .md path) or the export bundle
 * to path; says what happened. */
unsigned tui_write_report(tui *t, const char *path);
unsigned tui_write_export(tui *t, const char *path);

/* script.c */
/* One line of the key script: keys go into queue (at most 256). Returns
 * what to redraw, or -1 at the end of the script. */
int tui_script_step(tui *t, key_ev *queue, size_t *nq);

#endif
