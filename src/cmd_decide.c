/* parity decide: record review decisions in the fixture file. Every decision
 * goes to the journal first (fsync'd); then the fixture is spliced in memory,
 * verified, checked unchanged on disk, and replaced atomically; then the
 * journal goes. */
#define _GNU_SOURCE /* strdup in C11 mode, getenv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "parity/atomic.h"
#include "parity/cli.h"
#include "parity/fixture.h"
#include "parity/hash.h"
#include "parity/journal.h"
#include "parity/yamledit.h"

#define MAX_DECISIONS 256

typedef struct decide_args {
    const char *fixture;
    px_decision d[MAX_DECISIONS];
    size_t n;
    const char *reviewer;
    int recover;
} decide_args;

static int fail(const px_error *err)
{
    char line[2048];
    px_error_format(err, line, sizeof line);
    fprintf(stderr, "parity: %s\n", line);
    return err->code ? err->code : PX_EXIT_USAGE;
}

static int usage(const char *msg, const char *arg)
{
    fprintf(stderr, "parity decide: ");
    fprintf(stderr, msg, arg);
    fprintf(stderr, " (try parity --help)\n");
    return PX_EXIT_USAGE;
}

static int parse(int argc, char **argv, decide_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(s, "--recover")) {
            a->recover = 1;
        } else if (!strcmp(s, "--decision") || !strcmp(s, "-d") || !strcmp(s, "--note") || !strcmp(s, "-n")) {
            if (!has_value || a->n == 0)
                return usage("%s needs a value and an example id before it", s);
            if (s[2] == 'd' || s[1] == 'd')
                a->d[a->n - 1].decision = argv[++i];
            else
                a->d[a->n - 1].note = argv[++i];
        } else if (!strcmp(s, "--reviewer") || !strcmp(s, "-r")) {
            if (!has_value)
                return usage("%s needs a name", s);
            a->reviewer = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return usage("unknown option %s", s);
        } else if (!a->fixture) {
            a->fixture = s;
        } else if (a->n == MAX_DECISIONS) {
            return usage("at most 256 decisions at once%s", "");
        } else {
            a->d[a->n++].id = s;
        }
    }
    if (!a->fixture)
        return usage("which fixture?%s", "");
    if (a->recover && a->n)
        return usage("--recover applies the journal; give no example ids with it%s", "");
    if (!a->recover && !a->n)
        return usage("which example? parity decide FIXTURE ID --decision D%s", "");
    for (size_t i = 0; i < a->n; i++) {
        if (!a->d[i].decision)
            return usage("example '%s' has no --decision", a->d[i].id);
        if (!yamledit_is_decision(a->d[i].decision))
            return usage("--decision must be accept, defect, unsupported, needs-rule, flag or clear, not '%s'",
                         a->d[i].decision);
    }
    return 0;
}


/* The fixture may not be written: read-only file (a reviewer's "hands
 * off"), even for root, who would otherwise replace it by rename. */
static int check_writable(const char *path, px_error *err)
{
    struct stat st;
    if (stat(path, &st))
        return px_error_set(err, PX_EXIT_USAGE, path, 0, 0, "cannot read fixture: %s", strerror(errno));
    if (!(st.st_mode & 0222))
        return px_error_set(err, PX_EXIT_IO, path, 0, 0, "the fixture is read-only; nothing written");
    return 0;
}

