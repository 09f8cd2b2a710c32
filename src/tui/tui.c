/* parity review: the review screen. The runner thread fills the results and
 * wakes this thread through a pipe polled together with the keyboard, so the
 * first frame appears before any executor is ready and the screen never
 * blocks on one. This file: the session's start and end, the loop, and what
 * each mode does with a key, applying what the actions answer; the actions,
 * the results' loading, drawing and the key-script driver have their own
 * files below it (state.h says which). */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/tui.h"
#include "parity/redact.h"
#include "actions.h"
#include "draw.h"
#include "load.h"
#include "pager.h"
#include "paint.h"
#include "script.h"
#include "state.h"

static int le_key(key_ev k)
{
    if (k.fn)
        switch (k.ch) {
        case KEY_LEFT: return PX_KEY_LEFT;
        case KEY_RIGHT: return PX_KEY_RIGHT;
        case KEY_HOME: return PX_KEY_HOME;
        case KEY_END: return PX_KEY_END;
        case KEY_BACKSPACE: return PX_KEY_BACKSPACE;
        case KEY_DC: return PX_KEY_DELETE;
        case KEY_ENTER: return PX_KEY_ENTER;
        default: return -1;
        }
    return k.ch < 0x20 || k.ch == 0x7F ? (int)k.ch : PX_KEY_CHAR;
}

/* A key in the search or note editor on the status line. */
static unsigned edit_key(tui *t, key_ev k)
{
    char u[8] = "";
    int key = le_key(k);
    if (key == PX_KEY_CHAR) {
        mbstate_t st = {0};
        size_t n = wcrtomb(u, (wchar_t)k.ch, &st);
        u[n == (size_t)-1 ? 0 : n] = '\0';
    }
    if (key < 0)
        return PX_RE_NONE;
    int r = lineedit_key(&t->ed, key, u);
    if (r == PX_LE_CONTINUE)
        return PX_RE_STATUS;
    px_error err = {0};
    char w[16];
    if (r == PX_LE_DONE && t->mode == M_SEARCH) {
        snprintf(t->search, sizeof t->search, "%s", t->ed.buf);
        int found = review_search(&t->rv, t->search, 1, &err);
        if (found < 0)
            tui_say(t, "%s", err.msg);
        else if (found > 0)
            tui_say(t, "/%s: no match", t->search);
    } else if (r == PX_LE_DONE && t->mode == M_REPORT) {
        tui_write_report(t, t->ed.buf);
    } else if (r == PX_LE_DONE && t->mode == M_EXPORT) {
        tui_write_export(t, t->ed.buf);
    } else if (r == PX_LE_DONE && t->mode == M_NOTE) {
        if (review_note(&t->rv, t->ed.buf, &err))
            tui_say(t, "%s", err.msg);
        else
            tui_say(t, "note recorded (journaled; %s writes it)", key_first(PX_ACT_WRITE, w, sizeof w));
    }
    lineedit_free(&t->ed);
    t->mode = M_LIST;
    curs_set(0);
    return r == PX_LE_DONE ? PX_RE_CURSOR : PX_RE_STATUS;
}

/* The summary scrolls with the moving keys (pager.h); q quits, ? helps,
 * any other key goes on to the examples. */
static unsigned summary_key(tui *t, px_action a)
{
    if (pager_key(&t->summary, a))
        return PX_RE_ALL;
    if (a == PX_ACT_QUIT)
        return PX_RE_QUIT;
    t->mode = a == PX_ACT_HELP ? M_HELP : M_LIST;
    return PX_RE_ALL;
}

/* The help and the whole example scroll with the moving keys (pager.h;
 * the help when the screen is short); b goes to the legend; any other key
 * returns. */
static unsigned pager_mode_key(tui *t, px_action a)
{
    if (pager_key(t->mode == M_HELP ? &t->help : &t->whole, a))
        return PX_RE_ALL;
    if (a == PX_ACT_BADGES)
        t->mode = M_HELP, t->help_badges = 1;
    else
        t->mode = M_LIST;
    return PX_RE_ALL;
}

static px_action action_of(key_ev k) { return k.fn || k.ch < 128 ? key_action((int)k.ch) : PX_ACT_NONE; }

/* While the results load, the examples can be walked and the screen set
 * up; what needs the results waits for them. */
static unsigned loading_act(tui *t, px_action a)
{
    switch (a) {
    case PX_ACT_NONE: case PX_ACT_DOWN: case PX_ACT_UP: case PX_ACT_FIRST: case PX_ACT_LAST:
    case PX_ACT_PAGE_DOWN: case PX_ACT_PAGE_UP: case PX_ACT_DETAILS: case PX_ACT_THEME: case PX_ACT_LIST:
    case PX_ACT_HELP: case PX_ACT_QUIT: case PX_ACT_SCROLL_DOWN: case PX_ACT_SCROLL_UP: case PX_ACT_BADGES:
        return tui_act(t, a);
    default:
        tui_say(t, "the results are still loading: %s waits for them", key_defs[a].name);
        return PX_RE_STATUS;
    }
}

