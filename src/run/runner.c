/* The runner (parity/runner.h): its public API, the scheduling of the
 * environments side by side, and the example loop (start-up, probe,
 * examples) of each. Its other parts, lowest last: the benchmarks
 * (bench_run.c), the executors' processes (child.c), the state they all
 * share (run_state.c) and the frames on the wire (wire.c). */
#define _GNU_SOURCE /* pipe2 */
#include "parity/strf.h"
#include "parity/runner.h"
#include "parity/kind.h"
#include "parity/sbuf.h"
#include "parity/self.h"
#include "parity/tokenizer.h"

#include "bench_run.h"
#include "child.h"
#include "run_state.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sends in as its kind asks: an image's example (and its probe) as
 * DENOISE, a generator's example as GENERATE, else one forward (RUN). */
static int send_input(px_runner *r, child *c, const px_prepared *in, int generate, const px_gen_settings *gs)
{
    if (kind_of(r->f)->denoises) {
        px_denoise_req q = wire_denoise_req(r->f, in);
        return wire_send_denoise(c->to, &q);
    }
    return generate ? wire_send_generate(r->f, c->to, in, gs) : wire_send_run(r->f, c->to, in);
}

/* Runs one prepared input in a live child; records the outcome in x.
 * Returns 1 when the child is gone afterwards (crash or timeout). A
 * generator's example generates (GENERATE), its probe is one forward; an
 * image's example and probe denoise (DENOISE). */
static int run_in_child(px_runner *r, px_env_result *er, const px_prepared *in, px_example_result *x, int generate)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    px_buf p = {0};
    uint32_t type = 0;
    /* The first forward of a new shape may compile: its own timeout. */
    int first = !child_shape_seen(c, in->enc.n);
    double timeout = first ? e->first_forward_timeout_s : e->timeout_s;
    const px_prep *prep = &r->inputs[er - r->res->envs].prep;
    px_gen_settings gs = wire_gen_settings(r->f, prep);
    /* Generating is a forward per token, each of a new length: the first
     * forward's time, then the environment's timeout per token. */
    if (generate)
        timeout = e->first_forward_timeout_s + e->timeout_s * gs.max_new_tokens;
    /* Denoising is a forward of the denoiser per step, and a decode. */
    int denoise = kind_of(r->f)->denoises;
    if (denoise)
        timeout = e->first_forward_timeout_s + e->timeout_s * (r->f->image.steps + 1);
    enum wait_result w =
        send_input(r, c, in, generate, &gs) ? W_EOF : child_wait_frame(r, c, timeout, &type, &p);
    char how[64], d[160];
    int gone = 0;
    if (w == W_FRAME && denoise && type == PX_FRAME_DENOISED) {
        px_shape_want want = {e->n_labels, 0, 0};
        wire_take_denoised(r->f, &p, x, &want);
    } else if (w == W_FRAME && !denoise && generate && type == PX_FRAME_GENERATED) {
        px_gen_out o = {0};
        if (gen_reply_decode(&p, &o, &gs)) {
            x->status = PX_ST_EXCEPTION;
            wire_set_detail(x, "protocol: malformed or inconsistent GENERATED frame");
        } else {
            wire_take_generated(r->f, x, &o, prep->tok);
        }
    } else if (w == W_FRAME && !denoise && !generate && type == PX_FRAME_OUTPUT) {
        if (wire_decode_output(&p, x)) {
            x->status = PX_ST_EXCEPTION;
            wire_set_detail(x, "protocol: malformed OUTPUT frame");
        } else {
            px_shape_want want = {e->n_labels, in->enc.n, tokenizer_vocab_size(prep->tok)};
            wire_judge_output(r->f, x, &want);
        }
    } else if (w == W_FRAME && type == PX_FRAME_FAIL) {
        buf_get_u32(&p);
        uint32_t kind = buf_get_u32(&p);
        char *msg = buf_get_str(&p);
        x->status = kind == PX_FAIL_UNSUPPORTED ? PX_ST_UNSUPPORTED : PX_ST_EXCEPTION;
        if (!msg || p.bad || !proto_fail_kind_name((int)kind)) {
            free(msg);
            msg = strdup("protocol: malformed FAIL frame");
        }
        x->detail = state_scrub(r, msg);
    } else if (w == W_FRAME) {
        x->status = PX_ST_EXCEPTION;
        wire_set_detail(x, "protocol: unexpected frame");
    } else {
        child_reap(r, c, w == W_EOF ? 5 : 0, w != W_EOF, how, sizeof how);
        if (w == W_TIMEOUT) {
            x->status = PX_ST_TIMEOUT;
            snprintf(d, sizeof d, "after %g s%s", timeout,
                     first && timeout != e->timeout_s ? " (the first forward of this input length)" : "");
            wire_set_detail(x, d);
        } else if (w == W_STOPPED || state_stop_of(r) != PX_STOP_NONE) {
            /* Abandoned, not crashed: the kill was parity's. */
            x->status = PX_ST_NOT_EVALUATED;
            wire_set_detail(x, state_stop_words(r));
        } else {
            x->status = PX_ST_CRASH;
            wire_set_detail(x, how);
            x->stderr_tail = state_scrub(r, child_tail_line(c));
        }
        c->tail_len = 0;
        c->tail[0] = '\0';
        gone = 1;
    }
    buf_free(&p);
    return gone;
}

/* A parallel environment's failure (torchrun's, proto.h): after rank 0's
 * FAIL (fail_text, its words) or the end of its output, the rank that
 * failed first as torchrun reports it, in x's status and detail ("at step
 * S of N: ..."), the whole group ended. A rank 0 that raised on its own
 * (the others wait in a collective: torchrun says nothing within a few
 * seconds) is its FAIL. */
