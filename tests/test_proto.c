/* The protocol's framing (src/proto/proto.c): frames survive partial reads, an
 * oversized header is refused, integers are little-endian on the wire; on
 * the fork server's control channel a frame is one packet and carries its
 * descriptors, a packet that is no whole frame is refused (its descriptors
 * closed), and the end is EOF. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parity/denoise.h"
#include "parity/describe.h"
#include "parity/proto.h"
#include "parity/runner.h"
#include "testlib.h"

Test(proto, frame_round_trip_across_partial_reads)
{
    px_buf b = {0};
    proto_begin(&b, PX_FRAME_OUTPUT);
    buf_put_str(&b, "bfloat16");
    buf_put_u32(&b, 2);
    buf_put_i64(&b, -7);
    buf_put_f64(&b, -0.1);
    proto_end(&b);
    uint32_t type;
    size_t len;
    /* Every prefix shorter than the frame is "need more", never a frame. */
    for (size_t n = 0; n < b.len; n++)
        cr_expect_eq(proto_frame_ready(b.data, n, &type, &len), 0, "prefix %zu", n);
    cr_assert_eq(proto_frame_ready(b.data, b.len, &type, &len), 1);
    cr_expect_eq(type, PX_FRAME_OUTPUT);
    cr_expect_eq(len, b.len);
    px_buf r = {0};
    buf_put(&r, b.data + PX_FRAME_HEADER, len - PX_FRAME_HEADER);
    char *s = buf_get_str(&r);
    cr_expect_str_eq(s, "bfloat16");
    cr_expect_eq(buf_get_u32(&r), 2);
    cr_expect_eq(buf_get_i64(&r), -7);
    cr_expect(buf_get_f64(&r) == -0.1);
    cr_expect_eq(r.bad, 0);
    buf_get_u32(&r); /* past the end */
    cr_expect_eq(r.bad, 1);
    free(s);
    buf_free(&r);
    buf_free(&b);
}

Test(proto, oversized_header_is_rejected)
{
    uint8_t hdr[8] = {'F', 'A', 'I', 'L', 0xff, 0xff, 0xff, 0x7f};
    uint32_t type;
    size_t len;
    cr_expect_eq(proto_frame_ready(hdr, sizeof hdr, &type, &len), -1);
}

Test(proto, little_endian_on_the_wire)
{
    px_buf b = {0};
    buf_put_u32(&b, 0x01020304u);
    cr_expect_eq(b.data[0], 4);
    cr_expect_eq(b.data[3], 1);
    buf_free(&b);
}

