/* fixture_emit: a loaded fixture written back reads back to the same
 * contract, examples, environments, reviews and redact patterns; a second
 * emit is the same bytes; a filtered emit keeps exactly what was asked;
 * hostile text survives byte for byte. */
#include <criterion/criterion.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/fingerprint.h"
#include "parity/fixture.h"
#include "parity/fixture_emit.h"
#include "parity/writeback.h"
#include "testlib.h"

#define DEMO "fixtures/campus-club/fixture.yaml"

/* The emitted text; NULL when fixture_emit failed. */
static char *emit(const px_fixture *f, const px_emit_opts *o, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&text, &n);
    cr_assert_not_null(fp);
    int rc = fixture_emit(fp, f, o);
    cr_assert_eq(fclose(fp), 0);
    if (rc) {
        free(text);
        return NULL;
    }
    if (len)
        *len = n;
    return text;
}

/* Paths as emitted are the loaded ones (resolved against the original's
 * directory, relative to here): parsed from a name without a directory,
 * they resolve to themselves. */
static px_fixture *reparse(const char *what, const char *text)
{
    px_error err = {0};
    px_fixture *g = fixture_parse("emitted.yaml", text, strlen(text), &err);
    cr_assert_not_null(g, "%s: the emitted fixture does not load: %d:%d: %s\n%s", what, err.line, err.col, err.msg,
                       text);
    return g;
}

static int str_same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

#define SAME_STR(what, field, a, b)                                                                                   \
    cr_expect(str_same((a)->field, (b)->field), "%s: %s '%s' came back as '%s'", what, #field,                       \
              (a)->field ? (a)->field : "(null)", (b)->field ? (b)->field : "(null)")
#define SAME_NUM(what, field, a, b)                                                                                   \
    cr_expect((a)->field == (b)->field, "%s: %s %.17g came back as %.17g", what, #field, (double)(a)->field,         \
              (double)(b)->field)

static void same_strs(const char *what, char *const *a, size_t na, char *const *b, size_t nb)
{
    cr_expect_eq(na, nb, "%s: %zu came back as %zu", what, na, nb);
    for (size_t i = 0; i < na && i < nb; i++)
        cr_expect(str_same(a[i], b[i]), "%s[%zu]: '%s' came back as '%s'", what, i, a[i], b[i]);
}

static void same_tolerance_whys(const char *what, const px_tolerance *a, const px_tolerance *b)
{
    /* An example's own tolerance (NULL: the contract's) is in both or
     * neither. */
    cr_expect_eq(!a, !b, "%s: an example's own tolerance in one only", what);
    if (!a || !b)
        return;
    SAME_NUM(what, present, a, b);
    SAME_STR(what, why, a, b);
}

enum { WITH_EXAMPLES = 1, WITH_PATHS = 2 };

/* The contract's fingerprint parts (all, or all but the examples), and
 * what the fingerprint leaves out: task, paths (unless the caller gave
 * others), whys. */
static void same_contract(const char *what, const px_fixture *a, const px_fixture *b, int flags)
{
    int with_examples = flags & WITH_EXAMPLES;
    px_fingerprint fa, fb;
    fingerprint_contract(a, &fa);
    fingerprint_contract(b, &fb);
    for (int p = 0; p < PX_PART_COUNT; p++)
        if (with_examples || p != PX_PART_EXAMPLES)
            cr_expect_str_eq(fa.part[p], fb.part[p], "%s: contract part %s changed", what,
                             fingerprint_part_name((px_part)p));
    SAME_STR(what, task, a, b);
    if (flags & WITH_PATHS) {
        SAME_STR(what, model_path, a, b);
        SAME_STR(what, vocab_path, a, b);
    }
    SAME_NUM(what, tokenizer_hf, a, b);
    SAME_NUM(what, model_format, a, b);
    SAME_NUM(what, n_model_files, a, b);
    SAME_NUM(what, inputs_auto, a, b);
    same_strs("inputs", a->inputs, a->n_inputs, b->inputs, b->n_inputs);
    same_strs("labels", a->labels, a->n_labels, b->labels, b->n_labels);
    cr_expect_eq(a->n_rules, b->n_rules, "%s: cleaning rules", what);
    for (size_t i = 0; i < a->n_rules && i < b->n_rules; i++)
        SAME_STR(what, rules[i].why, a, b);
    same_tolerance_whys(what, &a->logits_tol, &b->logits_tol);
    cr_expect_eq(a->n_redact, b->n_redact, "%s: redact", what);
    for (size_t i = 0; i < a->n_redact && i < b->n_redact; i++) {
        SAME_STR(what, redact[i].pattern, a, b);
        SAME_STR(what, redact[i].why, a, b);
    }
}