static void parallel_failed(px_runner *r, child *c, px_example_result *x, const char *at, char *fail_text,
                            int fail_kind)
{
    char how[64];
    px_buf p = {0};
    uint32_t type;
    /* torchrun ends the others and reports once it sees a rank gone: wait
     * for that, not for the collectives' own timeouts. */
    enum wait_result w = W_FRAME;
    double until = state_now() + 5;
    while (w == W_FRAME && state_now() < until)
        w = child_wait_frame(r, c, until - state_now(), &type, &p);
    buf_free(&p);
    child_reap(r, c, w == W_EOF ? 5 : 0, w != W_EOF, how, sizeof how);
    int rank = -1, code = 0;
    char *said = NULL;
    px_sbuf d = PX_SBUF_INIT;
    if (w == W_STOPPED || state_stop_of(r) != PX_STOP_NONE) {
        x->status = PX_ST_NOT_EVALUATED;
        sbuf_add(&d, state_stop_words(r));
    } else if (child_rank_failure(c, &rank, &code, &said) && (rank != 0 || !fail_text)) {
        if (said) {
            x->status = PX_ST_EXCEPTION;
            sbuf_addf(&d, "%s: %s", at, said);
        } else {
            x->status = PX_ST_CRASH;
            if (code < 0) {
                const char *sig = sigabbrev_np(-code);
                sbuf_addf(&d, "%s: rank %d killed by SIG%s", at, rank, sig ? sig : "?");
            } else {
                sbuf_addf(&d, "%s: rank %d exited with status %d", at, rank, code);
            }
        }
    } else if (fail_text) {
        x->status = fail_kind == PX_FAIL_UNSUPPORTED ? PX_ST_UNSUPPORTED : PX_ST_EXCEPTION;
        sbuf_addf(&d, "%s: %s", at, fail_text);
    } else {
        x->status = PX_ST_CRASH;
        sbuf_addf(&d, "%s: torchrun %s", at, how);
        x->stderr_tail = state_scrub(r, child_tail_line(c));
    }
    free(said);
    x->detail = state_scrub(r, sbuf_take(&d));
    c->tail_len = 0;
    c->tail[0] = '\0';
}

/* A training run (kind training, proto.h TRAINRUN): the example's recipe
 * with parity's learning rates and the data's windows sent, then TRAINSTEP
 * frames read until TRAINEND: the first within the environment's
 * first_forward_timeout (the copy, the optimizer, the first step, any
 * compilation), each later one within its timeout. A FAIL mid-run is the
 * example's exception, the steps that ran kept; the end of the output a
 * crash; a timeout kills the executor's whole process group. Every detail
 * names the step ("at step 4 of 10") and, in a parallel environment, the
 * rank. Returns 1 when the child is gone afterwards. */
