/* The key-script driver for tests (PARITY_KEYS=FILE), in the style of tig:
 * keys and commands from FILE, the screen drawn off-screen and dumped as
 * text on request. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include <curses.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "tui_impl.h"

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

/* A line of the script: a key by its name in the binding table ("Enter",
 * "PgDn", "C-u": PX_KEY_NAMES), else its first character, or a command:
 *   type TEXT          its characters, as keys
 *   wait               until every run is done
 *   sh COMMAND         run it (another editor saving the fixture mid-session)
 *   dump NAME          the screen as drawn so far to $PARITY_DUMP_DIR/NAME
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
