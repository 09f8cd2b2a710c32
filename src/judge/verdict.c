/* The words of a verdict (verdict.h): what each outcome, stage of
 * divergence, cause and rung is called, and what an outcome means. */
#include "parity/verdict.h"

static const struct {
    const char *name, *meaning;
    int met;
} outcomes[PX_OC_COUNT] = {
    [PX_OC_PASS] = {"pass", "the expected decision, with the reference's numbers exactly", 1},
    [PX_OC_PASS_TOL] = {"pass-within-tolerance", "the expected decision; numbers differ within the stated tolerance", 1},
    [PX_OC_WRONG_LABEL] = {"wrong-label", "a plausible label, but not the expected one", 0},
    [PX_OC_NUMERIC_DRIFT] = {"numeric-drift", "the label is right, the numbers are outside the tolerance", 0},
    [PX_OC_BAD_SHAPE] = {"bad-shape", "the output shape is not the one the contract says", 0},
    [PX_OC_EMPTY] = {"empty", "the output has no elements", 0},
    [PX_OC_NON_FINITE] = {"non-finite", "the output holds a NaN or an infinity", 0},
    [PX_OC_EXCEPTION] = {"exception", "the forward raised an error", 0},
    [PX_OC_CRASH] = {"crash", "the executor process died", 0},
    [PX_OC_TIMEOUT] = {"timeout", "no answer within the environment's timeout", 0},
    [PX_OC_UNSUPPORTED] = {"unsupported", "the backend does not implement an operation or dtype", 0},
    [PX_OC_REJECTED_OK] = {"rejected-as-expected", "the contract says reject, and it was", 1},
    [PX_OC_NOT_REJECTED] = {"not-rejected", "the contract says reject, but a label came out", 0},
    [PX_OC_WRONGLY_REJECTED] = {"wrongly-rejected", "rejected, though the contract expects a label", 0},
    [PX_OC_NOT_EVALUATED] = {"not-evaluated", "not judged: environment down, without results, or stopped", 0},
    [PX_OC_CONSTRAINT_VIOLATED] = {"constraint-violated",
                                   "the generated text breaks the example's expectation (which one is said)", 0},
    [PX_OC_WRONG_RANKING] = {"wrong-ranking",
                             "the query's search misses a document its expectation names, or ranks them otherwise", 0},
    [PX_OC_RANKING_CHANGED] = {"ranking-changed",
                               "the query's first k documents differ from the reference's, whatever the numbers", 0},
    [PX_OC_KNOWN_DEFECT] = {"known-defect",
                            "a reviewer decided defect: the model's known error, given here as the reference gives it", 1},
};

const char *outcome_name(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].name : "?"; }
const char *outcome_meaning(px_outcome o) { return o < PX_OC_COUNT ? outcomes[o].meaning : "?"; }
int outcome_met(px_outcome o) { return o < PX_OC_COUNT && outcomes[o].met; }

const char *div_name(px_div d)
{
    static const char *const n[PX_DIV_COUNT] = {"none",          "model revision", "label map",
                                                "cleaned text",  "token ids",      "output shape",
                                                "output values", "decision",       "generated tokens",
                                                "ranking"};
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
