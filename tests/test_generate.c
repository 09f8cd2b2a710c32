/* Generation (protocol revision 4: GENERATE/GENERATED, include/parity/
 * generate.h). The reference choice of a token (gen_choose, gen_top,
 * gen_splitmix64) on hand-made rows; gen_reply_decode refusing every
 * malformed or inconsistent reply; and both real executors (parity-torch,
 * directly and forked by its fork server, and parity_torch.py) driven
 * through pipes on the tiny models of tests/models (gen_tiny.pt,
 * gen_badshape.pt, gen_nan.pt, raises.pt): greedy, stop ids, the length
 * limit, sampling that the C reference reproduces from the reported rows and
 * that is the same id for id in both executors, NaN rows, a bad shape, a
 * model that raises, malformed requests. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parity/forksrv.h"
#include "parity/generate.h"
#include "parity/proto.h"
#include "testlib.h"

#define V_TINY 12

/* ---- the reference choice ---- */

static px_gen_settings greedy(void) { return (px_gen_settings){.decoding = PX_GEN_GREEDY, .max_new_tokens = 1}; }

static px_gen_settings sample(double temperature, int top_k)
{
    return (px_gen_settings){.decoding = PX_GEN_SAMPLE, .temperature = temperature, .top_k = top_k,
                             .max_new_tokens = 1};
}

/* The published splitmix64 sequence from state 0. */
Test(gen_choose, splitmix64_is_the_published_sequence)
{
    uint64_t st = 0;
    cr_expect_eq(gen_splitmix64(&st), 0xE220A8397B1DCDAFull);
    cr_expect_eq(gen_splitmix64(&st), 0x6E789E6AA1B965F4ull);
    cr_expect_eq(gen_splitmix64(&st), 0x06C45D188009454Full);
    cr_expect_eq(st, 3 * 0x9E3779B97F4A7C15ull);
}

Test(gen_choose, greedy_is_torch_argmax)
{
    px_gen_settings g = greedy();
    uint64_t st = 7;
    cr_expect_eq(gen_choose((double[]){1, 3, 3, 2}, 4, &g, &st), 1, "ties: the lower id");
    cr_expect_eq(gen_choose((double[]){1, NAN, 5, NAN}, 4, &g, &st), 1, "the first NaN");
    cr_expect_eq(gen_choose((double[]){9, 1, NAN}, 3, &g, &st), 2, "NaN beats a larger number");
    cr_expect_eq(gen_choose((double[]){-INFINITY, -INFINITY}, 2, &g, &st), 0, "all -inf: id 0");
    cr_expect_eq(gen_choose((double[]){-INFINITY, 2, -INFINITY}, 3, &g, &st), 1);
    cr_expect_eq(gen_choose((double[]){1, INFINITY, INFINITY}, 3, &g, &st), 1, "the first +inf");
    cr_expect_eq(gen_choose((double[]){-0.0, 0.0}, 2, &g, &st), 0, "-0 and 0 tie");
    cr_expect_eq(st, 7, "greedy draws nothing");
    cr_expect_eq(gen_choose((double[]){1}, 0, &g, &st), -1, "V 0");
}

/* One draw per call: the state after it is seed + the increment. */
static void expect_one_draw(uint64_t seed, uint64_t st) { cr_expect_eq(st, seed + 0x9E3779B97F4A7C15ull); }

Test(gen_choose, sample_with_a_nan_or_no_finite_max_is_greedy_and_still_draws)
{
    for (uint64_t seed = 0; seed < 50; seed++) {
        px_gen_settings s = sample(1.0, 0);
        uint64_t st = seed;
        cr_expect_eq(gen_choose((double[]){1, 5, NAN, 7, NAN}, 5, &s, &st), 2);
        expect_one_draw(seed, st);
        st = seed;
        cr_expect_eq(gen_choose((double[]){-INFINITY, -INFINITY, -INFINITY}, 3, &s, &st), 0);
        expect_one_draw(seed, st);
        st = seed;
        cr_expect_eq(gen_choose((double[]){1, INFINITY, 3, INFINITY}, 4, &s, &st), 1);
        expect_one_draw(seed, st);
    }
}

