#define _GNU_SOURCE /* MSG_CMSG_CLOEXEC */
#include "parity/proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void buf_free(px_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void buf_reset(px_buf *b)
{
    b->len = b->pos = 0;
    b->bad = 0;
}

static int buf_reserve(px_buf *b, size_t n)
{
    if (b->bad)
        return -1;
    if (b->len + n <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d) {
        b->bad = 1;
        return -1;
    }
    b->data = d;
    b->cap = cap;
    return 0;
}

void buf_put(px_buf *b, const void *p, size_t n)
{
    if (n == 0 || buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

/* Explicit little-endian so the format does not depend on the host. */
static void put_le(px_buf *b, uint64_t v, int bytes)
{
    uint8_t tmp[8];
    for (int i = 0; i < bytes; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    buf_put(b, tmp, (size_t)bytes);
}

static uint64_t get_le(px_buf *b, int bytes)
{
    if (b->bad || b->len - b->pos < (size_t)bytes) {
        b->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)b->data[b->pos + i] << (8 * i);
    b->pos += (size_t)bytes;
    return v;
}

void buf_put_u32(px_buf *b, uint32_t v) { put_le(b, v, 4); }
void buf_put_i64(px_buf *b, int64_t v) { put_le(b, (uint64_t)v, 8); }

void buf_put_f64(px_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    put_le(b, u, 8);
}

void buf_put_str(px_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    buf_put_u32(b, (uint32_t)n);
    buf_put(b, s, n);
}

uint32_t buf_get_u32(px_buf *b) { return (uint32_t)get_le(b, 4); }
int64_t buf_get_i64(px_buf *b) { return (int64_t)get_le(b, 8); }

double buf_get_f64(px_buf *b)
{
    uint64_t u = get_le(b, 8);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

char *buf_get_str(px_buf *b)
{
    uint32_t n = buf_get_u32(b);
    if (b->bad || b->len - b->pos < n) {
        b->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        b->bad = 1;
        return NULL;
    }
    memcpy(s, b->data + b->pos, n);
    s[n] = '\0';
    b->pos += n;
    return s;
}

void proto_begin(px_buf *b, uint32_t type)
{
    buf_reset(b);
    buf_put_u32(b, type);
    buf_put_u32(b, 0);
}

void proto_end(px_buf *b)
{
    if (b->bad || b->len < PX_FRAME_HEADER)
        return;
    uint32_t n = (uint32_t)(b->len - PX_FRAME_HEADER);
    for (int i = 0; i < 4; i++)
        b->data[4 + i] = (uint8_t)(n >> (8 * i));
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

int proto_frame_ready(const uint8_t *data, size_t avail, uint32_t *type,
                      size_t *frame_len)
{
    if (avail < PX_FRAME_HEADER)
        return 0;
    uint32_t n = le32(data + 4);
    if (n > PX_FRAME_MAX)
        return -1;
    if (avail < PX_FRAME_HEADER + (size_t)n)
        return 0;
    *type = le32(data);
    *frame_len = PX_FRAME_HEADER + (size_t)n;
    return 1;
}

int proto_write_all(int fd, const void *p, size_t n)
{
    const uint8_t *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    uint8_t *c = p;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

int proto_read_frame(int fd, uint32_t *type, px_buf *b)
{
    uint8_t hdr[PX_FRAME_HEADER];
    if (read_all(fd, hdr, sizeof hdr))
        return -1;
    uint32_t n = le32(hdr + 4);
    if (n > PX_FRAME_MAX)
        return -1;
    buf_reset(b);
    if (buf_reserve(b, n ? n : 1))
        return -1;
    if (read_all(fd, b->data, n))
        return -1;
    b->len = n;
    *type = le32(hdr);
    return 0;
}

int proto_send_packet(int sock, const px_buf *frame, const int *fds, int n_fds)
{
    if (frame->bad || n_fds < 0 || n_fds > PX_CTL_MAX_FDS)
        return -1;
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(PX_CTL_MAX_FDS * sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {frame->data, frame->len};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (n_fds) {
        m.msg_control = ctl.space;
        m.msg_controllen = CMSG_SPACE((size_t)n_fds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)n_fds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)n_fds * sizeof(int));
    }
    ssize_t w;
    while ((w = sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    return w == (ssize_t)frame->len ? 0 : -1;
}

int proto_recv_packet(int sock, uint32_t *type, px_buf *b, int *fds, int max_fds, int *n_fds)
{
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(PX_CTL_MAX_FDS * sizeof(int))];
    } ctl;
    *n_fds = 0;
    buf_reset(b);
    if (buf_reserve(b, PX_CTL_MAX))
        return -1;
    struct iovec iov = {b->data, PX_CTL_MAX};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space, .msg_controllen = sizeof ctl.space};
    ssize_t n;
    while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (n == 0)
        return 0;
    int bad = n < 0 || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
    for (struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (*n_fds < max_fds)
                fds[(*n_fds)++] = fd;
            else
                close(fd), bad = 1;
        }
    }
    uint32_t len = n >= (ssize_t)PX_FRAME_HEADER ? le32(b->data + 4) : 0;
    if (!bad && (n < (ssize_t)PX_FRAME_HEADER || len != (size_t)n - PX_FRAME_HEADER))
        bad = 1;
    if (bad) {
        for (int i = 0; i < *n_fds; i++)
            close(fds[i]);
        *n_fds = 0;
        return -1;
    }
    *type = le32(b->data);
    memmove(b->data, b->data + PX_FRAME_HEADER, len);
    b->len = len;
    b->pos = 0;
    return 1;
}

const char *proto_stage_name(int stage)
{
    switch (stage) {
    case PX_STAGE_DEVICE: return "device";
    case PX_STAGE_LOAD: return "load";
    case PX_STAGE_FORWARD: return "forward";
    default: return "unknown";
    }
}

const char *proto_fail_kind_name(int kind)
{
    switch (kind) {
    case PX_FAIL_EXCEPTION: return "exception";
    case PX_FAIL_UNSUPPORTED: return "unsupported";
    case PX_FAIL_NO_TORCH: return "no-torch";
    default: return NULL;
    }
}
