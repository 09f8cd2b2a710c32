/* The protocol's framing (src/proto.c): frames survive partial reads, an
 * oversized header is refused, integers are little-endian on the wire. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parity/proto.h"
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