static void same_env(const char *what, const px_env *a, const px_env *b)
{
    SAME_STR(what, name, a, b);
    SAME_STR(what, device, a, b);
    SAME_STR(what, dtype, a, b);
    SAME_NUM(what, threads, a, b);
    SAME_NUM(what, timeout_s, a, b);
    SAME_NUM(what, first_forward_timeout_s, a, b);
    SAME_NUM(what, startup_timeout_s, a, b);
    SAME_NUM(what, tf32, a, b);
    SAME_STR(what, matmul_precision, a, b);
    SAME_NUM(what, python, a, b);
    SAME_NUM(what, compile.present, a, b);
    SAME_STR(what, compile.backend, a, b);
    SAME_STR(what, compile.mode, a, b);
    SAME_NUM(what, compile.dynamic, a, b);
    SAME_STR(what, role, a, b);
    SAME_STR(what, note, a, b);
    SAME_STR(what, results, a, b);
    SAME_NUM(what, own_model, a, b);
    SAME_NUM(what, own_vocab, a, b);
    SAME_NUM(what, own_labels, a, b);
    SAME_STR(what, model_path, a, b);
    SAME_STR(what, model_sha256, a, b);
    SAME_NUM(what, model_format, a, b);
    SAME_NUM(what, n_model_files, a, b);
    SAME_STR(what, vocab_path, a, b);
    SAME_STR(what, vocab_sha256, a, b);
    same_strs("environment labels", a->labels, a->n_labels, b->labels, b->n_labels);
    same_strs("record_env", a->record_env, a->n_record_env, b->record_env, b->n_record_env);
}

/* Every field of the review record's table, so a new one is compared too. */
static void same_review(const char *what, const px_review *a, const px_review *b)
{
#define SAME_REVIEW_FIELD(e, m, k) SAME_STR(what, m, a, b);
    PX_REVIEW_RECORD(SAME_REVIEW_FIELD)
#undef SAME_REVIEW_FIELD
}

/* Example ia of a is example ib of b: its fingerprint (id, kind, text,
 * expectation, tolerance), its why, tolerance why and (when kept) review. */
static void same_example(const char *what, const px_fixture *a, size_t ia, const px_fixture *b, size_t ib,
                         int with_review)
{
    char ha[PX_SHA256_HEX], hb[PX_SHA256_HEX];
    fingerprint_example(a, ia, ha);
    fingerprint_example(b, ib, hb);
    const px_example *x = &a->examples[ia], *y = &b->examples[ib];
    cr_expect_str_eq(ha, hb, "%s: example '%s' changed", what, x->id);
    cr_expect_eq(x->text_len, y->text_len, "%s: '%s' text length", what, x->id);
    cr_expect(x->text_len == y->text_len && !memcmp(x->text, y->text, x->text_len), "%s: '%s' text bytes", what,
              x->id);
    SAME_STR(what, why, x, y);
    same_tolerance_whys(what, x->tol, y->tol);
    if (with_review)
        same_review(what, &x->review, &y->review);
}

/* Emit with default options, read back, compare everything, emit again:
 * the same bytes. */
static void round_trip(const char *what, const px_fixture *f)
{
    size_t n1 = 0, n2 = 0;
    char *one = emit(f, NULL, &n1);
    cr_assert_not_null(one, "%s: fixture_emit failed", what);
    cr_expect(!strncmp(one, "# ", 2) && strstr(one, "parity") && strstr(one, "\nparity: 1\n"),
              "%s: the header comment and the version", what);
    px_fixture *g = reparse(what, one);
    same_contract(what, f, g, WITH_EXAMPLES | WITH_PATHS);
    cr_assert_eq(f->n_envs, g->n_envs, "%s: environments", what);
    for (size_t i = 0; i < f->n_envs; i++)
        same_env(what, &f->envs[i], &g->envs[i]);
    cr_assert_eq(f->n_examples, g->n_examples, "%s: examples", what);
    for (size_t i = 0; i < f->n_examples; i++)
        same_example(what, f, i, g, i, 1);
    cr_expect_eq(fixture_reference(f), fixture_reference(g), "%s: the reference", what);
    char *two = emit(g, NULL, &n2);
    cr_assert_not_null(two);
    cr_expect(n1 == n2 && !memcmp(one, two, n1), "%s: a second emit differs:\n%s\n----\n%s", what, one, two);
    fixture_free(g);
    free(one);
    free(two);
}

