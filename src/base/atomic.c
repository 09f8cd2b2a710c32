#define _GNU_SOURCE /* realpath, mkstemp */
#include "parity/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_fd(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int atomic_write(const char *path, const void *data, size_t len, px_error *err)
{
    /* Write through a symlink to its target, keeping the link. */
    char target[PATH_MAX];
    struct stat st;
    int exists = lstat(path, &st) == 0;
    if (exists && S_ISLNK(st.st_mode)) {
        if (!realpath(path, target))
            return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot follow link: %s", strerror(errno));
        exists = stat(target, &st) == 0;
    } else {
        snprintf(target, sizeof target, "%s", path);
    }
    /* A device or a pipe (-o /dev/null) is written to, never replaced by a
     * rename: that would put a regular file where /dev/null was. */
    if (exists && S_ISDIR(st.st_mode))
        return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "is a directory");
    if (exists && !S_ISREG(st.st_mode)) {
        int fd = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC);
        int e = fd < 0 || write_fd(fd, data, len) ? errno : 0;
        if (fd >= 0)
            close(fd);
        return e ? px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot write: %s", strerror(e)) : 0;
    }
    char dirbuf[PATH_MAX], tmp[PATH_MAX + 32];
    snprintf(dirbuf, sizeof dirbuf, "%s", target);
    const char *dir = dirname(dirbuf);
    snprintf(tmp, sizeof tmp, "%s/.parity-tmp-XXXXXX", dir);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot create a file in %s: %s", dir, strerror(errno));
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0644 & ~mask;
    }
    int e = 0;
    if (write_fd(fd, data, len) || fchmod(fd, mode) || fsync(fd))
        e = errno ? errno : EIO;
    if (close(fd) && !e)
        e = errno;
    if (!e && rename(tmp, target))
        e = errno;
    if (e) {
        unlink(tmp);
        return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "cannot write: %s (the old file is untouched)",
                            strerror(e));
    }
    if (fsync_dir(dir))
        return px_error_set(err, PX_ERR_WRITE, path, 0, 0, "written, but the directory could not be synced: %s",
                            strerror(errno));
    return 0;
}
