/* story_spans: a generator's text cut into the pieces the review screen
 * and the HTML report mark (what must_match matched, a must_not_match
 * violation, the first diverging token), story_generate_words, the
 * output settings in words, and how the story names each environment. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "parity/story.h"

/* The pieces as "kind:text|kind:text" (P plain, M match, B bad, D diverged). */
static void pieces(const char *text, long ma, long me, long ba, long be, long div, char *out, size_t size)
{
    px_span sp[PX_MAX_SPANS];
    long m[2] = {ma, me};
    size_t n = story_spans(text, m, 1, ba, be, div, sp), o = 0;
    out[0] = '\0';
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(sp[i].at, at, "pieces are in order and cover the text");
        cr_assert_lt(sp[i].at, sp[i].end + (strlen(text) == 0));
        at = sp[i].end;
        o += (size_t)snprintf(out + o, size - o, "%s%c:%.*s", i ? "|" : "", "PMBD"[sp[i].kind],
                              (int)(sp[i].end - sp[i].at), text + sp[i].at);
    }
    cr_assert_eq(at, strlen(text), "the pieces end where the text does");
}

Test(story, spans_cut_a_text_by_its_marks)
{
    char got[512];
    const char *t = "Gig: The Owls, Saturday 20:00, $5.";
    pieces(t, -1, -1, -1, -1, -1, got, sizeof got);
    cr_expect_str_eq(got, "P:Gig: The Owls, Saturday 20:00, $5.");
    pieces(t, 15, 23, 31, 33, 29, got, sizeof got);
    cr_expect_str_eq(got, "P:Gig: The Owls, |M:Saturday|P: 20:00|D:,|P: |B:$5|P:.");
    /* a violation wins over a match it overlaps, a divergence over a match */
    pieces(t, 0, 10, 5, 8, 1, got, sizeof got);
    cr_expect_str_eq(got, "M:G|D:i|M:g: |B:The|M: O|P:wls, Saturday 20:00, $5.");
    /* the divergence past the text's end (it stopped where the other went
     * on) marks nothing; a span out of the text or backwards is left out */
    pieces(t, 30, 99, 7, 3, 40, got, sizeof got);
    cr_expect_str_eq(got, "P:Gig: The Owls, Saturday 20:00, $5.");
    pieces("", 0, 0, -1, -1, 0, got, sizeof got);
    cr_expect_str_eq(got, "P:");
}

/* With the chars vocabulary a token is a code point: the N-th code point
 * is marked, not the N-th byte, and no span cuts a character in two. */
Test(story, spans_count_tokens_in_code_points)
{
    char got[512];
    const char *t = "Soirée à 20:00 — 5€"; /* é, à, —, € are 2, 2, 3, 3 bytes */
    pieces(t, -1, -1, -1, -1, 5, got, sizeof got);
    cr_expect_str_eq(got, "P:Soiré|D:e|P: à 20:00 — 5€");
    pieces(t, -1, -1, -1, -1, 4, got, sizeof got);
    cr_expect_str_eq(got, "P:Soir|D:é|P:e à 20:00 — 5€");
    pieces(t, -1, -1, -1, -1, 18, got, sizeof got);
    cr_expect_str_eq(got, "P:Soirée à 20:00 — 5|D:€");
    /* a byte span inside é (4..5 is its second byte) is not a span */
    pieces(t, 5, 7, -1, -1, -1, got, sizeof got);
    cr_expect_str_eq(got, "P:Soirée à 20:00 — 5€");
    pieces(t, 4, 6, (long)strlen(t) - 4, (long)strlen(t), -1, got, sizeof got);
    cr_expect_str_eq(got, "P:Soir|M:é|P:e à 20:00 — |B:5€");
}

/* Every must_match pattern's span is marked, in its own place; more than
 * PX_MAX_MATCH_SPANS of them, the first are. */
Test(story, every_matched_pattern_is_marked)
{
    const char *t = "Film night: Casablanca, Friday 19:00, Union cinema.";
    long m[] = {12, 22, 24, 30, 31, 36, 38, 50};
    px_span sp[PX_MAX_SPANS];
    size_t n = story_spans(t, m, 4, -1, -1, -1, sp);
    char got[512] = "";
    for (size_t i = 0, o = 0; i < n; i++)
        o += (size_t)snprintf(got + o, sizeof got - o, "%s%c:%.*s", i ? "|" : "", "PMBD"[sp[i].kind],
                              (int)(sp[i].end - sp[i].at), t + sp[i].at);
    cr_expect_str_eq(got, "P:Film night: |M:Casablanca|P:, |M:Friday|P: |M:19:00|P:, |M:Union cinema|P:.");
    long many[2 * (PX_MAX_MATCH_SPANS + 2)];
    for (size_t i = 0; i < PX_MAX_MATCH_SPANS + 2; i++)
        many[2 * i] = (long)(2 * i), many[2 * i + 1] = (long)(2 * i + 1);
    n = story_spans(t, many, PX_MAX_MATCH_SPANS + 2, -1, -1, -1, sp);
    cr_expect_eq(n, 2 * PX_MAX_MATCH_SPANS, "the first %d marked, each with the plain byte after it",
                 PX_MAX_MATCH_SPANS);
}

