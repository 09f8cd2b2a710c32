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

#include "parity/decide.h"
#include "parity/cli.h"
#include "parity/fixture.h"
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


static void stamp(decide_args *a, char *at, size_t size)
{
    decide_now(at, size);
    const char *by = a->reviewer ? a->reviewer : getenv("USER");
    for (size_t i = 0; i < a->n; i++) {
        a->d[i].at = at;
        a->d[i].by = by && *by ? by : "unknown";
    }
}

static int commit(px_decide *s, char *out, size_t out_len, size_t n)
{
    px_error err = {0};
    if (decide_commit(s, out, out_len, &err))
        return fail(&err);
    printf("%s: %zu decision%s written\n", s->path, n, n == 1 ? "" : "s");
    return 0;
}

int cmd_decide(int argc, char **argv)
{
    decide_args a;
    if (parse(argc, argv, &a))
        return PX_EXIT_USAGE;
    px_error err = {0};
    px_decide s;
    char at[32];
    if (decide_open(&s, a.fixture, &err))
        return fail(&err);
    px_journal j;
    int rc = journal_read(s.journal, &j, &err) ? fail(&err) : 0;
    if (!rc && j.n && !a.recover) {
        fprintf(stderr, "parity: %s: %zu decision%s from an interrupted session wait in %s: run parity decide %s "
                        "--recover first\n", a.fixture, j.n, j.n == 1 ? "" : "s", s.journal, a.fixture);
        rc = PX_EXIT_USAGE;
    } else if (!rc && a.recover && !j.n) {
        printf("%s: nothing to recover\n", a.fixture);
    } else if (!rc && decide_writable(&s, &err)) {
        rc = fail(&err);
    } else if (!rc) {
        const px_decision *d = a.recover ? j.d : a.d;
        size_t n = a.recover ? j.n : a.n;
        if (!a.recover)
            stamp(&a, at, sizeof at);
        size_t out_len = 0;
        /* Edited before anything is journaled, so a typo is never recorded. */
        char *out = decide_edit(&s, d, n, &out_len, &err);
        if (!out)
            rc = fail(&err);
        for (size_t i = 0; !rc && !a.recover && i < n; i++) {
            if (journal_append(s.journal, &d[i], &err))
                rc = fail(&err);
            else
                printf("recorded: %s %s\n", d[i].id, d[i].decision);
        }
        fflush(stdout);
        /* Fault injection for the tests: hold the recorded decisions
         * before writing, as a long review session would. */
        const char *pause = getenv("PARITY_TEST_PAUSE_BEFORE_WRITE");
        if (!rc && pause)
            nanosleep(&(struct timespec){atoi(pause), 0}, NULL);
        if (!rc)
            rc = commit(&s, out, out_len, n);
        else
            free(out);
    }
    journal_free(&j);
    decide_close(&s);
    return rc;
}
