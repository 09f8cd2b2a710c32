/* The contract's cleaning rules: an ordered list of PCRE2 substitutions.
 * Patterns come from fixture files, so they are treated as untrusted: a
 * match context bounds the work one substitution may do. */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "parity/utf8.h"
#include "parity/clean.h"

#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* Enough for any sane cleaning rule on a long example, small enough that a
 * catastrophically backtracking one fails within a fraction of a second. */
#define MATCH_LIMIT 1000000
#define DEPTH_LIMIT 10000

struct rule {
    pcre2_code *re;
    char *pattern; /* kept for error messages */
    char *replace;
};

struct px_cleaner {
    struct rule *rules;
    size_t n, cap;
    pcre2_match_context *mctx;
};

static int oom(px_error *err)
{
    return px_error_oom(err, NULL);
}


px_cleaner *cleaner_new(void)
{
    px_cleaner *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->mctx = pcre2_match_context_create(NULL);
    if (!c->mctx) {
        free(c);
        return NULL;
    }
    pcre2_set_match_limit(c->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(c->mctx, DEPTH_LIMIT);
    return c;
}

void cleaner_free(px_cleaner *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        pcre2_code_free(c->rules[i].re);
        free(c->rules[i].pattern);
        free(c->rules[i].replace);
    }
    free(c->rules);
    pcre2_match_context_free(c->mctx);
    free(c);
}

size_t cleaner_count(const px_cleaner *c)
{
    return c ? c->n : 0;
}

/* \C could split a UTF-8 sequence and leave invalid text for the next rule
 * (and the tokenizer), so it is refused at compile time. */
static pcre2_code *rule_compile(const char *pattern, px_error *err)
{
    int code;
    PCRE2_SIZE offset;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C,
                                   &code, &offset, NULL);
    if (re)
        return re;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "pattern '%s': %s at offset %zu", pattern,
                 (const char *)msg, (size_t)offset);
    return NULL;
}

static int rules_reserve(px_cleaner *c, px_error *err)
{
    if (c->n < c->cap)
        return 0;
    size_t cap = c->cap ? c->cap * 2 : 8;
    struct rule *rules = realloc(c->rules, cap * sizeof *rules);
    if (!rules)
        return oom(err);
    c->rules = rules;
    c->cap = cap;
    return 0;
}

int cleaner_add(px_cleaner *c, const char *pattern, const char *replace, px_error *err)
{
    if (!c || !pattern || !replace)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "cleaning rule without pattern or replacement");
    long bad = utf8_invalid_at(replace, strlen(replace));
    if (bad >= 0)
        return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0,
                            "replacement for pattern '%s': invalid UTF-8 at byte %ld", pattern, bad);
    if (rules_reserve(c, err))
        return -1;
    pcre2_code *re = rule_compile(pattern, err);
    if (!re)
        return -1;
    struct rule r = {re, strdup(pattern), strdup(replace)};
    if (!r.pattern || !r.replace) {
        pcre2_code_free(re);
        free(r.pattern);
        free(r.replace);
        return oom(err);
    }
    c->rules[c->n++] = r;
    return 0;
}

/* Replacement syntax errors are only found when a match is substituted; for
 * those PCRE2 reports the offset in the replacement string. */
static int error_is_in_replacement(int rc)
{
    return rc == PCRE2_ERROR_BADREPLACEMENT || rc == PCRE2_ERROR_BADREPESCAPE ||
           rc == PCRE2_ERROR_REPMISSINGBRACE || rc == PCRE2_ERROR_BADSUBSTITUTION ||
           rc == PCRE2_ERROR_BADSUBSPATTERN;
}

static int rule_error(const struct rule *r, size_t index, int rc, PCRE2_SIZE offset,
                      px_error *err)
{
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(rc, msg, sizeof msg);
    char where[64] = "";
    if (error_is_in_replacement(rc))
        snprintf(where, sizeof where, " at replacement offset %zu", (size_t)offset);
    return px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "cleaning rule %zu ('%s' -> '%s'): %s%s",
                        index + 1, r->pattern, r->replace, (const char *)msg, where);
}

/* One substitution into a fresh buffer. The first guess at the size is
 * usually enough; when it is not, PCRE2_SUBSTITUTE_OVERFLOW_LENGTH makes
 * PCRE2 report the exact size needed (NUL included), and we retry once. */
static int rule_apply(const px_cleaner *c, size_t index, const char *s, size_t len, char **out,
                      size_t *out_len, px_error *err)
{
    const struct rule *r = &c->rules[index];
    const uint32_t opts = PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_EXTENDED |
                          PCRE2_SUBSTITUTE_OVERFLOW_LENGTH | PCRE2_NO_UTF_CHECK;
    PCRE2_SIZE cap = len + len / 4 + 64;
    for (int attempt = 0; attempt < 2; attempt++) {
        char *buf = malloc(cap);
        if (!buf)
            return oom(err);
        PCRE2_SIZE got = cap;
        int rc = pcre2_substitute(r->re, (PCRE2_SPTR)s, len, 0, opts, NULL, c->mctx,
                                  (PCRE2_SPTR)r->replace, PCRE2_ZERO_TERMINATED,
                                  (PCRE2_UCHAR *)buf, &got);
        if (rc >= 0) {
            *out = buf;
            *out_len = got;
            return 0;
        }
        free(buf);
        if (rc != PCRE2_ERROR_NOMEMORY)
            return rule_error(r, index, rc, got, err);
        cap = got;
    }
    return px_error_set(err, PX_ERR_INTERNAL, NULL, 0, 0,
                        "cleaning rule %zu ('%s'): output size kept changing", index + 1,
                        r->pattern);
}

char *cleaner_apply(const px_cleaner *c, const char *text, size_t len,
                    size_t *out_len, px_error *err)
{
    if (!text && len) {
        px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "no text");
        return NULL;
    }
    long bad = utf8_invalid_at(text ? text : "", len);
    if (bad >= 0) {
        px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "invalid UTF-8 at byte %ld of the text", bad);
        return NULL;
    }
    char *cur = malloc(len + 1);
    if (!cur) {
        oom(err);
        return NULL;
    }
    if (len)
        memcpy(cur, text, len);
    cur[len] = '\0';
    for (size_t i = 0; c && i < c->n; i++) {
        char *next = NULL;
        if (rule_apply(c, i, cur, len, &next, &len, err)) {
            free(cur);
            return NULL;
        }
        free(cur);
        cur = next;
    }
    /* A rule's buffer has room to grow; what is kept (10 000 examples'
     * texts) has none. */
    char *fit = c && c->n ? realloc(cur, len + 1) : NULL;
    if (fit)
        cur = fit;
    if (out_len)
        *out_len = len;
    return cur;
}
