/* parity decide through the built binary: what a reviewer relies on. The
 * journal survives kill -9 at any moment, a fixture changed behind our back
 * is never overwritten, permissions and links are kept, a failed write
 * leaves the original. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/journal.h"
#include "testlib.h"

#define N_EXAMPLES 20

/* A valid fixture with comments and blank lines, in dir; returns its path. */
static char *make_fixture(const char *dir)
{
    char *path = malloc(strlen(dir) + 32);
    sprintf(path, "%s/fixture.yaml", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "# decide tests\nparity: 1\ncontract:\n  task: t\n  model: {path: m.pt}\n  input:\n"
               "    tokenizer: {kind: wordpiece, vocab: v.txt}\n  labels: [a, b]\n"
               "environments:\n  reference: {device: cpu}\nexamples:\n");
    for (int i = 0; i < N_EXAMPLES; i++)
        fprintf(f, "\n  # example %d\n  - id: e%d\n    text: \"text %d\"   # keep me\n    expect: {label: a}\n", i, i, i);
    fclose(f);
    return path;
}

static px_fixture *load(const char *path)
{
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return f;
}

static const px_example *example(const px_fixture *f, const char *id)
{
    for (size_t i = 0; i < f->n_examples; i++)
        if (!strcmp(f->examples[i].id, id))
            return &f->examples[i];
    return NULL;
}

static int journal_exists(const char *fixture)
{
    char j[4200];
    journal_path(fixture, j, sizeof j);
    return access(j, F_OK) == 0;
}

Test(decide, writes_only_the_review_and_removes_the_journal)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir), *before = tl_slurp(fx);
    chmod(fx, 0640);
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "e3", "--decision", "defect", "--note",
                                           "label: \"b\" # really\nsecond line", "-r", "sam", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "recorded: e3 defect"), "%s", r.out);
    px_fixture *f = load(fx);
    const px_example *x = example(f, "e3");
    cr_expect_str_eq(x->review.decision, "defect");
    cr_expect_str_eq(x->review.note, "label: \"b\" # really\nsecond line");
    cr_expect_str_eq(x->review.by, "sam");
    cr_expect_null(example(f, "e4")->review.decision);
    fixture_free(f);
    char *after = tl_slurp(fx);
    /* Everything before e3's last line is byte for byte the same. */
    const char *e3 = strstr(before, "- id: e3");
    size_t keep = (size_t)(strstr(e3, "expect: {label: a}\n") + 19 - before);
    cr_expect_eq(memcmp(before, after, keep), 0);
    cr_expect_str_eq(after + strlen(after) - strlen(before) + keep, before + keep, "and so is everything after");
    struct stat st;
    stat(fx, &st);
    cr_expect_eq(st.st_mode & 0777, 0640, "mode kept");
    cr_expect_not(journal_exists(fx));
    tl_free(&r);
    free(before), free(after), free(fx), free(dir);
}

Test(decide, bad_input_leaves_the_file_and_no_journal)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir), *before = tl_slurp(fx);
    const char *const *cases[] = {
        (const char *[]){"parity", "decide", fx, "nope", "-d", "accept", NULL},
        (const char *[]){"parity", "decide", fx, "e1", "-d", "maybe", NULL},
        (const char *[]){"parity", "decide", fx, "e1", NULL},
        (const char *[]){"parity", "decide", "/nonexistent/f.yaml", "e1", "-d", "accept", NULL},
    };
    const char *needles[] = {"no example with id 'nope'", "--decision must be one of accept, defect",
                             "has no --decision", "cannot read fixture"};
    for (size_t i = 0; i < 4; i++) {
        cmd_result r = tl_run(cases[i]);
        cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
        cr_expect(strstr(r.err, needles[i]), "case %zu: %s", i, r.err);
        cr_expect_eq(tl_lines(r.err), 1, "case %zu", i);
        tl_free(&r);
    }
    char *after = tl_slurp(fx);
    cr_expect_str_eq(after, before);
    cr_expect_not(journal_exists(fx));
    free(before), free(after), free(fx), free(dir);
}

Test(decide, a_review_of_the_wrong_shape_is_refused)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir), *text = tl_slurp(fx);
    char *at = strstr(text, "- id: e2\n");
    char *out = malloc(strlen(text) + 64);
    size_t head = (size_t)(strstr(at, "expect: {label: a}\n") + 19 - text);
    sprintf(out, "%.*s    review: [accept]\n%s", (int)head, text, text + head);
    tl_write(fx, out);
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "e2", "-d", "accept", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "review must be a mapping") || strstr(r.err, "must be a mapping"), "%s", r.err);
    char *after = tl_slurp(fx);
    cr_expect_str_eq(after, out);
    tl_free(&r);
    free(after), free(out), free(text), free(fx), free(dir);
}

