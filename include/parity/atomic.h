/* Atomic file replacement: the file at `path` is either the old bytes or the
 * new ones, never half-written. A temporary file in the same directory is
 * written, fsync'd, given the old file's mode (0644 for a new file, less the
 * umask), renamed over `path`, and the directory fsync'd. A symlink is
 * written through: its target is replaced and the link kept. */
#ifndef PARITY_ATOMIC_H
#define PARITY_ATOMIC_H

#include <stddef.h>

#include "parity/error.h"

int atomic_write(const char *path, const void *data, size_t len, px_error *err);

#endif