/* The u of the next draw from st (without moving st). */
static double next_u(uint64_t st) { return (double)(gen_splitmix64(&st) >> 11) * 0x1p-53; }

/* row {0, log 3}: candidates 1 then 0, weights 1 and 1/3: 1 is chosen
 * exactly when u < 3/4. */
Test(gen_choose, sample_follows_the_weights_of_its_draw)
{
    px_gen_settings s = sample(1.0, 0);
    int ones = 0;
    for (uint64_t seed = 0; seed < 2000; seed++) {
        uint64_t st = seed * 7919;
        double u = next_u(st);
        int64_t id = gen_choose((double[]){0, log(3.0)}, 2, &s, &st);
        cr_expect_eq(id, u * (4.0 / 3.0) < 1.0 ? 1 : 0, "u %.17g", u);
        ones += id == 1;
    }
    cr_expect(ones > 1400 && ones < 1600, "%d of 2000", ones);
    /* a tie: weights 1 and 1, candidates lower id first: 0 when u < 1/2 */
    for (uint64_t seed = 0; seed < 500; seed++) {
        uint64_t st = seed;
        double u = next_u(st);
        cr_expect_eq(gen_choose((double[]){2.5, 2.5}, 2, &s, &st), u < 0.5 ? 0 : 1);
    }
}

Test(gen_choose, top_k_limits_the_candidates)
{
    double row[] = {5, 4, 3, -INFINITY, 4.5};
    int seen[5] = {0};
    for (uint64_t seed = 0; seed < 1000; seed++) {
        px_gen_settings s = sample(1.0, 2);
        uint64_t st = seed;
        seen[gen_choose(row, 5, &s, &st)]++;
        s.top_k = 1; /* the greedy id, ties lower id first */
        st = seed;
        cr_expect_eq(gen_choose((double[]){1, 3, 3, 2}, 4, &s, &st), 1);
        expect_one_draw(seed, st);
        /* top_k 0 and top_k >= V: the whole vocab, the same choice */
        px_gen_settings all = sample(1.0, 0), over = sample(1.0, 9);
        uint64_t a = seed, b = seed;
        cr_expect_eq(gen_choose(row, 5, &all, &a), gen_choose(row, 5, &over, &b));
    }
    cr_expect(seen[0] > 0 && seen[4] > 0, "both candidates chosen: %d %d", seen[0], seen[4]);
    cr_expect_eq(seen[1] + seen[2] + seen[3], 0, "only the top 2");
    /* -inf never chosen while some logit is finite */
    for (uint64_t seed = 0; seed < 300; seed++) {
        px_gen_settings s = sample(1.0, 0);
        uint64_t st = seed;
        cr_expect_eq(gen_choose((double[]){-INFINITY, 0}, 2, &s, &st), 1);
    }
}

Test(gen_choose, temperature_sharpens_and_flattens)
{
    double row[] = {0, 1, 0.5};
    int flat[3] = {0};
    for (uint64_t seed = 0; seed < 3000; seed++) {
        px_gen_settings cold = sample(1e-3, 0), hot = sample(1e6, 0);
        uint64_t st = seed;
        cr_expect_eq(gen_choose(row, 3, &cold, &st), 1, "exp(-500) is 0: only the max");
        st = seed;
        flat[gen_choose(row, 3, &hot, &st)]++;
    }
    for (int i = 0; i < 3; i++)
        cr_expect(flat[i] > 850 && flat[i] < 1150, "id %d: %d of 3000", i, flat[i]);
}

Test(gen_choose, top_lists_put_nan_first_then_descending_ties_lower_id)
{
    double row[] = {1, NAN, 3, 3, NAN, -INFINITY, 2};
    int64_t ids[8];
    double lg[8];
    gen_top(row, 7, 8, ids, lg);
    int64_t want[] = {1, 4, 2, 3, 6, 0, 5};
    for (int i = 0; i < 7; i++)
        cr_expect_eq(ids[i], want[i], "rank %d: %ld", i, (long)ids[i]);
    cr_expect(isnan(lg[0]) && isnan(lg[1]) && lg[2] == 3 && lg[6] == -INFINITY);
    ids[0] = -9;
    gen_top(row, 7, 0, ids, lg);
    cr_expect_eq(ids[0], -9, "r 0 writes nothing");
}