/* The reference and one other, the other first; one example. */
static void filtered(const char *what, const px_fixture *f)
{
    int ref = fixture_reference(f);
    if (ref < 0 || f->n_examples == 0)
        return;
    int envs[2] = {-1, ref};
    for (size_t i = f->n_envs; i-- > 0;)
        if ((int)i != ref) {
            envs[0] = (int)i;
            break;
        }
    const int *keep = envs[0] >= 0 ? envs : envs + 1;
    size_t n_keep = envs[0] >= 0 ? 2 : 1;
    int ex = (int)(f->n_examples / 2);
    px_emit_opts o = {.envs = keep, .n_envs = n_keep, .examples = &ex, .n_examples = 1, .keep_results_keys = 1,
                      .keep_reviews = 1};
    char *text = emit(f, &o, NULL);
    cr_assert_not_null(text, "%s: filtered emit failed", what);
    px_fixture *g = reparse(what, text);
    same_contract(what, f, g, WITH_PATHS);
    cr_assert_eq(g->n_envs, n_keep, "%s: %zu environments kept", what, g->n_envs);
    for (size_t i = 0; i < n_keep; i++)
        same_env(what, &f->envs[keep[i]], &g->envs[i]);
    /* An embedding's documents stay with any subset: its queries search them. */
    size_t docs = 0;
    for (size_t i = 0; i < f->n_examples; i++)
        docs += (int)i != ex && f->examples[i].role == PX_ROLE_DOCUMENT;
    cr_assert_eq(g->n_examples, 1 + docs, "%s: %zu examples kept", what, g->n_examples);
    same_example(what, f, (size_t)ex, g, 0, 1);
    for (size_t i = 1; i < g->n_examples; i++)
        cr_expect_eq(g->examples[i].role, PX_ROLE_DOCUMENT, "%s: %s kept beside the one asked for", what,
                     g->examples[i].id);
    fixture_free(g);
    free(text);
}

static int is_results_file(const char *path)
{
    size_t len = 0;
    px_error err = {0};
    char *text = fixture_read(path, &len, &err);
    int r = text && strstr(text, "parity_results:") != NULL;
    free(text);
    return r;
}

Test(fixture_emit, every_loadable_fixture_round_trips)
{
    glob_t g;
    cr_assert_eq(glob("tests/data/*.yaml", 0, NULL, &g), 0);
    size_t loaded = 0;
    for (size_t i = 0; i <= g.gl_pathc; i++) {
        const char *path = i < g.gl_pathc ? g.gl_pathv[i] : DEMO;
        if (is_results_file(path))
            continue;
        px_error err = {0};
        px_fixture *f = fixture_load(path, &err);
        if (!f) /* a planted broken fixture */
            continue;
        loaded++;
        round_trip(path, f);
        filtered(path, f);
        fixture_free(f);
    }
    globfree(&g);
    cr_expect_geq(loaded, 8, "only %zu fixtures loaded: the test tests little", loaded);
    /* A Transformers directory pinned file by file, and its other formats. */
    px_error err = {0};
    px_fixture *f = fixture_load("fixtures/bert-formats/fixture.yaml", &err);
    cr_assert_not_null(f, "%s", err.msg);
    round_trip("bert-formats", f);
    filtered("bert-formats", f);
    fixture_free(f);
}

