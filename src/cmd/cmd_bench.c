/* parity bench: the second question, on its own page. The fixture's
 * environments run as for `run` (every example, judged later), then each
 * endpoint is timed over the examples that ran; every output the benchmark
 * produced is judged against the contract before any figure is shown as a
 * result. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_check.h"
#include "parity/bench.h"
#include "parity/cli.h"
#include "parity/judge.h"
#include "parity/results.h"

/* "%.3g ms", or "not measured" for a figure that is not (-1). */
static const char *ms(double v, char *buf, size_t size)
{
    if (v < 0)
        snprintf(buf, size, "not measured");
    else
        snprintf(buf, size, "%.3g ms", v);
    return buf;
}

static void print_endpoint(FILE *o, const px_bench *b, const px_bench_verdict *v)
{
    char name[32], a[32];
    bench_endpoint_name(b, name, sizeof name);
    if (!v->comparable)
        fprintf(o, "  %-14s OUTPUTS BROKE THE CONTRACT: %s; these figures are not comparable\n", name, v->broken);
    if (v->batching)
        fprintf(o, "  %-14s batching changed the numbers (against one example a forward): %s\n", name,
                v->batching);
    if (!b->forwards) {
        fprintf(o, "  %-14s not measured: %s\n", name, b->stopped ? b->stopped : "no forward was timed");
        return;
    }
    fprintf(o, "  %-14s warm forward p50 %.3g ms, p90 %.3g, p99 %.3g\n", name, b->p50_ms, b->p90_ms, b->p99_ms);
    fprintf(o, "  %-14s min %.3g ms, max %.3g; %.4g examples/s; round trip %s\n", "", b->min_ms, b->max_ms,
            b->per_s, ms(b->roundtrip_p50_ms, a, sizeof a));
    fprintf(o, "  %-14s %zu forward%s of %d example%s: %d pass%s after %d warm-up\n", "", b->forwards,
            b->forwards == 1 ? "" : "s", b->batch, b->batch == 1 ? "" : "s", b->passes, b->passes == 1 ? "" : "es",
            b->warmup);
    if (b->new_shapes)
        fprintf(o, "  %-14s %zu first forward%s of a new shape apart: %.3g ms in all\n", "", b->new_shapes,
                b->new_shapes == 1 ? "" : "s", b->new_shapes_ms);
    if (b->stopped)
        fprintf(o, "  %-14s stopped early: %s\n", "", b->stopped);
}

/* 1 when every endpoint of every environment gave comparable figures of a
 * path that meets the contract, without a batching finding. */
static int bench_finish(const run_args *a, const px_fixture *f, const px_results *res)
{
    px_error err = {0};
    px_judgement j;
    if (judge_results(f, res, &j, &err))
        return cli_error(&err);
    /* With the results on stdout, the figures go to stderr. */
    FILE *o = a->output && !strcmp(a->output, "-") ? stderr : stdout;
    fprintf(o, "%s: parity bench, %zu examples, %zu environment%s\n", f->path, f->n_examples, res->n_envs,
           res->n_envs == 1 ? "" : "s");
    fprintf(o, "Every figure times the forward and the copy of its output to the host, as the\n"
               "executor measures it; cleaning and tokenising are outside them (done once,\n"
               "before). Every output the benchmark produces is judged against the contract.\n");
    int rc = PX_EXIT_OK;
    for (size_t i = 0; i < res->n_envs; i++) {
        const px_env_result *e = &res->envs[i];
        const px_env_verdict *ev = &j.envs[i];
        char a1[32], a2[32];
        fprintf(o, "\n%s  %s %s%s%s%s\n", e->name, results_env_device(f, e), results_env_dtype(f, e),
               f->envs[e->env_index].role ? " (" : "", f->envs[e->env_index].role ? f->envs[e->env_index].role : "",
               f->envs[e->env_index].role ? ")" : "");
        if (e->state == PX_ENV_DOWN) {
            fprintf(o, "  DOWN at %s: %s\n", proto_stage_name(e->down_stage), e->down_msg ? e->down_msg : "");
            rc = px_exit_worse(rc, PX_EXIT_ENV);
            continue;
        }
        fprintf(o, "  %-14s torch %s (%s) on %s, %d thread%s%s%s\n", "runs", e->m.libtorch_version ? e->m.libtorch_version : "?",
               e->m.executor ? e->m.executor : "?", e->m.device_name ? e->m.device_name : "?", e->m.threads,
               e->m.threads == 1 ? "" : "s", e->m.tf32 ? ", tf32 " : "", e->m.tf32 ? e->m.tf32 : "");
        fprintf(o, "  %-14s %s (reading the TorchScript file, moving it to the device)\n", "model load",
                ms(e->m.load_ms, a1, sizeof a1));
        fprintf(o, "  %-14s %s (the probe input: any lazy compilation, JIT profiling\n", "first forward",
                ms(e->m.first_forward_ms, a2, sizeof a2));
        fprintf(o, "  %-14s or graph capture happen here)\n", "");
        if (!ev->met)
            fprintf(o, "  %-14s NOT met in this run: the figures below are of a path that does not\n"
                       "  %-14s give the answers asked for\n",
                    "contract", "");
        /* Judged with the run (judge_results): one verdict per benchmark. */
        for (size_t b = 0; b < ev->n_bench; b++) {
            const px_bench_verdict *v = &ev->bench[b];
            print_endpoint(o, &e->bench[b], v);
            if (!v->comparable || v->batching || !ev->met)
                rc = px_exit_worse(rc, PX_EXIT_FAILED);
            if (e->bench[b].cut)
                rc = px_exit_worse(rc, PX_EXIT_CUT_SHORT);
        }
        /* The figures are above: the rung's verdict, and its why when it
         * is not measured. */
        if (ev->rung[PX_RUNG_PERF] == PX_RS_PASSED)
            fprintf(o, "  %-14s measured: no output of the benchmark changed a verdict\n", "performance");
        else
            fprintf(o, "  %-14s %s: %s\n", "performance", rung_state_name(ev->rung[PX_RUNG_PERF]),
                    ev->rung_detail[PX_RUNG_PERF] ? ev->rung_detail[PX_RUNG_PERF] : "");
    }
    judgement_free(&j);
    fprintf(o, "\n");
    rc = px_exit_worse(rc, check_write_results(a, f, res));
    return check_cut_short_exit(res, rc);
}

int cmd_bench(int argc, char **argv) { return check_command("bench", argc, argv, bench_finish); }
