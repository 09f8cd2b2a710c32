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
