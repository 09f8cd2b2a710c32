/* parity report, export and repro: what is handed to someone who was not
 * there. Each takes its results as check does (run here, or recorded, the
 * check session, cmd_check.c), judges them (session_judge), tells the story
 * (include/parity/story.h) and writes it: a report, a bundle, a repro. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_check.h"
#include "parity/atomic.h"
#include "parity/bundle.h"
#include "parity/judge.h"
#include "parity/report_html.h"
#include "parity/report_md.h"
#include "parity/story.h"

/* report's own options. */
typedef struct report_opts {
    check_args a;
    const char *format; /* md (default), html */
} report_opts;

/* repro's: FIXTURE ID. */
typedef struct repro_opts {
    check_args a;
    const char *id;
} repro_opts;

/* Judged (session_judge: the judgement, the benchmark verdicts, the last
 * good comparison), and told (with the decisions still waiting in the
 * journal). */
typedef struct told {
    px_verdicts v;
    px_story *s;
} told;

static int tell(const px_check *c, told *t, px_error *err)
{
    memset(t, 0, sizeof *t);
    if (session_judge(c, &t->v, err))
        return -1;
    if (!(t->s = story_build(c->f, c->res, &t->v.j, t->v.since, &c->history_err, err))) {
        verdicts_free(&t->v);
        return -1;
    }
    return 0;
}

static void untell(told *t)
{
    story_free(t->s);
    verdicts_free(&t->v);
}

/* The report is written whole or not at all: to stdout, or atomically to
 * -o. Its exit status says whether it was written, not the verdict (that
 * is check's, and the report's first line). */
static int report_finish(const void *opts, px_check *s)
{
    const report_opts *a = opts;
    px_error err = {0};
    told t;
    if (tell(s, &t, &err))
        return cli_error(&err);
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    int rc = 0;
    if (!o) {
        rc = cli_error((px_error_oom(&err, NULL), &err));
    } else {
        if (a->format && !strcmp(a->format, "html"))
            report_html_judged(o, t.s, &t.v.j);
        else
            report_markdown_judged(o, t.s, &t.v.j);
        if (fclose(o))
            rc = cli_error((px_error_oom(&err, NULL), &err));
    }
    if (!rc && a->a.output && strcmp(a->a.output, "-")) {
        if (atomic_write(a->a.output, text, len, &err))
            rc = cli_error(&err);
        else
            fprintf(stderr, "report: %s\n", a->a.output);
    } else if (!rc && (fwrite(text, 1, len, stdout) != len || fflush(stdout))) {
        px_error_set(&err, PX_ERR_WRITE, "<stdout>", 0, 0, "write failed");
        rc = cli_error(&err);
    }
    free(text);
    untell(&t);
    return rc;
}

static int export_finish(const void *opts, px_check *s)
{
    const check_args *a = opts;
    px_error err = {0};
    told t;
    if (tell(s, &t, &err))
        return cli_error(&err);
    px_bundle_in in = {s->f, s->res, &t.v.j, t.s, a->results.v, (size_t)a->results.n};
    int rc = bundle_export(&in, a->output, &err) ? cli_error(&err) : 0;
    if (!rc)
        fprintf(stderr, "export: %s (%zu value%s redacted)\n", a->output, t.s->redacted,
                t.s->redacted == 1 ? "" : "s");
    untell(&t);
    return rc;
}

/* The fixture's twin (role twin), or -1. */
static int twin_of(const px_fixture *f)
{
    for (size_t e = 0; e < f->n_envs; e++)
        if (f->envs[e].role && !strcmp(f->envs[e].role, "twin"))
            return (int)e;
    return -1;
}

static int repro_finish(const void *opts, px_check *s)
{
    const repro_opts *a = opts;
    const px_fixture *f = s->f;
    px_error err = {0};
    long k = fixture_example_index(f, a->id);
    const px_env *e = fixture_env(f, a->a.envs.v[0]);
    if (k < 0) {
        px_error_set(&err, PX_ERR_NOT_FOUND, f->path, 0, 0, "no example with id '%s'", a->id);
        return cli_error(&err);
    }
    told t;
    if (tell(s, &t, &err))
        return cli_error(&err);
    /* Judged with the twin; bundled without it (one environment beside
     * the reference). */
    int twin = twin_of(f);
    if (twin >= 0 && (size_t)twin != (size_t)(e - f->envs) && twin != fixture_reference(f))
        for (size_t i = 0; i < s->res->n_envs; i++)
            if (!strcmp(s->res->envs[i].name, f->envs[twin].name))
                s->res->envs[i].selected = 0;
    px_bundle_in in = {f, s->res, &t.v.j, t.s, a->a.results.v, (size_t)a->a.results.n};
    int rc = bundle_repro(&in, (size_t)k, (size_t)(e - f->envs), a->a.output, &err) ? cli_error(&err) : 0;
    if (!rc)
        fprintf(stderr, "repro: %s (see its README.md)\n", a->a.output);
    untell(&t);
    return rc;
}

/* export and repro write a bundle: where, always given. */
static int bundle_parsed(const check_args *a)
{
    if (!a->output)
        return cli_usage_error(a->command, "where? -o DIR or -o FILE.tar.gz (never over an existing one)");
    return CLI_PARSED;
}

static int export_parsed(const void *opts) { return bundle_parsed(opts); }

static int repro_parsed(const void *opts)
{
    const repro_opts *a = opts;
    if (!a->id || a->a.envs.n != 1)
        return cli_usage_error(a->a.command, "which example, and on which environment? (repro FIXTURE ID -e ENV)");
    return bundle_parsed(&a->a);
}

/* repro: that environment beside the reference, and the twin judged with
 * them (its cause is the repro's "precision or device") though the bundle
 * holds the two alone. */
static int repro_prepare(void *opts, const px_fixture *f, px_session_opts *o)
{
    repro_opts *a = opts;
    int ref = fixture_reference(f), twin = twin_of(f);
    if (ref >= 0 && strcmp(a->a.envs.v[0], f->envs[ref].name))
        a->a.envs.v[a->a.envs.n++] = f->envs[ref].name;
    if (twin >= 0 && twin != ref && strcmp(a->a.envs.v[0], f->envs[twin].name))
        a->a.envs.v[a->a.envs.n++] = f->envs[twin].name;
    o->n_envs = (size_t)a->a.envs.n;
    return 0;
}

static const opt_bind report_own[] = {
    {PX_OPT_FORMAT, offsetof(report_opts, format), opt_text},
    {PX_OPT_COUNT, 0, NULL},
};

/* Each judges what the contract names, from wherever its results come;
 * a history that cannot be read is a warning of the story. */
static const check_cmd report_cmd = {"report", sizeof(report_opts), report_own, 0, PX_SESSION_JUDGE,
                                     PX_HISTORY_NOTE, "judging anything against it", NULL, NULL, report_finish};
static const check_cmd export_cmd = {"export", sizeof(check_args), NULL, 0, PX_SESSION_JUDGE, PX_HISTORY_NOTE,
                                     "judging anything against it", export_parsed, NULL, export_finish};
static const check_cmd repro_cmd = {"repro", sizeof(repro_opts), NULL, offsetof(repro_opts, id), PX_SESSION_JUDGE,
                                    PX_HISTORY_NOTE, "judging anything against it", repro_parsed, repro_prepare,
                                    repro_finish};

int cmd_report(int argc, char **argv) { return check_command(&report_cmd, argc, argv); }
int cmd_export(int argc, char **argv) { return check_command(&export_cmd, argc, argv); }
int cmd_repro(int argc, char **argv) { return check_command(&repro_cmd, argc, argv); }
