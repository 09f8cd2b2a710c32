/* TRAINRUN, TRAINSTEP and TRAINEND (revision 9, src/run/trainrun.c): the
 * request as proto.h lays it out, and the strict decoders of the replies.
 * Each reply is built field by field from a spec, so that each case breaks
 * one thing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/trainrun.h"

Test(trainrun, the_request_is_encoded_as_the_protocol_says)
{
    double lr[3] = {1e-3, 2e-3, 0.5e-3};
    int64_t win[2 * 5] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    px_trainrun_req q = {.steps = 3, .batch_size = 2, .seq_len = 4, .optimizer = 1, .beta1 = 0.9,
                         .beta2 = 0.95, .eps = 1e-8, .weight_decay = 0.1, .momentum = 0.25,
                         .clip_grad_norm = 1.0, .seed = (1ull << 63) + 7, .lr = lr, .n_windows = 2,
                         .windows = win};
    px_buf b = {0};
    trainrun_request_encode(&b, &q);
    uint32_t type;
    size_t len;
    cr_assert_eq(proto_frame_ready(b.data, b.len, &type, &len), 1);
    cr_expect_eq(type, PX_FRAME_TRAINRUN);
    cr_expect_eq(len, b.len);
    b.pos = PX_FRAME_HEADER;
    cr_expect_eq(buf_get_u32(&b), 3);
    cr_expect_eq(buf_get_u32(&b), 2);
    cr_expect_eq(buf_get_u32(&b), 4);
    cr_expect_eq(buf_get_u32(&b), 1);
    cr_expect_eq(buf_get_f64(&b), 0.9);
    cr_expect_eq(buf_get_f64(&b), 0.95);
    cr_expect_eq(buf_get_f64(&b), 1e-8);
    cr_expect_eq(buf_get_f64(&b), 0.1);
    cr_expect_eq(buf_get_f64(&b), 0.25);
    cr_expect_eq(buf_get_f64(&b), 1.0);
    cr_expect_eq((uint64_t)buf_get_i64(&b), (1ull << 63) + 7);
    for (int s = 0; s < 3; s++)
        cr_expect_eq(buf_get_f64(&b), lr[s]);
    cr_expect_eq(buf_get_u32(&b), 2);
    for (int i = 0; i < 10; i++)
        cr_expect_eq(buf_get_i64(&b), win[i]);
    cr_expect_eq(b.pos, b.len, "no field more");
    cr_expect(!b.bad);
    buf_free(&b);
}

typedef struct st_spec {
    uint32_t step;
    double loss, grad, upd, lr, ms;
    uint32_t compiled;
    int extra;
} st_spec;

static st_spec st_good(uint32_t step)
{
    return (st_spec){.step = step, .loss = 5.0 - step, .grad = 2.0, .upd = 0.01, .lr = 1e-3, .ms = 3.5,
                     .compiled = PX_COMPILED_NO};
}

static void st_put(px_buf *b, const st_spec *s)
{
    buf_put_u32(b, s->step);
    buf_put_f64(b, s->loss), buf_put_f64(b, s->grad), buf_put_f64(b, s->upd), buf_put_f64(b, s->lr);
    buf_put_f64(b, s->ms);
    buf_put_u32(b, s->compiled);
    for (int i = 0; i < s->extra; i++)
        buf_put(b, "x", 1);
}

static int st_decode(const st_spec *s, size_t cut, px_example_result *x, uint32_t steps, char *why)
{
    px_buf b = {0};
    st_put(&b, s);
    if (cut < b.len)
        b.len = cut;
    int rc = trainstep_decode(&b, x, steps, why, 200);
    buf_free(&b);
    return rc;
}

typedef struct grp_spec {
    const char *name;
    int64_t numel;
    double norm, delta;
    int sketch; /* values sent */
} grp_spec;

typedef struct end_spec {
    const char *dtype;
    uint32_t processes;
    double startup, total;
    uint32_t n_groups;
    grp_spec g[20];
    int extra;
} end_spec;

static end_spec end_good(void)
{
    end_spec e = {.dtype = "float32", .processes = 2, .startup = 12.5, .total = 40.0, .n_groups = 3};
    const char *names[] = {"embed", "attention", "head"};
    for (int i = 0; i < 3; i++)
        e.g[i] = (grp_spec){names[i], 100 + i, 3.0 + i, 0.5 + i, PX_TRAIN_SKETCH};
    return e;
}

static void end_put(px_buf *b, const end_spec *e)
{
    buf_put_str(b, e->dtype);
    buf_put_u32(b, e->processes);
    buf_put_f64(b, e->startup), buf_put_f64(b, e->total);
    buf_put_u32(b, e->n_groups);
    for (uint32_t i = 0; i < e->n_groups && i < 20; i++) {
        buf_put_str(b, e->g[i].name);
        buf_put_i64(b, e->g[i].numel);
        buf_put_f64(b, e->g[i].norm), buf_put_f64(b, e->g[i].delta);
        for (int k = 0; k < e->g[i].sketch; k++)
            buf_put_f64(b, i * 1000.0 + k);
    }
    for (int i = 0; i < e->extra; i++)
        buf_put(b, "x", 1);
}

