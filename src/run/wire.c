/* The wire: what the runner sends an executor and makes of its answers, as
 * frames of the protocol (parity/proto.h): the inputs of examples stacked
 * into RUN, GENERATE and TRAIN, an image's DENOISE, and OUTPUT, GENERATED,
 * DENOISED and READY decoded;
 * and the shape checks an OUTPUT's tensor must pass. Knows no runner and
 * no process: it writes to a file descriptor and reads a frame's payload. */
#include "wire.h"

#include "parity/kind.h"
#include "parity/recipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wire_set_detail(px_example_result *x, const char *s)
{
    free(x->detail);
    x->detail = s ? strdup(s) : NULL;
}

/* An optional READY field: "" is not known. */
static char *get_opt_str(px_buf *p)
{
    char *s = buf_get_str(p);
    if (s && !*s) {
        free(s);
        s = NULL;
    }
    return s;
}

void wire_put_stack(const px_fixture *f, px_buf *pb, const px_prepared *const *xs, size_t n, int64_t pad_id)
{
    px_buf b = *pb;
    size_t len = 0;
    for (size_t j = 0; j < n; j++)
        len = xs[j]->enc.n > len ? xs[j]->enc.n : len;
    /* inputs not written: token_type_ids too, which the executor passes
     * only to a forward that takes it (--optional-input, proto.h). */
    size_t n_in = f->n_inputs + (f->inputs_auto != 0);
    buf_put_u32(&b, (uint32_t)n_in);
    for (size_t i = 0; i < n_in; i++) {
        const char *name = i < f->n_inputs ? f->inputs[i] : "token_type_ids";
        buf_put_str(&b, name);
        buf_put_u32(&b, 2);
        buf_put_i64(&b, (int64_t)n);
        buf_put_i64(&b, (int64_t)len);
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < len; k++) {
                const px_encoding *enc = &xs[j]->enc;
                int64_t v = 0; /* token_type_ids: one segment; padding: mask 0 */
                if (!strcmp(name, "input_ids"))
                    v = k < enc->n ? enc->ids[k] : pad_id;
                else if (!strcmp(name, "attention_mask"))
                    v = k < enc->n_real;
                buf_put_i64(&b, v);
            }
    }
    *pb = b;
}

int wire_send_run_stack(const px_fixture *f, int fd, const px_prepared *const *xs, size_t n, int64_t pad_id)
{
    px_buf b = {0};
    proto_begin(&b, PX_FRAME_RUN);
    wire_put_stack(f, &b, xs, n, pad_id);
    proto_end(&b);
    int rc = b.bad || proto_write_all(fd, b.data, b.len) ? -1 : 0;
    buf_free(&b);
    return rc;
}

int wire_send_run(const px_fixture *f, int fd, const px_prepared *x) { return wire_send_run_stack(f, fd, &x, 1, 0); }

int wire_decode_output(px_buf *p, px_example_result *x)
{
    char *dtype = buf_get_str(p);
    x->dtype = dtype ? results_dtype(dtype) : NULL;
    free(dtype);
    uint32_t ndim = buf_get_u32(p);
    if (ndim > PX_MAX_DIMS)
        return -1;
    x->ndim = (int)ndim;
    int64_t count = 1;
    for (uint32_t i = 0; i < ndim; i++)
        count *= (x->shape[i] = buf_get_i64(p));
    int64_t n = buf_get_i64(p);
    if (p->bad || n != count || n < 0 || (size_t)n > (p->len - p->pos) / 8)
        return -1;
    x->values = malloc((size_t)(n ? n : 1) * sizeof *x->values);
    for (int64_t i = 0; i < n; i++)
        x->values[i] = buf_get_f64(p);
    x->n_values = (size_t)n;
    x->forward_ms = buf_get_f64(p);
    uint32_t compiled = buf_get_u32(p);
    x->compiled = compiled <= PX_COMPILED_YES ? (int)compiled : PX_COMPILED_UNKNOWN;
    return p->bad ? -1 : 0;
}

/* x's status from its output's shape, by its kind's rule (kind.h): ok, or
 * empty or bad-shape with the rule's words; 1 when it fits. */
static int fits(const px_fixture *f, px_example_result *x, const px_shape_want *w)
{
    char *why = NULL;
    px_shape_fit fit = kind_of(f)->shape_fits(f, w, x->ndim, x->shape, x->n_values, &why);
    x->status = fit == PX_SHAPE_FITS ? PX_ST_OK : fit == PX_SHAPE_EMPTY ? PX_ST_EMPTY : PX_ST_BAD_SHAPE;
    if (fit != PX_SHAPE_FITS)
        wire_set_detail(x, why ? why : "output shape unreadable (out of memory)");
    free(why);
    return fit == PX_SHAPE_FITS;
}

