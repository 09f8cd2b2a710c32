/* An environment's checkpoint ladder: device recognised, model loaded,
 * input processed, forward ran, contract satisfied (performance is
 * bench's). The first failing rung stops it, and each rung says why. */
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"
#include "parity/strf.h"

/* The environment's own pins (its overrides, else the contract's). */
static const char *model_pin(const jctx *j, size_t e) { return j->f->envs[j->r->envs[e].env_index].model_sha256; }
static const char *vocab_pin(const jctx *j, size_t e) { return j->f->envs[j->r->envs[e].env_index].vocab_sha256; }

static void set_rung(px_env_verdict *ev, px_rung r, px_rung_state s, char *detail)
{
    ev->rung[r] = s;
    free(ev->rung_detail[r]);
    ev->rung_detail[r] = detail;
}

/* Device recognised: for results read from a file, also the device type
 * and dtype it claims are the ones the fixture gives the environment. */
static char *device_mismatch(const jctx *j, size_t e)
{
    const px_env_result *er = &j->r->envs[e];
    const px_env *fe = &j->f->envs[er->env_index];
    if (er->origin != PX_ORIGIN_FILE)
        return NULL;
    if (fe->dtype && (!er->m.dtype || strcmp(er->m.dtype, fe->dtype)))
        return strf("recorded dtype %s, but the environment is %s", er->m.dtype ? er->m.dtype : "(none)", fe->dtype);
    if (fe->device && er->m.device) {
        size_t n = strcspn(fe->device, ":"), m = strcspn(er->m.device, ":");
        if (n != m || strncmp(fe->device, er->m.device, n))
            return strf("recorded device %s, but the environment is %s", er->m.device, fe->device);
    }
    return NULL;
}

/* Model loaded: the recorded revision is the environment's pinned one, and
 * its outputs were decided with the environment's label map. */
static char *model_mismatch(const jctx *j, size_t e)
{
    const px_env_result *er = &j->r->envs[e];
    const px_env *fe = &j->f->envs[er->env_index];
    const char *pin = model_pin(j, e);
    if (!pin)
        return strf("no pinned revision to check the recorded one against");
    if (!er->m.model_sha256[0])
        return strf("no model revision recorded: it cannot be checked against the pinned %.12s…", pin);
    if (strcmp(er->m.model_sha256, pin))
        return strf("revision %s is not the pinned %s (once the new revision is reviewed, `parity pin %s` "
                    "pins it)",
                    er->m.model_sha256, pin, j->f->path);
    return diverge_labels(er->labels, er->n_labels, fe->labels, fe->n_labels, "here", "in the fixture");
}

/* Input processed: the recorded vocabulary is the pinned one and every
 * example went in as the contract's processing makes it. */
static char *input_mismatch(const jctx *j, size_t e)
{
    const px_env_result *er = &j->r->envs[e];
    const char *pin = vocab_pin(j, e);
    /* A contract without a vocabulary (an image's input is a class, not
     * text) has none to check; its examples' inputs still are. */
    if (!pin && j->f->vocab_path)
        return strf("no pinned vocabulary to check the recorded one against");
    if (pin && !er->m.vocab_sha256[0])
        return strf("no vocabulary sha256 recorded: it cannot be checked against the pinned %.12s…", pin);
    if (pin && strcmp(er->m.vocab_sha256, pin))
        return strf("vocabulary %s is not the pinned %s (once the new vocabulary is reviewed, `parity pin %s` "
                    "pins it)",
                    er->m.vocab_sha256, pin, j->f->path);
    for (size_t k = 0; k < j->r->n_examples; k++) {
        px_div stage;
        char *d = diverge_input(j, e, k, &stage);
        if (d) {
            char *s = strf("%s: %s differs: %s", j->f->examples[k].id, div_name(stage), d);
            free(d);
            return s;
        }
    }
    return NULL;
}

/* Contract satisfied also means the contract's own task: an environment
 * that runs another model, vocabulary or label map than the contract pins
 * (an override, or a file recorded with one) is a different task. */
static char *task_mismatch(const jctx *j, size_t e)
{
    const px_env_result *er = &j->r->envs[e];
    const px_fixture *f = j->f;
    /* The contract's model in another format (a TorchScript trace or an
     * exported program of its Transformers directory) has other bytes by
     * nature: the environment pins them itself (the model rung checked
     * them), and its outputs are judged against the reference's as any. */
    int other_format = f->envs[er->env_index].model_format != f->model_format;
    if (f->model_sha256 && !other_format && strcmp(er->m.model_sha256, f->model_sha256))
        return strf("it runs model %.12s…, not the contract's pinned %.12s…: a different task", er->m.model_sha256,
                   f->model_sha256);
    if (f->vocab_sha256 && strcmp(er->m.vocab_sha256, f->vocab_sha256))
        return strf("it uses vocabulary %.12s…, not the contract's pinned %.12s…: a different task",
                   er->m.vocab_sha256, f->vocab_sha256);
    char *d = diverge_labels(er->labels, er->n_labels, f->labels, f->n_labels, "here", "in the contract");
    if (d) {
        char *s = strf("its label map is not the contract's (%s): a different task", d);
        free(d);
        return s;
    }
    return NULL;
}

