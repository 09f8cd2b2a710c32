/* Showing a judgement: text for a person at a terminal, JSON (a stable
 * shape documented in parity(1)) and TAP for CI. */
#ifndef PARITY_REPORT_H
#define PARITY_REPORT_H

#include <stdio.h>

#include "parity/fixture.h"
#include "parity/judge.h"
#include "parity/results.h"

#define PX_CHECK_JSON_VERSION 1

void report_text(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j);
void report_json(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, int exit_code);
void report_tap(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j);

#endif