void wire_judge_output(const px_fixture *f, px_example_result *x, const px_shape_want *w)
{
    x->label = -1;
    if (fits(f, x, w) && kind_of(f)->decides_label)
        x->label = results_argmax(x->values, w->labels);
}

px_gen_settings wire_gen_settings(const px_fixture *f, const px_prep *prep)
{
    const px_generate *g = &f->gen;
    return (px_gen_settings){.decoding = g->decoding == PX_DECODE_SAMPLE ? PX_GEN_SAMPLE : PX_GEN_GREEDY,
                             .temperature = g->temperature,
                             .top_k = g->top_k,
                             .seed = g->seed,
                             .max_new_tokens = g->max_new_tokens,
                             .stop_ids = prep->stop_ids,
                             .n_stop = prep->n_stop,
                             .report_top = PX_GEN_REPORT_TOP};
}

int wire_send_generate(const px_fixture *f, int fd, const px_prepared *in, const px_gen_settings *gs)
{
    size_t T = in->enc.n_real, n = f->n_inputs;
    int64_t *ones = malloc((T ? T : 1) * sizeof *ones), *zeros = calloc(T ? T : 1, sizeof *zeros);
    const int64_t **values = calloc(n ? n : 1, sizeof *values);
    int rc = -1;
    if (ones && zeros && values) {
        for (size_t k = 0; k < T; k++)
            ones[k] = 1;
        for (size_t i = 0; i < n; i++)
            values[i] = !strcmp(f->inputs[i], "input_ids")        ? in->enc.ids
                        : !strcmp(f->inputs[i], "attention_mask") ? ones
                                                                     : zeros;
        px_buf b = {0};
        gen_request_encode(&b, gs, (const char *const *)f->inputs, values, n, T);
        rc = b.bad || proto_write_all(fd, b.data, b.len) ? -1 : 0;
        buf_free(&b);
    }
    free(ones), free(zeros), free(values);
    return rc;
}

void wire_take_generated(const px_fixture *f, px_example_result *x, px_gen_out *o, const px_tokenizer *tok)
{
    px_generated *g = calloc(1, sizeof *g);
    x->dtype = o->dtype ? results_dtype(o->dtype) : NULL;
    x->ndim = o->ndim;
    memcpy(x->shape, o->shape, sizeof x->shape);
    x->forward_ms = o->total_ms;
    if (!o->n_steps) {
        char d[160];
        int at = snprintf(d, sizeof d, "output shape [");
        for (int i = 0; i < x->ndim && at < (int)sizeof d - 60; i++)
            at += snprintf(d + at, sizeof d - (size_t)at, "%s%lld", i ? "," : "", (long long)x->shape[i]);
        snprintf(d + at, sizeof d - (size_t)at, "], a generator gives [1, T, V] with V at least the tokenizer's %zu",
                 tokenizer_vocab_size(tok));
        x->status = PX_ST_BAD_SHAPE;
        wire_set_detail(x, d);
        free(g);
        gen_out_free(o);
        return;
    }
    if (!g) {
        x->status = PX_ST_EXCEPTION;
        wire_set_detail(x, "out of memory");
        gen_out_free(o);
        return;
    }
    g->ids = o->ids, g->n = o->n_steps, g->r = o->r, g->top_ids = o->top_ids, g->top_logits = o->top_logits;
    g->end = o->end, g->first_ms = o->first_ms;
    o->ids = o->top_ids = NULL, o->top_logits = NULL;
    px_error err = {0};
    size_t n_used = g->n;
    int end = g->end;
    /* A stop string ends it here, found in the text (prepare.h). */
    if (!prep_gen_text(f, tok, g->ids, g->n, g->end, &n_used, &end, &g->text, &err))
        g->n = n_used, g->end = end;
    x->gen = g;
    x->status = g->text ? PX_ST_OK : PX_ST_EXCEPTION;
    if (!g->text)
        wire_set_detail(x, err.msg);
    gen_out_free(o);
}

px_denoise_req wire_denoise_req(const px_fixture *f, const px_prepared *in)
{
    const px_image_spec *im = &f->image;
    return (px_denoise_req){.class_id = in->class_id < 0 ? 0 : (uint32_t)in->class_id,
                            .seed = in->seed,
                            .steps = (uint32_t)im->steps,
                            .guidance_scale = im->guidance_scale,
                            .height = (uint32_t)im->height,
                            .width = (uint32_t)im->width,
                            .latent_every = (uint32_t)(im->latent_every > 0 ? im->latent_every : 1)};
}

