/* run's table (run_table.h), printed from results built here: every
 * environment has its column, however many (there was a cap at 64), and a
 * cell is cut to 40 columns between characters, never inside one, with
 * "…" when cut. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/run_table.h"

enum { N_ENVS = 70 };

static char *labels[] = {"film", NULL};
static char device[] = "cpu", dtype[] = "float32";

/* A classifier with one environment and two examples; results of n_envs
 * environments run from it, the first the reference, each example
 * labelled labels[0]. */
static void build(px_fixture *f, px_env *fe, px_example *x, px_results *r, size_t n_envs)
{
    memset(f, 0, sizeof *f), memset(fe, 0, sizeof *fe), memset(r, 0, sizeof *r);
    fe->device = device, fe->dtype = dtype, fe->labels = labels, fe->n_labels = 1;
    f->kind = PX_MODEL_CLASSIFIER;
    f->envs = fe, f->n_envs = 1;
    f->labels = labels, f->n_labels = 1;
    memset(x, 0, 2 * sizeof *x);
    x[0].id = "ex-a", x[0].kind = "normal";
    x[1].id = "ex-b", x[1].kind = "short";
    f->examples = x, f->n_examples = 2;
    r->envs = calloc(n_envs, sizeof *r->envs);
    r->n_envs = n_envs, r->n_examples = 2, r->reference = 0;
    for (size_t e = 0; e < n_envs; e++) {
        px_env_result *er = &r->envs[e];
        cr_assert(asprintf(&er->name, "env%02zu", e) > 0);
        er->ex = calloc(2, sizeof *er->ex);
        for (size_t k = 0; k < 2; k++)
            er->ex[k].status = PX_ST_OK, er->ex[k].label = 0, er->ex[k].forward_ms = -1;
    }
}

static void release(px_results *r)
{
    for (size_t e = 0; e < r->n_envs; e++)
        free(r->envs[e].name), free(r->envs[e].ex);
    free(r->envs);
}

static char *table_of(const px_fixture *f, const px_results *r)
{
    FILE *o = tmpfile();
    cr_assert(o);
    run_table_print(o, f, r);
    long len = ftell(o);
    char *out = calloc((size_t)len + 1, 1);
    rewind(o);
    cr_assert_eq(fread(out, 1, (size_t)len, o), (size_t)len);
    fclose(o);
    return out;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

Test(run_table, more_than_64_environments_each_have_a_column)
{
    px_fixture f;
    px_env fe;
    px_example x[2];
    px_results r;
    build(&f, &fe, x, &r, N_ENVS);
    char *t = table_of(&f, &r);
    const char *head = strstr(t, "\nid  ");
    cr_assert(head, "no header in:\n%s", t);
    const char *eol = strchr(head + 1, '\n');
    char *line = strndup(head + 1, (size_t)(eol - head - 1));
    cr_expect(strstr(line, "  env69  max|Δlogit| vs env00: env01, env02"), "header: %s", line);
    cr_expect(strstr(line, "env63  env64  env65"), "header: %s", line);
    free(line);
    /* Each row: the id, the kind, a label in each of the 70 columns. */
    const char *row = strstr(t, "\nex-a  normal  ");
    cr_assert(row, "no row for ex-a in:\n%s", t);
    eol = strchr(row + 1, '\n');
    line = strndup(row + 1, (size_t)(eol - row - 1));
    cr_expect_eq(count(line, "film"), N_ENVS, "row: %s", line);
    free(line);
    /* And each environment's counts. */
    cr_expect(strstr(t, "\nenv69: 2 ok\n"), "%s", t);
    free(t);
    release(&r);
}

Test(run_table, a_cell_is_cut_between_characters)
{
    px_fixture f;
    px_env fe;
    px_example x[2];
    px_results r;
    build(&f, &fe, x, &r, 2);
    /* 45 two-byte characters, one column each: cut to 40 columns, 39 of
     * them and "…" to say it is cut (issue 38). */
    char wide[91] = "";
    for (int i = 0; i < 45; i++)
        strcat(wide, "é");
    char *mine[] = {wide, NULL};
    fe.labels = mine, f.labels = mine;
    char *t = table_of(&f, &r);
    char want[128] = "ex-a  normal  ";
    for (int i = 0; i < 39; i++)
        strcat(want, "é");
    strcat(want, "…  ");
    cr_expect(strstr(t, want), "want %s in:\n%s", want, t);
    free(t);
    release(&r);
}
