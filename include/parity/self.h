/* Where this parity runs from: what finds its executors
 * (../libexec/parity/ when installed, beside it in the build tree), its
 * themes (../share/parity/themes, or the source tree's themes/) and itself
 * to run again (init --propose). One place for the command line, the
 * runner and the review screen. */
#ifndef PARITY_SELF_H
#define PARITY_SELF_H

#include <stddef.h>

/* The running program's absolute path into buf; -1 (buf "") when unknown. */
int self_exe(char *buf, size_t size);
/* Its directory; "" when unknown. */
void self_dir(char *buf, size_t size);

#endif