/* One key, as the mode takes it; returns what to redraw. */
static unsigned handle(tui *t, key_ev k)
{
    if (k.fn && k.ch == KEY_RESIZE)
        return PX_RE_ALL;
    unsigned r = t->msg[0] ? PX_RE_STATUS : PX_RE_NONE; /* a key ends the message shown */
    t->msg[0] = '\0';
    switch (t->mode) {
    case M_SEARCH: case M_NOTE: case M_REPORT: case M_EXPORT:
        r |= edit_key(t, k);
        break;
    case M_HELP: case M_WHOLE:
        r |= pager_mode_key(t, action_of(k));
        break;
    case M_SUMMARY:
        r |= summary_key(t, action_of(k));
        break;
    case M_RELOAD:
        t->mode = M_LIST;
        r |= !k.fn && k.ch == 'y' ? tui_reload_and_write(t) : PX_RE_STATUS;
        break;
    case M_QUIT:
        if (action_of(k) == PX_ACT_WRITE && t->load)
            tui_say(t, "the results are still loading: nothing is written until they are read");
        else if (action_of(k) == PX_ACT_WRITE)
            r |= tui_write(t) | (t->rv.n_unwritten ? PX_RE_NONE : PX_RE_QUIT);
        else if (action_of(k) == PX_ACT_QUIT)
            r |= PX_RE_QUIT;
        if (!(r & PX_RE_QUIT)) {
            t->mode = M_LIST;
            r |= PX_RE_STATUS;
        }
        break;
    case M_LIST:
        r |= t->load ? loading_act(t, action_of(k)) : tui_act(t, action_of(k));
        break;
    }
    if (r & PX_RE_JUDGE) { /* an action's answer: judged here, drawn next */
        tui_rejudge(t);
        r &= ~(unsigned)PX_RE_JUDGE;
    }
    return r | (t->msg[0] ? PX_RE_STATUS : PX_RE_NONE);
}

static int fail_line(const px_error *err)
{
    char line[2048];
    px_error_format(err, line, sizeof line);
    fprintf(stderr, "parity: %s\n", line);
    return err->code ? err->code : PX_EXIT_USAGE;
}

/* -1 with *err when the theme asked for with --theme cannot be used: a
 * reviewer who names a theme is told, before anything starts, rather than
 * given another one. */
static int init_theme(tui *t, const px_tui_opts *o, px_error *err)
{
    /* The user's themes, then the ones that came with this parity, found
     * from where it runs: installed (PREFIX/bin/parity:
     * ../share/parity/themes), or the source tree's (build/parity: ../themes;
     * a sanitizer build, build/san-x/parity: ../../themes). */
    static char user[1024], beside[4096];
    theme_user_dir(user, sizeof user);
    theme_shipped_dir(beside, sizeof beside);
    t->theme_dirs[0] = user, t->theme_dirs[1] = beside, t->theme_dirs[2] = NULL;
    t->n_themes = theme_list(t->theme_dirs, 2, t->themes, 16);
    t->color = theme_color_wanted(o->color, getenv("PARITY_KEYS") ? 1 : isatty(1));
    if (o->theme && theme_load(o->theme, t->theme_dirs, 2, &t->theme, err))
        return -1;
    px_error ignored = {0};
    const char *name = t->color ? (o->theme ? o->theme : "default") : "mono";
    if (theme_load(name, t->theme_dirs, 2, &t->theme, &ignored)) {
        if (t->color)
            theme_default(&t->theme);
        else
            theme_mono(&t->theme);
    }
    for (size_t i = 0; i < t->n_themes; i++)
        if (!strcmp(t->themes[i], t->theme.name))
            t->theme_i = i;
    return 0;
}

