/* Helpers shared by the Criterion tests: temporary files and running the
 * built parity binary as a user would (argv, exit status, stdout, stderr). */
#ifndef PARITY_TESTLIB_H
#define PARITY_TESTLIB_H

#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct cmd_result {
    int status;      /* exit status, or 128 + signal */
    char *out, *err; /* malloc'd, NUL-terminated */
} cmd_result;

static inline char *tl_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static inline void tl_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        abort();
    }
    fputs(text, f);
    fclose(f);
}

/* A fresh directory under /tmp; the caller may leave it (tests are few). */
static inline char *tl_tmpdir(void)
{
    char *d = strdup("/tmp/parity-test-XXXXXX");
    if (!mkdtemp(d))
        abort();
    return d;
}

/* This test process's own directory under /tmp, made on first use and
 * removed (with everything in it) when the process exits. */
static char *tl_test_dir_path;

static inline void tl_test_dir_remove(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tl_test_dir_path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tl_test_dir_path);
    free(tl_test_dir_path);
}

static inline const char *tl_test_dir(void)
{
    if (!tl_test_dir_path) {
        tl_test_dir_path = tl_tmpdir();
        atexit(tl_test_dir_remove);
    }
    return tl_test_dir_path;
}

static inline const char *tl_parity(void)
{
    static char abs[4096];
    const char *p = getenv("PARITY_BIN");
    if (p)
        return p;
    return realpath("build/parity", abs) ? abs : "build/parity";
}

/* The interpreter the Python executor runs under in the tests: $PARITY_PYTHON
 * (make check's second pass: the venv's torch 2.13), else Debian's
 * /usr/bin/python3 (torch 1.13, the libtorch parity-torch links by default). */
/* s with every `from` replaced by `to` (malloc'd; NULL when out of
 * memory): the tests' fixture variants. */
static inline char *tl_replace_all(const char *s, const char *from, const char *to)
{
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = s; (p = strstr(p, from)); p += lf)
        n++;
    char *out = malloc(strlen(s) + n * (lt > lf ? lt - lf : 0) + 1), *o = out;
    for (const char *p = s, *q; out; p = q + lf) {
        q = strstr(p, from);
        size_t k = q ? (size_t)(q - p) : strlen(p);
        memcpy(o, p, k), o += k;
        if (!q) {
            *o = '\0';
            break;
        }
        memcpy(o, to, lt), o += lt;
    }
    return out;
}

static inline const char *tl_python(void)
{
    const char *p = getenv("PARITY_PYTHON");
    return p && *p ? p : "/usr/bin/python3";
}

/* torch.__version__ of tl_python() ("1.13.0a0" from Debian, "2.13.0+cpu"
 * from the wheel): the tests whose expectation depends on the torch under
 * test ask it, so each pass of make check says what it expects. */
static inline const char *tl_torch_version(void)
{
    static char v[64];
    if (v[0])
        return v;
    char cmd[PATH_MAX + 80];
    snprintf(cmd, sizeof cmd, "%s -c 'import torch; print(torch.__version__)' 2>/dev/null", tl_python());
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(v, sizeof v, p))
        snprintf(v, sizeof v, "unknown");
    if (p)
        pclose(p);
    v[strcspn(v, "\n")] = '\0';
    return v;
}

/* Run argv (argv[0] = "parity" is replaced by the built binary) in `cwd`
 * (NULL: here), capture output through files so a large output cannot
 * deadlock. */
static inline cmd_result tl_run_in(const char *cwd, const char *const *argv)
{
    char *dir = tl_tmpdir();
    char out[256], err[256];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    const char *args[64];
    int n = 0;
    args[n++] = tl_parity();
    for (int i = 1; argv[i] && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    cmd_result r = {-1, NULL, NULL};
    pid_t pid = fork();
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY), o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644),
            e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || (cwd && chdir(cwd)))
            _exit(126);
        execv(args[0], (char *const *)args);
        _exit(127);
    }
    if (pid > 0) {
        int st;
        waitpid(pid, &st, 0);
        r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    r.out = tl_slurp(out);
    r.err = tl_slurp(err);
    unlink(out), unlink(err), rmdir(dir);
    free(dir);
    return r;
}

static inline cmd_result tl_run(const char *const *argv) { return tl_run_in(NULL, argv); }

static inline void tl_free(cmd_result *r)
{
    free(r->out);
    free(r->err);
}

/* Remove a fixture made for a test, and the history of last good
 * configurations a check of it left beside it
 * (".<name>.parity-history.yaml", history.h). */
static inline void tl_unlink_fixture(const char *path)
{
    char hist[PATH_MAX + 32];
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(hist, sizeof hist, "%.*s/.%s.parity-history.yaml", (int)(slash - path), path, slash + 1);
    else
        snprintf(hist, sizeof hist, ".%s.parity-history.yaml", path);
    unlink(path);
    unlink(hist);
}

/* A test whose every executor the test names itself (the venv's Python
 * by its path; no libtorch environment, no test device, nothing taken from
 * $PARITY_TORCH, $PARITY_TESTDEV, $PARITY_PYTHON or the torch under test)
 * runs exactly the same in make check's torch 2.13 pass as in its first:
 * that pass (PARITY_REPEAT_PASS set) skips it, saying so. A macro, so that
 * a file without Criterion can include this one. */
#define TL_ONCE_PER_CHECK()                                                                                    \
    do {                                                                                                       \
        if (getenv("PARITY_REPEAT_PASS"))                                                                      \
            cr_skip_test("its executors do not change with the torch under test: make check's first pass "    \
                         "ran it");                                                                            \
    } while (0)

/* Number of lines in s (a trailing newline does not start a new line). */
static inline int tl_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        if (*s == '\n' || s[1] == '\0')
            n++;
    return n;
}

#endif