static void stamp(decide_args *a, char *at, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(at, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *by = a->reviewer ? a->reviewer : getenv("USER");
    for (size_t i = 0; i < a->n; i++) {
        a->d[i].at = at;
        a->d[i].by = by && *by ? by : "unknown";
    }
}

/* Splice, verify and prove the result is still a fixture. */
static char *edit_text(const char *path, const char *text, size_t len, const px_decision *d, size_t n, size_t *out_len,
                       px_error *err)
{
    char *out = NULL;
    if (yamledit_apply(path, text, len, d, n, &out, out_len, err))
        return NULL;
    px_fixture *f = fixture_parse(path, out, *out_len, err);
    if (!f) {
        free(out);
        return NULL;
    }
    fixture_free(f);
    return out;
}

/* Write the edited text (made before anything was journaled, so a typo is
 * never recorded) unless the file changed on disk since it was read. */
static int write_back(const decide_args *a, const char *journal, char *out, size_t out_len, const char *hash0,
                      size_t n)
{
    px_error err = {0};
    /* Someone else's edit since we read it wins: refuse, keep the journal. */
    size_t now_len = 0;
    char *now = fixture_read(a->fixture, &now_len, &err), hash1[PX_SHA256_HEX] = "";
    if (now)
        hash_buffer(now, now_len, hash1);
    free(now);
    int rc = 0;
    if (strcmp(hash0, hash1)) {
        fprintf(stderr, "parity: %s: changed on disk since it was read; nothing written, the decisions wait in %s "
                        "(parity decide %s --recover)\n", a->fixture, journal, a->fixture);
        rc = PX_EXIT_USAGE;
    } else if (atomic_write(a->fixture, out, out_len, &err)) {
        fprintf(stderr, "parity: %s (the decisions wait in %s)\n", err.msg, journal);
        rc = PX_EXIT_IO;
    } else if (journal_remove(journal, &err)) {
        rc = fail(&err);
    } else {
        printf("%s: %zu decision%s written\n", a->fixture, n, n == 1 ? "" : "s");
    }
    free(out);
    return rc;
}

int cmd_decide(int argc, char **argv)
{
    decide_args a;
    if (parse(argc, argv, &a))
        return PX_EXIT_USAGE;
    px_error err = {0};
    char journal[4200], at[32], hash0[PX_SHA256_HEX];
    journal_path(a.fixture, journal, sizeof journal);
    size_t len = 0;
    char *text = fixture_read(a.fixture, &len, &err);
    if (!text)
        return fail(&err);
    hash_buffer(text, len, hash0);
    px_journal j;
    int rc = journal_read(journal, &j, &err) ? fail(&err) : 0;
    if (!rc && j.n && !a.recover) {
        fprintf(stderr, "parity: %s: %zu decision%s from an interrupted session wait in %s: run parity decide %s "
                        "--recover first\n", a.fixture, j.n, j.n == 1 ? "" : "s", journal, a.fixture);
        rc = PX_EXIT_USAGE;
    } else if (!rc && a.recover && !j.n) {
        printf("%s: nothing to recover\n", a.fixture);
    } else if (!rc && check_writable(a.fixture, &err)) {
        rc = fail(&err);
    } else if (!rc && a.recover) {
        size_t out_len = 0;
        char *out = edit_text(a.fixture, text, len, j.d, j.n, &out_len, &err);
        rc = out ? write_back(&a, journal, out, out_len, hash0, j.n) : fail(&err);
    } else if (!rc) {
        stamp(&a, at, sizeof at);
        size_t out_len = 0;
        char *out = edit_text(a.fixture, text, len, a.d, a.n, &out_len, &err);
        if (!out)
            rc = fail(&err);
        for (size_t i = 0; !rc && i < a.n; i++) {
            if (journal_append(journal, &a.d[i], &err))
                rc = fail(&err);
            else
                printf("recorded: %s %s\n", a.d[i].id, a.d[i].decision);
        }
        fflush(stdout);
        /* Fault injection for the tests: hold the recorded decisions
         * before writing, as a long review session would. */
        const char *pause = getenv("PARITY_TEST_PAUSE_BEFORE_WRITE");
        if (!rc && pause)
            nanosleep(&(struct timespec){atoi(pause), 0}, NULL);
        if (!rc)
            rc = write_back(&a, journal, out, out_len, hash0, a.n);
        else
            free(out);
    }
    journal_free(&j);
    free(text);
    return rc;
}
