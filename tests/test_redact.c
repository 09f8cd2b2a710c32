/* Redaction (src/contract/redact.c): each built-in secret shape, planted in a
 * message, is gone and counted; what only looks like a secret stays; the
 * home directory becomes ~ only as a whole path; a fixture's own pattern
 * works, a bad one is refused; a pattern that would stall hides the text. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "parity/redact.h"

static px_redactor *make(const char *const *extra, size_t n, const char *home)
{
    px_error err = {0};
    px_redactor *r = redact_new(extra, n, home, &err);
    cr_assert_not_null(r, "%s", err.msg);
    return r;
}

/* The secret is gone, the text around it stays, and one value was counted. */
static void hides(const char *text, const char *secret, const char *kept)
{
    px_redactor *r = make(NULL, 0, NULL);
    char *out = redact_text(r, text);
    cr_assert_not_null(out);
    cr_expect_null(strstr(out, secret), "'%s' still shows in '%s'", secret, out);
    cr_expect_not_null(strstr(out, PX_REDACTED), "%s", out);
    cr_expect_not_null(strstr(out, kept), "'%s' lost from '%s'", kept, out);
    cr_expect_eq(redact_count(r), 1, "%s: counted %zu", text, redact_count(r));
    free(out);
    redact_free(r);
}

static void keeps(const char *text)
{
    px_redactor *r = make(NULL, 0, NULL);
    char *out = redact_text(r, text);
    cr_expect_str_eq(out, text);
    cr_expect_eq(redact_count(r), 0);
    free(out);
    redact_free(r);
}

Test(redact, every_builtin_shape_is_hidden_and_counted)
{
    hides("RuntimeError: request failed: Authorization: Bearer abcDEF0123456789xyzXYZ.more", "abcDEF0123456789",
          "Authorization: Bearer");
    hides("connecting to https://sam:hunter2hunter2@example.org/models", "hunter2", "https://");
    hides("open db postgres://admin:pa55word@db.internal:5432/x failed", "pa55word", "db.internal");
    hides("env: AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE in the environment", "AKIAIOSFODNN7EXAMPLE", "in the environment");
    hides("key AIzaSyA1234567890abcdefghijklmnopqrstuv used", "AIzaSyA1234567890", "used");
    hides("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 expired", "ghp_abcdefghij", "expired");
    hides("HF_TOKEN hf_abcdefghijklmnopqrstuvwxyzABCDEFGH rejected", "hf_abcdefghij", "rejected");
    hides("slack xoxb-123456789012-abcdefghijkl hook", "xoxb-1234", "hook");
    hides("OPENAI sk-abcdefghijklmnopqrstuvwxyz012345 quota", "sk-abcdefghij", "quota");
    hides("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U bad",
          "eyJhbGciOiJIUzI1NiJ9", "bad");
    hides("config: api_key=0123456789abcdef, retries=3", "0123456789abcdef", "retries=3");
    hides("db_password: 'correct-horse-battery' (from env)", "correct-horse", "db_password: '");
    hides("-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----\nafter", "MIIEow", "after");
    hides("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk (cut)", "b3BlbnNzaC1rZXk", "");
}

Test(redact, what_only_looks_like_a_secret_stays)
{
    keeps("tokenizer: tests/data/vocab.txt");
    keeps("max_tokens: 128, pad_to: 16");
    keeps("token ids [101, 2003, 102]");
    keeps("model.pt has sha256 e4aefc63a712…, not the pinned 5c3b…");
    /* A pin mismatch gives both values whole (they may differ after 12
     * digits): no secret shape takes a 64-digit hash, after "sha256" or
     * a tokenizer's name. */
    keeps("fixture.yaml:11:13: model model.pt has sha256 "
          "e4aefc63a71216878ed90f08a8f6e532d3d70b2bc7ce117ae9851a44f0a1c426, not the pinned "
          "e4aefc63a712ffffffffffffffffffffffffffffffffffffffffffffffffffff: a different file is a different task: "
          "re-pin after review with: parity pin fixture.yaml");
    keeps("tokenizer secret_token.json has sha256 67857c4767e713f6416ff8ed4bf27c4c59b7dcdbf82289f4934a1d340f06035d, "
          "not the pinned 35ff838a1dde0132a2bedcd07d11d73349cc44c31c539a56235c616a60bdf318");
    keeps("RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x16 and 32x6)");
    keeps("https://example.org/models/campus.pt");
    keeps("password: short");
}

Test(redact, the_home_directory_is_a_tilde_only_as_a_whole_path)
{
    px_redactor *r = make(NULL, 0, "/home/al/");
    char *out = redact_text(r, "cannot open /home/al/x.pt; /home/alice/y.pt; /mnt/home/al/z; /home/al");
    cr_expect_str_eq(out, "cannot open ~/x.pt; /home/alice/y.pt; /mnt/home/al/z; ~");
    cr_expect_eq(redact_count(r), 0, "a home directory is not a secret");
    free(out);
    redact_free(r);
    r = make(NULL, 0, "/");
    out = redact_text(r, "/x");
    cr_expect_str_eq(out, "/x", "a home of / is not replaced");
    free(out);
    redact_free(r);
}

Test(redact, the_fixtures_own_patterns)
{
    const char *extra[] = {"campus-[0-9]{4}", "(?i)internal\\.example"};
    px_redactor *r = make(extra, 2, NULL);
    char *out = redact_text(r, "badge campus-2026 at INTERNAL.example.org");
    cr_expect_str_eq(out, "badge " PX_REDACTED " at " PX_REDACTED ".org");
    cr_expect_eq(redact_count(r), 2);
    char *s = strdup("campus-1999");
    cr_expect_eq(redact_in_place(r, &s), 0);
    cr_expect_str_eq(s, PX_REDACTED);
    cr_expect_eq(redact_count(r), 3);
    free(s), free(out);
    redact_free(r);

    const char *bad[] = {"ok", "(unclosed"};
    px_error err = {0};
    cr_expect_null(redact_new(bad, 2, NULL, &err));
    cr_expect_eq(err.reason, PX_ERR_MALFORMED);
    cr_expect_not_null(strstr(err.msg, "redact pattern 2 '(unclosed'"), "%s", err.msg);
}

Test(redact, a_pattern_that_would_stall_hides_the_text, .timeout = 20)
{
    const char *extra[] = {"(a+)+$"};
    px_redactor *r = make(extra, 1, NULL);
    char text[4096];
    memset(text, 'a', sizeof text - 2);
    text[sizeof text - 2] = '!';
    text[sizeof text - 1] = '\0';
    char *out = redact_text(r, text);
    cr_expect_str_eq(out, PX_REDACTED);
    cr_expect_eq(redact_count(r), 1);
    free(out);
    redact_free(r);
}

Test(redact, invalid_utf8_and_null_are_handled)
{
    px_redactor *r = make(NULL, 0, "/home/al");
    char *out = redact_text(r, "bytes \xff\xfe api_key=abcdefgh12345678 \xc3");
    cr_assert_not_null(out);
    cr_expect_null(strstr(out, "abcdefgh1234"), "%s", out);
    cr_expect_not_null(strstr(out, "\xff\xfe"), "the other bytes stay");
    free(out);
    cr_expect_null(redact_text(r, NULL));
    char *none = NULL;
    cr_expect_eq(redact_in_place(r, &none), 0);
    redact_free(r);
}
