/* The words of a verdict (verdict.h): what each outcome, stage of
 * divergence, cause and rung is called, and what an outcome means. */
#include "parity/verdict.h"

/* name, meaning (the reports' legend), met, and what parity(1)'s VERDICTS
 * list adds to the meaning (NULL: nothing); that list is made from this
 * table (tests/man_tables.c, `make man-tables`). */
static const struct {
    const char *name, *meaning;
    int met;
    const char *more;
} outcomes[PX_OC_COUNT] = {
    [PX_OC_PASS] = {"pass", "the expected decision, with the reference's numbers exactly", 1},
    [PX_OC_PASS_TOL] = {"pass-within-tolerance", "the expected decision; numbers differ within the stated tolerance", 1},
    [PX_OC_WRONG_LABEL] = {"wrong-label", "a plausible label, but not the expected one", 0},
    [PX_OC_NUMERIC_DRIFT] = {"numeric-drift", "the label is right, the numbers are outside the tolerance", 0},
    [PX_OC_BAD_SHAPE] = {"bad-shape", "the output shape is not the one the contract says", 0},
    [PX_OC_EMPTY] = {"empty", "the output has no elements", 0},
    [PX_OC_NON_FINITE] = {"non-finite", "the output holds a NaN or an infinity", 0,
        "never a pass, in the reference as in a candidate, even where the reference has the same NaN"},
    [PX_OC_EXCEPTION] = {"exception", "the forward raised an error", 0},
    [PX_OC_CRASH] = {"crash", "the executor process died", 0},
    [PX_OC_TIMEOUT] = {"timeout", "no answer within the environment's timeout", 0},
    [PX_OC_UNSUPPORTED] = {"unsupported", "the backend does not implement an operation or dtype", 0},
    [PX_OC_REJECTED_OK] = {"rejected-as-expected", "the contract says reject, and it was", 1,
        "and the reason matches expect.reason when one is given"},
    [PX_OC_NOT_REJECTED] = {"not-rejected", "the contract says reject, but a label came out", 0},
    [PX_OC_WRONGLY_REJECTED] = {"wrongly-rejected", "rejected, though the contract expects a label", 0},
    [PX_OC_NOT_EVALUATED] = {"not-evaluated", "not judged: environment down, without results, or stopped", 0},
    [PX_OC_CONSTRAINT_VIOLATED] = {"constraint-violated",
                                   "the generated text breaks the example's expectation (which one is said)", 0,
        "the must_match pattern that does not match, the must_not_match pattern that does (and what it matched, where), max_chars, non_empty or same_as_reference; or the text is not what its ids decode to, or it stopped on a token that is not one of contract.generate.stop"},
    [PX_OC_WRONG_RANKING] = {"wrong-ranking",
                             "the query's search misses a document its expectation names, or ranks them otherwise", 0,
        "a document its expect.top names is not among its first k (or, order exact, not in that order); checked before ranking-changed, it wins when both apply"},
    [PX_OC_RANKING_CHANGED] = {"ranking-changed",
                               "the query's first k documents differ from the reference's, whatever the numbers", 0,
        "a candidate's query only; a query that also misses its expect.top is wrong-ranking instead"},
    [PX_OC_KNOWN_DEFECT] = {"known-defect",
                            "a reviewer decided defect: the model's known error, given here as the reference gives it", 1,
        "the example's review.decision is defect and this environment answers it as the reference does: the reference itself, or a candidate that parts from the reference at no stage. It meets the contract and is counted apart; its detail names the outcome it stands for (\"wrong-label, as in the reference: ...\"). A candidate that parts from the reference on it keeps its own outcome, and fails. Only an answer is covered: an example that raises, crashes or times out fails whatever was decided"},
    [PX_OC_BLANK_IMAGE] = {"blank-image", "the image is one colour (black, say): the pipeline made no picture", 0,
        "an image's; checked before its comparison with the reference, in the reference as in a candidate"},
    [PX_OC_IMAGE_CHANGED] = {"image-changed",
                             "the image fails a compare.image check against the reference's: another picture", 0,
        "a candidate's image only; the checks that failed are named (PSNR, SSIM, mean or max absolute pixel difference)"},
    [PX_OC_LOSS_NOT_FINITE] = {"loss-not-finite", "the training run's loss or gradient norm is a NaN or an infinity", 0,
        "a training run's, in the reference as in a candidate; the first such step is named"},
    [PX_OC_NOT_LEARNING] = {"not-learning", "the training run's loss does not go down as the reference's does", 0,
        "its loss drops by less than compare.train.learning's fraction of the reference's drop (the first step's loss less the mean of the last tenth), or is above the run's expect.loss_at_most: a run that silently learns nothing"},
    [PX_OC_CURVE_CHANGED] = {"curve-changed",
                             "the training run parts from the reference's beyond compare.train", 0,
        "a candidate's run only: its loss, gradient norm or update beyond the tolerance at some step (the first is named), or a tensor group's parameters at the end beyond compare.train.params"},
};

const char *outcome_name(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].name : "?"; }
const char *outcome_meaning(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].meaning : "?"; }
int outcome_met(px_outcome o) { return o < PX_OC_COUNT && outcomes[o].met; }
const char *outcome_more(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].more : NULL; }

const char *div_name(px_div d)
{
    static const char *const n[PX_DIV_COUNT] = {"none",          "model revision", "label map",
                                                "cleaned text",  "token ids",      "output shape",
                                                "output values", "decision",       "generated tokens",
                                                "ranking",       "latent",         "training step"};
    return d < PX_DIV_COUNT ? n[d] : "?";
}

const char *attr_name(px_attr a)
{
    return a == PX_ATTR_PRECISION ? "precision" : a == PX_ATTR_DEVICE ? "device" : a == PX_ATTR_UNKNOWN ? "unknown" : "none";
}

const char *rung_name(px_rung r)
{
    static const char *const n[PX_RUNG_COUNT] = {"device recognised", "model loaded", "input processed",
                                                 "forward ran", "contract satisfied", "performance"};
    return r < PX_RUNG_COUNT ? n[r] : "?";
}

const char *rung_state_name(px_rung_state s)
{
    static const char *const n[] = {"passed", "failed", "not-reached", "not-measured"};
    return n[s];
}