static void start_curses(tui *t)
{
    setlocale(LC_ALL, "");
    if (strcmp(nl_langinfo(CODESET), "UTF-8"))
        setlocale(LC_CTYPE, "C.UTF-8");
    const char *keys = getenv("PARITY_KEYS");
    if (keys) {
        t->script = fopen(keys, "r");
        t->dump_dir = getenv("PARITY_DUMP_DIR");
        FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
        const char *term = getenv("TERM");
        newterm(term && *term && strcmp(term, "dumb") ? (char *)term : "xterm", out, in);
        int c = 80, r = 24;
        const char *size = getenv("PARITY_SIZE");
        if (size)
            sscanf(size, "%dx%d", &c, &r);
        resize_term(r, c);
    } else {
        initscr();
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    tui_apply_theme(t);
}

static void loop(tui *t)
{
    key_ev queue[256];
    size_t nq = 0, qi = 0;
    unsigned redraw = PX_RE_ALL;
    while (!(redraw & PX_RE_QUIT)) {
        if (t->run && t->shown_running != !runner_done(t->run))
            redraw |= PX_RE_ALL; /* the header's "running…" */
        tui_draw(t, redraw);
        redraw = PX_RE_NONE;
        if (t->script) {
            if (qi == nq) {
                qi = nq = 0;
                int r = tui_script_step(t, queue, &nq);
                if (r < 0)
                    break;
                redraw |= (unsigned)r;
            }
            if (poll(&(struct pollfd){t->wake, POLLIN, 0}, 1, 0) > 0)
                redraw |= tui_drain_wake(t);
            if (qi < nq)
                redraw |= handle(t, queue[qi++]);
            continue;
        }
        struct pollfd p[2] = {{0, POLLIN, 0}, {t->wake, POLLIN, 0}};
        if (poll(p, 2, 500) < 0 && errno != EINTR)
            break;
        if (p[1].revents)
            redraw |= tui_drain_wake(t);
        wint_t ch;
        int rc;
        while (!(redraw & PX_RE_QUIT) && (rc = get_wch(&ch)) != ERR)
            redraw |= handle(t, (key_ev){rc == KEY_CODE_YES, ch});
    }
}

/* How the screen's session is opened (session.h). */
static px_session_opts session_opts(tui *t, const px_tui_opts *o)
{
    px_session_opts so = {.kind = PX_SESSION_JUDGE, .results = o->results, .n_results = (size_t)o->n_results,
                          .envs = o->envs, .n_envs = (size_t)o->n_envs, .no_run = o->no_run,
                          .executor = o->executor, .python = o->python, .doing = "reviewing against it",
                          .history = PX_HISTORY_NOTE};
    so.runner = (px_runner_opts){.backend_lib = o->backend_lib, .backend_modules = o->modules,
                                 .n_backend_modules = (size_t)o->n_modules, .notify_fd = t->wake_w,
                                 .compile_backends = o->compile_backends,
                                 .n_compile_backends = (size_t)o->n_compile_backends,
                                 .keep_alive = 1};
    return so;
}

int tui_main(const px_tui_opts *o)
{
    tui t;
    memset(&t, 0, sizeof t);
    px_error err = {0};
    px_fixture *f = fixture_load(o->fixture, &err);
    if (!f)
        return fail_line(&err);
    t.f = f, t.demo = o->demo, t.results_files = o->results, t.n_results_files = (size_t)o->n_results;
    t.rd = fixture_redactor(f, &err); /* NULL (out of memory): messages as they are */
    err = (px_error){0};
    px_writeback store, *sp = NULL;
    if (!o->demo && writeback_open(&store, o->fixture, &err) == 0)
        sp = &store, writeback_lean(sp);
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
        redact_free(t.rd);
        fixture_free(f);
        return PX_EXIT_ENV;
    }
    t.wake = pipefd[0], t.wake_w = pipefd[1];
    int rc = 0;
    px_session_opts so = session_opts(&t, o);
    if (init_theme(&t, o, &err) || tui_gather(&t, &so, &err)) {
        if (t.res != t.cs.res)
            results_free(t.res);
        session_close(&t.cs);
        t.res = NULL, t.run = NULL;
        rc = fail_line(&err);
    } else {
        review_init(&t.rv, f, t.res, sp, o->reviewer ? o->reviewer : getenv("USER"));
        if (!t.load)
            tui_load_history(&t);
        char w[16];
        if (t.rv.n_unwritten)
            tui_say(&t, "%zu decisions recovered from an interrupted session: %s writes them", t.rv.n_unwritten,
                    key_first(PX_ACT_WRITE, w, sizeof w));
        if (o->demo)
            t.mode = M_SUMMARY;
        unsigned first = tui_drain_wake(&t);
        start_curses(&t);
        if (!(first & PX_RE_QUIT))
            loop(&t);
        endwin();
        if (t.load) {
            /* Quit while the results load: at once. The reading thread
             * still uses the fixture, so nothing is freed: the process
             * ends here (nothing was decided meanwhile: decisions wait for
             * the results). */
            fflush(stdout), fflush(stderr);
            _exit(PX_EXIT_OK);
        }
        px_error fatal = {0};
        if (t.load_failed)
            rc = fail_line(&t.load_err); /* said as when they were read before the first frame */
        else if (t.run && (runner_cancel(t.run), session_wait(&t.cs, &fatal)))
            rc = fail_line(&fatal); /* the whole run had to stop: said once more, below the screen */
    }
    free(t.since);
    if (t.judged)
        judgement_free(&t.j);
    if (t.res)
        review_free(&t.rv);
    if (t.res != t.cs.res)
        results_free(t.res); /* the stand-in, when the files never loaded */
    session_close(&t.cs);
    if (t.script)
        fclose(t.script);
    close(pipefd[0]), close(pipefd[1]);
    if (sp)
        writeback_close(sp);
    redact_free(t.rd);
    fixture_free(f);
    return rc;
}