/* Every key the loader reads, each away from its default. */
static const char *EVERY_KEY =
    "parity: 1\n"
    "contract:\n"
    "  task: every key\n"
    "  model: {path: /abs/m.pt, sha256: \"e4aefc63a71216878ed90f08a8f6e532d3d70b2bc7ce117ae9851a44f0a1c426\",\n"
    "          inputs: [input_ids, token_type_ids, attention_mask], output: logits}\n"
    "  input:\n"
    "    clean:\n"
    "      - {pattern: '\\s+', replace: ' ', why: white space}\n"
    "      - {pattern: 'x', replace: ''}\n"
    "    tokenizer: {kind: wordpiece, vocab: sub/v.txt, lowercase: false}\n"
    "    max_tokens: 64\n"
    "    pad_to: 96\n"
    "    empty: allow\n"
    "  labels: [a, b, \"c: d\"]\n"
    "  compare:\n"
    "    logits: {rtol: 0.1, atol: 1e-7, stat: quantile, q: 0.95, oracle_factor: 2.5, why: because}\n"
    "    decision: exact\n"
    "environments:\n"
    "  ref: {device: cpu, dtype: float64, threads: 0, role: reference}\n"
    "  gpu: {device: 'cuda:0', tf32: false, timeout: 400, executor: python, record_env: [MY_KERNELS, _X1],\n"
    "        compile: {backend: aot_eager, dynamic: false}}\n"
    "  gpu-high: {device: 'cuda:0', matmul_precision: high, timeout: 12.5, first_forward_timeout: 600.25,\n"
    "             startup_timeout: 900}\n"
    "  tpu: {results: ../tpu.yaml, role: candidate, note: imported, threads: 8}\n"
    "  tpu-typed: {results: /abs/tpu2.yaml, dtype: bfloat16, timeout: 30, first_forward_timeout: 300}\n"
    "  own: {device: cpu, dtype: bfloat16, role: twin, model: {path: o.pt},\n"
    "        vocab: {path: /v2.txt, sha256: \"35ff838a1dde0132a2bedcd07d11d73349cc44c31c539a56235c616a60bdf318\"},\n"
    "        labels: [b, a, \"c: d\"]}\n"
    "examples:\n"
    "  - {id: one, text: hello, expect: {label: a, top_k: 2, must_match: '^a', must_not_match: b}, why: w,\n"
    "     compare: {logits: {rtol: 0, atol: 0.5, stat: max}}}\n"
    "  - {id: two, kind: ambiguous, text: 'a or b', expect: {any_of: [\"c: d\", a]},\n"
    "     review: {decision: accept, note: n, by: me, at: now, note_by: you, note_at: then, env: gpu,\n"
    "              results_sha256: \"35ff838a1dde0132a2bedcd07d11d73349cc44c31c539a56235c616a60bdf318\"}}\n"
    "  - {id: three, kind: reject, text: '', expect: {rejected: true, reason: empty}, review: {}}\n"
    "  - {id: four, kind: edge, text: x, expect: {label: b, reason: planted}, compare: {}}\n"
    "redact:\n"
    "  - {pattern: 'secret-\\w+', why: a project name}\n"
    "  - {pattern: 'internal\\.example'}\n";

static px_fixture *parse_text(const char *name, const char *text)
{
    px_error err = {0};
    px_fixture *f = fixture_parse(name, text, strlen(text), &err);
    cr_assert_not_null(f, "%d:%d: %s", err.line, err.col, err.msg);
    return f;
}

Test(fixture_emit, every_key_round_trips)
{
    px_fixture *f = parse_text("sub/every.yaml", EVERY_KEY);
    cr_assert_eq(f->envs[1].tf32, 0);
    cr_assert_eq(f->envs[0].threads, 0);
    cr_assert_eq(f->envs[1].n_record_env, 2);
    cr_expect_str_eq(f->envs[1].record_env[1], "_X1");
    round_trip("every key", f);
    filtered("every key", f);
    /* huggingface: file, not vocab; no lowercase. */
    const char *hf_from = "{kind: wordpiece, vocab: sub/v.txt, lowercase: false}";
    const char *at = strstr(EVERY_KEY, hf_from);
    cr_assert_not_null(at);
    size_t cap = strlen(EVERY_KEY) + 64;
    char *hf = malloc(cap);
    snprintf(hf, cap, "%.*s{kind: huggingface, file: t.json}%s", (int)(at - EVERY_KEY), EVERY_KEY,
             at + strlen(hf_from));
    px_fixture *h = parse_text("hf.yaml", hf);
    cr_assert(h->tokenizer_hf);
    round_trip("huggingface", h);
    char *text = emit(h, NULL, NULL);
    cr_expect(strstr(text, "file: \"t.json\"") && !strstr(text, "lowercase") && !strstr(text, "\n      vocab:"), "%s", text);
    free(text);
    fixture_free(h);
    free(hf);
    fixture_free(f);
}

