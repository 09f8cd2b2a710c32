/* parity report, export and repro end to end: what a colleague is handed.
 * The Markdown report of the demo matches a golden file (time fixed by
 * SOURCE_DATE_EPOCH); the HTML report is rendered by headless Chromium: a
 * screenshot that is not blank, a DOM that holds every example and
 * environment, no network request, hostile text shown as text. An export
 * bundle is whole (SHA256SUMS checks) and `parity check` works inside it
 * with no executor at all; a repro made from a planted fault reproduces the
 * same outcome and divergence when checked again. Every command a bundle's
 * README prints is run, as printed, in the bundle (run_printed), for a
 * bundle of a run here and of an environment imported from another host. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/journal.h"
#include "parity/results.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"
#define DEMO_RESULTS "tests/data/campus-results.yaml"
#define GOLDEN "tests/golden/report/demo.md"
#define EPOCH "1764547200" /* 2025-12-01T00:00:00Z */

static char repo[PATH_MAX];

static void init(void)
{
    cr_assert_not_null(getcwd(repo, sizeof repo));
    setenv("SOURCE_DATE_EPOCH", EPOCH, 1);
}

static int sh(const char *fmt, const char *a, const char *b)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    return system(cmd);
}

/* A copy of the demo and its results under the same relative names in a
 * fresh directory: a report of it is the golden one wherever the
 * repository is, and whatever `parity check` of the real demo has recorded
 * beside it (the last good configurations the report lists). */
static char *demo_tree(void)
{
    char *dir = tl_tmpdir(), cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/fixtures/campus-club' '%s/tests/data' && cp " DEMO " fixtures/campus-club/model.pt "
             "fixtures/campus-club/vocab.txt '%s/fixtures/campus-club/' && cp " DEMO_RESULTS " '%s/tests/data/'",
             dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return dir;
}

Test(report, markdown_of_the_demo_matches_the_golden_file, .init = init, .timeout = 60)
{
    char *dir = demo_tree();
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "report", DEMO, "--results", DEMO_RESULTS, "-f", "md", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    if (getenv("PARITY_UPDATE_GOLDEN")) {
        mkdir("tests/golden/report", 0755);
        tl_write(GOLDEN, r.out);
    }
    char *want = tl_slurp(GOLDEN);
    cr_assert_not_null(want, "no %s (PARITY_UPDATE_GOLDEN=1 writes it; read it before committing)", GOLDEN);
    cr_expect_str_eq(r.out, want);
    /* The order the issue asks for, whatever the wording. */
    const char *order[] = {"# parity report: Sort a public campus event", "**Verdict:**", "## Environments",
                           "reference, not truth", "CPU bfloat16 twin: the target's bfloat16 numerics on the CPU, not the target device", "## The contract in brief",
                           "## Examples", "### 1. film-night", "## Checkpoint ladders", "## What was not evaluated",
                           "performance: not measured", "## Decisions pending", NULL};
    const char *at = r.out;
    for (int i = 0; order[i]; i++) {
        const char *p = strstr(at, order[i]);
        cr_expect_not_null(p, "'%s' missing or out of order", order[i]);
        if (p)
            at = p;
    }
    free(want);
    tl_free(&r);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}

/* Chromium, headless, with the network log on: the screenshot, the DOM,
 * and every URL it tried. */
static int chromium(const char *html, const char *dir, const char *what)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run "
             "--user-data-dir='%s/profile' --log-net-log='%s/net-%s.json' --window-size=1200,2000 %s "
             "'file://%s' > '%s/%s.out' 2> '%s/%s.err'",
             dir, dir, dir, what, !strcmp(what, "dom") ? "--dump-dom" : "--screenshot=shot.png", html, dir, what, dir,
             what);
    return system(cmd);
}

