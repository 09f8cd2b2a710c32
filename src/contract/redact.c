/* Redaction of secrets and the home directory in text that leaves the
 * machine. See include/parity/redact.h. */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "parity/redact.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Generous for a message or a note; a pattern that needs more on one text
 * gives up (and the text is hidden whole) instead of stalling. */
#define MATCH_LIMIT 1000000
#define DEPTH_LIMIT 10000

/* Secret shapes, most specific first, so a token inside `key=...` is
 * counted once. The key=value rule keeps the key and drops the value; it
 * wants the secret word to end the key (api_key=, token:) so that
 * "tokenizer: vocab.txt" or "max_tokens: 128" are left alone, and a value of
 * eight or more characters. */
const px_redact_builtin px_redact_builtins[] = {
    {"private key block", "-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----(?:[\\s\\S]*?-----END[A-Z ]{0,40}PRIVATE KEY-----|[\\s\\S]*)",
     PX_REDACTED},
    {"URL credentials", "\\b([a-z][a-z0-9+.-]{0,30}://)[^\\s/@:]{1,256}:[^\\s/@]{1,256}@", "$1" PX_REDACTED "@"},
    {"bearer token", "(?i)\\b(bearer|token|basic)\\s+[A-Za-z0-9._~+/-]{16,}=*", "$1 " PX_REDACTED},
    {"JSON web token", "\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}", PX_REDACTED},
    {"AWS access key", "\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b", PX_REDACTED},
    {"Google API key", "\\bAIza[0-9A-Za-z_-]{35}", PX_REDACTED},
    {"GitHub token", "\\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})", PX_REDACTED},
    {"Hugging Face token", "\\bhf_[A-Za-z0-9]{30,}", PX_REDACTED},
    {"Slack token", "\\bxox[abposr]-[A-Za-z0-9-]{10,}", PX_REDACTED},
    {"API secret key", "\\bsk-[A-Za-z0-9_-]{20,}", PX_REDACTED},
    {"key=value secret",
     "(?i)\\b([A-Za-z0-9_.-]{0,64}(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|"
     "auth[_-]?key|credentials?))(\\s{0,8}[:=]\\s{0,8})([\"']?)(?!\\[redacted\\])[^\\s\"',;]{8,}",
     "$1$2$3" PX_REDACTED},
};
const size_t px_redact_builtin_count = sizeof px_redact_builtins / sizeof *px_redact_builtins;

struct rule {
    pcre2_code *re;
    const char *replace;
};

struct px_redactor {
    struct rule *rules;
    size_t n;
    char *home;
    size_t count;
    pcre2_match_context *mctx;
};

static pcre2_code *compile(const char *pattern, int *code, size_t *offset)
{
    return pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, code,
                         offset, NULL);
}

int redact_check(const char *pattern, char *msg, size_t size)
{
    int code;
    size_t off;
    pcre2_code *re = compile(pattern, &code, &off);
    if (re) {
        pcre2_code_free(re);
        return 0;
    }
    PCRE2_UCHAR m[256];
    pcre2_get_error_message(code, m, sizeof m);
    snprintf(msg, size, "%s at offset %zu", (const char *)m, off);
    return -1;
}

px_redactor *redact_new(const char *const *extra, size_t n, const char *home, px_error *err)
{
    px_redactor *r = calloc(1, sizeof *r);
    if (!r || !(r->rules = calloc(px_redact_builtin_count + n, sizeof *r->rules)) ||
        !(r->mctx = pcre2_match_context_create(NULL))) {
        redact_free(r);
        px_error_oom(err, NULL);
        return NULL;
    }
    pcre2_set_match_limit(r->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(r->mctx, DEPTH_LIMIT);
    if (home && strlen(home) > 1 && !(r->home = strdup(home))) {
        redact_free(r);
        px_error_oom(err, NULL);
        return NULL;
    }
    if (r->home && r->home[strlen(r->home) - 1] == '/')
        r->home[strlen(r->home) - 1] = '\0';
    for (size_t i = 0; i < px_redact_builtin_count + n; i++) {
        int builtin = i < px_redact_builtin_count, code;
        size_t off;
        const char *p = builtin ? px_redact_builtins[i].pattern : extra[i - px_redact_builtin_count];
        r->rules[i].replace = builtin ? px_redact_builtins[i].replace : PX_REDACTED;
        if (!(r->rules[i].re = compile(p, &code, &off))) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(code, msg, sizeof msg);
            if (builtin)
                px_error_set(err, PX_ERR_INTERNAL, NULL, 0, 0, "built-in redaction '%s': %s", px_redact_builtins[i].name,
                             (const char *)msg);
            else
                px_error_set(err, PX_ERR_MALFORMED, NULL, 0, 0, "redact pattern %zu '%s': %s at offset %zu",
                             i - px_redact_builtin_count + 1, p, (const char *)msg, off);
            redact_free(r);
            return NULL;
        }
        r->n++;
    }
    return r;
}