/* ---- GENERATED, decoded ---- */

typedef struct reply {
    const char *dtype;
    int ndim;
    int64_t shape[9];
    int n;
    int64_t ids[8];
    int r[8];
    int64_t top[8][4];
    double lg[8][4];
    int end;
    double first, total;
    int trailing;
} reply;

static void put_reply(px_buf *b, const reply *p)
{
    buf_reset(b);
    buf_put_str(b, p->dtype);
    buf_put_u32(b, (uint32_t)p->ndim);
    for (int i = 0; i < p->ndim && i < 9; i++)
        buf_put_i64(b, p->shape[i]);
    buf_put_u32(b, (uint32_t)p->n);
    for (int k = 0; k < p->n && k < 8; k++) {
        buf_put_i64(b, p->ids[k]);
        buf_put_u32(b, (uint32_t)p->r[k]);
        for (int j = 0; j < p->r[k]; j++)
            buf_put_i64(b, p->top[k][j]);
        for (int j = 0; j < p->r[k]; j++)
            buf_put_f64(b, p->lg[k][j]);
    }
    buf_put_u32(b, (uint32_t)p->end);
    buf_put_f64(b, p->first);
    buf_put_f64(b, p->total);
    if (p->trailing)
        buf_put_u32(b, 0);
}

/* greedy, max 3 new tokens, stop id 2, R 2, V 4: steps 1, 3, 2 (stop). */
static int64_t stop2[] = {2};
static const px_gen_settings dec_settings = {.decoding = PX_GEN_GREEDY, .max_new_tokens = 3, .stop_ids = stop2,
                                             .n_stop = 1, .report_top = 2};
static const reply good = {
    "float32", 3, {1, 5, 4}, 3, {1, 3, 2}, {2, 2, 2},
    {{1, 0}, {3, 0}, {2, 3}}, {{2.5, 1}, {0.5, 0.25}, {NAN, 7}}, PX_GEN_END_STOP, 1.5, 4.0, 0};

static int decodes(const reply *p, const px_gen_settings *s)
{
    px_buf b = {0};
    put_reply(&b, p);
    px_gen_out o;
    int rc = gen_reply_decode(&b, &o, s);
    if (rc == 0)
        gen_out_free(&o);
    else
        cr_expect_null(o.dtype, "refused: nothing left allocated");
    buf_free(&b);
    return rc;
}

Test(gen_reply, a_good_reply_decodes)
{
    px_buf b = {0};
    put_reply(&b, &good);
    px_gen_out o;
    cr_assert_eq(gen_reply_decode(&b, &o, &dec_settings), 0);
    cr_expect_str_eq(o.dtype, "float32");
    cr_expect(o.ndim == 3 && o.shape[2] == 4 && o.n_steps == 3 && o.r == 2 && o.end == PX_GEN_END_STOP);
    cr_expect(o.ids[0] == 1 && o.ids[2] == 2 && o.top_ids[5] == 3 && isnan(o.top_logits[4]));
    cr_expect(o.first_ms == 1.5 && o.total_ms == 4.0);
    gen_out_free(&o);
    /* every proper prefix is refused */
    for (size_t n = 0; n < b.len; n++) {
        px_buf c = {0};
        buf_put(&c, b.data, n);
        cr_expect_eq(gen_reply_decode(&c, &o, &dec_settings), -1, "prefix %zu", n);
        buf_free(&c);
    }
    buf_free(&b);
}