/* A run of `steps` good steps in x. */
static void run_steps(px_example_result *x, uint32_t steps)
{
    *x = (px_example_result){.label = -1, .forward_ms = -1};
    char why[200];
    for (uint32_t s = 0; s < steps; s++) {
        st_spec st = st_good(s);
        cr_assert_eq(st_decode(&st, SIZE_MAX, x, steps, why), 0, "%s", why);
    }
}

static int end_decode(const end_spec *e, size_t cut, px_example_result *x, uint32_t steps, char *why)
{
    px_buf b = {0};
    end_put(&b, e);
    if (cut < b.len)
        b.len = cut;
    int rc = trainend_decode(&b, x, steps, why, 200);
    buf_free(&b);
    return rc;
}

Test(trainrun, good_steps_and_end_decode_into_the_loss_curve_and_the_run)
{
    px_example_result x;
    run_steps(&x, 4);
    end_spec e = end_good();
    char why[200] = "";
    cr_assert_eq(end_decode(&e, SIZE_MAX, &x, 4, why), 0, "%s", why);
    cr_expect_eq(x.ndim, 2);
    cr_expect(x.shape[0] == 1 && x.shape[1] == 4);
    cr_assert_eq(x.n_values, 4);
    for (int s = 0; s < 4; s++)
        cr_expect_eq(x.values[s], 5.0 - s, "the loss curve is the values");
    cr_assert_not_null(x.train);
    cr_expect_eq(x.train->n_steps, 4);
    cr_expect_eq(x.train->grad_norm[3], 2.0);
    cr_expect_eq(x.train->update_norm[2], 0.01);
    cr_expect_eq(x.train->lr[1], 1e-3);
    cr_expect_eq(x.train->step_ms[0], 3.5);
    cr_expect_str_eq(x.dtype, "float32");
    cr_expect_eq(x.forward_ms, 40.0);
    cr_expect_eq(x.train->processes, 2);
    cr_expect_eq(x.train->startup_ms, 12.5);
    cr_expect_eq(x.train->total_ms, 40.0);
    cr_assert_eq(x.train->n_groups, 3);
    cr_expect_str_eq(x.train->groups[1].name, "attention");
    cr_expect_eq(x.train->groups[2].numel, 102);
    cr_expect_eq(x.train->groups[2].delta_norm, 2.5);
    cr_expect_eq(x.train->groups[2].sketch[PX_TRAIN_SKETCH - 1], 2000.0 + PX_TRAIN_SKETCH - 1);
    cr_expect_eq(x.compiled, PX_COMPILED_NO);
    example_result_clear(&x);
}

/* A NaN loss is the run's outcome (loss-not-finite), never a broken frame. */
Test(trainrun, a_nan_loss_and_norm_are_kept)
{
    px_example_result x = {.label = -1, .forward_ms = -1};
    st_spec s = st_good(0);
    s.loss = NAN, s.grad = INFINITY, s.upd = NAN;
    char why[200] = "";
    cr_assert_eq(st_decode(&s, SIZE_MAX, &x, 2, why), 0, "%s", why);
    cr_expect(isnan(x.values[0]) && isinf(x.train->grad_norm[0]) && isnan(x.train->update_norm[0]));
    example_result_clear(&x);
}

/* Each TRAINSTEP bound broken alone refuses the frame, x as it was. */
Test(trainrun, every_step_bound_broken_alone_refuses_the_frame)
{
    st_spec bad[16];
    uint32_t steps[16];
    const char *said[16];
    int n = 0;
#define CASE(text, st, body)                                                                                         \
    do {                                                                                                             \
        st_spec s = st_good(2);                                                                                      \
        steps[n] = st;                                                                                               \
        body;                                                                                                        \
        bad[n] = s, said[n++] = text;                                                                                \
    } while (0)
    CASE("step 3 where step 2 was due", 5, s.step = 3);
    CASE("step 1 where step 2 was due", 5, s.step = 1);
    CASE("step 2 after the run's 2 steps", 2, (void)0);
    CASE("time -1 ms", 5, s.ms = -1);
    CASE("time nan ms", 5, s.ms = NAN);
    CASE("time inf ms", 5, s.ms = INFINITY);
    CASE("learning rate nan", 5, s.lr = NAN);
    CASE("(negative)", 5, s.grad = -1);
    CASE("(negative)", 5, s.upd = -0.5);
    CASE("1 bytes after its fields", 5, s.extra = 1);
#undef CASE
    for (int i = 0; i < n; i++) {
        px_example_result x;
        run_steps(&x, 2);
        double *values = x.values;
        char why[200] = "";
        cr_expect_eq(st_decode(&bad[i], SIZE_MAX, &x, steps[i] == 2 ? 2 : steps[i], why), -1, "case %d (%s) decoded",
                     i, said[i]);
        cr_expect(strstr(why, said[i]) != NULL, "case %d: '%s' does not say '%s'", i, why, said[i]);
        cr_expect(x.n_values == 2 && x.values == values && x.train->n_steps == 2 && x.shape[1] == 2,
                  "case %d changed the result", i);
        example_result_clear(&x);
    }
    /* The first step of a run: nothing is allocated when it is refused. */
    px_example_result x = {.label = -1, .forward_ms = -1};
    st_spec s = st_good(1);
    char why[200] = "";
    cr_expect_eq(st_decode(&s, SIZE_MAX, &x, 5, why), -1);
    cr_expect(x.values == NULL && x.train == NULL && x.n_values == 0);
    s = st_good(0);
    cr_expect_eq(st_decode(&s, SIZE_MAX, &x, 0, why), -1, "a run of 0 steps has no step");
    cr_expect_eq(st_decode(&s, SIZE_MAX, &x, PX_TRAIN_RUN_MAX_STEPS + 1, why), -1, "steps past the bound");
    cr_expect(x.values == NULL && x.train == NULL);
}

