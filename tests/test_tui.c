/* The review screen, scripted in the style of tig: each tests/screens/NAME.keys
 * names its command line ("# args: ...") and feeds keys and commands
 * (PARITY_KEYS); the screen is drawn off-screen at 80x24 and dumped as text,
 * which must equal tests/screens/NAME.screen (a readable diff -u when not).
 * PARITY_UPDATE_SCREENS=1 rewrites the expected screens, to be read by eye
 * before committing. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <curses.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/journal.h"
#include "parity/keys.h"
#include "testlib.h"

#define MAX_SCREENS 128

static char names[MAX_SCREENS][64];

static size_t list_screens(void)
{
    size_t n = 0;
    DIR *d = opendir("tests/screens");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < MAX_SCREENS) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".keys"))
            snprintf(names[n++], sizeof names[0], "%.*s", (int)(l - 5), e->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

static void copy_file(const char *from, const char *to)
{
    char cmd[PATH_MAX * 2 + 16];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    cr_assert_eq(system(cmd), 0);
}

/* Replace {fixture} {results} {executor} in the args line. */
static int split_args(char *line, const char *fixture, const char *results, const char *exe, const char **argv)
{
    int n = 0;
    argv[n++] = "parity";
    line[strcspn(line, "\n")] = '\0';
    for (char *tok = strtok(line, " \n"); tok && n < 30; tok = strtok(NULL, " \n"))
        argv[n++] = !strcmp(tok, "{fixture}") ? fixture : !strcmp(tok, "{results}") ? results
                  : !strcmp(tok, "{executor}") ? exe : tok;
    argv[n] = NULL;
    return n;
}

