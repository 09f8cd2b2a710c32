/* Fingerprints of what a results file was judged against: the contract's
 * parts and each example's definition, hashed from the loaded fixture (not
 * its bytes), so that a review decision, a comment, a why or an environment
 * definition (a TPU environment runs on the TPU host and is a `results:`
 * environment at home) changes none of them, while a changed tolerance,
 * label, cleaning rule, pin or example does. A results file records them;
 * reading it back names the part that changed since. */
#ifndef PARITY_FINGERPRINT_H
#define PARITY_FINGERPRINT_H

#include "parity/fixture.h"
#include "parity/hash.h"

typedef enum px_part {
    PX_PART_MODEL,    /* contract.model: its pin, inputs and output */
    PX_PART_INPUT,    /* contract.input: cleaning rules, tokenizer and its pin, limits */
    PX_PART_LABELS,   /* contract.labels, in order */
    PX_PART_COMPARE,  /* contract.compare: tolerance and decision rule */
    PX_PART_EXAMPLES, /* every example's definition, in order */
    PX_PART_COUNT
} px_part;

/* "model", "input", "labels", "compare", "examples": the keys of a results
 * file's contract: mapping. */
const char *fingerprint_part_name(px_part p);
/* What a change of the part means, for a warning ("a pin, the model's
 * inputs or output"). */
const char *fingerprint_part_meaning(px_part p);

typedef struct px_fingerprint {
    char part[PX_PART_COUNT][PX_SHA256_HEX]; /* "" when not known */
} px_fingerprint;

void fingerprint_contract(const px_fixture *f, px_fingerprint *out);
/* The definition of example k: id, kind, text, expectation, own tolerance. */
void fingerprint_example(const px_fixture *f, size_t k, char out[PX_SHA256_HEX]);

#endif