int wire_send_denoise(int fd, const px_denoise_req *q)
{
    px_buf b = {0};
    denoise_request_encode(&b, q);
    int rc = b.bad || proto_write_all(fd, b.data, b.len) ? -1 : 0;
    buf_free(&b);
    return rc;
}

void wire_take_denoised(const px_fixture *f, px_buf *p, px_example_result *x, const px_shape_want *w)
{
    char why[200];
    if (denoised_decode(p, x, why, sizeof why)) {
        char d[260];
        snprintf(d, sizeof d, "protocol: malformed DENOISED frame: %s", why);
        x->status = PX_ST_EXCEPTION;
        wire_set_detail(x, d);
        return;
    }
    wire_judge_output(f, x, w);
}

void wire_decode_ready(px_buf *p, px_manifest *m)
{
    m->executor = buf_get_str(p);
    m->runtime = get_opt_str(p);
    m->libtorch_version = buf_get_str(p);
    m->backend_modules = get_opt_str(p);
    m->backend_versions = get_opt_str(p);
    m->device = buf_get_str(p);
    m->device_name = buf_get_str(p);
    m->dtype = buf_get_str(p);
    m->tf32 = get_opt_str(p);
    m->matmul_precision = get_opt_str(p);
    m->ignored = get_opt_str(p);
    m->load_ms = buf_get_f64(p);
    m->load = get_opt_str(p);
}

int wire_send_train(const px_fixture *f, int fd, uint32_t steps, double lr, const px_prepared *const *xs, size_t n,
                    int64_t pad_id, const int64_t *targets)
{
    px_buf b = {0};
    proto_begin(&b, PX_FRAME_TRAIN);
    buf_put_u32(&b, steps);
    buf_put_f64(&b, lr);
    wire_put_stack(f, &b, xs, n, pad_id);
    buf_put_u32(&b, (uint32_t)n);
    for (size_t j = 0; j < n; j++)
        buf_put_i64(&b, targets[j]);
    proto_end(&b);
    int rc = b.bad || proto_write_all(fd, b.data, b.len) ? -1 : 0;
    buf_free(&b);
    return rc;
}

int wire_trainrun_req(const px_recipe *rc, const px_prep *prep, px_trainrun_req *q)
{
    memset(q, 0, sizeof *q);
    size_t L = rc->seq_len > 0 ? (size_t)rc->seq_len : 0;
    size_t n_win = L && prep->n_train_ids > 1 ? (prep->n_train_ids - 1) / L : 0;
    if (rc->steps < 1 || rc->batch_size < 1 || !n_win || n_win > UINT32_MAX)
        return -1;
    double *lr = malloc((size_t)rc->steps * sizeof *lr);
    int64_t *w = malloc(n_win * (L + 1) * sizeof *w);
    if (!lr || !w) {
        free(lr), free(w);
        return -1;
    }
    recipe_lr(rc, lr);
    for (size_t k = 0; k < n_win; k++)
        memcpy(w + k * (L + 1), prep->train_ids + k * L, (L + 1) * sizeof *w);
    *q = (px_trainrun_req){.steps = (uint32_t)rc->steps,
                           .batch_size = (uint32_t)rc->batch_size,
                           .seq_len = (uint32_t)L,
                           .optimizer = (uint32_t)rc->optimizer,
                           .beta1 = rc->beta1,
                           .beta2 = rc->beta2,
                           .eps = rc->eps,
                           .weight_decay = rc->weight_decay,
                           .momentum = rc->momentum,
                           .clip_grad_norm = rc->clip_grad_norm,
                           .seed = rc->seed,
                           .lr = lr,
                           .n_windows = (uint32_t)n_win,
                           .windows = w};
    return 0;
}

void wire_trainrun_free(px_trainrun_req *q)
{
    free((double *)q->lr);
    free((int64_t *)q->windows);
    q->lr = NULL, q->windows = NULL;
}

int wire_send_trainrun(int fd, const px_trainrun_req *q)
{
    px_buf b = {0};
    trainrun_request_encode(&b, q);
    int rc = b.bad || b.len > PX_FRAME_MAX + PX_FRAME_HEADER || proto_write_all(fd, b.data, b.len) ? -1 : 0;
    buf_free(&b);
    return rc;
}