static void run_screen(const char *name)
{
    char cwd[1024], keys[PATH_MAX], want[PATH_MAX], fixture[PATH_MAX], results[PATH_MAX], got[PATH_MAX];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(keys, sizeof keys, "%s/tests/screens/%s.keys", cwd, name);
    snprintf(want, sizeof want, "%s/tests/screens/%s.screen", cwd, name);
    char *dir = tl_tmpdir();
    /* Beside the fixture, named relatively: what a screen says of it is the
     * same wherever the repository is. */
    snprintf(results, sizeof results, "campus-results.yaml");
    snprintf(fixture, sizeof fixture, "%s/fixture.yaml", dir);
    char *script = tl_slurp(keys);
    cr_assert(script && !strncmp(script, "# args: ", 8), "%s: first line must be '# args: ...'", keys);
    /* "# fixture: DIR": DIR's fixture.yaml, vocab.txt and results.yaml
     * (a generator's, tests/data/gen) instead of the demo's. */
    const char *other = strstr(script, "\n# fixture: ");
    if (other) {
        char from[PATH_MAX];
        int n = (int)strcspn(other + 12, "\n");
        snprintf(results, sizeof results, "results.yaml");
        snprintf(from, sizeof from, "%.*s/fixture.yaml", n, other + 12);
        copy_file(from, fixture);
        snprintf(from, sizeof from, "%.*s/vocab.txt", n, other + 12);
        copy_file(from, dir);
        snprintf(from, sizeof from, "%.*s/results.yaml", n, other + 12);
        copy_file(from, dir);
    } else if (strstr(script, "\n# files: ")) {
        /* "# files: FIXTURE RESULTS VOCAB": a fixture kept elsewhere (an
         * embedding's, tests/data/embed), its tokenizer's vocabulary
         * named beside it as vocab.txt, and its results as results.yaml. */
        const char *files = strstr(script, "\n# files: ") + 10;
        char fx[PATH_MAX] = "", rs[PATH_MAX] = "", vc[PATH_MAX] = "", to[PATH_MAX];
        cr_assert_eq(sscanf(files, "%1023s %1023s %1023s", fx, rs, vc), 3, "%s: # files: FIXTURE RESULTS VOCAB", keys);
        char *text = tl_slurp(fx), *at = text ? strstr(text, "vocab: ") : NULL;
        cr_assert_not_null(at, "%s: no vocab: in %s", keys, fx);
        size_t skip = strcspn(at + 7, ",} \n");
        char *fixed = malloc(strlen(text) + 16);
        snprintf(fixed, strlen(text) + 16, "%.*svocab: vocab.txt%s", (int)(at - text), text, at + 7 + skip);
        tl_write(fixture, fixed);
        free(fixed), free(text);
        snprintf(results, sizeof results, "results.yaml");
        snprintf(to, sizeof to, "%s/results.yaml", dir);
        copy_file(rs, to);
        snprintf(to, sizeof to, "%s/vocab.txt", dir);
        copy_file(vc, to);
    } else {
        copy_file("fixtures/campus-club/fixture.yaml", fixture);
        copy_file("fixtures/campus-club/model.pt", dir);
        copy_file("fixtures/campus-club/vocab.txt", dir);
        copy_file("tests/data/campus-results.yaml", dir);
    }
    char exe[PATH_MAX];
    snprintf(exe, sizeof exe, "%s", getenv("PARITY_TORCH") ? getenv("PARITY_TORCH") : "build/parity-torch");
    if (exe[0] != '/') {
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s", exe);
        snprintf(exe, sizeof exe, "%.2000s/%.2000s", cwd, rel);
    }
    /* "# size: COLSxLINES" on the second line: drawn at that size. */
    const char *size = strstr(script, "\n# size: ");
    char size_buf[32] = "";
    if (size)
        sscanf(size + strlen("\n# size: "), "%31[0-9x]", size_buf);
    /* "# history: FILE": FILE is the history beside the fixture (the last
     * good configurations, history.h). */
    const char *history = strstr(script, "\n# history: ");
    if (history) {
        char from[PATH_MAX], to[PATH_MAX];
        snprintf(from, sizeof from, "%.*s", (int)strcspn(history + 12, "\n"), history + 12);
        snprintf(to, sizeof to, "%s/.fixture.yaml.parity-history.yaml", dir);
        copy_file(from, to);
    }
    int has_marks = strstr(script, "\nmarks marks ") != NULL; /* before split_args cuts the script */
    const char *argv[32];
    split_args(script + 8, "fixture.yaml", results, exe, argv);
    setenv("PARITY_KEYS", keys, 1);
    setenv("PARITY_DUMP_DIR", dir, 1);
    setenv("PARITY_NOW", "2026-12-02T12:00:00Z", 1);
    setenv("TERM", "xterm", 1);
    unsetenv("NO_COLOR");
    unsetenv("PARITY_SIZE");
    if (size_buf[0])
        setenv("PARITY_SIZE", size_buf, 1);
    cmd_result r = tl_run_in(dir, argv); /* the header names the fixture as given */
    unsetenv("PARITY_KEYS");
    unsetenv("PARITY_SIZE");
    cr_expect_eq(r.status, 0, "%s: exit %d: %s", name, r.status, r.err);
    snprintf(got, sizeof got, "%s/screen", dir);
    char *g = tl_slurp(got), *w = tl_slurp(want);
    cr_assert_not_null(g, "%s: no screen was dumped", name);
    if (getenv("PARITY_UPDATE_SCREENS")) {
        tl_write(want, g);
    } else {
        cr_assert_not_null(w, "%s: no expected screen %s (PARITY_UPDATE_SCREENS=1 makes one)", name, want);
        if (strcmp(g, w)) {
            char cmd[PATH_MAX * 3];
            snprintf(cmd, sizeof cmd, "diff -u '%s' '%s' >&2", want, got);
            int rc = system(cmd);
            (void)rc;
            cr_expect_fail("%s: the screen differs from %s (diff above)", name, want);
        }
    }
    /* "marks marks ELS" in the script: where the screen showed those
     * elements, against tests/screens/NAME.marks. */
    char marks_got[PATH_MAX], marks_want[PATH_MAX];
    snprintf(marks_got, sizeof marks_got, "%s/marks", dir);
    snprintf(marks_want, sizeof marks_want, "%s/tests/screens/%s.marks", cwd, name);
    char *mg = has_marks ? tl_slurp(marks_got) : NULL, *mw = mg ? tl_slurp(marks_want) : NULL;
    if (mg && getenv("PARITY_UPDATE_SCREENS"))
        tl_write(marks_want, mg);
    else if (mg) {
        cr_assert_not_null(mw, "%s: no expected marks %s (PARITY_UPDATE_SCREENS=1 makes them)", name, marks_want);
        if (strcmp(mg, mw)) {
            char cmd[PATH_MAX * 3];
            snprintf(cmd, sizeof cmd, "diff -u '%s' '%s' >&2", marks_want, marks_got);
            int rc = system(cmd);
            (void)rc;
            cr_expect_fail("%s: the marks differ from %s (diff above)", name, marks_want);
        }
    }
    free(mg), free(mw);
    tl_free(&r);
    free(g), free(w), free(script), free(dir);
}

ParameterizedTestParameters(tui, screen)
{
    size_t n = list_screens();
    return cr_make_param_array(char[64], names, n);
}