Test(gen_reply, inconsistent_replies_are_refused)
{
    struct {
        const char *what;
        reply p;
        int ok;
    } cases[32];
    int n = 0;
#define CASE(WHAT, OK, EDIT)                                                                                        \
    do {                                                                                                            \
        cases[n].what = WHAT, cases[n].p = good, cases[n].ok = OK;                                                  \
        reply *p = &cases[n++].p;                                                                                   \
        EDIT;                                                                                                       \
    } while (0)
    CASE("as sent", 0, (void)p);
    CASE("end length after max_new_tokens steps", 0, (p->ids[2] = 3, p->top[2][0] = 3, p->top[2][1] = 2,
                                                      p->lg[2][0] = 1, p->lg[2][1] = 0, p->end = PX_GEN_END_LENGTH));
    CASE("a bad shape: no steps, end 0", 0, (p->ndim = 2, p->shape[0] = 1, p->shape[1] = 4, p->n = 0, p->end = 0));
    CASE("no steps with end stop", -1, (p->n = 0));
    CASE("no steps with end length", -1, (p->n = 0, p->end = PX_GEN_END_LENGTH));
    CASE("steps with end 0", -1, (p->end = 0));
    CASE("end 3", -1, (p->end = 3));
    CASE("more steps than max_new_tokens", -1,
         (p->n = 4, p->ids[3] = 2, p->r[3] = 2, p->top[3][0] = 2, p->top[3][1] = 0, p->lg[3][0] = 1,
          p->lg[3][1] = 0, p->ids[2] = 1, p->top[2][0] = 1, p->top[2][1] = 3));
    CASE("r over report_top", -1, (p->r[0] = 3, p->top[0][2] = 2, p->lg[0][2] = 0));
    CASE("r under min(report_top, V)", -1, (p->r[1] = 1));
    CASE("an id = V", -1, (p->ids[0] = 4, p->top[0][0] = 4));
    CASE("a negative id", -1, (p->ids[0] = -1, p->top[0][0] = -1));
    CASE("a top id out of range", -1, (p->top[0][1] = 9));
    CASE("end stop without a stop id last", -1, (p->ids[2] = 3, p->top[2][0] = 3, p->top[2][1] = 2,
                                                 p->lg[2][0] = 1, p->lg[2][1] = 0));
    CASE("end length with fewer steps", -1, (p->n = 2, p->end = PX_GEN_END_LENGTH));
    CASE("a stop id before the last step", -1, (p->ids[1] = 2, p->top[1][0] = 2, p->top[1][1] = 3));
    CASE("greedy id not the top one", -1, (p->ids[0] = 0));
    CASE("top list out of order", -1, (p->lg[0][0] = 0.5));
    CASE("a NaN after a number", -1, (p->lg[2][0] = 7, p->lg[2][1] = NAN));
    CASE("ties not lower id first", -1, (p->top[1][0] = 3, p->top[1][1] = 2, p->lg[1][0] = 1, p->lg[1][1] = 1));
    CASE("steps with a 2-d shape", -1, (p->ndim = 2, p->shape[1] = 4));
    CASE("steps with batch 2", -1, (p->shape[0] = 2));
    CASE("steps with V 0", -1, (p->shape[2] = 0));
    CASE("a negative dimension", -1, (p->ndim = 2, p->shape[1] = -1, p->n = 0, p->end = 0));
    CASE("9 dimensions", -1, (p->ndim = 9, p->n = 0, p->end = 0));
    CASE("a trailing byte", -1, (p->trailing = 1));
    CASE("a negative time", -1, (p->first = -1));
    CASE("a NaN time", -1, (p->total = NAN));
    CASE("an infinite time", -1, (p->total = INFINITY));
#undef CASE
    for (int i = 0; i < n; i++)
        cr_expect_eq(decodes(&cases[i].p, &dec_settings), cases[i].ok, "%s", cases[i].what);
    /* sampling: the chosen id need not be the top one */
    px_gen_settings s = dec_settings;
    s.decoding = PX_GEN_SAMPLE;
    s.temperature = 1;
    reply p = good;
    p.ids[0] = 0;
    cr_expect_eq(decodes(&p, &s), 0);
    /* a count of steps the payload cannot hold: refused before allocating */
    s.max_new_tokens = 1024;
    px_buf b = {0};
    buf_put_str(&b, "float32");
    buf_put_u32(&b, 3);
    buf_put_i64(&b, 1), buf_put_i64(&b, 5), buf_put_i64(&b, 4);
    buf_put_u32(&b, 1000);
    px_gen_out o;
    cr_expect_eq(gen_reply_decode(&b, &o, &s), -1);
    buf_free(&b);
}

