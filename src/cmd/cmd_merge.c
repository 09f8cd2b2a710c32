/* parity merge FIXTURE SHARD... [-o FILE]: the shard files of one run
 * (parity run --shard I/N on N machines, fanned out by a scheduler) into the
 * results file that run would have written whole (merge.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/cli.h"
#include "parity/fixture.h"
#include "parity/merge.h"
#include "parity/results.h"

typedef struct merge_args {
    const px_command *command;
    const char *fixture, *output;
    const char **shards;
    size_t n_shards;
} merge_args;

static int on_arg(void *ctx, const px_option *o, const char *v)
{
    merge_args *a = ctx;
    if (o && cli_opt_id(o) == PX_OPT_OUTPUT) {
        a->output = v;
        return 0;
    }
    if (o)
        return cli_usage_error(a->command, "--%s is not an option of merge", o->long_name);
    if (!a->fixture) {
        a->fixture = v;
        return 0;
    }
    a->shards[a->n_shards++] = v;
    return 0;
}

static char *default_output(const px_fixture *f)
{
    size_t n = strlen(f->dir) + sizeof "/results.yaml";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%sresults.yaml", f->dir, f->dir[0] ? "/" : "");
    return p;
}

/* Read every shard strictly against the fixture, merge, write. */
static int merge_files(const merge_args *a, const px_fixture *f)
{
    px_error err = {0};
    px_results **shards = calloc(a->n_shards, sizeof *shards);
    px_results *merged = NULL;
    char *out = NULL;
    int rc = PX_EXIT_OK;
    if (!shards) {
        px_error_oom(&err, NULL);
        return cli_error(&err);
    }
    for (size_t i = 0; i < a->n_shards && rc == PX_EXIT_OK; i++)
        if (!(shards[i] = results_load(a->shards[i], f, &err)))
            rc = cli_error(&err);
    if (rc == PX_EXIT_OK && !(merged = merge_shards(f, shards, a->shards, a->n_shards, &err)))
        rc = cli_error(&err);
    if (rc == PX_EXIT_OK) {
        for (size_t w = 0; w < merged->n_warnings; w++)
            fprintf(stderr, "parity: warning: %s\n", merged->warnings[w]);
        out = a->output ? strdup(a->output) : default_output(f);
        if (!out) {
            px_error_oom(&err, NULL);
            rc = cli_error(&err);
        } else if (results_write(merged, f, out, &err)) {
            rc = cli_error(&err);
        } else {
            /* With the results on stdout, what was merged goes to stderr. */
            FILE *tty = strcmp(out, "-") ? stdout : stderr;
            fprintf(tty, "%s: %zu shards merged: %zu examples, %zu environments\n", f->path, merged->n_merged_from,
                    f->n_examples, merged->n_envs);
            for (size_t i = 0; i < merged->n_merged_from; i++)
                fprintf(tty, "  %u/%u  %s%s%s\n", merged->merged_from[i].shard.index,
                        merged->merged_from[i].shard.count, merged->merged_from[i].file,
                        merged->merged_from[i].host ? "  on " : "",
                        merged->merged_from[i].host ? merged->merged_from[i].host : "");
            if (strcmp(out, "-"))
                fprintf(stdout, "results: %s\n", out);
        }
    }
    free(out);
    results_free(merged);
    for (size_t i = 0; i < a->n_shards; i++)
        results_free(shards[i]);
    free(shards);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    merge_args a = {.command = cli_command("merge"), .shards = calloc((size_t)(argc > 0 ? argc : 1), sizeof(char *))};
    if (!a.shards) {
        px_error err = {0};
        px_error_oom(&err, NULL);
        return cli_error(&err);
    }
    int rc = cli_parse(a.command, argc, argv, on_arg, &a);
    if (rc == CLI_PARSED && !a.fixture)
        rc = cli_usage_error(a.command, "which fixture, and which shard files?");
    else if (rc == CLI_PARSED && !a.n_shards)
        rc = cli_usage_error(a.command, "which shard files? (the results files of run --shard 0/N to N-1/N)");
    if (rc == CLI_PARSED) {
        px_error err = {0};
        px_fixture *f = fixture_load(a.fixture, &err);
        rc = f ? merge_files(&a, f) : cli_error(&err);
        fixture_free(f);
    }
    free(a.shards);
    return rc;
}
