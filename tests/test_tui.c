/* The review screen, scripted in the style of tig: each tests/screens/NAME.keys
 * names its command line ("# args: ...") and feeds keys and commands
 * (PARITY_KEYS); the screen is drawn off-screen at 80x24 and dumped as text,
 * which must equal tests/screens/NAME.screen (a readable diff -u when not).
 * PARITY_UPDATE_SCREENS=1 rewrites the expected screens, to be read by eye
 * before committing. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/keys.h"
#include "testlib.h"

#define MAX_SCREENS 64

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
    snprintf(results, sizeof results, "%s/tests/data/campus-results.yaml", cwd);
    char *dir = tl_tmpdir();
    snprintf(fixture, sizeof fixture, "%s/fixture.yaml", dir);
    copy_file("fixtures/campus-club/fixture.yaml", fixture);
    copy_file("fixtures/campus-club/model.pt", dir);
    copy_file("fixtures/campus-club/vocab.txt", dir);
    char *script = tl_slurp(keys);
    cr_assert(script && !strncmp(script, "# args: ", 8), "%s: first line must be '# args: ...'", keys);
    char exe[PATH_MAX];
    snprintf(exe, sizeof exe, "%s", getenv("PARITY_TORCH") ? getenv("PARITY_TORCH") : "build/parity-torch");
    if (exe[0] != '/') {
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s", exe);
        snprintf(exe, sizeof exe, "%.2000s/%.2000s", cwd, rel);
    }
    const char *argv[32];
    split_args(script + 8, "fixture.yaml", results, exe, argv);
    setenv("PARITY_KEYS", keys, 1);
    setenv("PARITY_DUMP_DIR", dir, 1);
    setenv("PARITY_NOW", "2026-12-02T12:00:00Z", 1);
    setenv("TERM", "xterm", 1);
    unsetenv("NO_COLOR");
    unsetenv("PARITY_SIZE");
    cmd_result r = tl_run_in(dir, argv); /* the header names the fixture as given */
    unsetenv("PARITY_KEYS");
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

/* One table: every key and its help line are in the man page's KEYS. */
Test(tui, every_key_is_in_the_man_page)
{
    char *man = tl_slurp("man/parity.1");
    cr_assert_not_null(man);
    for (int i = 0; i < PX_ACT_COUNT; i++) {
        cr_expect(strstr(man, key_defs[i].help) != NULL, "man page lacks '%s'", key_defs[i].help);
        char want[96];
        snprintf(want, sizeof want, ".It Ic %s", key_defs[i].keys);
        if (strchr(key_defs[i].keys, '?') || strchr(key_defs[i].keys, '/'))
            continue; /* escaped in mdoc */
        cr_expect(strstr(man, want) != NULL, "man page lacks %s", want);
    }
    free(man);
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