/* ---- the executors ---- */

enum { CPP, PY, SERVED };
static const char *const kind_name[] = {"parity-torch", "parity_torch.py", "parity-torch (fork server)"};

typedef struct exe {
    pid_t pid;
    int in, out;
    px_forksrv *srv;
} exe;

static const char *executor(void)
{
    const char *p = getenv("PARITY_TORCH");
    return p ? p : "build/parity-torch";
}

static void exe_start(exe *x, int kind, const char *model)
{
    int in[2], out[2];
    /* close-on-exec: an executor holding its own stdin's write end (or
     * another's) would never see EOF */
    cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
    cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
    memset(x, 0, sizeof *x);
    static char script[4096];
    snprintf(script, sizeof script, "%s", tl_parity());
    char *slash = strrchr(script, '/');
    snprintf(slash ? slash + 1 : script, sizeof script - (size_t)(slash ? slash + 1 - script : 0), "parity_torch.py");
    const char *opts[] = {"--model", model, "--device", "cpu", "--dtype", "float32", "--threads", "1", NULL};
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (kind == SERVED) {
        x->srv = forksrv_start(executor(), 60, -1);
        cr_assert_not_null(x->srv, "the fork server did not start");
        int fds[3] = {in[0], out[1], devnull};
        cr_assert_eq(forksrv_spawn(x->srv, opts, fds, &x->pid), 0);
    } else {
        const char *argv[16];
        int n = 0;
        if (kind == PY)
            argv[n++] = tl_python(), argv[n++] = script;
        else
            argv[n++] = executor();
        for (int i = 0; opts[i]; i++)
            argv[n++] = opts[i];
        argv[n] = NULL;
        x->pid = fork();
        cr_assert_geq(x->pid, 0);
        if (x->pid == 0) {
            dup2(in[0], 0), dup2(out[1], 1), dup2(devnull, 2);
            execv(argv[0], (char *const *)argv);
            _exit(127);
        }
    }
    close(in[0]), close(out[1]), close(devnull);
    x->in = in[1], x->out = out[0];
    px_buf b = {0};
    uint32_t type;
    cr_assert_eq(proto_read_frame(x->out, &type, &b), 0, "%s: no READY", kind_name[kind]);
    cr_assert_eq(type, PX_FRAME_READY, "%s", kind_name[kind]);
    cr_assert_eq(buf_get_u32(&b), PX_PROTO_VERSION, "%s speaks revision 4", kind_name[kind]);
    buf_free(&b);
}

static void exe_stop(exe *x)
{
    close(x->in);
    close(x->out);
    int st = 0;
    if (x->srv) {
        cr_expect_eq(forksrv_wait(x->srv, x->pid, 30, &st), 1);
        forksrv_stop(x->srv);
    } else {
        waitpid(x->pid, &st, 0);
    }
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the executor ends cleanly: status %d", st);
}

/* Sends GENERATE; the answer's type, its payload in b (pos 0). */
static uint32_t exe_ask(exe *x, const px_gen_settings *s, const int64_t *prompt, size_t T, px_buf *b)
{
    int64_t ones[64];
    for (size_t i = 0; i < T; i++)
        ones[i] = 1;
    const char *names[] = {"input_ids", "attention_mask"};
    const int64_t *values[] = {prompt, ones};
    px_buf req = {0};
    gen_request_encode(&req, s, names, values, 2, T);
    cr_assert_eq(proto_write_all(x->in, req.data, req.len), 0);
    buf_free(&req);
    uint32_t type = 0;
    cr_assert_eq(proto_read_frame(x->out, &type, b), 0, "no answer");
    return type;
}