ParameterizedTest(char (*name)[64], tui, screen, .timeout = 120)
{
    run_screen(*name);
}

Test(tui, at_least_twelve_scenarios)
{
    cr_expect_geq(list_screens(), 12);
}

/* The man page's items of one section, ".Sh SECTION" ... ".It MACRO X"
 * (mdoc's "\\&" dropped, "\\[u2026]" read as the ellipsis) each with the
 * lines after it up to the next item, joined by spaces: KEYS (Ic) and
 * BADGES (Li). */
typedef struct man_key {
    char keys[96], help[256];
} man_key;

static size_t man_items(const char *man, const char *section, const char *macro, man_key *out, size_t max)
{
    char sh[64], it[32];
    snprintf(sh, sizeof sh, "\n.Sh %s\n", section);
    snprintf(it, sizeof it, "\n.It %s ", macro);
    const char *p = strstr(man, sh), *end = p ? strstr(p + 1, "\n.Sh ") : NULL;
    size_t n = 0;
    while (p && (p = strstr(p, it)) && (!end || p < end) && n < max) {
        p += strlen(it);
        size_t len = strcspn(p, "\n"), k = 0;
        for (size_t i = 0; i < len && k + 4 < sizeof out[n].keys; i++) {
            if (!strncmp(p + i, "\\&", 2)) {
                i++;
                continue;
            }
            if (!strncmp(p + i, "\\[u2026]", 8)) {
                memcpy(out[n].keys + k, "\u2026", strlen("\u2026"));
                k += strlen("\u2026"), i += 7;
                continue;
            }
            out[n].keys[k++] = p[i];
        }
        out[n].keys[k] = '\0';
        out[n].help[0] = '\0';
        for (p += len; *p == '\n' && p[1] && p[1] != '.';) {
            size_t l = strcspn(++p, "\n"), h = strlen(out[n].help);
            snprintf(out[n].help + h, sizeof out[n].help - h, "%s%.*s", h ? " " : "", (int)l, p);
            p += l;
        }
        n++;
    }
    return n;
}

static size_t man_keys(const char *man, man_key *out, size_t max) { return man_items(man, "KEYS", "Ic", out, max); }

static size_t man_badges(const char *man, man_key *out, size_t max)
{
    return man_items(man, "BADGES", "Li", out, max);
}

/* One table, both ways: the man page lists every action, in order, with
 * every key bound to it and its help line, and nothing else. */
Test(tui, man_page_keys_are_the_table)
{
    char *man = tl_slurp("man/parity.1");
    cr_assert_not_null(man);
    man_key items[PX_ACT_COUNT + 8];
    size_t n = man_keys(man, items, sizeof items / sizeof *items);
    cr_expect_eq(n, (size_t)PX_ACT_COUNT, "the man page's KEYS has %zu items, the table %d actions", n,
                 PX_ACT_COUNT);
    for (size_t i = 0; i < n && i < PX_ACT_COUNT; i++) {
        char keys[96];
        key_names((px_action)i, keys, sizeof keys);
        cr_expect_str_eq(items[i].keys, keys, "man page KEYS item %zu: '%s', the table binds '%s' (%s)", i + 1,
                         items[i].keys, keys, key_defs[i].name);
        cr_expect_str_eq(items[i].help, key_defs[i].help, "man page KEYS item %zu (%s): '%s', the table says '%s'",
                         i + 1, items[i].keys, items[i].help, key_defs[i].help);
    }
    free(man);
}

/* The legend of the list's badges and marks (the ? screen's end, b), both
 * ways: the man page's BADGES lists each, in order, with its words, and
 * nothing else; no two share a badge. */
Test(tui, man_page_badges_are_the_legend)
{
    char *man = tl_slurp("man/parity.1");
    cr_assert_not_null(man);
    px_legend want[80];
    man_key items[80];
    size_t n = key_legend(want, 80), got = man_badges(man, items, 80);
    cr_assert_gt(n, 20, "the legend has %zu rows", n);
    cr_expect_eq(got, n, "the man page's BADGES has %zu items, the legend %zu", got, n);
    for (size_t i = 0; i < n && i < got; i++) {
        cr_expect_str_eq(items[i].keys, want[i].badge, "BADGES item %zu: '%s', the legend '%s'", i + 1, items[i].keys,
                         want[i].badge);
        cr_expect_str_eq(items[i].help, want[i].help, "BADGES item %zu (%s): '%s', the legend says '%s'", i + 1,
                         want[i].badge, items[i].help, want[i].help);
        for (size_t j = 0; j < i; j++)
            cr_expect_str_neq(want[i].badge, want[j].badge, "two rows of the legend show '%s'", want[i].badge);
    }
    free(man);
}