static int run_train(px_runner *r, px_env_result *er, size_t i, px_example_result *x)
{
    const px_env *e = &r->f->envs[er->env_index];
    child *c = &r->kids[er - r->res->envs];
    const px_prep *prep = &r->inputs[er - r->res->envs].prep;
    const px_example *ex = &r->f->examples[i];
    const px_recipe *rc = ex->recipe ? ex->recipe : &r->f->recipe;
    int parallel = e->parallel.processes > 0;
    px_trainrun_req q;
    if (wire_trainrun_req(rc, prep, &q)) {
        x->status = PX_ST_EXCEPTION;
        wire_set_detail(x, "the training data has no window of this run's seq_len (or out of memory)");
        return 0;
    }
    uint32_t steps = q.steps;
    int env_at = (int)(er - r->res->envs);
    state_set_steps(r, env_at, 0, (int)steps);
    enum wait_result w = wire_send_trainrun(c->to, &q) ? W_EOF : W_FRAME;
    wire_trainrun_free(&q);
    px_buf p = {0};
    uint32_t type = 0;
    char why[200], at[64];
    double timeout = e->first_forward_timeout_s;
    int done = 0, broken = 0;
    char *fail_text = NULL;
    uint32_t fail_kind = 0;
    while (w == W_FRAME && !done && !broken) {
        size_t s = x->train ? x->train->n_steps : 0;
        timeout = s == 0 ? e->first_forward_timeout_s : e->timeout_s;
        snprintf(at, sizeof at, "at step %zu of %u", s + 1 > steps ? (size_t)steps : s + 1, steps);
        w = child_wait_frame(r, c, timeout, &type, &p);
        if (w != W_FRAME)
            break;
        if (type == PX_FRAME_TRAINSTEP && !trainstep_decode(&p, x, steps, why, sizeof why)) {
            state_set_steps(r, env_at, (int)x->train->n_steps, (int)steps);
            state_notify(r);
        } else if (type == PX_FRAME_TRAINEND && !trainend_decode(&p, x, steps, why, sizeof why)) {
            px_shape_want want = {0, 0, 0};
            wire_judge_output(r->f, x, &want);
            done = 1;
        } else if (type == PX_FRAME_FAIL) {
            buf_get_u32(&p);
            fail_kind = buf_get_u32(&p);
            fail_text = buf_get_str(&p);
            if (!fail_text || p.bad || !proto_fail_kind_name((int)fail_kind)) {
                free(fail_text);
                fail_text = strdup("protocol: malformed FAIL frame");
                fail_kind = PX_FAIL_EXCEPTION;
            }
            broken = 1;
        } else {
            px_sbuf d = PX_SBUF_INIT;
            if (type == PX_FRAME_TRAINSTEP || type == PX_FRAME_TRAINEND)
                sbuf_addf(&d, "%s: protocol: malformed %s frame: %s", at,
                          type == PX_FRAME_TRAINSTEP ? "TRAINSTEP" : "TRAINEND", why);
            else
                sbuf_addf(&d, "%s: protocol: unexpected frame", at);
            fail_text = sbuf_take(&d);
            fail_kind = 0; /* parity's refusal: the stream is lost, the child ended */
            broken = 2;
        }
    }
    buf_free(&p);
    char how[64], d[256];
    int gone = 0;
    if (done) {
        /* ran to its end */
    } else if (broken == 1 && !parallel) {
        /* The executor is back in its loop: the next run starts afresh. */
        x->status = fail_kind == PX_FAIL_UNSUPPORTED ? PX_ST_UNSUPPORTED : PX_ST_EXCEPTION;
        px_sbuf b = PX_SBUF_INIT;
        sbuf_addf(&b, "%s: %s", at, fail_text);
        x->detail = state_scrub(r, sbuf_take(&b));
    } else if (broken == 2) {
        child_reap(r, c, 0, 1, how, sizeof how);
        x->status = PX_ST_EXCEPTION;
        x->detail = state_scrub(r, fail_text);
        fail_text = NULL;
        gone = 1;
    } else if (parallel && (broken == 1 || w == W_EOF)) {
        parallel_failed(r, c, x, at, fail_text, (int)fail_kind);
        gone = 1;
    } else {
        /* A timeout: the whole group killed at once, nothing left running. */
        child_reap(r, c, w == W_EOF ? 5 : 0, w != W_EOF, how, sizeof how);
        if (w == W_TIMEOUT) {
            x->status = PX_ST_TIMEOUT;
            /* A parallel run: which rank hung, from the ranks' marks. */
            char *where = parallel ? child_rank_progress(c, e->parallel.processes) : NULL;
            px_sbuf b = PX_SBUF_INIT;
            sbuf_addf(&b, "%s: no step within %g s%s", at, timeout,
                      x->train ? "" : " (the first step: first_forward_timeout)");
            if (where)
                sbuf_addf(&b, "; %s", where);
            free(where);
            free(x->detail);
            x->detail = state_scrub(r, sbuf_take(&b));
        } else if (w == W_STOPPED || state_stop_of(r) != PX_STOP_NONE) {
            x->status = PX_ST_NOT_EVALUATED;
            wire_set_detail(x, state_stop_words(r));
        } else {
            x->status = PX_ST_CRASH;
            snprintf(d, sizeof d, "%s: %s", at, how);
            wire_set_detail(x, d);
            x->stderr_tail = state_scrub(r, child_tail_line(c));
        }
        c->tail_len = 0;
        c->tail[0] = '\0';
        gone = 1;
    }
    /* A run cut short keeps the steps that ran: its curve so far is its
     * output, in the weights' dtype (the environment's: TRAINEND, which
     * says it, never came), as a results file holds it. */
    if (!done && x->train && x->n_values && !x->dtype)
        x->dtype = results_dtype(e->dtype ? e->dtype : "float32");
    free(fail_text);
    return gone;
}

static void copy_input(px_example_result *x, const px_prepared *in, const px_tokenizer *tok)
{
    x->clean_text = strdup(in->clean_text ? in->clean_text : "");
    x->n_ids = in->enc.n;
    x->ids = malloc((x->n_ids ? x->n_ids : 1) * sizeof *x->ids);
    x->tokens = calloc(x->n_ids ? x->n_ids : 1, sizeof *x->tokens);
    for (size_t k = 0; k < x->n_ids; k++) {
        x->ids[k] = in->enc.ids[k];
        const char *t = tokenizer_token(tok, in->enc.ids[k]);
        x->tokens[k] = strdup(t ? t : "?");
    }
}

static void mark_rest(px_runner *r, px_env_result *er, size_t from, const char *why)
{
    pthread_mutex_lock(&r->mu);
    for (size_t i = from; i < r->res->n_examples; i++) {
        px_example_result *x = &er->ex[i];
        if (x->status != PX_ST_PENDING)
            continue;
        x->status = PX_ST_NOT_EVALUATED;
        wire_set_detail(x, why);
    }
    pthread_mutex_unlock(&r->mu);
    state_notify(r);
}

/* The run stopped before this environment's end (examples from `from` on
 * are left): they say why, and so does the environment. */
static void cut_short(px_runner *r, px_env_result *er, size_t from, const char *why)
{
    mark_rest(r, er, from, why);
    pthread_mutex_lock(&r->mu);
    if (!er->cut_short)
        er->cut_short = strdup(why);
    pthread_mutex_unlock(&r->mu);
}

static void go_down(px_runner *r, px_env_result *er, int stage, char *msg, size_t from)
{
    msg = state_scrub(r, msg);
    pthread_mutex_lock(&r->mu);
    er->state = PX_ENV_DOWN;
    er->down_stage = stage;
    free(er->down_msg);
    er->down_msg = msg ? msg : strdup("unknown");
    char *why = strf("environment down: %s: %s", proto_stage_name(stage), er->down_msg);
    pthread_mutex_unlock(&r->mu);
    mark_rest(r, er, from, why ? why : "environment down");
    free(why);
}

static int halted(px_runner *r) { return __atomic_load_n(&r->halt, __ATOMIC_SEQ_CST); }

/* The first fatal error stops the run (every environment's); later ones
 * (another environment's at the same time) are dropped. */