Test(fixture_emit, options_paths_results_reviews)
{
    px_fixture *f = parse_text("sub/every.yaml", EVERY_KEY);
    px_emit_opts o = {.model_path = "model.pt", .vocab_path = "files/v.txt"};
    char *text = emit(f, &o, NULL);
    cr_assert_not_null(text);
    px_fixture *g = parse_text("out/fixture.yaml", text);
    cr_expect_str_eq(g->model_path, "out/model.pt");
    cr_expect_str_eq(g->vocab_path, "out/files/v.txt");
    /* Imported environments cannot be written without results: they go. */
    cr_expect_eq(g->n_envs, 4);
    for (size_t i = 0; i < g->n_envs; i++) {
        cr_expect_null(g->envs[i].results);
        cr_expect_not_null(g->envs[i].device);
    }
    for (size_t i = 0; i < g->n_examples; i++)
        cr_expect_null(g->examples[i].review.decision);
    cr_expect(!strstr(text, "review:") && !strstr(text, "results:"), "%s", text);
    same_contract("options", f, g, 0);
    fixture_free(g);
    free(text);

    /* Nothing that could not load is written: only imported environments
     * left, an index out of range or twice. */
    int tpu = 3, twice[] = {0, 0}, out_of_range = 6, neg = -1;
    px_emit_opts bad[] = {
        {.envs = &tpu, .n_envs = 1},
        {.envs = twice, .n_envs = 2, .keep_results_keys = 1},
        {.envs = &out_of_range, .n_envs = 1, .keep_results_keys = 1},
        {.examples = &neg, .n_examples = 1, .keep_results_keys = 1},
        {.examples = twice, .n_examples = 2, .keep_results_keys = 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        errno = 0;
        size_t n = 0;
        char *t = NULL;
        FILE *fp = open_memstream(&t, &n);
        cr_expect_eq(fixture_emit(fp, f, &bad[i]), -1, "bad options %zu", i);
        cr_expect_eq(errno, EINVAL, "bad options %zu", i);
        fclose(fp);
        cr_expect_eq(n, 0, "bad options %zu: nothing written", i);
        free(t);
    }
    /* No examples at all still loads. */
    int ref = 0;
    px_emit_opts none = {.envs = &ref, .n_envs = 1, .examples = &ref, .n_examples = 0};
    text = emit(f, &none, NULL);
    g = reparse("no examples", text);
    cr_expect_eq(g->n_examples, 0);
    fixture_free(g);
    free(text);
    fixture_free(f);
}

Test(fixture_emit, write_error)
{
    px_fixture *f = fixture_load(DEMO, &(px_error){0});
    cr_assert_not_null(f);
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        cr_skip_test("no /dev/full");
    cr_expect_eq(fixture_emit(full, f, NULL), -1);
    fclose(full);
    fixture_free(f);
}

/* Quotes, backslashes, line breaks, tabs, a control byte, non-ASCII, a
 * bidi override, YAML's own indicators, a line separator: byte for byte. */
Test(fixture_emit, hostile_text_round_trips)
{
    static const char *const hostile[] = {
        "say \"hi\" and 'bye'\\n (a backslash, not a break)",
        "line one\nline two\r\nthree\ttabbed\x01 bell\x07 esc\x1b[31m del\x7f",
        "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 rtl \xe2\x80\xae txt.exe \xe2\x80\xac end",
        "- not a list: # not a comment &anchor *alias !tag {flow} [seq] | > % @ `",
        "  leading and trailing spaces  ",
        "\xe2\x80\xa8 line separator \xe2\x80\xa9 paragraph \xef\xbb\xbf bom \xc2\x85 nel \xc2\x9b csi",
        "~",
        "null",
        "true",
        "0x1F",
        "",
    };
    size_t n = sizeof hostile / sizeof *hostile;
    /* Build the fixture from the loaded struct's side: load a plain one,
     * then put the hostile strings in its fields. */
    px_fixture *f = parse_text("h.yaml", "parity: 1\n"
                                         "contract:\n"
                                         "  task: t\n"
                                         "  model: {path: m.pt}\n"
                                         "  input: {tokenizer: {kind: wordpiece, vocab: v.txt}}\n"
                                         "  labels: [a, b]\n"
                                         "  compare: {logits: {rtol: 0.1, why: w}}\n"
                                         "environments:\n"
                                         "  reference: {device: cpu, note: n}\n"
                                         "examples:\n"
                                         "  - {id: x, text: t, expect: {label: a}, why: w, review: {note: n}}\n");
    char *long_name = malloc(401);
    memset(long_name, 'e', 400);
    memcpy(long_name, "\xe2\x80\xae\"\n", 4);
    long_name[400] = '\0';
    /* Past libyaml's 1024 characters for a simple key, escaped fourfold. */
    char *long_text = malloc(1201);
    for (size_t k = 0; k < 1200; k++)
        long_text[k] = k % 3 ? '\x01' : "a\"\\"[k % 9 / 3];
    long_text[1200] = '\0';
    for (size_t i = 0; i <= n; i++) {
        const char *s = i < n ? hostile[i] : long_text;
        free(f->examples[0].text), f->examples[0].text = strdup(s), f->examples[0].text_len = strlen(s);
        free(f->examples[0].why), f->examples[0].why = strdup(s);
        free(f->examples[0].id), f->examples[0].id = strdup(s[0] ? s : "x");
        free((char *)f->examples[0].review.note), f->examples[0].review.note = strdup(s);
        free(f->envs[0].note), f->envs[0].note = strdup(s);
        free(f->envs[0].name), f->envs[0].name = strdup(i % 2 ? long_name : s[0] ? s : "r");
        free(f->logits_tol.why), f->logits_tol.why = strdup(s);
        free(f->task), f->task = strdup(s);
        free(f->labels[1]), f->labels[1] = strdup(s[0] ? s : "b");
        free(f->envs[0].labels[1]), f->envs[0].labels[1] = strdup(f->labels[1]);
        char what[32];
        snprintf(what, sizeof what, "hostile %zu", i);
        round_trip(what, f);
        char *text = emit(f, NULL, NULL);
        px_fixture *g = reparse(what, text);
        cr_expect_str_eq(g->examples[0].text, s);
        cr_expect_str_eq(g->envs[0].name, f->envs[0].name);
        cr_expect_str_eq(g->labels[1], f->labels[1]);
        fixture_free(g);
        free(text);
    }
    free(long_name);
    free(long_text);
    fixture_free(f);
}

/* ---- an image's contract (kind image, issue 39) ---- */

#define IMAGE "tests/data/image/shapes.yaml"

static void same_bound(const char *what, const px_image_bound *a, const px_image_bound *b)
{
    SAME_NUM(what, present, a, b);
    SAME_NUM(what, limit, a, b);
    SAME_STR(what, why, a, b);
}

/* Every field of contract.image, compare.image and compare.latents, and
 * each example's class and seed: what the fingerprint covers is compared
 * there too, this says which field moved (and the whys it leaves out). */
static void same_image(const char *what, const px_fixture *a, const px_fixture *b)
{
    const px_image_spec *x = &a->image, *y = &b->image;
    SAME_NUM(what, kind, a, b);
    SAME_NUM(what, image.present, a, b);
    SAME_NUM(what, height, x, y);
    SAME_NUM(what, width, x, y);
    SAME_NUM(what, channels, x, y);
    SAME_NUM(what, steps, x, y);
    SAME_NUM(what, guidance_scale, x, y);
    SAME_NUM(what, seed, x, y);
    SAME_STR(what, scheduler, x, y);
    SAME_NUM(what, latent_every, x, y);
    same_bound(what, &a->image_cmp.psnr, &b->image_cmp.psnr);
    same_bound(what, &a->image_cmp.ssim, &b->image_cmp.ssim);
    same_bound(what, &a->image_cmp.mean_abs, &b->image_cmp.mean_abs);
    same_bound(what, &a->image_cmp.max_abs, &b->image_cmp.max_abs);
    const px_tolerance *s = &a->image_cmp.latents, *t = &b->image_cmp.latents;
    SAME_NUM(what, present, s, t);
    SAME_NUM(what, atol, s, t);
    SAME_NUM(what, rtol, s, t);
    SAME_STR(what, why, s, t);
    cr_assert_eq(a->n_examples, b->n_examples, "%s: examples", what);
    for (size_t i = 0; i < a->n_examples; i++) {
        SAME_STR(what, examples[i].text, a, b);
        SAME_NUM(what, examples[i].has_seed, a, b);
        SAME_NUM(what, examples[i].seed, a, b);
        SAME_NUM(what, examples[i].expect.kind, a, b);
    }
}

static px_fixture *load_image(const char *path)
{
    px_error err = {0};
    px_fixture *f = fixture_load(path, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return f;
}

Test(fixture_emit, an_image_contract_round_trips)
{
    px_fixture *f = load_image(IMAGE);
    cr_assert_eq(f->kind, PX_MODEL_IMAGE);
    round_trip("image", f);
    filtered("image", f);
    char *text = emit(f, NULL, NULL);
    cr_assert_not_null(text);
    px_fixture *g = reparse("image", text);
    same_image("image", f, g);
    fixture_free(g);
    free(text);
    /* each field away from the test fixture's value, a seed past 2^63 and a
     * latents.every of its default, comes back as it went */
    char *src = tl_slurp(IMAGE), *v = tl_replace_all(src, "seed: 42", "seed: 18446744073709551615");
    char *w = tl_replace_all(v, "    latents: {every: 5}\n", "");
    free(v);
    v = tl_replace_all(w, "{min: 0.95, why:", "{min: -0.25, why:");
    free(w);
    px_error err = {0};
    px_fixture *h = fixture_parse(IMAGE, v, strlen(v), &err);
    cr_assert_not_null(h, "%d:%d: %s", err.line, err.col, err.msg);
    cr_expect_eq(h->image.seed, 18446744073709551615ULL);
    cr_expect_eq(h->image.latent_every, 1);
    round_trip("image, another", h);
    text = emit(h, NULL, NULL);
    g = reparse("image, another", text);
    same_image("image, another", h, g);
    fixture_free(g), fixture_free(h);
    free(text), free(v), free(src);
    fixture_free(f);
}

/* A reviewer's decision on an image's example (parity decide, the review
 * screen: writeback.h) writes its review and nothing else: the image's
 * keys, its class and seed, read back as they were, and every byte
 * outside the example's review is the same. */
Test(fixture_emit, a_decision_on_an_image_keeps_its_contract)
{
    char *dir = tl_tmpdir(), fx[512], pipe[512], abs_pipe[4096];
    snprintf(fx, sizeof fx, "%s/shapes.yaml", dir);
    snprintf(pipe, sizeof pipe, "%s/pipeline", dir);
    cr_assert_not_null(realpath("tests/data/image/pipeline", abs_pipe));
    cr_assert_eq(symlink(abs_pipe, pipe), 0, "%s", strerror(errno));
    char *before = tl_slurp(IMAGE);
    tl_write(fx, before);
    px_fixture *f = load_image(fx);
    px_writeback s;
    px_error err = {0};
    cr_assert_eq(writeback_open(&s, fx, &err), 0, "%s", err.msg);
    px_decision d = {.id = "square", .review = {.decision = "defect", .note = "the square came out round",
                                                .by = "sam", .at = "2026-12-05T18:00:00Z"}};
    size_t len = 0;
    char *out = writeback_edit(&s, &d, 1, &len, &err);
    cr_assert_not_null(out, "%s", err.msg);
    cr_assert_eq(writeback_commit(&s, out, len, &err), 0, "%s", err.msg);
    writeback_close(&s);
    px_fixture *g = load_image(fx);
    same_image("decided", f, g);
    px_fingerprint fa, fb;
    fingerprint_contract(f, &fa);
    fingerprint_contract(g, &fb);
    for (int p = 0; p < PX_PART_COUNT; p++)
        cr_expect_str_eq(fa.part[p], fb.part[p], "contract part %s changed", fingerprint_part_name((px_part)p));
    cr_expect_str_eq(g->examples[1].review.decision, "defect");
    cr_expect_str_eq(g->examples[1].review.note, "the square came out round");
    cr_expect_null(g->examples[0].review.decision);
    char *after = tl_slurp(fx);
    const char *sq = strstr(before, "    why: \"the contract's seed\"\n");
    cr_assert_not_null(sq);
    size_t keep = (size_t)(sq - before) + strlen("    why: \"the contract's seed\"\n");
    cr_expect_eq(memcmp(before, after, keep), 0, "everything up to the decided example's last line is the same");
    cr_expect_str_eq(after + strlen(after) - (strlen(before) - keep), before + keep, "and so is everything after");
    fixture_free(g), fixture_free(f);
    free(before), free(after);
    unlink(fx), unlink(pipe), rmdir(dir);
    free(dir);
}

/* ---- a training contract (kind training, issue 40) ---- */

#define TRAINING "tests/data/training/fixture.yaml"

static void same_recipe(const char *what, const px_recipe *a, const px_recipe *b)
{
    SAME_NUM(what, steps, a, b); SAME_NUM(what, batch_size, a, b); SAME_NUM(what, seq_len, a, b);
    SAME_NUM(what, optimizer, a, b); SAME_NUM(what, lr, a, b); SAME_NUM(what, beta1, a, b);
    SAME_NUM(what, beta2, a, b); SAME_NUM(what, eps, a, b); SAME_NUM(what, weight_decay, a, b);
    SAME_NUM(what, momentum, a, b); SAME_NUM(what, warmup_steps, a, b); SAME_NUM(what, decay, a, b);
    SAME_NUM(what, decay_min, a, b); SAME_NUM(what, clip_grad_norm, a, b); SAME_NUM(what, seed, a, b);
}

static void same_step_tol(const char *what, const px_step_tol *a, const px_step_tol *b)
{
    SAME_NUM(what, present, a, b); SAME_NUM(what, atol, a, b); SAME_NUM(what, rtol, a, b);
    SAME_STR(what, why, a, b);
}

/* Every field of contract.train, its data, compare.train, each
 * environment's precision recipe and parallel plan, each run's recipe and
 * expect. */
static void same_training(const char *what, const px_fixture *a, const px_fixture *b)
{
    cr_assert_eq(b->kind, PX_MODEL_TRAINING, "%s: the kind", what);
    same_recipe(what, &a->recipe, &b->recipe);
    SAME_STR(what, train_data.path, a, b); SAME_STR(what, train_data.sha256, a, b);
    const px_train_checks *x = &a->train_cmp, *y = &b->train_cmp;
    same_step_tol(what, &x->loss, &y->loss); same_step_tol(what, &x->grad_norm, &y->grad_norm);
    same_step_tol(what, &x->update, &y->update);
    SAME_NUM(what, params_present, x, y); SAME_NUM(what, params_max_rel, x, y); SAME_STR(what, params_why, x, y);
    SAME_NUM(what, learning_min_fraction, x, y); SAME_STR(what, learning_why, x, y);
    cr_assert_eq(a->n_envs, b->n_envs);
    for (size_t i = 0; i < a->n_envs; i++) {
        const px_env *e = &a->envs[i], *g = &b->envs[i];
        SAME_STR(what, mixed_precision_param, e, g); SAME_STR(what, mixed_precision_reduce, e, g);
        SAME_NUM(what, parallel.processes, e, g); SAME_NUM(what, parallel.strategy, e, g);
        SAME_STR(what, parallel.backend, e, g);
    }
    cr_assert_eq(a->n_examples, b->n_examples);
    for (size_t i = 0; i < a->n_examples; i++) {
        cr_assert(a->examples[i].recipe && b->examples[i].recipe);
        same_recipe(what, a->examples[i].recipe, b->examples[i].recipe);
        cr_expect((isnan(a->examples[i].loss_at_most) && isnan(b->examples[i].loss_at_most)) ||
                      a->examples[i].loss_at_most == b->examples[i].loss_at_most,
                  "%s: %s loss_at_most", what, a->examples[i].id);
    }
}

static void training_round_trip(const char *what, const px_fixture *f)
{
    round_trip(what, f);
    filtered(what, f);
    char *text = emit(f, NULL, NULL);
    cr_assert_not_null(text);
    px_fixture *g = reparse(what, text);
    same_training(what, f, g);
    fixture_free(g);
    free(text);
}

Test(fixture_emit, a_training_contract_round_trips)
{
    px_error err = {0};
    px_fixture *f = fixture_load(TRAINING, &err);
    cr_assert_not_null(f, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    training_round_trip("training", f);
    fixture_free(f);
    /* every key away from the test fixture's: sgd with momentum on the
     * contract, linear decay, no clipping, a run switching to adamw with
     * its own betas, ddp with a backend and a reduce dtype, the defaults
     * of compare.train.learning, a seed past 2^32 */
    char *src = tl_slurp(TRAINING);
    static const char *const edits[][2] = {
        {"    optimizer: adamw\n", "    optimizer: sgd\n    momentum: 0.875\n"},
        {"    betas: [0.9, 0.95]\n    eps: 1.0e-8\n", ""},
        {"decay: cosine", "decay: linear"},
        {"    clip_grad_norm: 1.0\n", ""},
        {"seed: 40", "seed: 9223372036854775807"},
        {"    train: {lr: 1.0e-5}", "    train: {lr: 1.0e-5, optimizer: adamw, betas: [0.5, 0.75], decay: none, "
                                   "steps: 4, warmup_steps: 0, seed: 3}"},
        {"{processes: 2, strategy: fsdp}", "{processes: 2, strategy: ddp, backend: gloo}, mixed_precision_reduce: "
                                           "bfloat16"},
        {"      learning: {min_fraction: 0.1, why: \"a run that keeps a tenth of the reference's drop still learns\"}\n",
         ""},
        {"      grad_norm:", "      zz:"},
    };
    char *v = strdup(src);
    for (size_t i = 0; i + 1 < sizeof edits / sizeof *edits; i++) {
        char *w = tl_replace_all(v, edits[i][0], edits[i][1]);
        cr_assert(strcmp(w, v), "test bug: edit %zu changed nothing", i);
        free(v);
        v = w;
    }
    px_fixture *h = fixture_parse(TRAINING, v, strlen(v), &err);
    cr_assert_not_null(h, "%d:%d: %s", err.line, err.col, err.msg);
    cr_expect(h->recipe.optimizer == PX_OPT_SGD && h->recipe.momentum == 0.875 && h->recipe.clip_grad_norm == 0);
    cr_expect_eq(h->recipe.seed, 9223372036854775807ULL);
    cr_expect(h->examples[1].recipe->optimizer == PX_OPT_ADAMW && h->examples[1].recipe->beta1 == 0.5 &&
              h->examples[1].recipe->decay == PX_DECAY_NONE && h->examples[1].recipe->momentum == 0.875);
    cr_expect(h->train_cmp.learning_min_fraction == 0.1 && !h->train_cmp.learning_why);
    training_round_trip("training, another", h);
    fixture_free(h);
    free(v), free(src);
}