/* What help and the status line name is bound: each key they show is one
 * of the action's own; no key has two actions; '#' is free (key scripts
 * take it for a comment). */
Test(tui, shown_keys_are_bound)
{
    for (int a = 0; a < PX_ACT_COUNT; a++) {
        const char *lists[2] = {key_defs[a].keys, key_defs[a].hint_keys};
        for (int l = 0; l < 2; l++) {
            char list[96];
            snprintf(list, sizeof list, "%s", lists[l] ? lists[l] : "");
            for (char *save = NULL, *k = strtok_r(list, " ", &save); k; k = strtok_r(NULL, " ", &save))
                cr_expect_eq(key_action(key_code_of(k)), (px_action)a, "%s shows key '%s', which is not bound to it",
                             key_defs[a].name, k);
        }
        for (size_t i = 0; i < key_defs[a].n_codes; i++)
            cr_expect_eq(key_action(key_defs[a].codes[i]), (px_action)a, "key %d is bound to two actions",
                         key_defs[a].codes[i]);
    }
    cr_expect_eq(key_action('#'), PX_ACT_NONE);
}

/* The status line's hints come from the table; these are its words today. */
Test(tui, status_line_hints)
{
    char buf[512];
    cr_expect_str_eq(key_hints(0, buf, sizeof buf),
                     "j/k move  Tab candidate  a x u p m c decide  e note  z undo  w write  f filter  / search  "
                     "? help  q quit");
    cr_expect_str_eq(key_hints(1, buf, sizeof buf), "Space/-> next  j/k move  Tab candidate  ? help  q quit");
    for (int a = 0; a < PX_ACT_COUNT; a++)
        for (int b = 0; b < PX_ACT_COUNT; b++) {
            const px_keydef *x = &key_defs[a], *y = &key_defs[b];
            if ((x->hint_review && x->hint_review == y->hint_review) || (x->hint_demo && x->hint_demo == y->hint_demo))
                cr_expect_str_eq(x->hint_word, y->hint_word, "%s and %s share a hint, not its word", x->name,
                                 y->name);
        }
}