Test(story, output_settings_in_words)
{
    char buf[512];
    char *stop[] = {"[EOS]", "\n", "'"};
    px_generate g = {.present = 1, .decoding = PX_DECODE_GREEDY, .max_new_tokens = 48, .stop = stop, .n_stop = 1};
    story_generate_words(&g, buf, sizeof buf);
    cr_expect_str_eq(buf, "greedy, at most 48 new tokens, stops at '[EOS]'");
    g = (px_generate){.present = 1, .decoding = PX_DECODE_SAMPLE, .temperature = 0.7, .top_k = 5, .seed = 42,
                      .max_new_tokens = 80, .stop = stop, .n_stop = 3};
    story_generate_words(&g, buf, sizeof buf);
    cr_expect_str_eq(buf, "sample (temperature 0.7, top_k 5, seed 42), at most 80 new tokens, stops at '[EOS]', "
                          "'\\n' or '\\''");
    g.top_k = 0, g.n_stop = 0;
    story_generate_words(&g, buf, sizeof buf);
    cr_expect_str_eq(buf, "sample (temperature 0.7, top_k 0: the whole vocabulary, seed 42), at most 80 new tokens, "
                          "no stop token");
    /* cut short, never past the buffer */
    char small[12];
    story_generate_words(&g, small, sizeof small);
    cr_expect_eq(strlen(small), sizeof small - 1);
}

/* Each environment named for what it is, from a real run's results
 * (tests/data/raises-twin-results.yaml): a float16 twin is a float16 twin,
 * never "bfloat16" nor "a TPU"; its own note ("not an accelerator") is said
 * as written, not contradicted; two float16 runs that differ only in
 * threads read apart; the executor is the recorded one. */
Test(story, environments_are_named_by_dtype_threads_executor_and_note)
{
    px_error err = {0};
    px_fixture *f = fixture_load("tests/data/raises-twin.yaml", &err);
    cr_assert_not_null(f, "%s", err.msg);
    px_results *r = results_load("tests/data/raises-twin-results.yaml", f, &err);
    cr_assert_not_null(r, "%s", err.msg);
    px_judgement j;
    cr_assert_eq(judge_results(f, r, &j, &err), 0, "%s", err.msg);
    px_story *s = story_build(f, r, &j, NULL, NULL, &err);
    cr_assert_not_null(s, "%s", err.msg);
    cr_assert_eq(s->n_envs, 3);
    const px_story_env *ref = &s->envs[0], *half = &s->envs[1], *half2 = &s->envs[2];
    cr_expect_str_eq(ref->what, "reference, not truth: the environment the others are compared with");
    cr_expect_str_eq(half->what, "CPU float16 twin: the target's float16 numerics on the CPU, not the target device; "
                                 "note: a float16 twin on the CPU: not an accelerator");
    cr_expect(!strstr(half->what, "bfloat16") && !strstr(half->what, "TPU"), "%s", half->what);
    cr_expect_str_eq(half2->what, "candidate: cpu float16; note: the same twin with two threads");
    cr_expect_str_eq(half->threads, "1");
    cr_expect_str_eq(half2->threads, "2");
    cr_expect_str_eq(half->executor, "libtorch");
    char *id1 = story_env_identity(f, &r->envs[1]), *id2 = story_env_identity(f, &r->envs[2]);
    cr_expect_str_eq(id1, "cpu float16, 1 thread, libtorch executor");
    cr_expect_str_eq(id2, "cpu float16, 2 threads, libtorch executor");
    free(id1), free(id2);
    /* The verdicts the story tells come from the judge: an any_of failure
     * names its labels; a failure both sides share is told once. */
    size_t board = 2, lng = 0;
    cr_assert_str_eq(s->examples[board].id, "board");
    cr_expect_str_eq(s->examples[board].cells[0].detail, "gave film, expected any of sports, music");
    cr_expect_str_eq(s->examples[lng].cells[1].detail, "both raised: builtins.RuntimeError: planted failure");
    story_free(s);
    judgement_free(&j);
    results_free(r);
    fixture_free(f);
}
