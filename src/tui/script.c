/* The key-script driver for tests (PARITY_KEYS=FILE), in the style of tig:
 * keys and commands from FILE, the screen drawn off-screen and dumped as
 * text on request. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"
#include "draw.h"
#include "load.h"

/* The screen as text, one line a row, trailing blanks trimmed. */
static void dump(const char *path)
{
    FILE *o = fopen(path, "w");
    if (!o)
        return;
    for (int y = 0; y < LINES; y++) {
        wchar_t w[1024];
        int n = mvinnwstr(y, 0, w, COLS < 1023 ? COLS : 1023);
        char line[4096];
        size_t len = 0;
        mbstate_t st = {0};
        for (int i = 0; i < n && len + 8 < sizeof line; i++) {
            size_t b = wcrtomb(line + len, w[i], &st);
            len += b == (size_t)-1 ? 0 : b;
        }
        while (len && line[len - 1] == ' ')
            len--;
        fprintf(o, "%.*s\n", (int)len, line);
    }
    fclose(o);
}

/* Where the screen shows the elements named in els ("fail,changed"): one
 * line per run of cells drawn in one of them, "ROW:COL ELEMENT TEXT"
 * (colour pairs are the elements', paint.c: pair el+1). What a text dump
 * cannot show: which characters are marked. */
static void dump_marks(const char *path, const char *els)
{
    FILE *o = fopen(path, "w");
    if (!o)
        return;
    int want[PX_EL_COUNT] = {0};
    char list[512];
    snprintf(list, sizeof list, "%s", els);
    for (char *save = NULL, *n = strtok_r(list, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        int el = theme_element_from_name(n);
        if (el >= 0)
            want[el] = 1;
    }
    for (int y = 0; y < LINES; y++) {
        int run = -1, at = 0;
        char text[4096];
        size_t len = 0;
        mbstate_t st = {0};
        for (int x = 0; x <= COLS; x++) {
            int el = -1;
            wchar_t w[CCHARW_MAX + 1] = {0};
            if (x < COLS) {
                cchar_t c;
                attr_t a;
                short pair = 0;
                if (mvin_wch(y, x, &c) != ERR && getcchar(&c, w, &a, &pair, NULL) != ERR && pair > 0 &&
                    pair <= PX_EL_COUNT && want[pair - 1])
                    el = pair - 1;
            }
            if (el != run && run >= 0)
                fprintf(o, "%d:%d %s %.*s\n", y, at, theme_element_name(run), (int)len, text);
            if (el != run)
                run = el, at = x, len = 0, memset(&st, 0, sizeof st);
            for (int i = 0; el >= 0 && w[i] && len + 8 < sizeof text; i++) {
                size_t b = wcrtomb(text + len, w[i], &st);
                len += b == (size_t)-1 ? 0 : b;
            }
        }
    }
    fclose(o);
}

/* A line of the script: a key by its name in the binding table ("Enter",
 * "PgDn", "C-u": PX_KEY_NAMES), else its first character, or a command:
 *   type TEXT          its characters, as keys
 *   wait               until every run is done
 *   sh COMMAND         run it (another editor saving the fixture mid-session)
 *   dump NAME          the screen as drawn so far to $PARITY_DUMP_DIR/NAME
 *   marks NAME ELS     where it shows the elements ELS ("fail,changed"):
 *                      "ROW:COL ELEMENT TEXT" a line, to the same place
 *   resize COLSxROWS
 * A line starting with '#' is a comment (no key is bound to '#'). */
int tui_script_step(tui *t, key_ev *queue, size_t *nq)
{
    char line[1024];
    if (!fgets(line, sizeof line, t->script))
        return -1;
    line[strcspn(line, "\n")] = '\0';
    /* Every line but a quitting key first waits for the results files
     * being read (so a script sees them as a reviewer soon does), drawn:
     * a script that quits at once measures the first frame alone. */
    int code = key_code_of(line);
    if (t->load && key_action(code >= 0 ? code : (unsigned char)line[0]) != PX_ACT_QUIT) {
        unsigned r = tui_load_wait(t);
        if (r & PX_RE_QUIT)
            return -1;
        tui_draw(t, r);
    }
    if (!strncmp(line, "type ", 5)) {
        mbstate_t st = {0};
        const char *p = line + 5;
        wchar_t wc;
        size_t n;
        while (*p && *nq < 256 && (n = mbrtowc(&wc, p, strlen(p), &st)) > 0 && n < (size_t)-2) {
            queue[(*nq)++] = (key_ev){0, (wint_t)wc};
            p += n;
        }
    } else if (!strncmp(line, "sh ", 3)) {
        int rc = system(line + 3);
        (void)rc;
    } else if (!strcmp(line, "wait")) {
        while (t->run && !runner_done(t->run))
            poll(&(struct pollfd){t->wake, POLLIN, 0}, 1, 100);
        return (int)tui_drain_wake(t);
    } else if (!strncmp(line, "dump ", 5)) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", t->dump_dir ? t->dump_dir : ".", line + 5);
        dump(path);
    } else if (!strncmp(line, "marks ", 6)) {
        char path[1024], name[256] = "", els[512] = "";
        sscanf(line + 6, "%255s %511s", name, els);
        snprintf(path, sizeof path, "%s/%s", t->dump_dir ? t->dump_dir : ".", name);
        dump_marks(path, els);
    } else if (!strncmp(line, "resize ", 7)) {
        int c = 80, r = 24;
        sscanf(line + 7, "%dx%d", &c, &r);
        resize_term(r, c);
        queue[(*nq)++] = (key_ev){1, KEY_RESIZE};
    } else if (line[0] && line[0] != '#') {
        if (code < 0)
            code = (unsigned char)line[0];
        queue[(*nq)++] = (key_ev){code >= KEY_MIN, (wint_t)code};
    }
    return PX_RE_NONE;
}