/* Every key name key scripts have used (tests/screens) stays. */
Test(tui, key_script_names)
{
    static const struct {
        const char *name;
        int code;
    } want[] = {{"Enter", '\n'},  {"Space", ' '},      {"Tab", '\t'},       {"Esc", 27},
                {"Up", KEY_UP},    {"Down", KEY_DOWN},  {"Left", KEY_LEFT},  {"Right", KEY_RIGHT},
                {"Home", KEY_HOME}, {"End", KEY_END},   {"PgUp", KEY_PPAGE}, {"PgDn", KEY_NPAGE},
                {"Backspace", KEY_BACKSPACE}, {"C-u", 0x15}, {"C-w", 0x17}, {"C-a", 0x01}, {"C-e", 0x05},
                {"j", 'j'},        {"?", '?'}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect_eq(key_code_of(want[i].name), want[i].code, "key name '%s'", want[i].name);
    cr_expect_eq(key_code_of("wait"), -1);
}

/* Demo mode refuses, in one place, every key that would change the
 * fixture or the journal, with the words it has always used; the fixture
 * and its journal stay as they were. */
Test(tui, demo_refuses_what_changes, .timeout = 120)
{
    char *dir = tl_tmpdir(), keys[512], fixture[512], results[1024], screen[600], cwd[512];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(keys, sizeof keys, "%s/keys", dir);
    snprintf(fixture, sizeof fixture, "%s/fixture.yaml", dir);
    snprintf(results, sizeof results, "%s/tests/data/campus-results.yaml", cwd);
    snprintf(screen, sizeof screen, "%s/screen", dir);
    copy_file("fixtures/campus-club/fixture.yaml", fixture);
    copy_file("fixtures/campus-club/model.pt", dir);
    copy_file("fixtures/campus-club/vocab.txt", dir);
    char *before = tl_slurp(fixture), hints[512] = "demo (read-only): ";
    key_hints(1, hints + strlen(hints), sizeof hints - strlen(hints));
    int refused = 0;
    for (int a = 0; a < PX_ACT_COUNT; a++) {
        if (!(key_defs[a].flags & PX_KEY_CHANGES))
            continue;
        refused++;
        char script[128], first[16];
        snprintf(script, sizeof script, "Space\n%s\ndump screen\n", key_first((px_action)a, first, sizeof first));
        tl_write(keys, script);
        remove(screen);
        setenv("PARITY_KEYS", keys, 1);
        setenv("PARITY_DUMP_DIR", dir, 1);
        cmd_result r = tl_run((const char *[]){"parity", "review", fixture, "--results", results, "--demo", NULL});
        unsetenv("PARITY_KEYS");
        cr_expect_eq(r.status, 0, "%s: %s", key_defs[a].name, r.err);
        char *got = tl_slurp(screen);
        cr_assert_not_null(got, "%s: no screen", key_defs[a].name);
        size_t len = strlen(got);
        while (len && got[len - 1] == '\n')
            got[--len] = '\0';
        const char *status = strrchr(got, '\n') ? strrchr(got, '\n') + 1 : got; /* the last row */
        cr_expect_str_eq(status, key_defs[a].flags & PX_KEY_DEMO_QUIET ? hints : "demo mode is read-only",
                         "%s: the status line says '%s'", key_defs[a].name, status);
        tl_free(&r);
        free(got);
    }
    cr_expect_eq(refused, 9, "decisions (6), the note, undo and write change the fixture or the journal");
    char *after = tl_slurp(fixture), journal[1024];
    cr_expect_str_eq(after, before);
    journal_path(fixture, journal, sizeof journal);
    cr_expect_eq(access(journal, F_OK), -1, "demo mode wrote a journal");
    free(before), free(after), free(dir);
}

/* Quitting while runs are in flight stops the executors: none is left. */
Test(tui, quit_while_running_leaves_no_executor, .timeout = 60)
{
    char *dir = tl_tmpdir(), keys[512], fixture[512], cmd[1024];
    snprintf(keys, sizeof keys, "%s/keys", dir);
    snprintf(fixture, sizeof fixture, "%s/fixture.yaml", dir);
    tl_write(keys, "q\n");
    copy_file("fixtures/campus-club/fixture.yaml", fixture);
    copy_file("fixtures/campus-club/model.pt", dir);
    copy_file("fixtures/campus-club/vocab.txt", dir);
    setenv("PARITY_KEYS", keys, 1);
    cmd_result r = tl_run((const char *[]){"parity", "review", fixture, NULL});
    unsetenv("PARITY_KEYS");
    cr_expect_eq(r.status, 0, "%s", r.err);
    snprintf(cmd, sizeof cmd, "pgrep -f '[-]-model %s/model.pt' >/dev/null", dir); /* [-]: not pgrep's own shell */
    cr_expect_neq(system(cmd), 0, "an executor outlived the review screen");
    tl_free(&r);
    free(dir);
}

/* --results files are read after the first frame, in the background; one
 * that cannot be read ends the screen with the very line and exit status
 * parity check gives for it (here the script's first key waits for the
 * reading, as every script line but a quit does). */
Test(tui, a_bad_results_file_ends_the_screen_as_check_refuses_it, .timeout = 60)
{
    char *dir = tl_tmpdir(), keys[512], bad[512];
    snprintf(keys, sizeof keys, "%s/keys", dir);
    snprintf(bad, sizeof bad, "%s/bad.yaml", dir);
    char *text = tl_slurp("tests/data/campus-results.yaml"), *at = text ? strstr(text, "forward_ms:") : NULL;
    cr_assert_not_null(at);
    at = strstr(at + 1, "forward_ms:"); /* the second example's */
    cr_assert_not_null(at);
    memcpy(at, "forward_mz:", 11);
    tl_write(bad, text);
    tl_write(keys, "j\ndump screen\nq\n");
    cmd_result c = tl_run((const char *[]){"parity", "check", "fixtures/campus-club/fixture.yaml", "--results", bad,
                                           NULL});
    setenv("PARITY_KEYS", keys, 1);
    setenv("PARITY_DUMP_DIR", dir, 1);
    cmd_result r = tl_run((const char *[]){"parity", "review", "fixtures/campus-club/fixture.yaml", "--results", bad,
                                           NULL});
    unsetenv("PARITY_KEYS");
    cr_expect_eq(c.status, 2, "%s", c.err);
    cr_expect(strstr(c.err, "unknown key 'forward_mz'"), "%s", c.err);
    cr_expect_eq(r.status, c.status, "%s", r.err);
    cr_expect_str_eq(r.err, c.err);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    char screen[600];
    snprintf(screen, sizeof screen, "%s/screen", dir);
    cr_expect_eq(access(screen, F_OK), -1, "the script went on after the screen ended");
    tl_free(&c), tl_free(&r);
    free(text), free(dir);
}