Test(decide, read_only_fixture_is_refused)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir), *before = tl_slurp(fx);
    chmod(fx, 0444);
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "e1", "-d", "accept", NULL});
    cr_expect_eq(r.status, 4, "%s", r.err);
    cr_expect(strstr(r.err, "read-only"), "%s", r.err);
    char *after = tl_slurp(fx);
    cr_expect_str_eq(after, before);
    tl_free(&r);
    free(before), free(after), free(fx), free(dir);
}

Test(decide, a_symlinked_fixture_is_written_through)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir), link[256];
    snprintf(link, sizeof link, "%s/link.yaml", dir);
    cr_assert_eq(symlink("fixture.yaml", link), 0);
    cmd_result r = tl_run((const char *[]){"parity", "decide", link, "e1", "-d", "accept", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    struct stat st;
    lstat(link, &st);
    cr_expect(S_ISLNK(st.st_mode));
    px_fixture *f = load(fx);
    cr_expect_str_eq(example(f, "e1")->review.decision, "accept");
    fixture_free(f);
    tl_free(&r);
    free(fx), free(dir);
}

Test(decide, a_full_disk_leaves_the_original)
{
    char *dir = tl_tmpdir();
    if (mount("tmpfs", dir, "tmpfs", 0, "size=64k"))
        cr_skip_test("cannot mount a small tmpfs here (needs root and CAP_SYS_ADMIN)");
    char *fx = make_fixture(dir), *before = tl_slurp(fx), fill[256];
    /* Fill the rest of the disk so the new copy cannot be written. */
    snprintf(fill, sizeof fill, "%s/fill", dir);
    FILE *f = fopen(fill, "w");
    char block[4096] = {0};
    while (fwrite(block, 1, sizeof block, f) == sizeof block && fflush(f) == 0)
        ;
    fclose(f);
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "e1", "-d", "accept", NULL});
    cr_expect_neq(r.status, 0);
    cr_expect(strstr(r.err, "No space left"), "%s", r.err);
    char *after = tl_slurp(fx);
    cr_expect_str_eq(after, before, "the original is untouched");
    tl_free(&r);
    umount(dir);
    rmdir(dir);
    free(before), free(after), free(fx), free(dir);
}

Test(decide, changed_on_disk_is_refused_then_recovered, .timeout = 60)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir), *text = tl_slurp(fx);
    setenv("PARITY_TEST_PAUSE_BEFORE_WRITE", "2", 1);
    char out[256];
    snprintf(out, sizeof out, "%s/out", dir);
    pid_t pid = fork();
    if (pid == 0) {
        freopen(out, "w", stdout);
        freopen("/dev/null", "w", stderr);
        execl(tl_parity(), "parity", "decide", fx, "e5", "-d", "flag", "-n", "kept", NULL);
        _exit(127);
    }
    unsetenv("PARITY_TEST_PAUSE_BEFORE_WRITE");
    nanosleep(&(struct timespec){1, 0}, NULL);
    /* Another editor saves the file meanwhile. */
    char *edited = malloc(strlen(text) + 32);
    sprintf(edited, "# edited elsewhere\n%s", text);
    tl_write(fx, edited);
    int st;
    waitpid(pid, &st, 0);
    cr_expect_eq(WEXITSTATUS(st), 2, "refused");
    char *now = tl_slurp(fx);
    cr_expect_str_eq(now, edited, "the other edit is not overwritten");
    cr_expect(journal_exists(fx), "the decision waits in the journal");
    free(now);
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "e6", "-d", "accept", NULL});
    cr_expect_eq(r.status, 2, "a new decision waits for the recovery first");
    cr_expect(strstr(r.err, "--recover"), "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "decide", fx, "--recover", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    px_fixture *f = load(fx);
    cr_expect_str_eq(example(f, "e5")->review.decision, "flag");
    cr_expect_str_eq(example(f, "e5")->review.note, "kept");
    fixture_free(f);
    now = tl_slurp(fx);
    cr_expect(strncmp(now, "# edited elsewhere\n", 19) == 0, "recovery applies on top of the other edit");
    cr_expect_not(journal_exists(fx));
    free(now), free(edited), free(text), free(fx), free(dir);
}

/* kill -9 at random moments of a series of decisions, then recover: every
 * decision that was reported recorded is in the fixture. */
