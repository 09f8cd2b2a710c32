/* parity report, export and repro: what is handed to someone who was not
 * there. Each takes its results as check does (run here, or recorded, the
 * check pipeline in cmd_run.c), judges them, tells the story
 * (include/parity/story.h) and writes it: a report, a bundle, a repro. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_check.h"
#include "parity/atomic.h"
#include "parity/bench.h"
#include "parity/bundle.h"
#include "parity/judge.h"
#include "parity/report_html.h"
#include "parity/report_md.h"
#include "parity/story.h"

/* Judged, and told (with the decisions still waiting in the journal). */
typedef struct told {
    px_judgement j;
    px_story *s;
} told;

static int tell(const px_fixture *f, const px_results *res, told *t, px_error *err)
{
    memset(t, 0, sizeof *t);
    if (judge_results(f, res, &t->j, err) || bench_judge(f, res, &t->j, err))
        return -1;
    if (!(t->s = story_build(f, res, &t->j, err))) {
        judgement_free(&t->j);
        return -1;
    }
    return 0;
}

static void untell(told *t)
{
    story_free(t->s);
    judgement_free(&t->j);
}

/* The report is written whole or not at all: to stdout, or atomically to
 * -o. Its exit status says whether it was written, not the verdict (that
 * is check's, and the report's first line). */
static int report_finish(const run_args *a, const px_fixture *f, const px_results *res)
{
    px_error err = {0};
    told t;
    if (tell(f, res, &t, &err))
        return cli_error(&err);
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    int rc = 0;
    if (!o) {
        rc = cli_error((px_error_oom(&err, NULL), &err));
    } else {
        if (a->format && !strcmp(a->format, "html"))
            report_html_judged(o, t.s, &t.j);
        else
            report_markdown_judged(o, t.s, &t.j);
        if (fclose(o))
            rc = cli_error((px_error_oom(&err, NULL), &err));
    }
    if (!rc && a->output && strcmp(a->output, "-")) {
        if (atomic_write(a->output, text, len, &err))
            rc = cli_error(&err);
        else
            fprintf(stderr, "report: %s\n", a->output);
    } else if (!rc && (fwrite(text, 1, len, stdout) != len || fflush(stdout))) {
        px_error_set(&err, PX_ERR_WRITE, "<stdout>", 0, 0, "write failed");
        rc = cli_error(&err);
    }
    free(text);
    untell(&t);
    return rc;
}

static int export_finish(const run_args *a, const px_fixture *f, const px_results *res)
{
    px_error err = {0};
    told t;
    if (tell(f, res, &t, &err))
        return cli_error(&err);
    px_bundle_in in = {f, res, &t.j, t.s, a->results, (size_t)a->n_results};
    int rc = bundle_export(&in, a->output, &err) ? cli_error(&err) : 0;
    if (!rc)
        fprintf(stderr, "export: %s (%zu value%s redacted)\n", a->output, t.s->redacted,
                t.s->redacted == 1 ? "" : "s");
    untell(&t);
    return rc;
}

static int repro_finish(const run_args *a, const px_fixture *f, const px_results *res)
{
    px_error err = {0};
    long k = fixture_example_index(f, a->id);
    const px_env *e = fixture_env(f, a->envs[0]);
    if (k < 0) {
        px_error_set(&err, PX_ERR_NOT_FOUND, f->path, 0, 0, "no example with id '%s'", a->id);
        return cli_error(&err);
    }
    told t;
    if (tell(f, res, &t, &err))
        return cli_error(&err);
    px_bundle_in in = {f, res, &t.j, t.s, a->results, (size_t)a->n_results};
    int rc = bundle_repro(&in, (size_t)k, (size_t)(e - f->envs), a->output, &err) ? cli_error(&err) : 0;
    if (!rc)
        fprintf(stderr, "repro: %s (see its README.md)\n", a->output);
    untell(&t);
    return rc;
}

int cmd_report(int argc, char **argv) { return check_command("report", argc, argv, report_finish); }
int cmd_export(int argc, char **argv) { return check_command("export", argc, argv, export_finish); }
int cmd_repro(int argc, char **argv) { return check_command("repro", argc, argv, repro_finish); }