static void generate(exe *x, const px_gen_settings *s, const int64_t *prompt, size_t T, px_gen_out *o)
{
    px_buf b = {0};
    uint32_t type = exe_ask(x, s, prompt, T, &b);
    if (type == PX_FRAME_FAIL) {
        buf_get_u32(&b), buf_get_u32(&b);
        char *msg = buf_get_str(&b);
        cr_assert_fail("FAIL: %s", msg ? msg : "?");
    }
    cr_assert_eq(type, PX_FRAME_GENERATED);
    cr_assert_eq(gen_reply_decode(&b, o, s), 0, "GENERATED refused by gen_reply_decode");
    buf_free(&b);
}

static const int64_t prompt4[] = {1, 5, 6, 7};

static px_gen_settings settings(int decoding, int max_new, int R)
{
    return (px_gen_settings){.decoding = decoding, .temperature = 1.0, .seed = 42, .max_new_tokens = max_new,
                             .report_top = R};
}

static void expect_same(const px_gen_out *a, const px_gen_out *b, int exact_logits, const char *what)
{
    cr_assert_eq(a->n_steps, b->n_steps, "%s: steps", what);
    cr_expect_eq(a->end, b->end, "%s: end", what);
    cr_expect_eq(a->r, b->r, "%s: r", what);
    for (size_t k = 0; k < a->n_steps; k++) {
        cr_expect_eq(a->ids[k], b->ids[k], "%s: step %zu", what, k);
        for (int j = 0; j < a->r; j++) {
            size_t q = k * (size_t)a->r + (size_t)j;
            cr_expect_eq(a->top_ids[q], b->top_ids[q], "%s: step %zu top %d", what, k, j);
            double x = a->top_logits[q], y = b->top_logits[q];
            if (exact_logits)
                cr_expect(memcmp(&x, &y, sizeof x) == 0, "%s: step %zu top %d: %.17g vs %.17g", what, k, j, x, y);
            else
                cr_expect(fabs(x - y) <= 1e-5 * (1 + fabs(x)) || (isnan(x) && isnan(y)), "%s: %g vs %g", what, x, y);
        }
    }
}

/* Greedy: each chosen id is its step's top id, max_new_tokens ends it (end
 * length), and it is deterministic, the same in both executors and through
 * the fork server. */
Test(executors, greedy_is_the_top_id_deterministic_and_the_same_everywhere, .timeout = 180)
{
    px_gen_out o[3][2];
    px_gen_settings s = settings(PX_GEN_GREEDY, 10, 5);
    for (int kind = CPP; kind <= SERVED; kind++) {
        exe x;
        exe_start(&x, kind, "tests/models/gen_tiny.pt");
        for (int run = 0; run < 2; run++) {
            generate(&x, &s, prompt4, 4, &o[kind][run]);
            px_gen_out *g = &o[kind][run];
            cr_assert_eq(g->n_steps, 10, "%s", kind_name[kind]);
            cr_expect_eq(g->end, PX_GEN_END_LENGTH);
            cr_expect_str_eq(g->dtype, "float32");
            cr_expect(g->ndim == 3 && g->shape[0] == 1 && g->shape[1] == 4 && g->shape[2] == V_TINY);
            cr_expect_eq(g->r, 5);
            for (size_t k = 0; k < g->n_steps; k++)
                cr_expect_eq(g->ids[k], g->top_ids[k * 5], "%s step %zu", kind_name[kind], k);
            cr_expect(g->first_ms >= 0 && g->total_ms >= g->first_ms);
        }
        expect_same(&o[kind][0], &o[kind][1], 1, kind_name[kind]);
        exe_stop(&x);
    }
    expect_same(&o[CPP][0], &o[SERVED][0], 1, "direct vs fork server");
    expect_same(&o[CPP][0], &o[PY][0], 0, "C++ vs Python");
    for (int k = 0; k < 3; k++)
        gen_out_free(&o[k][0]), gen_out_free(&o[k][1]);
}

/* A stop id ends generation at its first occurrence (end stop, recorded
 * last); max_new_tokens 1 is one step. */
