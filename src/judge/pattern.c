/* The contract's patterns (must_match, must_not_match, a rejection's
 * reason), matched with PCRE2 under limits, so that a hostile pattern
 * cannot hang a review. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "judge_int.h"

/* Returns 1 match, 0 no match, -1 with *err on a compile or limit error;
 * the first match's byte span in *at, *end (-1 when none). */
int pattern_span(const px_fixture *f, const px_pattern *p, const char *subject, long *at, long *end,
                        px_error *err)
{
    *at = *end = -1;
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p->text, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return px_error_set(err, PX_ERR_MALFORMED, f->path, p->loc.line, p->loc.col,
                            "pattern '%s': %s at offset %zu", p->text, (char *)msg, (size_t)off);
    }
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(mc, 1000000);
    pcre2_set_depth_limit(mc, 10000);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)subject, PCRE2_ZERO_TERMINATED, 0, 0, md, mc);
    if (rc >= 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        *at = (long)ov[0], *end = (long)ov[1];
    }
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(re);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(rc, msg, sizeof msg);
    return px_error_set(err, PX_ERR_MALFORMED, f->path, p->loc.line, p->loc.col, "pattern '%s': %s", p->text,
                        (char *)msg);
}

/* The same, without the span. */
int pattern_match(const px_fixture *f, const px_pattern *p, const char *subject, px_error *err)
{
    long at, end;
    return pattern_span(f, p, subject, &at, &end, err);
}