void redact_free(px_redactor *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        pcre2_code_free(r->rules[i].re);
    free(r->rules);
    free(r->home);
    pcre2_match_context_free(r->mctx);
    free(r);
}

size_t redact_count(const px_redactor *r) { return r ? r->count : 0; }

/* One rule over *s (len bytes); *s replaced on a match. 0, 1 gave up (match
 * limit), -1 out of memory. */
static int apply(px_redactor *r, const struct rule *ru, char **s, size_t *len)
{
    size_t cap = *len + 64;
    for (int tries = 0; tries < 2; tries++) {
        char *out = malloc(cap + 1);
        if (!out)
            return -1;
        PCRE2_SIZE out_len = cap + 1;
        int rc = pcre2_substitute(ru->re, (PCRE2_SPTR)*s, *len, 0,
                                  PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, NULL, r->mctx,
                                  (PCRE2_SPTR)ru->replace, PCRE2_ZERO_TERMINATED, (PCRE2_UCHAR *)out, &out_len);
        if (rc == PCRE2_ERROR_NOMEMORY) {
            free(out);
            cap = out_len;
            continue;
        }
        if (rc < 0) {
            free(out);
            return 1;
        }
        if (rc == 0) {
            free(out);
            return 0;
        }
        r->count += (size_t)rc;
        free(*s);
        *s = out;
        *len = out_len;
        return 0;
    }
    return 1;
}

static int path_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

/* The home directory as ~ wherever it stands as a whole path component
 * run: "/home/al/x" but not "/home/alice" nor "/mnt/home/al". */
static char *tilde_home(const char *home, char *s)
{
    size_t hl = strlen(home), n = 0;
    for (const char *p = s; (p = strstr(p, home)); p += hl)
        n++;
    if (!n)
        return s;
    char *out = malloc(strlen(s) + 1), *o = out;
    if (!out)
        return NULL;
    const char *p = s;
    for (const char *q; (q = strstr(p, home));) {
        int before_ok = q == s || !(path_char(q[-1]) || q[-1] == '/' || q[-1] == '~');
        int after_ok = !path_char(q[hl]);
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        if (before_ok && after_ok)
            *o++ = '~';
        else
            memcpy(o, q, hl), o += hl;
        p = q + hl;
    }
    strcpy(o, p);
    free(s);
    return out;
}

char *redact_text(px_redactor *r, const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s);
    char *t = malloc(len + 1);
    if (!t)
        return NULL;
    memcpy(t, s, len + 1);
    for (size_t i = 0; i < r->n; i++) {
        int rc = apply(r, &r->rules[i], &t, &len);
        if (rc < 0) {
            free(t);
            return NULL;
        }
        if (rc > 0) { /* gave up: hide it all rather than show a secret */
            free(t);
            r->count++;
            return strdup(PX_REDACTED);
        }
    }
    t[len] = '\0';
    if (r->home) {
        char *h = tilde_home(r->home, t);
        if (!h)
            free(t);
        t = h;
    }
    return t;
}

int redact_in_place(px_redactor *r, char **s)
{
    if (!*s)
        return 0;
    char *t = redact_text(r, *s);
    if (!t)
        return -1;
    free(*s);
    *s = t;
    return 0;
}