Test(executors, stop_ids_and_max_new_tokens_end_it, .timeout = 120)
{
    for (int kind = CPP; kind <= PY; kind++) {
        exe x;
        exe_start(&x, kind, "tests/models/gen_tiny.pt");
        px_gen_settings s = settings(PX_GEN_SAMPLE, 16, 3);
        px_gen_out free_run;
        generate(&x, &s, prompt4, 4, &free_run);
        cr_assert_eq(free_run.n_steps, 16);
        /* the last id that first appears after step 0 */
        size_t j = 0;
        for (size_t k = 1; k < free_run.n_steps; k++) {
            int seen = 0;
            for (size_t q = 0; q < k; q++)
                seen |= free_run.ids[q] == free_run.ids[k];
            if (!seen)
                j = k;
        }
        cr_assert_gt(j, 0, "%s: sampling gave one id throughout", kind_name[kind]);
        int64_t stops[] = {99, free_run.ids[j]};
        s.stop_ids = stops;
        s.n_stop = 2;
        px_gen_out o;
        generate(&x, &s, prompt4, 4, &o);
        cr_expect_eq(o.end, PX_GEN_END_STOP, "%s", kind_name[kind]);
        cr_assert_eq(o.n_steps, j + 1, "%s: ends at step %zu", kind_name[kind], j);
        for (size_t k = 0; k <= j; k++)
            cr_expect_eq(o.ids[k], free_run.ids[k]);
        gen_out_free(&o);
        s.max_new_tokens = 1;
        s.n_stop = 0;
        generate(&x, &s, prompt4, 4, &o);
        cr_expect(o.n_steps == 1 && o.end == PX_GEN_END_LENGTH && o.ids[0] == free_run.ids[0]);
        gen_out_free(&o);
        gen_out_free(&free_run);
        exe_stop(&x);
    }
}

/* Rebuilds step k's whole row from a reply with R = V. */
static void row_of(const px_gen_out *o, size_t k, double *row)
{
    for (int j = 0; j < o->r; j++)
        row[o->top_ids[k * (size_t)o->r + (size_t)j]] = o->top_logits[k * (size_t)o->r + (size_t)j];
}

/* Sampling: with R = V every row comes back whole, and the C reference,
 * fed those rows and the seed, chooses every id the executor chose; both
 * executors choose the same ids. Then the same on NaN rows (gen_nan.pt). */
Test(executors, sampling_is_the_reference_choice_in_both_executors, .timeout = 180)
{
    struct {
        const char *model;
        double temperature;
        int top_k;
        uint64_t seed;
    } runs[] = {{"tests/models/gen_tiny.pt", 1.0, 0, 42},
                {"tests/models/gen_tiny.pt", 0.7, 3, 7},
                {"tests/models/gen_tiny.pt", 2.5, 0, 0xFFFFFFFFFFFFFFF1ull},
                {"tests/models/gen_nan.pt", 1.0, 0, 5}};
    int n_runs = (int)(sizeof runs / sizeof runs[0]);
    px_gen_out o[2][4];
    int distinct = 0;
    for (int kind = CPP; kind <= PY; kind++) {
        for (int i = 0; i < n_runs; i++) {
            exe x;
            exe_start(&x, kind, runs[i].model);
            px_gen_settings s = settings(PX_GEN_SAMPLE, 24, V_TINY);
            s.temperature = runs[i].temperature, s.top_k = runs[i].top_k, s.seed = runs[i].seed;
            generate(&x, &s, prompt4, 4, &o[kind][i]);
            px_gen_out *g = &o[kind][i];
            cr_assert_eq(g->r, V_TINY);
            uint64_t st = s.seed;
            int seen[V_TINY] = {0};
            for (size_t k = 0; k < g->n_steps; k++) {
                double row[V_TINY];
                row_of(g, k, row);
                cr_expect_eq(gen_choose(row, V_TINY, &s, &st), g->ids[k], "%s %s step %zu", kind_name[kind],
                             runs[i].model, k);
                seen[g->ids[k]] = 1;
            }
            int d = 0;
            for (int v = 0; v < V_TINY; v++)
                d += seen[v];
            if (i == 0 && kind == CPP)
                distinct = d;
            if (strstr(runs[i].model, "nan")) /* T > 4 from step 1: NaN at 4 and 7 */
                for (size_t k = 1; k < g->n_steps; k++)
                    cr_expect(g->ids[k] == 4 && g->top_ids[k * V_TINY] == 4 && g->top_ids[k * V_TINY + 1] == 7 &&
                              isnan(g->top_logits[k * V_TINY]), "step %zu", k);
            exe_stop(&x);
        }
    }
    cr_expect_geq(distinct, 3, "the sampled run is not degenerate: %d distinct ids", distinct);
    for (int i = 0; i < n_runs; i++) {
        expect_same(&o[CPP][i], &o[PY][i], 0, runs[i].model);
        gen_out_free(&o[CPP][i]), gen_out_free(&o[PY][i]);
    }
}