/* The rungs before any forward: device recognised, model loaded, input
 * processed. 1 when one failed (the ladder stops there), 0 when all
 * passed. */
static int setup_rungs(const jctx *j, size_t e, px_env_verdict *ev)
{
    const px_env_result *er = &j->r->envs[e];
    char *bad;
    if (er->state == PX_ENV_DOWN && er->down_stage == PX_STAGE_DEVICE) {
        set_rung(ev, PX_RUNG_DEVICE, PX_RS_FAILED, strf("%s", er->down_msg ? er->down_msg : "down"));
        return 1;
    }
    if ((bad = device_mismatch(j, e))) {
        set_rung(ev, PX_RUNG_DEVICE, PX_RS_FAILED, bad);
        return 1;
    }
    set_rung(ev, PX_RUNG_DEVICE, PX_RS_PASSED, strf("%s", results_env_device(j->f, er)));
    if (er->state == PX_ENV_DOWN && er->down_stage == PX_STAGE_LOAD) {
        set_rung(ev, PX_RUNG_MODEL, PX_RS_FAILED, strf("%s", er->down_msg ? er->down_msg : "down"));
        return 1;
    }
    if ((bad = model_mismatch(j, e))) {
        set_rung(ev, PX_RUNG_MODEL, PX_RS_FAILED, bad);
        return 1;
    }
    set_rung(ev, PX_RUNG_MODEL, PX_RS_PASSED, strf("sha256 %.12s…", er->m.model_sha256));
    if ((bad = input_mismatch(j, e))) {
        set_rung(ev, PX_RUNG_INPUT, PX_RS_FAILED, bad);
        return 1;
    }
    set_rung(ev, PX_RUNG_INPUT, PX_RS_PASSED,
             vocab_pin(j, e) ? strf("vocab sha256 %.12s…", er->m.vocab_sha256)
                             : strf("no vocabulary: %zu labels (contract.labels)", j->f->n_labels));
    return 0;
}

/* Contract satisfied: every evaluated example meets it and the environment
 * runs the contract's own task; not reached when examples were not
 * evaluated (missing, the first at first_missing) or nothing is compared. */
static void contract_rung(const jctx *j, size_t e, px_env_verdict *ev, size_t missing, size_t first_missing)
{
    const px_env_result *er = &j->r->envs[e];
    size_t n = j->r->n_examples;
    char *bad;
    int unmet = 0;
    const char *id = NULL;
    for (size_t k = 0; k < n; k++)
        if (!outcome_met(ev->ex[k].outcome) && ev->ex[k].outcome != PX_OC_NOT_EVALUATED && !unmet++)
            id = j->f->examples[k].id;
    if (unmet)
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_FAILED, strf("%d example(s) do not meet it, first %s", unmet, id));
    else if ((bad = task_mismatch(j, e)))
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_FAILED, bad);
    else if (missing)
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_NOT_REACHED,
                 strf("partial: %zu of %zu examples not evaluated (first %s: %s)", missing, n,
                     j->f->examples[first_missing].id,
                     er->ex[first_missing].detail ? er->ex[first_missing].detail : "no result"));
    else if (ev->not_compared)
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_NOT_REACHED, strf("not compared: no reference (%s)", ev->not_compared));
    else
        set_rung(ev, PX_RUNG_CONTRACT, PX_RS_PASSED, strf("all %zu examples", n));
}

/* The first failing rung stops the ladder: nothing after it is shown as
 * passed. */
void ladder(const jctx *j, size_t e, px_env_verdict *ev)
{
    const px_env_result *er = &j->r->envs[e];
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        ev->rung[r] = PX_RS_NOT_REACHED;
    ev->rung[PX_RUNG_PERF] = PX_RS_NOT_MEASURED;
    if (!er->selected || er->origin == PX_ORIGIN_NONE || setup_rungs(j, e, ev))
        return;
    /* An example without a result (another shard's, or beyond where a run
     * was cut short) did not fail to run: it is not known. Forward ran is
     * judged on the examples that have one; the contract rung is then not
     * reached (partial). */
    size_t n = j->r->n_examples, first = n, missing = 0, first_missing = n;
    for (size_t k = 0; k < n && first == n; k++) {
        if (er->state != PX_ENV_DOWN && !judge_recorded(&er->ex[k])) {
            if (!missing++)
                first_missing = k;
        } else if (er->ex[k].status != PX_ST_OK && er->ex[k].status != PX_ST_REJECTED) {
            first = k;
        }
    }
    if (er->state == PX_ENV_DOWN || first < n) {
        const px_example_result *x = first < n ? &er->ex[first] : NULL;
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_FAILED,
                 x ? strf("%s: %s: %s", j->f->examples[first].id, status_name(x->status), ev->ex[first].detail)
                   : strf("%s", er->down_msg ? er->down_msg : "down"));
        return;
    }
    ev->not_evaluated = missing;
    if (missing)
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_PASSED,
                 strf("every evaluated example's output is %s; %zu of %zu not evaluated", j->kind->partial_shape,
                      missing, n));
    else
        set_rung(ev, PX_RUNG_FORWARD, PX_RS_PASSED, j->kind->forward_words(j->f, er));
    contract_rung(j, e, ev, missing, first_missing);
}
