/* Whether a review decision, made on one environment's results for an
 * example, applies to what an environment records for it now (judge.h's
 * px_fit), and the decision in words. */
#include <string.h>

#include "parity/decision.h"
#include "parity/judge.h"
#include "parity/strf.h"

px_fit decision_fit(const char *decision, const char *env, const char *results, const px_env_result *e,
                    const px_example_result *x, const char *id)
{
    if (!decision)
        return PX_FIT_NONE;
    if (!env)
        return PX_FIT_UNKNOWN;
    if (strcmp(env, e->name))
        return PX_FIT_OTHER_ENV;
    if (!results)
        return PX_FIT_UNKNOWN;
    char now[PX_SHA256_HEX];
    results_example_sha256(e, x, id, now);
    return strcmp(now, results) ? PX_FIT_OTHER_RESULTS : PX_FIT_HERE;
}

const char *fit_name(px_fit fit)
{
    static const char *const n[] = {"none", "here", "other-environment", "other-results", "not-recorded"};
    return fit <= PX_FIT_UNKNOWN ? n[fit] : "?";
}

char *decision_words(px_fit fit, const char *decision, const char *env, const char *here)
{
    px_decision_kind k = decision_kind(decision);
    const char *done = !decision ? "undecided" : k != PX_DEC_NONE ? px_decision_table[k].done : decision;
    switch (fit) {
    case PX_FIT_HERE: return strf("%s on %s", done, here);
    case PX_FIT_OTHER_ENV: return strf("%s on %s, not yet on %s", done, env, here);
    case PX_FIT_OTHER_RESULTS: return strf("%s on %s's earlier results, not on these", done, here);
    case PX_FIT_UNKNOWN:
        return env ? strf("%s on %s, results not recorded", done, env)
                   : strf("%s, env not recorded; not yet on %s", done, here);
    default: return strf("%s", done);
    }
}