/* An output not [1, T, V]: GENERATED with that shape and no steps; a model
 * that raises: FAIL at stage forward; malformed requests: FAIL, and the
 * executor goes on answering. */
Test(executors, bad_shape_raising_model_and_malformed_requests, .timeout = 180)
{
    static const int64_t prompt8[] = {1, 5, 6, 7, 8, 9, 10, 11};
    for (int kind = CPP; kind <= PY; kind++) {
        exe x;
        exe_start(&x, kind, "tests/models/gen_badshape.pt");
        px_gen_settings s = settings(PX_GEN_GREEDY, 5, 5);
        px_gen_out o;
        generate(&x, &s, prompt4, 4, &o);
        cr_expect(o.n_steps == 0 && o.end == PX_GEN_END_NONE && o.ndim == 2 && o.shape[0] == 1 &&
                      o.shape[1] == V_TINY, "%s: bad shape", kind_name[kind]);
        gen_out_free(&o);
        exe_stop(&x);

        exe_start(&x, kind, "tests/models/raises.pt");
        px_buf b = {0};
        cr_assert_eq(exe_ask(&x, &s, prompt8, 8, &b), PX_FRAME_FAIL, "%s", kind_name[kind]);
        cr_expect_eq(buf_get_u32(&b), PX_STAGE_FORWARD);
        cr_expect_eq(buf_get_u32(&b), PX_FAIL_EXCEPTION);
        char *msg = buf_get_str(&b);
        cr_expect(msg && strstr(msg, "planted failure"), "%s: %s", kind_name[kind], msg);
        free(msg);
        /* raises.pt on a short prompt: logits [1, 5], a bad shape */
        generate(&x, &s, prompt4, 3, &o);
        cr_expect(o.n_steps == 0 && o.ndim == 2 && o.shape[1] == 5);
        gen_out_free(&o);

        px_gen_settings bad[] = {settings(PX_GEN_GREEDY, 0, 5), settings(PX_GEN_GREEDY, 1025, 5),
                                 settings(3, 5, 5), settings(PX_GEN_GREEDY, 5, 17), settings(PX_GEN_SAMPLE, 5, 5)};
        bad[4].temperature = 0;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            cr_expect_eq(exe_ask(&x, &bad[i], prompt4, 3, &b), PX_FRAME_FAIL, "%s: case %zu", kind_name[kind], i);
            buf_get_u32(&b), buf_get_u32(&b);
            msg = buf_get_str(&b);
            cr_expect(msg && strstr(msg, "protocol: malformed GENERATE"), "%s", msg);
            free(msg);
        }
        /* only input_ids: refused */
        px_buf req = {0};
        const char *names[] = {"input_ids"};
        const int64_t *values[] = {prompt4};
        gen_request_encode(&req, &s, names, values, 1, 3);
        cr_assert_eq(proto_write_all(x.in, req.data, req.len), 0);
        uint32_t type;
        cr_assert_eq(proto_read_frame(x.out, &type, &b), 0);
        cr_expect_eq(type, PX_FRAME_FAIL);
        buf_get_u32(&b), buf_get_u32(&b);
        msg = buf_get_str(&b);
        cr_expect(msg && strstr(msg, "input_ids and attention_mask"), "%s", msg);
        free(msg);
        buf_free(&req);
        generate(&x, &s, prompt4, 3, &o); /* still answering */
        gen_out_free(&o);
        buf_free(&b);
        exe_stop(&x);
    }
}