static void halt_with(px_runner *r, px_error *fatal)
{
    pthread_mutex_lock(&r->mu);
    if (!r->fatal.code)
        r->fatal = *fatal;
    __atomic_store_n(&r->halt, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&r->mu);
}

/* An output of er's that did not fit (x): with the contract's own model, a
 * width that does not fit the labels (an embedding's: contract.model.dim)
 * is a contract error that stops the run; an overriding model's is that
 * environment's outcome. which: the forward's words. 1 when it stopped. */
static int misfit_stops(px_runner *r, px_env_result *er, const px_example_result *x, const char *which)
{
    const px_env *e = &r->f->envs[er->env_index];
    px_shape_fit fit = x->status == PX_ST_BAD_SHAPE ? PX_SHAPE_BAD
                       : x->status == PX_ST_EMPTY   ? PX_SHAPE_EMPTY
                                                    : PX_SHAPE_FITS;
    px_error fatal = {0};
    if (fit == PX_SHAPE_FITS || e->own_model ||
        !kind_of(r->f)->probe_misfit(r->f, e, fit, x->ndim, x->shape, x->detail, which, &fatal))
        return 0;
    halt_with(r, &fatal);
    return 1;
}

/* The probe, a forward of a real input (prepare.c: the shortest example
 * run), gives the first-forward time and, before any example, whether the
 * model's output fits the contract. It is not relied on alone: when it gave
 * no output, the examples' outputs are held to the same rule until one
 * fits (*fitted). 0: go on; 1: stopped or down; -1: the run stops. */
static int run_probe(px_runner *r, px_env_result *er, int *fitted)
{
    const px_env_input *in = &r->inputs[er - r->res->envs];
    *fitted = 0;
    if (!env_input_has_probe(in))
        return 0; /* every example rejected, the empty text no token: nothing to send */
    px_example_result x = {.label = -1, .forward_ms = -1};
    int gone = run_in_child(r, er, &in->probe, &x, 0);
    int rc = 0;
    if (gone && state_stop_of(r) != PX_STOP_NONE) {
        example_result_clear(&x);
        cut_short(r, er, 0, state_stop_words(r));
        return 1;
    }
    if (x.status == PX_ST_OK || x.status == PX_ST_BAD_SHAPE || x.status == PX_ST_EMPTY)
        er->m.first_forward_ms = x.forward_ms;
    *fitted = x.status == PX_ST_OK;
    px_sbuf which = PX_SBUF_INIT;
    sbuf_addf(&which, "the probe forward of %s", in->probe_words ? in->probe_words : "?");
    char *w = sbuf_take(&which);
    if (misfit_stops(r, er, &x, w ? w : "the probe forward")) {
        rc = -1;
    } else if (gone) {
        px_sbuf msg = PX_SBUF_INIT; /* the detail is the executor's: any length */
        sbuf_addf(&msg, "the probe input (%s) ended the executor: %s %s", in->probe_words ? in->probe_words : "?",
                  status_name(x.status), x.detail ? x.detail : "");
        go_down(r, er, PX_STAGE_FORWARD, sbuf_take(&msg), 0);
        rc = 1;
    }
    free(w);
    example_result_clear(&x);
    return rc;
}

/* After example x's forward: until an output of this environment fits,
 * one that does not is held to the probe's rule (the probe may have given
 * none); without a probe output, the first example forward that gave one
 * is the first-forward time (a generator's example is a generation, not a
 * forward: none). 1 when the run stops. */
static int example_checked(px_runner *r, px_env_result *er, const px_example_result *x, const char *id, int *fitted)
{
    int output = x->status == PX_ST_OK || x->status == PX_ST_BAD_SHAPE || x->status == PX_ST_EMPTY;
    if (output && er->m.first_forward_ms < 0 && !kind_of(r->f)->generates)
        er->m.first_forward_ms = x->forward_ms;
    if (*fitted)
        return 0;
    if (x->status == PX_ST_OK) {
        *fitted = 1;
        return 0;
    }
    char *which = strf("the forward of example '%s'", id);
    int stop = misfit_stops(r, er, x, which ? which : "an example's forward");
    free(which);
    return stop;
}



static void run_examples(px_runner *r, px_env_result *er, int fitted)
{
    child *c = &r->kids[er - r->res->envs];
    size_t n_run = 0;
    for (size_t i = 0; i < r->res->n_examples; i++) {
        if ((r->opts.one_example && i != r->opts.example) || (r->opts.skip && r->opts.skip[i]))
            continue;
        if (state_must_stop(r)) {
            cut_short(r, er, i, state_stop_words(r));
            return;
        }
        /* Another environment's fatal error: what is left stays pending,
         * said as the run stopped (runner_main). */
        if (halted(r))
            return;
        /* This environment's limit, not the run's: the next one starts afresh. */
        if (r->opts.max_examples && !r->opts.one_example && n_run++ == r->opts.max_examples) {
            cut_short(r, er, i, r->limit_words);
            return;
        }
        const px_env_input *ein = &r->inputs[er - r->res->envs];
        const px_prepared *in = &ein->examples[i];
        px_example_result x = {.label = -1, .forward_ms = -1};
        copy_input(&x, in, ein->prep.tok);
        if (in->rejected) {
            x.status = PX_ST_REJECTED;
            x.detail = strdup(in->reason);
        } else {
            int stage = 0;
            char *msg = NULL;
            if (c->pid == 0) {
                er->restarts++;
                int rc = child_start(r, er, 1, &stage, &msg);
                if (rc) {
                    example_result_clear(&x);
                    if (rc == -2)
                        cut_short(r, er, i, state_stop_words(r));
                    else
                        go_down(r, er, stage, msg, i);
                    return;
                }
            }
            state_set_progress(r, (int)(er - r->res->envs), (int)i);
            if (kind_of(r->f)->trains)
                run_train(r, er, i, &x);
            else
                run_in_child(r, er, in, &x, kind_of(r->f)->generates);
        }
        /* A contract error is the run's, not this example's: it stays
         * pending and is said as the run stopped (runner_main). */
        if (example_checked(r, er, &x, r->f->examples[i].id, &fitted)) {
            example_result_clear(&x);
            return;
        }
        pthread_mutex_lock(&r->mu);
        example_result_clear(&er->ex[i]);
        er->ex[i] = x;
        pthread_mutex_unlock(&r->mu);
        state_notify(r);
    }
}