Test(decide, kill_9_loses_nothing_recorded, .timeout = 300)
{
    srand(20261202);
    for (int round = 0; round < 6; round++) {
        char *dir = tl_tmpdir(), *fx = make_fixture(dir), out[256], script[9000];
        snprintf(out, sizeof out, "%s/out", dir);
        snprintf(script, sizeof script,
                 "for i in $(seq 0 %d); do \"%s\" decide \"%s\" e$i -d accept -n \"note $i\" || exit 1; done",
                 N_EXAMPLES - 1, tl_parity(), fx);
        pid_t pid = fork();
        if (pid == 0) {
            setpgid(0, 0);
            freopen(out, "w", stdout);
            freopen("/dev/null", "w", stderr);
            execl("/bin/sh", "sh", "-c", script, NULL);
            _exit(127);
        }
        setpgid(pid, pid);
        long ms = 20 + rand() % 400;
        nanosleep(&(struct timespec){0, ms * 1000000L}, NULL);
        kill(-pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "--recover", NULL});
        cr_expect_eq(r.status, 0, "round %d: recover: %s", round, r.err);
        tl_free(&r);
        char *said = tl_slurp(out);
        px_fixture *f = load(fx);
        int recorded = 0;
        for (int i = 0; i < N_EXAMPLES; i++) {
            char line[64], id[16], note[32];
            snprintf(line, sizeof line, "recorded: e%d accept\n", i);
            snprintf(id, sizeof id, "e%d", i);
            snprintf(note, sizeof note, "note %d", i);
            if (!strstr(said, line))
                continue;
            recorded++;
            const px_example *x = example(f, id);
            cr_expect(x->review.decision && !strcmp(x->review.decision, "accept"), "round %d: %s lost", round, id);
            cr_expect(x->review.note && !strcmp(x->review.note, note), "round %d: %s note", round, id);
        }
        cr_log_info("round %d: killed after %ld ms, %d decisions recorded", round, ms, recorded);
        cr_expect_not(journal_exists(fx));
        fixture_free(f);
        free(said), free(fx), free(dir);
    }
}

/* Found by the fuzzer: a review value that is an alias stands for a node
 * written elsewhere; editing "it" would edit that. */
Test(decide, an_aliased_review_value_is_refused)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir), *text = tl_slurp(fx);
    /* The task carries an anchor; e2's review names its reviewer by alias. */
    char *out = malloc(strlen(text) + 128), *o = out;
    const char *task = strstr(text, "task: t\n"), *e2 = strstr(text, "- id: e2\n");
    const char *end2 = strstr(e2, "expect: {label: a}\n") + 19;
    o += sprintf(o, "%.*stask: &sam t\n", (int)(task - text), text);
    o += sprintf(o, "%.*s    review: {decision: flag, by: *sam}\n%s", (int)(end2 - task - 8), task + 8, end2);
    tl_write(fx, out);
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "e2", "-d", "accept", "-r", "kim", NULL});
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "review.by is an alias"), "%s", r.err);
    char *after = tl_slurp(fx);
    cr_expect_str_eq(after, out);
    tl_free(&r);
    free(after), free(out), free(text), free(fx), free(dir);
}

/* A note belongs to whoever wrote it: a later decision without --note keeps
 * the note with its author (note_by/note_at), whether that author was
 * recorded with the note or only as the old decision's by/at. */
