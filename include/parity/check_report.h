/* Showing a judgement: text for a person at a terminal, JSON (a stable
 * shape documented in parity(1)) and TAP for CI. */
#ifndef PARITY_CHECK_REPORT_H
#define PARITY_CHECK_REPORT_H

#include <stdio.h>

#include "parity/fixture.h"
#include "parity/history.h"
#include "parity/judge.h"
#include "parity/results.h"

#define PX_CHECK_JSON_VERSION 1

/* since: each environment beside its last good configuration (history.h),
 * parallel to r->envs; NULL when not known. Text says what changed (and a
 * regression) per environment and nothing when it meets the contract as it
 * did last; JSON has "last_good" per environment; TAP diagnostics. */
void check_report_text(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since);
void check_report_json(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since,
                 int exit_code);
void check_report_tap(FILE *o, const px_fixture *f, const px_results *r, const px_judgement *j, const px_since *since);

#endif