/* Results read from a file, or left out with -e, are not run. */
static int runs_here(const px_env_result *er) { return er->origin == PX_ORIGIN_RUN && er->selected; }

typedef void (*env_job)(px_runner *r, size_t e);

/* How many of the machine's cores environment e holds while it runs: its
 * threads (0, torch's default, is all of them); none for a device
 * environment, whose work is the device's. */
static int cores_of(const px_runner *r, size_t e)
{
    const px_env *env = &r->f->envs[r->res->envs[e].env_index];
    if (env->device && strcmp(env->device, "cpu") && strncmp(env->device, "cpu:", 4))
        return 0;
    return env->threads <= 0 || env->threads > r->cores ? r->cores : env->threads;
}

typedef struct worker {
    px_runner *r;
    size_t e;
    env_job job;
    pthread_t thread;
} worker;

static void job_done(px_runner *r, size_t e)
{
    state_set_progress(r, (int)e, -2);
    pthread_mutex_lock(&r->mu);
    r->sched[e] = 2;
    r->running--;
    r->busy -= cores_of(r, e);
    pthread_cond_broadcast(&r->sched_cv);
    pthread_mutex_unlock(&r->mu);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    w->job(w->r, w->e);
    job_done(w->r, w->e);
    return NULL;
}

/* Runs job for every environment that runs here, side by side as far as
 * the machine's cores allow: in fixture order, an environment starts when
 * the cores the running ones hold leave room for its threads (or nothing
 * runs); a device environment holds none, so it never waits for a CPU
 * one. parity bench runs one at a time: its timings are alone on the
 * machine. After a fatal error nothing more starts. Each environment's
 * work is its own (its child, its px_env_result); what they share is
 * under mu (results, progress), srv_mu (the fork server) or redact_mu. */