Test(trainrun, every_truncation_of_a_step_is_refused)
{
    st_spec s = st_good(0);
    px_buf b = {0};
    st_put(&b, &s);
    size_t full = b.len;
    buf_free(&b);
    for (size_t len = 0; len < full; len++) {
        px_example_result x = {.label = -1, .forward_ms = -1};
        char why[200] = "";
        cr_expect_eq(st_decode(&s, len, &x, 3, why), -1, "a step cut at %zu of %zu bytes decoded", len, full);
        cr_expect(x.values == NULL && x.train == NULL);
    }
}

/* Each TRAINEND bound broken alone refuses the frame, x as it was. */
Test(trainrun, every_end_bound_broken_alone_refuses_the_frame)
{
    end_spec bad[24];
    const char *said[24];
    int n = 0;
#define CASE(text, body)                                                                                             \
    do {                                                                                                             \
        end_spec e = end_good();                                                                                     \
        body;                                                                                                        \
        bad[n] = e, said[n++] = text;                                                                                \
    } while (0)
    CASE("dtype ''", e.dtype = "");
    CASE("0 processes", e.processes = 0);
    CASE("timings -1", e.startup = -1);
    CASE("timings 12.5 and nan", e.total = NAN);
    CASE("0 groups", e.n_groups = 0);
    CASE("17 groups", e.n_groups = 17);
    CASE("4000000000 groups", e.n_groups = 4000000000u); /* said, never allocated */
    CASE("group 'lm_head'", e.g[2].name = "lm_head");
    CASE("group 'embed' twice", e.g[1].name = "embed");
    CASE("fewer than 64 sketch values", e.g[2].sketch = PX_TRAIN_SKETCH - 1);
    CASE("8 bytes after its fields", e.g[2].sketch = PX_TRAIN_SKETCH + 1);
    CASE("of 0 parameters", e.g[0].numel = 0);
    CASE("of -3 parameters", e.g[0].numel = -3);
    CASE("(negative)", e.g[1].norm = -1);
    CASE("(negative)", e.g[1].delta = -2);
    CASE("1 bytes after its fields", e.extra = 1);
    CASE("3 groups", e.n_groups = 4); /* a count the frame has no room for */
#undef CASE
    for (int i = 0; i < n; i++) {
        px_example_result x;
        run_steps(&x, 3);
        char why[200] = "";
        cr_expect_eq(end_decode(&bad[i], SIZE_MAX, &x, 3, why), -1, "case %d (%s) decoded", i, said[i]);
        cr_expect(strstr(why, said[i]) != NULL || (i == n - 1 && strstr(why, "4 groups")), "case %d: '%s' does not say '%s'",
                  i, why, said[i]);
        cr_expect(x.dtype == NULL && x.train->groups == NULL && x.train->n_groups == 0 && x.forward_ms == -1,
                  "case %d changed the result", i);
        example_result_clear(&x);
    }
}

/* A TRAINEND before the last step (a run cut short) or without any step
 * is refused; so is every prefix of a good one. */
Test(trainrun, an_end_before_the_last_step_or_cut_short_is_refused)
{
    end_spec e = end_good();
    char why[200] = "";
    px_example_result x;
    run_steps(&x, 2);
    cr_expect_eq(end_decode(&e, SIZE_MAX, &x, 3, why), -1);
    cr_expect(strstr(why, "after 2 of the run's 3 steps"), "%s", why);
    example_result_clear(&x);
    x = (px_example_result){.label = -1, .forward_ms = -1};
    cr_expect_eq(end_decode(&e, SIZE_MAX, &x, 3, why), -1);
    px_buf b = {0};
    end_put(&b, &e);
    size_t full = b.len;
    buf_free(&b);
    for (size_t len = 0; len < full; len++) {
        run_steps(&x, 1);
        cr_expect_eq(end_decode(&e, len, &x, 1, why), -1, "an end cut at %zu of %zu bytes decoded", len, full);
        cr_expect(x.dtype == NULL && x.train->groups == NULL);
        example_result_clear(&x);
    }
}