static char *report_html(const char *fixture, const char *results, const char *dir)
{
    char *out = malloc(strlen(dir) + 32);
    sprintf(out, "%s/report.html", dir);
    cmd_result r = tl_run((const char *[]){"parity", "report", fixture, "--results", results, "-f", "html", "-o",
                                           out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    return out;
}

/* No request the page made left the file (tests/report/page_requests.py;
 * the browser's own background requests are not the page's). */
static void no_network(const char *dir, const char *what)
{
    char path[512];
    snprintf(path, sizeof path, "%s/net-%s.json", dir, what);
    cr_expect_eq(sh("/usr/bin/python3 tests/report/page_requests.py '%s'%s", path, ""), 0,
                 "the report made a network request");
}

/* The check above can fail: a page with a remote image and stylesheet. */
Test(report, the_network_check_sees_a_page_request, .init = init, .timeout = 120)
{
    char *dir = tl_tmpdir(), page[512], path[512];
    snprintf(page, sizeof page, "%s/remote.html", dir);
    tl_write(page, "<html><body><img src=\"http://example.invalid/x.png\">"
                   "<link rel=stylesheet href=\"https://fonts.example.invalid/a.css\">hi</body></html>");
    cr_assert_eq(chromium(page, dir, "dom"), 0);
    snprintf(path, sizeof path, "%s/net-dom.json", dir);
    cr_expect_neq(sh("/usr/bin/python3 tests/report/page_requests.py '%s' > /dev/null%s", path, ""), 0);
    free(dir);
}

Test(report, html_renders_in_headless_chromium_without_the_network, .init = init, .timeout = 300)
{
    char *dir = tl_tmpdir(), *html = report_html(DEMO, DEMO_RESULTS, dir);
    char abs[PATH_MAX];
    cr_assert_not_null(realpath(html, abs));
    cr_assert_eq(chromium(abs, dir, "shot"), 0, "chromium failed (make deps installs it)");
    char png[512];
    snprintf(png, sizeof png, "%s/shot.png", dir);
    /* Non-blank: most decoded scanline bytes of a blank page are equal. */
    cr_expect_eq(sh("/usr/bin/python3 tests/report/png_nonblank.py '%s'%s", png, ""), 0, "the screenshot is blank");
    no_network(dir, "shot");
    cr_assert_eq(chromium(abs, dir, "dom"), 0);
    char dom_path[512];
    snprintf(dom_path, sizeof dom_path, "%s/dom.out", dir);
    char *dom = tl_slurp(dom_path);
    cr_assert_not_null(dom);
    const char *must[] = {"film-night", "volleyball-tryouts", "bouldering", "charity-run", "cafe-accents",
                          "reference, not truth", "CPU bfloat16 twin: the target's bfloat16 numerics on the CPU, not the target device", "What was not evaluated",
                          "The contract is met in every selected environment", "<svg", NULL};
    for (int i = 0; must[i]; i++)
        cr_expect_not_null(strstr(dom, must[i]), "the DOM lacks '%s'", must[i]);
    cr_expect_null(strstr(dom, "<script"), "a script element");
    no_network(dir, "dom");
    free(dom), free(html), free(dir);
}

/* A fixture whose example text and note are hostile: HTML, a script tag,
 * a terminal escape, a right-to-left override. */
Test(report, hostile_text_shows_as_text, .init = init, .timeout = 300)
{
    char *dir = tl_tmpdir(), fx[512], res[512];
    char *text = tl_slurp(DEMO);
    cr_assert_not_null(text);
    snprintf(fx, sizeof fx, "%s/fixture.yaml", dir);
    /* The demo's first example, its text replaced; the model and vocab by
     * absolute path. */
    char *at = strstr(text, "Film club screening of Tarkovsky's Stalker");
    cr_assert_not_null(at, "the demo's first example moved");
    char *eol = strchr(at, '\n');
    char *edited = malloc(strlen(text) + 4096);
    sprintf(edited, "%.*s%s%s", (int)(at - text),
            text, "<script>alert(1)</script> <b>bold</b> \\u001b[31mred\\u001b[0m \\u202Eevil film\"", eol);
    /* That line was a plain scalar: make it a double-quoted one. */
    char *q = strstr(edited, "<script>");
    memmove(q + 1, q, strlen(q) + 1);
    q[0] = '"';
    free(text);
    tl_write(fx, edited);
    free(edited);
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "sed -i -e 's#path: model.pt#path: %s/fixtures/campus-club/model.pt#' "
             "-e 's#vocab: vocab.txt#vocab: %s/fixtures/campus-club/vocab.txt#' '%s'",
             repo, repo, fx);
    cr_assert_eq(system(cmd), 0);
    snprintf(res, sizeof res, "%s/results.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", res, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "report", fx, "--results", res, "-f", "md", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "\\<script\\>alert(1)\\</script\\>"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "\\u{202E}evil"), "the override is shown, not obeyed");
    cr_expect_null(strstr(r.out, "\x1b"), "a raw escape reached the report");
    cr_expect_null(strstr(r.out, "\xe2\x80\xae"), "a raw RTL override reached the report");
    tl_free(&r);
    char *html = report_html(fx, res, dir), abs[PATH_MAX];
    cr_assert_not_null(realpath(html, abs));
    cr_assert_eq(chromium(abs, dir, "dom"), 0);
    char dom_path[512];
    snprintf(dom_path, sizeof dom_path, "%s/dom.out", dir);
    char *dom = tl_slurp(dom_path);
    cr_assert_not_null(dom);
    cr_expect_not_null(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;"), "the tag is text in the DOM");
    cr_expect_null(strstr(dom, "<script"), "a script element was made");
    cr_expect_null(strstr(dom, "<b>bold"), "an element was made from the example's text");
    cr_expect_not_null(strstr(dom, "\\u{202E}evil"), "the override is shown, not obeyed");
    no_network(dir, "dom");
    free(dom), free(html), free(dir);
}

Test(report, bad_usage_is_one_line_and_exit_2, .init = init)
{
    cmd_result r = tl_run((const char *[]){"parity", "report", DEMO, "--results", DEMO_RESULTS, "-f", "pdf", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
    cr_expect_not_null(strstr(r.err, "md, html"), "%s", r.err);
    tl_free(&r);
}


/* ---- the commands a bundle's README prints, run as printed ---- */

/* Every command a README prints: its lines indented by four spaces. */
static char **printed_commands(const char *readme_path, int *n)
{
    char *text = tl_slurp(readme_path);
    cr_assert_not_null(text, "%s", readme_path);
    char **cmds = calloc(64, sizeof *cmds);
    *n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (!strncmp(line, "    ", 4) && line[4] != ' ' && *n < 63)
            cmds[(*n)++] = strdup(line + 4);
    free(text);
    return cmds;
}

/* Run one printed command in dir with sh, as a reader would: parity on
 * PATH (this build), PYTHON and MODULE filled in (the README says what they
 * stand for), a key script that leaves the review screen. A command that
 * judges recorded results (one with --results, review, sha256sum) runs with
 * no executor at all: it must need none. Returns its exit status; its
 * output in *out (malloc'd). */
static int run_printed_one(const char *dir, const char *cmd, char **out)
{
    char sub[4096] = "", *o = sub;
    for (const char *p = cmd; *p && o < sub + sizeof sub - 64;) {
        if (!strncmp(p, "PYTHON", 6))
            o += sprintf(o, "%s", tl_python()), p += 6;
        else if (!strncmp(p, "MODULE", 6))
            o += sprintf(o, "parity_planted"), p += 6;
        else
            *o++ = *p++;
    }
    *o = '\0';
    int judged = strstr(cmd, "--results") || !strncmp(cmd, "parity review", 13) || !strncmp(cmd, "sha256sum", 9);
    char keys[PATH_MAX + 16], log[PATH_MAX + 16], script[PATH_MAX + 16], line[32768];
    snprintf(keys, sizeof keys, "%s/../keys", dir);
    snprintf(log, sizeof log, "%s/../printed.log", dir);
    snprintf(script, sizeof script, "%s/../printed.sh", dir);
    tl_write(keys, "q\n");
    tl_write(script, sub);
    const char *torch = getenv("PARITY_TORCH");
    snprintf(line, sizeof line,
             "cd '%s' && PATH='%s/build':\"$PATH\" PYTHONPATH='%s/tests/backend' PARITY_KEYS='%s' "
             "PARITY_TORCH='%s' sh '%s' > '%s' 2>&1",
             dir, repo, repo, keys, judged ? "/nonexistent/parity-torch" : torch ? torch : "", script, log);
    int st = system(line);
    *out = tl_slurp(log);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Every command the bundle's README prints, in its order: `parity check`
 * exits check_exit (the verdict the README says it gives), every other one
 * 0; none warns (a repro's own files; an export holds the files it was
 * given, whatever they say). Returns how many ran. */
static int run_printed(const char *dir, int check_exit, int quiet)
{
    char readme[PATH_MAX];
    snprintf(readme, sizeof readme, "%s/README.md", dir);
    int n;
    char **cmds = printed_commands(readme, &n);
    for (int i = 0; i < n; i++) {
        char *out = NULL;
        int want = !strncmp(cmds[i], "parity check", 12) ? check_exit : 0;
        int got = run_printed_one(dir, cmds[i], &out);
        cr_expect_eq(got, want, "`%s` in %s: exit %d, want %d:\n%s", cmds[i], dir, got, want, out);
        if (quiet)
            cr_expect_null(strstr(out ? out : "", "warning"), "`%s` warns: %s", cmds[i], out);
        free(out), free(cmds[i]);
    }
    free(cmds);
    return n;
}

/* reference.yaml and observed.yaml are whole results files of the repro's
 * fixture: each loads against it, with its one environment, warning of
 * nothing. */
static void repro_files_load(const char *dir, const char *ref, const char *env)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/fixture.yaml", dir);
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s", err.msg);
    const char *files[2] = {"reference.yaml", "observed.yaml"}, *names[2] = {ref, env};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        px_results *r = results_load(path, f, &err);
        cr_expect_not_null(r, "%s: %s", files[i], err.msg);
        if (!r)
            continue;
        cr_expect_eq(r->n_envs, 1, "%s", files[i]);
        cr_expect(r->n_envs && !strcmp(r->envs[0].name, names[i]), "%s holds %s", files[i],
                  r->n_envs ? r->envs[0].name : "nothing");
        cr_expect_eq(r->n_warnings, 0, "%s: %s", files[i], r->n_warnings ? r->warnings[0] : "");
        results_free(r);
    }
    fixture_free(f);
}

/* The bundle is whole, and works where there is no executor at all. */
static void check_inside(const char *bundle, const char *fixture, const char *results)
{
    char sums[1024];
    snprintf(sums, sizeof sums, "cd '%s' && sha256sum --quiet -c SHA256SUMS", bundle);
    cr_expect_eq(system(sums), 0, "SHA256SUMS does not check");
    setenv("PARITY_TORCH", "/nonexistent/parity-torch", 1);
    cmd_result r = tl_run_in(bundle, (const char *[]){"parity", "check", fixture, "--results", results, NULL});
    cr_expect_eq(r.status, 0, "check inside the bundle: %s%s", r.out, r.err);
    tl_free(&r);
    unsetenv("PARITY_TORCH");
}

Test(export, a_bundle_and_an_archive_hold_everything_and_check_inside, .init = init, .timeout = 120)
{
    char *dir = tl_tmpdir(), out[512], path[600];
    snprintf(out, sizeof out, "%s/bundle", dir);
    cmd_result r = tl_run((const char *[]){"parity", "export", DEMO, "--results", DEMO_RESULTS, "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    const char *files[] = {"fixture.yaml", "vocab.txt", "results/campus-results.yaml", "report.md", "report.html",
                           "manifests/reference.yaml", "manifests/cpu-bf16.yaml", "README.md", "SHA256SUMS", NULL};
    for (int i = 0; files[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        cr_expect_eq(access(path, R_OK), 0, "the bundle lacks %s", files[i]);
    }
    check_inside(out, "fixture.yaml", "results/campus-results.yaml");
    /* Its README says where each file is, and its commands run as printed. */
    snprintf(path, sizeof path, "%s/README.md", out);
    char *readme = tl_slurp(path);
    cr_expect(strstr(readme, "- `results/campus-results.yaml`: reference, cpu-bf16\n"), "%s", readme);
    cr_expect(strstr(readme, "    parity check fixture.yaml --results results/campus-results.yaml\n"), "%s", readme);
    free(readme);
    cr_expect_eq(run_printed(out, 0, 0), 3, "a judge, a review and sha256sum");
    /* Never over an existing one: exit 2, untouched. */
    r = tl_run((const char *[]){"parity", "export", DEMO, "--results", DEMO_RESULTS, "-o", out, NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_not_null(strstr(r.err, "already exists"), "%s", r.err);
    tl_free(&r);
    /* The archive: one top-level directory. */
    snprintf(out, sizeof out, "%s/bundle2.tar.gz", dir);
    r = tl_run((const char *[]){"parity", "export", DEMO, "--results", DEMO_RESULTS, "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/unpacked' && tar -xzf '%s' -C '%s/unpacked' && test -f "
                              "'%s/unpacked/bundle2/report.html'",
             dir, out, dir, dir);
    cr_expect_eq(system(cmd), 0, "the archive does not unpack into bundle2/");
    snprintf(path, sizeof path, "%s/unpacked/bundle2", dir);
    check_inside(path, "fixture.yaml", "results/campus-results.yaml");
    /* No temporary left beside them. */
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -q tmp", dir);
    cr_expect_neq(system(cmd), 0, "a temporary was left in %s", dir);
    free(dir);
}

/* A planted fault (the label map with film and volunteer swapped), sent as
 * a repro: checked again from its files, the same outcome and divergence. */
Test(repro, a_planted_fault_reproduces_from_its_bundle, .init = init, .timeout = 300)
{
    char *dir = tl_tmpdir(), out[512], res[512];
    snprintf(res, sizeof res, "%s/planted.yaml", dir);
    cmd_result r = tl_run((const char *[]){"parity", "run", "tests/data/planted.yaml", "-q", "-e", "reference", "-e",
                                           "swapped", "-o", res, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "check", "tests/data/planted.yaml", "--results", res, "-e", "reference",
                                "-e", "swapped", "--format", "json", NULL});
    char *before = strstr(r.out, "\"id\":\"film-night\",\"outcome\":\"wrong-label\"");
    cr_assert_not_null(before, "the planted fault is not there: %s", r.out);
    tl_free(&r);
    snprintf(out, sizeof out, "%s/repro", dir);
    r = tl_run((const char *[]){"parity", "repro", "tests/data/planted.yaml", "film-night", "-e", "swapped",
                                "--results", res, "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    char path[600];
    const char *files[] = {"fixture.yaml", "model.pt", "vocab.txt", "reference.yaml", "observed.yaml", "README.md",
                           "manifests/reference.yaml", "manifests/swapped.yaml", "SHA256SUMS", NULL};
    for (int i = 0; files[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        cr_expect_eq(access(path, R_OK), 0, "the repro lacks %s", files[i]);
    }
    snprintf(path, sizeof path, "%s/README.md", out);
    char *readme = tl_slurp(path);
    cr_assert_not_null(readme);
    cr_expect_not_null(strstr(readme, "wrong-label"), "%s", readme);
    cr_expect_not_null(strstr(readme, "parts from the"), "the divergence: %s", readme);
    cr_expect_not_null(strstr(readme, "parity check fixture.yaml"), "%s", readme);
    cr_expect(strstr(readme, "    parity run fixture.yaml -e swapped -o observed-again.yaml\n"), "%s", readme);
    free(readme);
    repro_files_load(out, "reference", "swapped");
    /* Judged from what it recorded, and run again from scratch: the same. */
    const char *again[][8] = {
        {"parity", "check", "fixture.yaml", "--results", "reference.yaml", "--results", "observed.yaml", NULL},
        {"parity", "check", "fixture.yaml", NULL}};
    for (int i = 0; i < 2; i++) {
        const char *argv[12];
        int n = 0;
        for (; again[i][n]; n++)
            argv[n] = again[i][n];
        argv[n++] = "--format", argv[n++] = "json", argv[n] = NULL;
        r = tl_run_in(out, argv);
        cr_expect_eq(r.status, 1, "%d: %s%s", i, r.out, r.err);
        cr_expect_not_null(strstr(r.out, "\"id\":\"film-night\",\"outcome\":\"wrong-label\""), "%d: %s", i, r.out);
        cr_expect_not_null(strstr(r.out, "\"stage\":\"label map\""), "%d: %s", i, r.out);
        tl_free(&r);
    }
    /* Every command its README prints, as printed: each check gives the
     * planted fault's exit 1 (the runs again are of the planted fault too). */
    cr_expect_eq(run_printed(out, 1, 1), 6, "two judges, two runs again, both here at once, sha256sum");
    free(dir);
}

/* ---- from an environment imported from another host ---- */

/* The README's round trip on one machine: the "host" runs the demo's
 * candidate through the Python executor with a backend module
 * (tests/backend/parity_planted.py, which does nothing unless asked), the
 * results are copied home, where the fixture names them (`tpu: {results:
 * tpu-results.yaml}`). Returns the home directory (fixture.yaml there). */
static char *imported_home(void)
{
    char *dir = tl_tmpdir(), cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "mkdir '%s/host' '%s/home' && for d in host home; do cp " DEMO " fixtures/campus-club/model.pt "
             "fixtures/campus-club/vocab.txt \"%s/$d/\"; done && "
             "sed -i '/^environments:$/a\\  tpu: {executor: python, device: cpu, dtype: bfloat16, role: candidate}' "
             "'%s/host/fixture.yaml' && "
             "sed -i '/^environments:$/a\\  tpu: {results: tpu-results.yaml, dtype: bfloat16, role: candidate}' "
             "'%s/home/fixture.yaml'",
             dir, dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char fx[PATH_MAX], res[PATH_MAX], pp[PATH_MAX + 32];
    snprintf(fx, sizeof fx, "%s/host/fixture.yaml", dir);
    snprintf(res, sizeof res, "%s/home/tpu-results.yaml", dir);
    snprintf(pp, sizeof pp, "%s/tests/backend", repo);
    setenv("PYTHONPATH", pp, 1);
    cmd_result r = tl_run((const char *[]){"parity", "run", fx, "-e", "tpu", "--python", tl_python(),
                                           "--backend-module", "tpu=parity_planted", "-q", "-o", res, NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    unsetenv("PYTHONPATH");
    char *home = malloc(strlen(dir) + 8);
    sprintf(home, "%s/home", dir);
    free(dir);
    return home;
}

/* A repro of the imported environment: its device and executor are kept
 * (the repro's fixture has it runnable as its manifest recorded it), both
 * recorded files are whole, and the README names the command that runs it
 * again on its host with --python and --backend-module placeholders. */
Test(repro, of_an_imported_environment_runs_as_printed, .init = init, .timeout = 300)
{
    char *home = imported_home(), out[PATH_MAX], path[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/repro", home);
    cmd_result r = tl_run_in(home, (const char *[]){"parity", "repro", "fixture.yaml", "charity-run", "-e", "tpu", "-o",
                                                    out, NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    snprintf(path, sizeof path, "%s/fixture.yaml", out);
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s", err.msg);
    const px_env *tpu = fixture_env(f, "tpu");
    cr_assert_not_null(tpu);
    cr_expect(tpu->device && !strcmp(tpu->device, "cpu") && tpu->python && !tpu->results,
              "the tpu's device and executor, as recorded, are in the repro's fixture");
    cr_expect_str_eq(tpu->dtype, "bfloat16");
    fixture_free(f);
    repro_files_load(out, "reference", "tpu");
    snprintf(path, sizeof path, "%s/README.md", out);
    char *readme = tl_slurp(path);
    cr_expect(strstr(readme, "    parity check fixture.yaml --results reference.yaml --results observed.yaml\n"), "%s",
              readme);
    /* Its device is cpu: the module goes to it by name (issue 38). */
    cr_expect(strstr(readme, "    parity run fixture.yaml -e tpu --python PYTHON --backend-module tpu=MODULE -o "
                             "observed-again.yaml\n"),
              "%s", readme);
    cr_expect(strstr(readme, "recorded: `parity_planted`"), "what MODULE stands for: %s", readme);
    cr_expect_null(strstr(readme, "    parity check fixture.yaml\n"), "tpu cannot run here with libtorch: %s", readme);
    free(readme);
    cr_expect_eq(run_printed(out, 0, 1), 5, "two judges, two runs again, sha256sum");
    free(home);
}

/* An export of the same: the imported file where the fixture names it,
 * the runs here under results/, the README saying so and its commands
 * running as printed without libtorch. */
Test(export, of_an_imported_environment_runs_as_printed, .init = init, .timeout = 300)
{
    char *home = imported_home(), out[PATH_MAX], path[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/export", home);
    cmd_result r = tl_run_in(home, (const char *[]){"parity", "export", "fixture.yaml", "-o", out, NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    snprintf(path, sizeof path, "%s/README.md", out);
    char *readme = tl_slurp(path);
    cr_expect(strstr(readme, "- `tpu-results.yaml`: tpu (the fixture names it in results:)\n"), "%s", readme);
    cr_expect(strstr(readme, "- `results/run.yaml`: reference, cpu-bf16"), "%s", readme);
    cr_expect_null(strstr(readme, "`results/`: every results file"), "%s", readme);
    /* Every file the README lists is there. */
    const char *listed[] = {"tpu-results.yaml", "results/run.yaml", "fixture.yaml", "report.md", "report.html",
                            "manifests/tpu.yaml", NULL};
    for (int i = 0; listed[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", out, listed[i]);
        cr_expect_eq(access(path, R_OK), 0, "the README lists %s, the bundle lacks it", listed[i]);
    }
    free(readme);
    cr_expect_eq(run_printed(out, 0, 0), 3, "a judge, a review and sha256sum");
    /* The twin left out: the README's commands leave it out too, so that
     * nothing would run it here. */
    snprintf(out, sizeof out, "%s/export-2", home);
    r = tl_run_in(home, (const char *[]){"parity", "export", "fixture.yaml", "-e", "reference", "-e", "tpu", "-o", out,
                                         NULL});
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    tl_free(&r);
    snprintf(path, sizeof path, "%s/README.md", out);
    readme = tl_slurp(path);
    cr_expect(strstr(readme, "    parity check fixture.yaml --results results/run.yaml -e tpu -e reference\n"), "%s",
              readme);
    free(readme);
    cr_expect_eq(run_printed(out, 0, 0), 3, "a judge, a review and sha256sum");
    free(home);
}

/* The README's own home command for a repro (`--results tpu-results.yaml`,
 * the tpu runnable in the fixture): the bundle it makes never holds an
 * empty reference.yaml. Where the reference has no results (with --results
 * nothing ran here) it is refused, in one line naming it, exit 3; where it
 * ran, the files are whole and the commands run. */
Test(repro, never_an_empty_reference, .init = init, .timeout = 300)
{
    char *home = imported_home(), out[PATH_MAX], cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "sed -i 's/tpu: {results: tpu-results.yaml,/tpu: {executor: python, device: cpu,/' "
                              "'%s/fixture.yaml'", home);
    cr_assert_eq(system(cmd), 0);
    snprintf(out, sizeof out, "%s/repro", home);
    cmd_result r = tl_run_in(home, (const char *[]){"parity", "repro", "fixture.yaml", "charity-run", "-e", "tpu",
                                                    "--results", "tpu-results.yaml", "-o", out, NULL});
    if (r.status) {
        cr_expect_eq(r.status, 3, "%s", r.err);
        cr_expect_eq(tl_lines(r.err), 1, "%s", r.err);
        cr_expect(strstr(r.err, "'reference' has no results"), "%s", r.err);
        cr_expect_neq(access(out, F_OK), 0, "a refused repro leaves nothing");
    } else {
        repro_files_load(out, "reference", "tpu");
        cr_expect_eq(run_printed(out, 0, 1), 5);
    }
    tl_free(&r);
    free(home);
}

/* Decisions recorded in the journal but not yet written into the fixture
 * are in the report, under their example and as pending. */
Test(report, decisions_waiting_in_the_journal_are_pending, .init = init, .timeout = 60)
{
    char *dir = tl_tmpdir(), fx[512], cmd[2048], res[PATH_MAX];
    snprintf(cmd, sizeof cmd, "cp fixtures/campus-club/fixture.yaml fixtures/campus-club/vocab.txt '%s'/", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(fx, sizeof fx, "%s/fixture.yaml", dir);
    cr_assert_not_null(realpath(DEMO_RESULTS, res));
    char journal[4200];
    journal_path(fx, journal, sizeof journal);
    px_decision d = {"bouldering", {"flag", "looks thin", "sam", "2026-12-03T09:00:00Z", NULL, NULL, NULL, NULL}};
    px_error err = {0};
    cr_assert_eq(journal_append(journal, &d, &err), 0, "%s", err.msg);
    cmd_result r = tl_run((const char *[]){"parity", "report", fx, "--results", res, "-f", "md", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *pending = strstr(r.out, "## Decisions pending");
    cr_assert_not_null(pending, "%s", r.out);
    cr_expect_not_null(strstr(pending, "- bouldering: flag by sam at 2026-12-03T09:00:00Z: looks thin"), "%s",
                       pending);
    cr_expect_not_null(strstr(r.out, "- Pending, not yet written into the fixture: flag by sam"), "%s", r.out);
    tl_free(&r);
    free(dir);
}

/* A generator's report (tests/data/gen: hand-written results of a tiny
 * generator): each example's cell holds the generated text and how it
 * ended, the contract its output settings; the Markdown matches a golden
 * file, and the HTML marks what must_match matched, the must_not_match
 * violation and the first diverging token, each in its own <mark>. */
Test(report, a_generators_report_shows_its_text_and_its_marks, .init = init, .timeout = 60)
{
    char *dir = tl_tmpdir(), cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/gen' && cp tests/data/gen/* '%s/gen/'", dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    const char *golden = "tests/golden/report/generator.md";
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "report", "gen/fixture.yaml", "--results",
                                                    "gen/results.yaml", "-f", "md", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    if (getenv("PARITY_UPDATE_GOLDEN"))
        tl_write(golden, r.out);
    char *want = tl_slurp(golden);
    cr_assert_not_null(want, "no %s (PARITY_UPDATE_GOLDEN=1 writes it; read it before committing)", golden);
    cr_expect_str_eq(r.out, want);
    const char *md[] = {
        "- Output settings: greedy, at most 48 new tokens, stops at '\\[EOS\\]'",
        "| Environment | Outcome | Generated text | Difference from the reference |",
        "| cpu-bf16 | pass-within-tolerance (meets the contract) | Talk by Dr Lee, Monday 18:00. (end stop, 30 tokens) "
        "| diverged at token 4 |",
        "| cpu-bf16 | constraint-violated (does NOT meet it) | Gig: The Owls, Saturday 20:00, $5. (end stop, 35 tokens) "
        "| diverged at token 29 |",
        "| cpu-bf16 | pass (meets the contract) | Film night: Casablanca, Friday 19:00. (end stop, 38 tokens) | the same "
        "tokens |",
        NULL};
    for (int i = 0; md[i]; i++)
        cr_expect(strstr(r.out, md[i]), "not in the Markdown: %s", md[i]);
    cr_expect_null(strstr(r.out, "Labels, in the model's output order"), "a generator has no labels");
    cr_expect(strstr(r.out, "| Quiz→\\<b\\>A\\&B\\</b\\> ␛\\[1m Sunday 12:00. (end stop, 35 tokens) |"), "%s", r.out);
    tl_free(&r);
    free(want);

    r = tl_run_in(dir, (const char *[]){"parity", "report", "gen/fixture.yaml", "--results", "gen/results.yaml", "-f",
                                        "html", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *html[] = {
        "<li>Output settings: greedy, at most 48 new tokens, stops at &#39;[EOS]&#39;</li>",
        "<th>Generated text</th>",
        /* the candidate's gig-price: the match, the divergence, the violation */
        "<span class=\"generated\">Gig: The Owls, <mark class=\"match\" title=\"what must_match matched\">Saturday</mark> "
        "20:00<mark class=\"diverged\" title=\"the first token that parts from the reference's\">,</mark> "
        "<mark class=\"bad\" title=\"what must_not_match matched: the violation\">$5</mark>.</span> "
        "<span class=\"muted\">(end stop, 35 tokens)</span>",
        /* the reference's: its match alone (it parts from no one) */
        "<span class=\"generated\">Gig: The Owls, <mark class=\"match\" title=\"what must_match matched\">Saturday</mark> "
        "20:00.</span>",
        /* a diverging space is marked as well */
        "Talk<mark class=\"diverged\" title=\"the first token that parts from the reference's\"> </mark>by Dr Lee",
        "mark.bad{",
        /* markup, a tab and an escape as text, the marks where they were */
        "<span class=\"generated\">Quiz→&lt;b&gt;A&amp;B&lt;/b&gt; ␛[1m <mark class=\"match\" title=\"what must_match "
        "matched\">Sunday</mark> 12:00.</span>",
        NULL};
    for (int i = 0; html[i]; i++)
        cr_expect(strstr(r.out, html[i]), "not in the HTML: %s", html[i]);
    cr_expect_null(strstr(r.out, "<b>A"), "markup from a generated text is text");
    cr_expect_null(strchr(r.out, '\x1b'), "an escape from a generated text is shown, never sent");
    tl_free(&r);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}

/* A classifier's report has no generator's marks or styles. */
Test(report, a_classifiers_html_has_no_generators_marks, .init = init, .timeout = 60)
{
    char *dir = demo_tree();
    cmd_result r = tl_run_in(dir, (const char *[]){"parity", "report", DEMO, "--results", DEMO_RESULTS, "-f", "html", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_null(strstr(r.out, "<mark"));
    cr_expect_null(strstr(r.out, "mark.bad"));
    cr_expect(strstr(r.out, "<th>Label</th>"));
    tl_free(&r);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}

/* The report names each environment for what it is (a real run's results,
 * tests/data/raises-twin-results.yaml): a float16 twin by its own dtype
 * and never "a TPU", its note as written; two float16 runs that differ
 * only in threads read apart; the verdicts say what failed (an any_of
 * failure's labels; an error by its last line, once when both raised). */
Test(report, environments_are_named_for_what_they_are, .init = init, .timeout = 60)
{
    cmd_result r = tl_run((const char *[]){"parity", "report", "tests/data/raises-twin.yaml", "--results",
                                           "tests/data/raises-twin-results.yaml", "-f", "md", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "| Environment | What it is | Device | dtype | Threads |"), "%s", r.out);
    cr_expect(strstr(r.out, "| half | CPU float16 twin: the target's float16 numerics on the CPU, not the target "
                            "device; note: a float16 twin on the CPU: not an accelerator | cpu ("),
              "%s", r.out);
    cr_expect(strstr(r.out, ") | float16 | 1 | libtorch, torch "), "%s", r.out);
    cr_expect(strstr(r.out, "| half-2 | candidate: cpu float16; note: the same twin with two threads | cpu ("), "%s",
              r.out);
    cr_expect(strstr(r.out, ") | float16 | 2 | libtorch, torch "), "%s", r.out);
    cr_expect(!strstr(r.out, "TPU") && !strstr(r.out, "bfloat16"), "%s", r.out);
    cr_expect(strstr(r.out, "gave film, expected any of sports, music"), "%s", r.out);
    cr_expect(strstr(r.out, "both raised: builtins.RuntimeError: planted failure"), "%s", r.out);
    cr_expect(!strstr(r.out, "Traceback"), "%s", r.out);
    tl_free(&r);
}

#define SEARCH "tests/data/embed/search.yaml"
#define SEARCH_RESULTS "tests/data/embed/search-results.yaml"

/* The svg of the report whose <title> begins with id (malloc'd); NULL
 * when none. */
static char *bump_chart_of(const char *html, const char *id)
{
    char head[128];
    snprintf(head, sizeof head, "<svg class=\"bump-chart\"");
    for (const char *p = strstr(html, head); p; p = strstr(p + 1, head)) {
        const char *title = strstr(p, "<title>"), *end = strstr(p, "</svg>");
        if (title && end && title < end && !strncmp(title + 7, id, strlen(id)) && title[7 + strlen(id)] == ':')
            return strndup(p, (size_t)(end - p));
    }
    return NULL;
}

/* An embedding's report: each query's first k per environment, in the
 * Markdown a table of rank by environment with what moved against the
 * reference marked (↑3: third in the reference; new) and what left; in
 * the HTML one bump chart per query, the moved documents' boxes and lines
 * of class "moved", said in its <title> too; a reordering that order: set
 * forgives "reordered", not "moved". */
Test(report, an_embedding_s_searches_per_query_and_environment, .init = init, .timeout = 60)
{
    cmd_result md = tl_run((const char *[]){"parity", "report", SEARCH, "--results", SEARCH_RESULTS, "--no-run", "-f",
                                            "md", NULL});
    cr_assert_eq(md.status, 0, "%s", md.err);
    cr_expect(strstr(md.out, "| Rank | reference | cpu-bf16 | tpu | gpu |\n|---|---|---|---|---|\n"
                             "| 1 | go-night 0.8191 | go-night 0.8071 | go-night 0.8082 | no ranking |\n"
                             "| 2 | chess-club 0.5850 | film-night 0.5773 **↑3** | film-night 0.5773 **↑3** |  |\n"
                             "| 3 | film-night 0.5616 | chess-club 0.5738 **↓2** | chess-club 0.5715 **↓2** |  |\n"),
              "q-swap's table:\n%s", md.out);
    cr_expect(strstr(md.out, "| 3 | film-night 0.1260 | film-night 0.1286 | lantern-walk 0.1276 **new** |  |\n\n"
                             "- Left the first k in tpu: film-night\n"),
              "q-enter's table");
    cr_expect(strstr(md.out, "| wrong-ranking | ") && strstr(md.out, "| ranking-changed | "), "the legend");
    /* An embedding's contract and rows speak of vectors and searches, not labels. */
    cr_expect(strstr(md.out, "- Output: a vector \\[1, 4\\]: mean pooling") && !strstr(md.out, "- Labels, in the model's output order"),
              "the output in brief");
    cr_expect(strstr(md.out, "| Environment | Outcome | Search | Difference from the reference |") &&
                  !strstr(md.out, "| Label |"),
              "the search column");
    cr_expect(strstr(md.out, "vectors, every example: ") && !strstr(md.out, "logits, every example"),
              "the tolerance says vectors");
    tl_free(&md);

    char *dir = tl_tmpdir(), *path = report_html(SEARCH, SEARCH_RESULTS, dir), *html = tl_slurp(path);
    cr_assert_not_null(html);
    size_t charts = 0;
    for (const char *p = strstr(html, "<svg class=\"bump-chart\""); p; p = strstr(p + 1, "<svg class=\"bump-chart\""))
        charts++;
    cr_expect_eq(charts, 5, "one chart per query (5), not %zu", charts);
    char *swap = bump_chart_of(html, "q-swap"), *enter = bump_chart_of(html, "q-enter"),
         *set = bump_chart_of(html, "q-set"), *drift = bump_chart_of(html, "q-drift");
    cr_assert(swap && enter && set && drift, "a chart per query, titled by its id");
    cr_expect(strstr(swap, "<title>q-swap: the first 3 documents by cosine in each environment; at another rank "
                           "than in the reference: film-night, chess-club</title>"),
              "%s", swap);
    cr_expect(strstr(swap, "rank 2 in tpu, cosine 0.5773; rank 3 in the reference</title><rect class=\"doc moved\""),
              "%s", swap);
    cr_expect(strstr(swap, "<line class=\"bump moved\""), "%s", swap);
    cr_expect(strstr(enter, "lantern-walk: rank 3 in tpu, cosine 0.1276; not in the reference's first 3</title>"
                            "<rect class=\"doc moved\""),
              "%s", enter);
    cr_expect(strstr(enter, ">left: film-night</text>"), "%s", enter);
    cr_expect(!strstr(set, "moved") && strstr(set, "class=\"doc reordered\""), "%s", set);
    cr_expect(!strstr(drift, "moved") && !strstr(drift, "reordered"), "%s", drift);
    /* a classifier's report has none */
    char *demo = report_html(DEMO, DEMO_RESULTS, dir), *plain = tl_slurp(demo);
    cr_expect(plain && !strstr(plain, "bump"), "a classifier's report has no bump chart");
    free(plain), free(demo), free(swap), free(enter), free(set), free(drift), free(html), free(path);
    sh("rm -rf '%s'%s", dir, "");
    free(dir);
}