static void run_envs(px_runner *r, env_job job)
{
    size_t n = r->res->n_envs;
    worker *ws = calloc(n ? n : 1, sizeof *ws);
    char *threaded = calloc(n ? n : 1, 1);
    pthread_mutex_lock(&r->mu);
    for (size_t e = 0; e < n; e++)
        r->sched[e] = runs_here(&r->res->envs[e]) ? 0 : 2;
    r->running = r->busy = 0;
    for (;;) {
        int waiting = 0;
        for (size_t e = 0; e < n; e++) {
            if (r->sched[e] != 0)
                continue;
            if (halted(r)) {
                r->sched[e] = 2;
                continue;
            }
            int need = cores_of(r, e);
            int fits = r->opts.n_bench ? r->running == 0 : r->running == 0 || r->busy + need <= r->cores;
            if (!fits) {
                waiting = 1;
                continue;
            }
            r->sched[e] = 1;
            r->running++;
            r->busy += need;
            r->prog[e] = -1;
            if (ws && threaded) {
                ws[e] = (worker){r, e, job, 0};
                if (pthread_create(&ws[e].thread, NULL, worker_main, &ws[e]) == 0) {
                    threaded[e] = 1;
                    continue;
                }
            }
            /* No thread: it runs here, the others wait. */
            pthread_mutex_unlock(&r->mu);
            job(r, e);
            job_done(r, e);
            pthread_mutex_lock(&r->mu);
        }
        if (!waiting && !r->running)
            break;
        pthread_cond_wait(&r->sched_cv, &r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    for (size_t e = 0; e < n; e++)
        if (threaded && threaded[e])
            pthread_join(ws[e].thread, NULL);
    free(ws), free(threaded);
}

/* runner_rerun's job: examples again in a live executor. */
static void rerun_env(px_runner *r, size_t e)
{
    px_env_result *er = &r->res->envs[e];
    /* An environment that could not start stays down: not retried. */
    if (er->state == PX_ENV_UP)
        run_examples(r, er, 0);
}

/* keep_alive: idle until runner_rerun asks for examples again, which run in
 * the live executors; until runner_wait or runner_stop. */
static void serve(px_runner *r)
{
    for (;;) {
        pthread_mutex_lock(&r->mu);
        r->serving = 1;
        __atomic_store_n(&r->done, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&r->mu);
        state_notify(r);
        pthread_mutex_lock(&r->mu);
        while (!r->req && !r->end_serving && state_stop_of(r) == PX_STOP_NONE)
            pthread_cond_wait(&r->cv, &r->mu);
        int go = r->req && !r->end_serving && state_stop_of(r) == PX_STOP_NONE;
        r->req = 0;
        r->serving = 0;
        if (go) {
            __atomic_store_n(&r->done, 0, __ATOMIC_SEQ_CST);
            r->opts.one_example = !r->req_all;
            r->opts.example = r->req_example;
        }
        pthread_mutex_unlock(&r->mu);
        if (!go)
            return;
        run_envs(r, rerun_env);
    }
}

int runner_rerun(px_runner *r, int all, size_t example)
{
    pthread_mutex_lock(&r->mu);
    int ok = r->serving && !r->req && !r->end_serving && state_stop_of(r) == PX_STOP_NONE &&
             (all || example < r->res->n_examples);
    /* One that is down is tried afresh by a new runner, not here. */
    for (size_t e = 0; ok && e < r->res->n_envs; e++)
        ok = !(runs_here(&r->res->envs[e]) && r->res->envs[e].state == PX_ENV_DOWN);
    if (ok) {
        r->req = 1, r->req_all = all, r->req_example = example;
        r->serving = 0;
        __atomic_store_n(&r->done, 0, __ATOMIC_SEQ_CST);
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return ok ? 0 : -1;
}

/* The executor environment e needs is missing: -1 with the words (what is
 * missing, how to choose another) in *err. */
static int executor_missing(const px_runner_opts *o, const px_env *e, px_error *err)
{
    const char *path;
    int why = runner_executor_absent(o, e, &path);
    if (!why)
        return 0;
    if (e->python)
        return px_error_set(err, PX_ERR_ENV, path ? path : "parity_torch.py", 0, 0,
                            "cannot read the Python executor, which environment '%s' needs: %s "
                            "(build it with make, or install parity)",
                            e->name, path ? strerror(why) : "not found");
    return px_error_set(err, PX_ERR_ENV, path ? path : "parity-torch", 0, 0,
                        "cannot run the executor, which environment '%s' needs: %s (build it with make, "
                        "or pass --executor)",
                        e->name, path ? strerror(why) : "not found");
}

int runner_executor_absent(const px_runner_opts *o, const px_env *e, const char **path)
{
    *path = e->python ? o->script : o->executor;
    if (!*path)
        return ENOENT;
    return access(*path, e->python ? R_OK : X_OK) ? (errno ? errno : ENOENT) : 0;
}

/* One environment's run: start-up, probe, examples, benchmark. A probe
 * that ends the executor takes the environment down (the smallest real
 * input it is sent), naming the example. */
static void run_env(px_runner *r, size_t e)
{
    px_env_result *er = &r->res->envs[e];
    state_set_progress(r, (int)e, -1);
    int stage = PX_STAGE_LOAD;
    char *msg = NULL, text[1200];
    if (!r->spawned[e]) {
        /* Its executor is missing or cannot start: this one is down at
         * load, the others run. */
        px_error_format(&r->errs[e], text, sizeof text);
        go_down(r, er, stage, strdup(text), 0);
        return;
    }
    int rc = child_start(r, er, 0, &stage, &msg);
    if (rc == -2) {
        /* Never up in this run: said as such, and why. */
        snprintf(text, sizeof text, "stopped during start-up: %s", state_stop_words(r));
        go_down(r, er, stage, strdup(text), 0);
        cut_short(r, er, 0, state_stop_words(r));
        return;
    }
    if (rc) {
        go_down(r, er, stage, msg, 0);
        return;
    }
    pthread_mutex_lock(&r->mu);
    er->state = PX_ENV_UP;
    pthread_mutex_unlock(&r->mu);
    state_notify(r);
    int fitted;
    if (run_probe(r, er, &fitted) == 0) {
        run_examples(r, er, fitted);
        if (r->opts.n_bench && er->state == PX_ENV_UP)
            bench_run(r, er);
    }
    char how[64];
    if (!r->opts.keep_alive)
        child_reap(r, &r->kids[e], 10, 0, how, sizeof how);
}

static void *runner_main(void *arg)
{
    px_runner *r = arg;
    /* Start every child at once: their libtorch start-ups overlap. */
    for (size_t e = 0; e < r->res->n_envs; e++) {
        const px_env *env = &r->f->envs[r->res->envs[e].env_index];
        r->spawned[e] = runs_here(&r->res->envs[e]) && !executor_missing(&r->opts, env, &r->errs[e]) &&
                        child_spawn(r, env, &r->kids[e], &r->errs[e]) == 0;
    }
    run_envs(r, run_env);
    if (r->opts.keep_alive && !r->fatal.code)
        serve(r);
    for (size_t e = 0; e < r->res->n_envs; e++) {
        char how[64];
        if (r->kids[e].pid)
            child_reap(r, &r->kids[e], 0, 1, how, sizeof how);
        child_forget(&r->kids[e]);
        if (r->fatal.code && runs_here(&r->res->envs[e])) {
            char why[1200];
            px_error_format(&r->fatal, why, sizeof why - 20);
            char line[1300];
            snprintf(line, sizeof line, "run stopped: %s", why);
            mark_rest(r, &r->res->envs[e], 0, line);
        }
        free(r->kids[e].shapes);
    }
    child_server_stop(r);
    __atomic_store_n(&r->done, 1, __ATOMIC_SEQ_CST);
    state_notify(r);
    return NULL;
}

px_runner *runner_start(const px_fixture *f, const px_env_input *inputs, px_results *res,
                        const px_runner_opts *opts, px_error *err)
{
    px_runner *r = calloc(1, sizeof *r);
    if (!r) {
        px_error_oom(err, NULL);
        return NULL;
    }
    r->f = f, r->inputs = inputs, r->res = res;
    r->opts = *opts;
    pthread_mutex_init(&r->mu, NULL);
    pthread_mutex_init(&r->srv_mu, NULL);
    pthread_mutex_init(&r->redact_mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    pthread_cond_init(&r->sched_cv, NULL);
    r->wake[0] = r->wake[1] = -1;
    size_t n = res->n_envs ? res->n_envs : 1;
    r->kids = calloc(n, sizeof *r->kids);
    r->prog = malloc(n * sizeof *r->prog);
    r->steps = calloc(2 * n, sizeof *r->steps);
    r->sched = calloc(n, sizeof *r->sched);
    r->spawned = calloc(n, sizeof *r->spawned);
    r->errs = calloc(n, sizeof *r->errs);
    int oom = !r->kids || !r->prog || !r->steps || !r->sched || !r->spawned || !r->errs;
    if (oom || !(r->redact = fixture_redactor(f, err))) {
        if (oom)
            px_error_oom(err, NULL);
        runner_free(r);
        return NULL;
    }
    for (size_t e = 0; e < n; e++)
        r->prog[e] = -2;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    r->cores = cores < 1 ? 1 : cores > 4096 ? 4096 : (int)cores;
    if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK)) {
        r->wake[0] = r->wake[1] = -1;
        px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "pipe: %s", strerror(errno));
        runner_free(r);
        return NULL;
    }
    if (r->opts.budget_s > 0) {
        r->deadline = state_now() + r->opts.budget_s;
        snprintf(r->budget_words, sizeof r->budget_words, "budget (%g s) ran out", r->opts.budget_s);
    }
    snprintf(r->limit_words, sizeof r->limit_words, "beyond --max-examples %zu", r->opts.max_examples);
    /* A child that dies while we write to it must be an outcome, not SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    int rc = pthread_create(&r->thread, NULL, runner_main, r);
    if (rc) {
        px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "cannot start the runner thread: %s", strerror(rc));
        runner_free(r);
        return NULL;
    }
    r->started = 1;
    return r;
}

int runner_wait(px_runner *r, px_error *err)
{
    pthread_mutex_lock(&r->mu);
    r->end_serving = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (r->started) {
        pthread_join(r->thread, NULL);
        r->started = 0;
    }
    if (r->fatal.code) {
        if (err)
            *err = r->fatal;
        return -1;
    }
    return 0;
}

void runner_free(px_runner *r)
{
    if (!r)
        return;
    if (r->started) {
        runner_cancel(r);
        pthread_join(r->thread, NULL);
    }
    pthread_mutex_destroy(&r->mu);
    pthread_mutex_destroy(&r->srv_mu);
    pthread_mutex_destroy(&r->redact_mu);
    pthread_cond_destroy(&r->cv);
    pthread_cond_destroy(&r->sched_cv);
    for (int i = 0; i < 2; i++)
        if (r->wake[i] >= 0)
            close(r->wake[i]);
    free(r->kids);
    free(r->prog), free(r->steps), free(r->sched), free(r->spawned), free(r->errs);
    redact_free(r->redact);
    free(r);
}

int runner_done(px_runner *r) { return __atomic_load_n(&r->done, __ATOMIC_SEQ_CST); }

pid_t runner_child_pid(px_runner *r, int env)
{
    pthread_mutex_lock(&r->mu);
    pid_t pid = env >= 0 && (size_t)env < r->res->n_envs ? r->kids[env].pid : 0;
    pthread_mutex_unlock(&r->mu);
    return pid;
}

/* The runner thread kills what it waits for itself (child_wait_frame wakes on
 * the pipe): no pid crosses threads. */
void runner_stop(px_runner *r, px_stop why)
{
    int none = PX_STOP_NONE;
    __atomic_compare_exchange_n(&r->stop, &none, (int)why, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (r->wake[1] >= 0) {
        ssize_t w = write(r->wake[1], "x", 1);
        (void)w;
    }
}

void runner_cancel(px_runner *r) { runner_stop(r, PX_STOP_CANCEL); }

void runner_kill_children(void) { child_kill_all(); }

px_stop runner_stopped(px_runner *r) { return state_stop_of(r); }

void runner_progress_steps(px_runner *r, int env, int *done, int *of)
{
    pthread_mutex_lock(&r->mu);
    int in = env >= 0 && (size_t)env < r->res->n_envs;
    *done = in ? r->steps[2 * env] : 0;
    *of = in ? r->steps[2 * env + 1] : 0;
    pthread_mutex_unlock(&r->mu);
}

void runner_progress(px_runner *r, int *env, int *example, pid_t *pid)
{
    /* Environments run side by side: the first that is busy. */
    pthread_mutex_lock(&r->mu);
    *env = *example = -1;
    *pid = 0;
    for (size_t e = 0; e < r->res->n_envs; e++)
        if (r->prog[e] >= -1) {
            *env = (int)e;
            *example = r->prog[e];
            *pid = r->prog[e] >= 0 ? r->kids[e].pid : 0;
            break;
        }
    pthread_mutex_unlock(&r->mu);
}

void runner_lock(px_runner *r) { pthread_mutex_lock(&r->mu); }
void runner_unlock(px_runner *r) { pthread_mutex_unlock(&r->mu); }

const char *runner_env_name(px_runner *r, int env) { return r->res->envs[env].name; }
size_t runner_example_count(px_runner *r) { return r->res->n_examples; }

static char *joined(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void runner_locate(px_runner_opts *o, const char *executor, const char *python)
{
    char dir[4096];
    self_dir(dir, sizeof dir);
    const char *env = getenv("PARITY_TORCH");
    if (executor)
        o->executor = strdup(executor);
    else if (env && *env)
        o->executor = strdup(env);
    else {
        /* Beside parity in the build tree; installed, in ../libexec/parity/. */
        o->executor = dir[0] ? joined(dir, "parity-torch") : strdup("parity-torch");
        char *installed = dir[0] ? joined(dir, "../libexec/parity/parity-torch") : NULL;
        if (o->executor && access(o->executor, X_OK) && installed && access(installed, X_OK) == 0) {
            free((char *)o->executor);
            o->executor = installed;
            installed = NULL;
        }
        free(installed);
    }
    env = getenv("PARITY_PYTHON");
    o->python = strdup(python ? python : env && *env ? env : "python3");
    char *beside = joined(dir, "parity_torch.py");
    if (beside && access(beside, R_OK) == 0) {
        o->script = beside;
    } else {
        free(beside);
        o->script = joined(dir, "../libexec/parity/parity_torch.py");
    }
}

void runner_locate_free(px_runner_opts *o)
{
    free((char *)o->executor), free((char *)o->python), free((char *)o->script);
    o->executor = o->python = o->script = NULL;
}

int runner_device_builtin(const char *device) { return child_device_builtin(device); }

/* Each --backend-module goes somewhere: ENV=NAME names an environment with
 * executor: python; either form reaches one that runs here. */
static int modules_check(const px_runner_opts *o, const px_fixture *f, const px_results *res, px_error *err)
{
    for (size_t m = 0; m < o->n_backend_modules; m++) {
        const char *arg = o->backend_modules[m], *eq = strchr(arg, '='), *name;
        if (eq) {
            const px_env *e = NULL;
            for (size_t k = 0; !e && k < f->n_envs; k++)
                if (strlen(f->envs[k].name) == (size_t)(eq - arg) && !strncmp(f->envs[k].name, arg, (size_t)(eq - arg)))
                    e = &f->envs[k];
            if (!e || !e->python || !eq[1])
                return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0,
                                    "--backend-module %s: %s '%.*s'; ENV=NAME imports NAME into environment ENV, "
                                    "which has executor: python",
                                    arg, !eq[1] ? "no module after the environment" : e ? "no executor: python in environment" : "no environment",
                                    (int)(eq - arg), arg);
        }
        int goes = 0;
        for (size_t i = 0; i < res->n_envs && !goes; i++)
            goes = runs_here(&res->envs[i]) &&
                   child_module_for(o, &f->envs[res->envs[i].env_index], arg, &name);
        if (!goes && eq)
            return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0,
                                "--backend-module %s: environment '%.*s' does not run here", arg, (int)(eq - arg),
                                arg);
        if (!goes)
            return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0,
                                "--backend-module %s: no environment that runs here imports it: a module goes to "
                                "each environment with executor: python on a device torch does not open itself "
                                "(not cpu, cuda, mps, xpu, hip or meta) or compiled with a --compile-backend; "
                                "--backend-module ENV=%s imports it into ENV alone",
                                arg, arg);
    }
    return 0;
}

int runner_check(const px_runner_opts *o, const px_fixture *f, const px_results *res, px_error *err)
{
    int python = 0;
    for (size_t i = 0; i < res->n_envs; i++)
        python |= runs_here(&res->envs[i]) && f->envs[res->envs[i].env_index].python;
    if (o->n_backend_modules && !python)
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0,
                            "--backend-module %s: only the Python executor imports modules, and no environment "
                            "that runs here has executor: python",
                            o->backend_modules[0]);
    /* --compile-backend ENV=NAME: only the backend of an environment the
     * fixture compiles (a fixture never chooses code; the command line
     * never makes an environment compiled), each once. */
    for (size_t i = 0; i < o->n_compile_backends; i++) {
        const char *arg = o->compile_backends[i], *eq = strrchr(arg, '=');
        size_t nl = eq ? (size_t)(eq - arg) : 0;
        int ok = eq && nl && eq[1];
        for (const char *p = eq ? eq + 1 : ""; ok && *p; p++)
            ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("_.-", *p);
        if (!ok)
            return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0,
                                "--compile-backend wants ENV=NAME (NAME a registered torch.compile backend: letters, "
                                "digits, _ . -), not '%s'",
                                arg);
        const px_env *e = NULL;
        for (size_t k = 0; !e && k < f->n_envs; k++)
            if (strlen(f->envs[k].name) == nl && !strncmp(f->envs[k].name, arg, nl))
                e = &f->envs[k];
        if (!e || !e->compile.present)
            return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0,
                                "--compile-backend %s: %s '%.*s'; it chooses the backend of an environment whose "
                                "fixture says compile: (executor: python), never makes one compiled",
                                arg, e ? "no compile: in environment" : "no environment", (int)nl, arg);
        for (size_t j = 0; j < i; j++)
            if (!strncmp(o->compile_backends[j], arg, nl + 1) && strrchr(o->compile_backends[j], '=') == o->compile_backends[j] + nl)
                return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "--compile-backend: environment '%.*s' given twice",
                                    (int)nl, arg);
    }
    if (modules_check(o, f, res, err))
        return -1;
    /* A format the environment's executor cannot load is the fixture's
     * mistake: refused before anything starts. */
    for (size_t i = 0; i < res->n_envs; i++) {
        char msg[512];
        px_loc at;
        if (runs_here(&res->envs[i]) && fixture_env_format_refused(&f->envs[res->envs[i].env_index], msg, sizeof msg,
                                                                    &at))
            return px_error_set(err, PX_ERR_USAGE, f->path, at.line, at.col, "%s", msg);
    }
    /* An executor that is missing is one environment's, said as it being
     * down (executor_missing), not the whole run's. */
    return 0;
}

