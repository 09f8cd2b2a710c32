/* See include/parity/self.h. */
#include "parity/self.h"

#include <string.h>
#include <unistd.h>

int self_exe(char *buf, size_t size)
{
    if (!size)
        return -1;
    ssize_t n = size > 1 ? readlink("/proc/self/exe", buf, size - 1) : -1;
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 && (size_t)n < size - 1 ? 0 : (buf[0] = '\0', -1);
}

void self_dir(char *buf, size_t size)
{
    self_exe(buf, size);
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    else if (size)
        buf[0] = '\0';
}