Test(proto, control_packet_carries_its_frame_and_descriptors)
{
    int sv[2], p[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    cr_assert_eq(pipe(p), 0);
    px_buf b = {0};
    proto_begin(&b, PX_FRAME_SPAWN);
    buf_put_u32(&b, 1);
    buf_put_str(&b, "--model");
    proto_end(&b);
    int fds[3] = {p[0], p[1], p[1]};
    cr_assert_eq(proto_send_packet(sv[0], &b, fds, 3), 0);
    uint32_t type = 0;
    int got[PX_CTL_MAX_FDS], n = 0;
    px_buf r = {0};
    cr_assert_eq(proto_recv_packet(sv[1], &type, &r, got, PX_CTL_MAX_FDS, &n), 1);
    cr_expect_eq(type, PX_FRAME_SPAWN);
    cr_expect_eq(buf_get_u32(&r), 1);
    char *arg = buf_get_str(&r);
    cr_expect_str_eq(arg, "--model");
    cr_expect(!r.bad && r.pos == r.len);
    cr_assert_eq(n, 3);
    /* The descriptors are the pipe's ends: what goes in one comes out of
     * the other. */
    cr_assert_eq(write(got[1], "x", 1), 1);
    char c = 0;
    cr_expect_eq(read(got[0], &c, 1), 1);
    cr_expect_eq(c, 'x');
    for (int i = 0; i < n; i++)
        close(got[i]);
    /* Bytes that are no frame (a header saying more than came): refused. */
    cr_assert_eq(write(sv[0], "SPWN\x09\0\0\0abc", 11), 11);
    cr_expect_eq(proto_recv_packet(sv[1], &type, &r, got, PX_CTL_MAX_FDS, &n), -1);
    cr_expect_eq(n, 0);
    /* The other end closed: EOF. */
    close(sv[0]);
    cr_expect_eq(proto_recv_packet(sv[1], &type, &r, got, PX_CTL_MAX_FDS, &n), 0);
    close(sv[1]), close(p[0]), close(p[1]);
    free(arg);
    buf_free(&b), buf_free(&r);
}

/* The version the documents name is the header's: README.md says which
 * protocol the Python executor speaks, and parity_torch.py says it to
 * parity (it said "version 2" while the header said 4). */
Test(proto, the_readme_and_the_python_executor_name_the_headers_version)
{
    char *readme = tl_slurp("README.md"), *py = tl_slurp("src/executor/parity_torch.py");
    cr_assert(readme && py, "run from the repository root");
    int seen = 0;
    for (const char *p = readme; (p = strstr(p, "protocol (version ")); p++, seen++) {
        unsigned v = (unsigned)strtoul(p + strlen("protocol (version "), NULL, 10);
        cr_expect_eq(v, PX_PROTO_VERSION, "README.md says protocol version %u, include/parity/proto.h %u", v,
                     PX_PROTO_VERSION);
    }
    cr_expect_gt(seen, 0, "README.md no longer says \"protocol (version N)\": keep this test with what it says");
    const char *at = strstr(py, "\nPROTO_VERSION = ");
    cr_assert_not_null(at, "parity_torch.py has no PROTO_VERSION");
    unsigned v = (unsigned)strtoul(at + strlen("\nPROTO_VERSION = "), NULL, 10);
    cr_expect_eq(v, PX_PROTO_VERSION, "parity_torch.py speaks %u, include/parity/proto.h %u", v, PX_PROTO_VERSION);
    free(readme), free(py);
}

/* DESCRIBE (revision 5): both executors say what the ticket model
 * (tests/models/ticket) takes and gives, without a forward: its three
 * argument names in order, its dict return, its 128 positions and its
 * head of 4. parity-torch as $PARITY_TORCH finds it (torch 1.13 or 2), the
 * Python executor under tl_python(). */
static void expect_ticket(const px_describe *d, const char *who)
{
    cr_assert_eq(d->args_known, 1, "%s", who);
    cr_assert_eq(d->n_args, 3, "%s: %zu arguments", who, d->n_args);
    cr_expect_str_eq(d->args[0], "input_ids", "%s", who);
    cr_expect_str_eq(d->args[1], "attention_mask", "%s", who);
    cr_expect_str_eq(d->args[2], "token_type_ids", "%s", who);
    cr_expect(strstr(d->returns, "Dict"), "%s returns '%s'", who, d->returns);
    cr_expect_eq(d->max_positions, 128, "%s: %ld positions", who, d->max_positions);
    cr_expect_eq(d->head, 4, "%s: head %ld", who, d->head);
    cr_expect(describe_takes(d, "token_type_ids") && !describe_takes(d, "position_ids"), "%s", who);
}

Test(proto, both_executors_describe_the_model, .timeout = 120)
{
    px_runner_opts where = {0};
    runner_locate(&where, NULL, tl_python());
    char script[PATH_MAX];
    cr_assert_not_null(realpath("src/executor/parity_torch.py", script));
    free((char *)where.script);
    where.script = strdup(script);
    px_describe d;
    px_error err = {0};
    cr_assert_eq(describe_model("tests/models/ticket/model.pt", PX_FORMAT_TORCHSCRIPT, 0, &where, 60, &d, &err), 0,
                 "parity-torch: %s", err.msg);
    cr_expect_str_eq(d.executor, "libtorch");
    expect_ticket(&d, "parity-torch");
    describe_free(&d);
    cr_assert_eq(describe_model("tests/models/ticket/model.pt", PX_FORMAT_TORCHSCRIPT, 1, &where, 60, &d, &err), 0,
                 "parity_torch.py: %s", err.msg);
    cr_expect_str_eq(d.executor, "python");
    expect_ticket(&d, "parity_torch.py");
    describe_free(&d);
    /* A Transformers directory (torch 2 and transformers): its forward's
     * names, its config's positions and labels. */
    if (tl_torch_version()[0] == '2') {
        cr_assert_eq(describe_model("fixtures/bert-formats/bert", PX_FORMAT_TRANSFORMERS, 1, &where, 120, &d, &err), 0,
                     "transformers: %s", err.msg);
        cr_assert(d.args_known && d.n_args >= 3, "transformers");
        cr_expect_str_eq(d.args[0], "input_ids");
        cr_expect(describe_takes(&d, "token_type_ids"), "transformers");
        cr_expect_eq(d.max_positions, 128, "transformers: %ld positions", d.max_positions);
        cr_expect_eq(d.head, 5, "transformers: head %ld", d.head);
        describe_free(&d);
    }
    /* A model it cannot load: the executor's own words, no description. */
    cr_expect_eq(describe_model("tests/models/ticket/texts.txt", PX_FORMAT_TORCHSCRIPT, 0, &where, 60, &d, &err), -1);
    cr_expect(strstr(err.msg, "cannot describe the model"), "%s", err.msg);
    runner_locate_free(&where);
}

/* DENOISE and DENOISED (revision 8, src/run/denoise.c). A DENOISED payload
 * built field by field from a spec, so that each case changes one field. */
typedef struct dn_spec {
    uint32_t h, w, c;
    const char *digest;
    uint32_t latent_ndim;
    int64_t latent[4];
    uint32_t n_rec;
    uint32_t rec[8];
    uint32_t steps;
    double first_ms, total_ms;
    uint32_t compiled;
    int extra; /* bytes after the fields */
} dn_spec;

static const char DIGEST[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static dn_spec dn_good(void)
{
    return (dn_spec){.h = 3, .w = 2, .c = 3, .digest = DIGEST, .latent_ndim = 4, .latent = {1, 4, 2, 2},
                     .n_rec = 3, .rec = {2, 5, 6}, .steps = 7, .first_ms = 1.5, .total_ms = 9.25,
                     .compiled = PX_COMPILED_NO};
}

static void dn_put(px_buf *b, const dn_spec *s)
{
    buf_put_str(b, "float32");
    buf_put_u32(b, s->h), buf_put_u32(b, s->w), buf_put_u32(b, s->c);
    size_t n = (size_t)s->h * s->w * s->c;
    for (size_t i = 0; i < n && n < 4096; i++)
        buf_put_f64(b, (double)i / (double)n);
    buf_put_str(b, s->digest);
    buf_put_u32(b, s->latent_ndim);
    int64_t count = 1;
    for (uint32_t i = 0; i < s->latent_ndim && i < 4; i++)
        buf_put_i64(b, s->latent[i]), count *= s->latent[i];
    buf_put_u32(b, s->n_rec);
    for (uint32_t k = 0; k < s->n_rec && k < 8; k++) {
        buf_put_u32(b, s->rec[k]);
        for (int64_t j = 0; j < count && count < 4096; j++)
            buf_put_f64(b, (double)k * 100 + (double)j);
    }
    buf_put_u32(b, s->steps);
    buf_put_f64(b, s->first_ms), buf_put_f64(b, s->total_ms);
    buf_put_u32(b, s->compiled);
    for (int i = 0; i < s->extra; i++)
        buf_put(b, "x", 1);
}

/* Decodes s's payload (its first `len` bytes; SIZE_MAX: all) into a fresh
 * result: 0 or -1, with the result left as it was on -1. */
static int dn_decode(const dn_spec *s, size_t len, px_example_result *x, char *why)
{
    px_buf b = {0};
    dn_put(&b, s);
    if (len < b.len)
        b.len = len;
    *x = (px_example_result){.label = -1, .forward_ms = -1};
    int rc = denoised_decode(&b, x, why, 200);
    buf_free(&b);
    return rc;
}

Test(denoise, a_good_denoised_frame_decodes_into_the_examples_result)
{
    dn_spec s = dn_good();
    px_example_result x;
    char why[200] = "";
    cr_assert_eq(dn_decode(&s, SIZE_MAX, &x, why), 0, "%s", why);
    cr_expect_str_eq(x.dtype, "float32");
    cr_expect_eq(x.ndim, 4);
    cr_expect(x.shape[0] == 1 && x.shape[1] == 3 && x.shape[2] == 2 && x.shape[3] == 3);
    cr_assert_eq(x.n_values, 18);
    cr_expect_eq(x.values[17], 17.0 / 18.0);
    cr_expect_eq(x.forward_ms, 9.25, "forward_ms is the whole call's");
    cr_expect_eq(x.compiled, PX_COMPILED_NO);
    cr_assert_not_null(x.img);
    cr_expect_str_eq(x.img->noise_sha256, DIGEST);
    cr_expect_eq(x.img->latent_count, 16);
    cr_expect(x.img->latent_shape[1] == 4 && x.img->latent_shape[3] == 2);
    cr_assert_eq(x.img->n_steps, 3);
    cr_expect(x.img->step[0] == 2 && x.img->step[1] == 5 && x.img->step[2] == 6);
    cr_expect_eq(x.img->latents[2 * 16 + 15], 215.0);
    cr_expect_eq(x.img->steps, 7);
    cr_expect_eq(x.img->first_ms, 1.5);
    example_result_clear(&x);
}

/* Each bound, broken alone, refuses the whole frame (nothing allocated is
 * left in the result) and says what broke. */
Test(denoise, every_bound_broken_alone_refuses_the_frame)
{
    dn_spec bad[32];
    const char *said[32];
    int n = 0;
#define CASE(text, body)                                                                                             \
    do {                                                                                                             \
        dn_spec s = dn_good();                                                                                       \
        body;                                                                                                        \
        bad[n] = s, said[n++] = text;                                                                                \
    } while (0)
    CASE("image 0 x", s.h = 0);
    CASE("image 4097 x", s.h = 4097);
    CASE("x 4097 x", s.w = 4097);
    CASE("x 5 (", s.c = 5);
    CASE("x 0 (", s.c = 0);
    CASE("image of 67108864 values", (s.h = 4096, s.w = 4096, s.c = 4)); /* 512 MiB said, a few bytes sent */
    CASE("noise digest", s.digest = "0123");
    CASE("noise digest", s.digest = "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef");
    CASE("noise digest", s.digest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg");
    CASE("noise digest", s.digest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0");
    CASE("latent of 3 dimensions", s.latent_ndim = 3);
    CASE("latent dimension 0 is 2", s.latent[0] = 2);
    CASE("latent dimension 2 is 0", s.latent[2] = 0);
    CASE("latent dimension 1 is -4", s.latent[1] = -4);
    CASE("latent of more than 65536", (s.latent[2] = 256, s.latent[3] = 256, s.n_rec = 0));
    CASE("0 recorded", (s.n_rec = 0));
    CASE("257 recorded", (s.n_rec = 257));
    CASE("recorded step 5 after 5", (s.rec[2] = 5));
    CASE("recorded step 2 after 5", (s.rec[2] = 2));
    CASE("recorded step 1000 after", (s.rec[2] = 1000, s.steps = 1001));
    CASE("7 steps, the last recorded 5", (s.n_rec = 2));
    CASE("8 steps, the last recorded 6", (s.steps = 8));
    CASE("0 steps", (s.steps = 0));
    CASE("timings", (s.first_ms = -1));
    CASE("timings", (s.total_ms = NAN));
    CASE("timings", (s.total_ms = INFINITY));
    CASE("1 bytes after its fields", (s.extra = 1));
#undef CASE
    for (int i = 0; i < n; i++) {
        px_example_result x;
        char why[200] = "";
        cr_expect_eq(dn_decode(&bad[i], SIZE_MAX, &x, why), -1, "case %d (%s) decoded", i, said[i]);
        cr_expect(strstr(why, said[i]) != NULL, "case %d: '%s' does not say '%s'", i, why, said[i]);
        cr_expect(x.values == NULL && x.img == NULL && x.dtype == NULL && x.n_values == 0,
                  "case %d left something in the result", i);
    }
}

/* Every prefix of a good frame (a child that died mid-write, a length that
 * lied) is refused, never read past. */
Test(denoise, every_truncation_of_a_good_frame_is_refused)
{
    dn_spec s = dn_good();
    px_buf b = {0};
    dn_put(&b, &s);
    size_t full = b.len;
    buf_free(&b);
    for (size_t len = 0; len < full; len++) {
        px_example_result x;
        char why[200] = "";
        cr_expect_eq(dn_decode(&s, len, &x, why), -1, "a frame cut at %zu of %zu bytes decoded", len, full);
        cr_expect(x.values == NULL && x.img == NULL);
    }
}

/* DENOISE carries its fields in proto.h's order; the seed as its i64 bits
 * (a seed past 2^63 stays itself). */
Test(denoise, the_request_is_encoded_as_the_protocol_says)
{
    px_denoise_req q = {.class_id = 3, .seed = (1ull << 63) + 5, .steps = 20, .guidance_scale = 4.5,
                        .height = 32, .width = 24, .latent_every = 5};
    px_buf b = {0};
    denoise_request_encode(&b, &q);
    uint32_t type;
    size_t len;
    cr_assert_eq(proto_frame_ready(b.data, b.len, &type, &len), 1);
    cr_expect_eq(type, PX_FRAME_DENOISE);
    cr_expect_eq(len, b.len);
    b.pos = PX_FRAME_HEADER;
    cr_expect_eq(buf_get_u32(&b), 3);
    cr_expect_eq((uint64_t)buf_get_i64(&b), (1ull << 63) + 5);
    cr_expect_eq(buf_get_u32(&b), 20);
    cr_expect_eq(buf_get_f64(&b), 4.5);
    cr_expect_eq(buf_get_u32(&b), 32);
    cr_expect_eq(buf_get_u32(&b), 24);
    cr_expect_eq(buf_get_u32(&b), 5);
    cr_expect_eq(b.pos, b.len, "no field more");
    cr_expect(!b.bad);
    buf_free(&b);
}
