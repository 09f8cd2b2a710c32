/* What `parity run` shows when it is done: each environment (its torch,
 * device, load and first forward, a compiled path's timings), the table
 * of examples by environment with the last column against the reference
 * (the kind's, report_kind.h), and the counts per status. Every
 * environment has its column, however many; a cell is cut to 40 columns
 * on a character's boundary. Of a shard, its own examples only. */
#ifndef PARITY_RUN_TABLE_H
#define PARITY_RUN_TABLE_H

#include <stdio.h>

#include "parity/fixture.h"
#include "parity/results.h"

void run_table_print(FILE *o, const px_fixture *f, const px_results *r);

#endif