Test(decide, a_note_keeps_its_author)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir);
    setenv("PARITY_NOW", "2026-12-01T09:00:00Z", 1);
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "e1", "--decision", "flag", "--note",
                                           "thin margin", "-r", "sam", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    setenv("PARITY_NOW", "2026-12-02T10:00:00Z", 1);
    r = tl_run((const char *[]){"parity", "decide", fx, "e1", "--decision", "accept", "-r", "kim", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    px_fixture *f = load(fx);
    const px_review *rv = &example(f, "e1")->review;
    cr_expect_str_eq(rv->decision, "accept");
    cr_expect_str_eq(rv->by, "kim");
    cr_expect_str_eq(rv->at, "2026-12-02T10:00:00Z");
    cr_expect_str_eq(rv->note, "thin margin");
    cr_expect_str_eq(rv->note_by, "sam", "the note is still sam's");
    cr_expect_str_eq(rv->note_at, "2026-12-01T09:00:00Z");
    fixture_free(f);

    /* A note written before note_by existed: its author was the old by. */
    char *text = tl_slurp(fx), *at = strstr(text, "  - id: e2\n"), *legacy = malloc(strlen(text) + 200);
    cr_assert_not_null(at);
    at = strstr(at, "expect: {label: a}\n") + 19;
    sprintf(legacy, "%.*s    review: {decision: flag, note: \"ask the club\", by: lee, at: \"2026-11-30T08:00:00Z\"}\n%s",
            (int)(at - text), text, at);
    tl_write(fx, legacy);
    r = tl_run((const char *[]){"parity", "decide", fx, "e2", "--decision", "defect", "-r", "kim", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    f = load(fx);
    rv = &example(f, "e2")->review;
    cr_expect(!strcmp(rv->by, "kim") && !strcmp(rv->note, "ask the club") && !strcmp(rv->note_by, "lee") &&
                  !strcmp(rv->note_at, "2026-11-30T08:00:00Z"),
              "by %s note %s note_by %s note_at %s", rv->by, rv->note, rv->note_by, rv->note_at);
    fixture_free(f);
    /* With --note, the new note is the decider's. */
    r = tl_run((const char *[]){"parity", "decide", fx, "e2", "--decision", "defect", "--note", "fixed", "-r", "kim",
                                NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    f = load(fx);
    rv = &example(f, "e2")->review;
    cr_expect(!strcmp(rv->note, "fixed") && !strcmp(rv->note_by, "kim"), "note %s by %s", rv->note, rv->note_by);
    fixture_free(f);
    unsetenv("PARITY_NOW");
    free(text), free(legacy), free(fx), free(dir);
}

/* A decision says what it was made on: --env, and with --results the hash
 * of that environment's result; a later decision without them drops them
 * rather than leave a stale environment standing. */
Test(decide, a_decision_records_what_it_was_made_on)
{
    char *dir = tl_tmpdir(), fx[300], cmd[600];
    snprintf(fx, sizeof fx, "%s/fixture.yaml", dir);
    snprintf(cmd, sizeof cmd, "cp fixtures/campus-club/fixture.yaml fixtures/campus-club/model.pt "
                              "fixtures/campus-club/vocab.txt '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "bouldering", "--decision", "accept", "--env",
                                           "cpu-bf16", "--results", "tests/data/campus-results.yaml", "-r", "sam", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    px_fixture *f = load(fx);
    const px_review *rv = &example(f, "bouldering")->review;
    cr_expect_str_eq(rv->env, "cpu-bf16");
    cr_assert_not_null(rv->results);
    cr_expect_eq(strlen(rv->results), 64);
    fixture_free(f);
    /* check says it applies to cpu-bf16's results as they are... */
    r = tl_run((const char *[]){"parity", "check", fx, "--results", "tests/data/campus-results.yaml", "--format",
                                "json", NULL});
    cr_expect(strstr(r.out, "\"env\":\"cpu-bf16\"") && strstr(r.out, "\"applies\":\"here\""), "%s", r.out);
    tl_free(&r);
    /* ...and not to other results: one logit changed. */
    char *res = tl_slurp("tests/data/campus-results.yaml"), *bf = strstr(res, "\n  \"cpu-bf16\":"), other[300];
    char *b = strchr(strstr(strstr(bf, "id: \"bouldering\""), "values: ["), ',') - 1;
    *b = *b == '1' ? '2' : '1'; /* the last digit of the first logit */
    snprintf(other, sizeof other, "%s/other.yaml", dir);
    tl_write(other, res);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", other, NULL});
    cr_expect(strstr(r.out, "review: accepted on cpu-bf16's earlier results, not on these (by sam)"), "%s", r.out);
    tl_free(&r);
    /* The same decision on the reference: not yet on cpu-bf16. */
    r = tl_run((const char *[]){"parity", "decide", fx, "bouldering", "--decision", "accept", "--env", "reference",
                                "-r", "kim", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    f = load(fx);
    cr_expect_str_eq(example(f, "bouldering")->review.env, "reference");
    cr_expect_null(example(f, "bouldering")->review.results, "no --results: the old hash is dropped");
    fixture_free(f);
    r = tl_run((const char *[]){"parity", "check", fx, "--results", "tests/data/campus-results.yaml", NULL});
    cr_expect(strstr(r.out, "review: accepted on reference, not yet on cpu-bf16 (by kim)"), "%s", r.out);
    tl_free(&r);
    /* --results needs --env; an environment the fixture lacks is refused. */
    r = tl_run((const char *[]){"parity", "decide", fx, "bouldering", "--decision", "accept", "--results",
                                "tests/data/campus-results.yaml", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "name the environment with --env too"), "%s", r.err);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "decide", fx, "bouldering", "--decision", "accept", "--env", "tpu", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--env: no environment 'tpu'"), "%s", r.err);
    tl_free(&r);
    free(res);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(dir);
}

/* A kill that tore the journal's first line leaves nothing acknowledged:
 * --recover says so and removes it, and the next decision reads cleanly. */
Test(decide, recover_removes_a_journal_with_only_a_torn_line)
{
    char *dir = tl_tmpdir(), *fx = make_fixture(dir), j[4200];
    journal_path(fx, j, sizeof j);
    tl_write(j, "parity-journal 2\te1\tacc");
    cmd_result r = tl_run((const char *[]){"parity", "decide", fx, "--recover", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "nothing to recover"), "%s", r.out);
    cr_expect_not(journal_exists(fx));
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "decide", fx, "e2", "-d", "flag", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tl_free(&r);
    cr_expect_not(journal_exists(fx));
    free(fx), free(dir);
}
