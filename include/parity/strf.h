/* A string formatted into new memory: what the judge and the benchmark
 * verdicts build their words with. */
#ifndef PARITY_STRF_H
#define PARITY_STRF_H

/* printf into a string of its own (free it); NULL when out of memory. */
char *strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
