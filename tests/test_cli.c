/* The command line: the parser every command's argv goes through
 * (cli_parse, called here directly with argv arrays), and the option table
 * against --help and the man page. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parity/cli.h"
#include "parity/decision.h"
#include "parity/error.h"
#include "parity/ydoc.h"
#include "testlib.h"

/* What one cli_parse produced: its return, each callback in order ("@WORD"
 * for a positional, "NAME=VALUE" or "NAME" for an option, one a line), and
 * what it printed. */
typedef struct parsed {
    int rc;
    char calls[8192];
    int stop_at; /* the callback returns 7 on this call (1-based); 0: never */
    int n_calls;
    char *out, *err;
} parsed;

static int record(void *ctx, const px_option *o, const char *v)
{
    parsed *p = ctx;
    size_t at = strlen(p->calls);
    if (!o)
        snprintf(p->calls + at, sizeof p->calls - at, "@%s\n", v);
    else if (v)
        snprintf(p->calls + at, sizeof p->calls - at, "%s=%s\n", o->long_name, v);
    else
        snprintf(p->calls + at, sizeof p->calls - at, "%s\n", o->long_name);
    return ++p->n_calls == p->stop_at ? 7 : 0;
}

/* Runs f with stdout and stderr going to files; what they got. */
static void capture(parsed *p, void (*f)(parsed *, char **), char **argv)
{
    char *dir = tl_tmpdir(), out[256], err[256];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    fflush(stdout), fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(saved_out >= 0 && saved_err >= 0 && o >= 0 && e >= 0);
    dup2(o, 1), dup2(e, 2);
    f(p, argv);
    fflush(stdout), fflush(stderr);
    dup2(saved_out, 1), dup2(saved_err, 2);
    close(o), close(e), close(saved_out), close(saved_err);
    p->out = tl_slurp(out);
    p->err = tl_slurp(err);
    unlink(out), unlink(err), rmdir(dir);
    free(dir);
}

static int count(char **argv)
{
    int n = 0;
    while (argv[n])
        n++;
    return n;
}

/* A command of this test's: its list gives --format other values. */
static const px_command tryout = {"tryout", "tryout FIXTURE [-f md|html] [--results FILE]", "for the tests", NULL,
                                  "format=md|html results"};

static void call_parse(parsed *p, char **argv)
{
    const px_command *c = !strcmp(argv[0], tryout.name) ? &tryout : cli_command(argv[0]);
    cr_assert_not_null(c, "no command %s", argv[0]);
    p->rc = cli_parse(c, count(argv), argv, record, p);
}

/* cli_parse of argv (argv[0]: the command's name, NULL-terminated). */
static parsed parse_stopping(int stop_at, char **argv)
{
    parsed p = {.stop_at = stop_at};
    capture(&p, call_parse, argv);
    return p;
}

static parsed parse(char **argv) { return parse_stopping(0, argv); }

static void parsed_free(parsed *p)
{
    free(p->out);
    free(p->err);
}

/* The command line was taken: these calls, nothing printed. */
static void expect_parsed(char **argv, const char *calls)
{
    parsed p = parse(argv);
    cr_expect_eq(p.rc, CLI_PARSED, "%s: rc %d, stderr %s", argv[0], p.rc, p.err);
    cr_expect_str_eq(p.calls, calls);
    cr_expect_str_empty(p.out);
    cr_expect_str_empty(p.err);
    parsed_free(&p);
}

/* The command line was refused: exit status 2, this one line on stderr,
 * nothing on stdout, and these calls before the refusal. */
static void expect_refused(char **argv, const char *calls, const char *line)
{
    parsed p = parse(argv);
    cr_expect_eq(p.rc, PX_EXIT_USAGE, "rc %d for '%s'", p.rc, line);
    cr_expect_str_eq(p.calls, calls);
    cr_expect_str_eq(p.err, line);
    cr_expect_eq(tl_lines(p.err), 1, "%s", p.err);
    cr_expect_str_empty(p.out);
    parsed_free(&p);
}

/* decide FIXTURE ID --decision D [--note TEXT] [ID ...]: each option comes
 * after the id it is for, so the order of the calls is the order given. */
Test(cli, calls_come_in_the_order_given)
{
    expect_parsed((char *[]){"decide", "f.yaml", "a", "--decision", "accept", "--note", "n 1", "b", "-d", "defect",
                             "-r", "kim", "c", "-n", "", "--decision=flag", NULL},
                  "@f.yaml\n@a\ndecision=accept\nnote=n 1\n@b\ndecision=defect\nreviewer=kim\n@c\nnote=\n"
                  "decision=flag\n");
    expect_parsed((char *[]){"run", "-e", "reference", "f.yaml", "-q", "--env", "twin", NULL},
                  "env=reference\n@f.yaml\nquiet\nenv=twin\n");
}

Test(cli, long_with_equals_and_short_with_the_next_word)
{
    expect_parsed((char *[]){"check", "f.yaml", "--output=o.yaml", "--format=json", "-e", "ref", "--env=a=b", NULL},
                  "@f.yaml\noutput=o.yaml\nformat=json\nenv=ref\nenv=a=b\n");
    /* A value is the next word whatever it looks like. */
    expect_parsed((char *[]){"run", "f.yaml", "-o", "--quiet", "--executor", "-e", NULL},
                  "@f.yaml\noutput=--quiet\nexecutor=-e\n");
    /* A short option takes its value as the next word only. */
    expect_refused((char *[]){"run", "f.yaml", "-ereference", NULL}, "@f.yaml\n",
                   "parity run: unknown option: -ereference (try parity run --help)\n");
}

Test(cli, double_dash_makes_the_rest_positional)
{
    expect_parsed((char *[]){"decide", "f.yaml", "--", "--x", "-e", "--", "--help", NULL},
                  "@f.yaml\n@--x\n@-e\n@--\n@--help\n");
    /* As a value, it is the value. */
    expect_parsed((char *[]){"run", "f.yaml", "-o", "--", "-q", NULL}, "@f.yaml\noutput=--\nquiet\n");
    expect_parsed((char *[]){"lint", "--", "-f.yaml", NULL}, "@-f.yaml\n");
}

Test(cli, a_lone_dash_is_a_positional)
{
    expect_parsed((char *[]){"lint", "-", NULL}, "@-\n");
    expect_parsed((char *[]){"run", "-", "-o", "-", NULL}, "@-\noutput=-\n");
}

Test(cli, a_flag_given_a_value_is_refused)
{
    expect_refused((char *[]){"run", "f.yaml", "--quiet=yes", NULL}, "@f.yaml\n",
                   "parity run: --quiet takes no value, not 'yes' (try parity run --help)\n");
    expect_refused((char *[]){"decide", "f.yaml", "--recover=", NULL}, "@f.yaml\n",
                   "parity decide: --recover takes no value, not '' (try parity decide --help)\n");
}

Test(cli, a_missing_value_is_refused)
{
    expect_refused((char *[]){"run", "f.yaml", "-q", "-e", NULL}, "@f.yaml\nquiet\n",
                   "parity run: --env needs a value (try parity run --help)\n");
    expect_refused((char *[]){"init", "d", "--model", NULL}, "@d\n",
                   "parity init: --model needs a value (try parity init --help)\n");
}

Test(cli, an_option_of_another_command_or_none_is_refused)
{
    expect_refused((char *[]){"run", "f.yaml", "--results", "r.yaml", NULL}, "@f.yaml\n",
                   "parity run: --results is not an option of run (try parity run --help)\n");
    expect_refused((char *[]){"lint", "-q", "f.yaml", NULL}, "",
                   "parity lint: --quiet is not an option of lint (try parity lint --help)\n");
    expect_refused((char *[]){"decide", "f.yaml", "a", "--format=json", NULL}, "@f.yaml\n@a\n",
                   "parity decide: --format is not an option of decide (try parity decide --help)\n");
    expect_refused((char *[]){"review", "f.yaml", "--bogus=1", NULL}, "@f.yaml\n",
                   "parity review: unknown option: --bogus (try parity review --help)\n");
    expect_refused((char *[]){"init", "-x", NULL}, "", "parity init: unknown option: -x (try parity init --help)\n");
}

Test(cli, a_value_not_among_the_choices_is_refused_naming_them)
{
    expect_parsed((char *[]){"check", "f.yaml", "-f", "tap", NULL}, "@f.yaml\nformat=tap\n");
    expect_refused((char *[]){"check", "f.yaml", "--format", "xml", NULL}, "@f.yaml\n",
                   "parity check: --format must be one of text, json, tap, not 'xml' (try parity check --help)\n");
    expect_refused((char *[]){"review", "f.yaml", "--color=", NULL}, "@f.yaml\n",
                   "parity review: --color must be one of auto, always, never, not '' (try parity review --help)\n");
    /* The decisions come from decision.h's table, every one of them. */
    char want[512] = "parity decide: --decision must be one of ";
    for (int k = 0; k < PX_DEC_COUNT; k++) {
        char calls[128];
        snprintf(calls, sizeof calls, "@f.yaml\n@a\ndecision=%s\n", px_decision_table[k].name);
        expect_parsed((char *[]){"decide", "f.yaml", "a", "-d", (char *)px_decision_table[k].name, NULL}, calls);
        strcat(strcat(want, k ? ", " : ""), px_decision_table[k].name);
    }
    /* What was given is shown on the one line, a line break made a '?'. */
    strcat(want, ", not 'maybe?' (try parity decide --help)\n");
    expect_refused((char *[]){"decide", "f.yaml", "a", "--decision", "maybe\n", NULL}, "@f.yaml\n@a\n", want);
}

/* A command's list may give an option values of its own: checked, and
 * listed in its --help, instead of the table's. */
Test(cli, a_command_may_name_its_own_choices)
{
    expect_parsed((char *[]){"tryout", "f.yaml", "-f", "html", "--results", "r.yaml", NULL},
                  "@f.yaml\nformat=html\nresults=r.yaml\n");
    expect_refused((char *[]){"tryout", "f.yaml", "--format=tap", NULL}, "@f.yaml\n",
                   "parity tryout: --format must be one of md, html, not 'tap' (try parity tryout --help)\n");
    expect_refused((char *[]){"tryout", "f.yaml", "-e", "x", NULL}, "@f.yaml\n",
                   "parity tryout: --env is not an option of tryout (try parity tryout --help)\n");
    cr_expect_str_eq(cli_choices(&tryout, &cli_options[PX_OPT_FORMAT]), "md|html results");
    cr_expect_str_eq(cli_choices(cli_command("check"), &cli_options[PX_OPT_FORMAT]), "text|json|tap");
    cr_expect_null(cli_choices(&tryout, &cli_options[PX_OPT_RESULTS]));
    char *help = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&help, &len);
    cli_command_usage(m, &tryout);
    fclose(m);
    cr_expect(strstr(help, "FORMAT is one of md, html\n"), "%s", help);
    free(help);
}

/* --max-size, any command's: set for the reads to come, never a call. */
Test(cli, max_size_is_taken_for_every_command)
{
    for (const px_command *c = cli_commands; c->name; c++) {
        ydoc_set_max_mb(0);
        expect_parsed((char *[]){(char *)c->name, "x", "--max-size", "2", NULL}, "@x\n");
        cr_expect_eq(ydoc_max_bytes("fixture"), (size_t)2 << 20, "%s", c->name);
        cr_expect_eq(ydoc_max_bytes("results file"), (size_t)2 << 20, "%s", c->name);
    }
    expect_parsed((char *[]){"lint", "--max-size=0.5", "x", NULL}, "@x\n");
    cr_expect_eq(ydoc_max_bytes("fixture"), (size_t)1 << 19);
    expect_refused((char *[]){"lint", "x", "--max-size", "0", NULL}, "@x\n",
                   "parity lint: --max-size must be a size in MiB above 0 (up to 1048576), not '0' (try parity lint "
                   "--help)\n");
    expect_refused((char *[]){"check", "x", "--max-size", NULL}, "@x\n",
                   "parity check: --max-size needs a value (try parity check --help)\n");
    cr_expect_eq(ydoc_max_bytes("fixture"), (size_t)1 << 19, "a refused value changes nothing");
}

static void call_leading(parsed *p, char **argv) { p->rc = cli_parse_leading(count(argv), argv); }

/* parity [--max-size MIB] COMMAND: before the command, only what every
 * command takes; the index of the command's word. */
Test(cli, max_size_before_the_command)
{
    ydoc_set_max_mb(0);
    parsed p = {0};
    capture(&p, call_leading, (char *[]){"parity", "--max-size", "3", "--max-size=4", "run", "--max-size", "5", NULL});
    cr_expect_eq(p.rc, 4, "the command is argv[4]");
    cr_expect_eq(ydoc_max_bytes("fixture"), (size_t)4 << 20, "the command's own --max-size is its parser's");
    cr_expect_str_empty(p.err);
    parsed_free(&p);
    p = (parsed){0};
    capture(&p, call_leading, (char *[]){"parity", "--help", NULL});
    cr_expect_eq(p.rc, 1);
    parsed_free(&p);
    p = (parsed){0};
    capture(&p, call_leading, (char *[]){"parity", NULL});
    cr_expect_eq(p.rc, 1, "argc: no word");
    parsed_free(&p);
    p = (parsed){0};
    capture(&p, call_leading, (char *[]){"parity", "--max-size", NULL});
    cr_expect_eq(p.rc, -1);
    cr_expect_str_eq(p.err, "parity: --max-size needs a value (try parity --help)\n");
    parsed_free(&p);
    p = (parsed){0};
    capture(&p, call_leading, (char *[]){"parity", "--max-size=big", "lint", NULL});
    cr_expect_eq(p.rc, -1);
    cr_expect_str_eq(p.err,
                     "parity: --max-size must be a size in MiB above 0 (up to 1048576), not 'big' (try parity --help)\n");
    parsed_free(&p);
}

/* The command's usage, on stdout, whatever else is on the line (a mistake
 * included), and no call; not when it is a value, nor after "--". */
Test(cli, help_prints_the_usage_and_nothing_is_called)
{
    char *want = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&want, &len);
    cli_command_usage(m, cli_command("run"));
    fclose(m);
    cr_assert(strstr(want, "usage: parity run "), "%s", want);
    char **lines[] = {
        (char *[]){"run", "--help", NULL},
        (char *[]){"run", "f.yaml", "-e", "a", "-h", NULL},
        (char *[]){"run", "--bogus", "f.yaml", "--quiet=1", "--help", NULL},
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        parsed p = parse(lines[i]);
        cr_expect_eq(p.rc, PX_EXIT_OK, "case %zu", i);
        cr_expect_str_eq(p.out, want, "case %zu", i);
        cr_expect_str_empty(p.err, "case %zu", i);
        cr_expect_str_empty(p.calls, "case %zu", i);
        parsed_free(&p);
    }
    free(want);
    expect_parsed((char *[]){"decide", "f.yaml", "a", "--note", "--help", "-d", "flag", "--", "-h", NULL},
                  "@f.yaml\n@a\nnote=--help\ndecision=flag\n@-h\n");
    expect_refused((char *[]){"lint", "--help=x", NULL}, "",
                   "parity lint: --help takes no value, not 'x' (try parity lint --help)\n");
}

Test(cli, a_repeatable_option_up_to_its_limit)
{
    const px_option *env = &cli_options[PX_OPT_ENV];
    cr_assert_eq(env->max, CLI_REPEAT_MAX);
    char *argv[2 + 2 * (CLI_REPEAT_MAX + 1) + 1] = {"review", "f.yaml"}, want[2048] = "@f.yaml\n";
    int n = 2;
    for (int i = 0; i < CLI_REPEAT_MAX; i++) {
        argv[n++] = "-e", argv[n++] = "x";
        strcat(want, "env=x\n");
    }
    expect_parsed(argv, want);
    argv[n++] = "--env", argv[n++] = "x";
    char line[128];
    snprintf(line, sizeof line, "parity review: --env may be given at most %d times (try parity review --help)\n",
             CLI_REPEAT_MAX);
    expect_refused(argv, want, line);
    /* One not repeatable: the last one given is the one that counts. */
    expect_parsed((char *[]){"run", "f.yaml", "-o", "a", "-o", "b", NULL}, "@f.yaml\noutput=a\noutput=b\n");
}

/* A callback's refusal ends the walk: its status is cli_parse's. */
Test(cli, a_callback_stops_the_walk)
{
    parsed p = parse_stopping(2, (char *[]){"run", "f.yaml", "-q", "--bogus", NULL});
    cr_expect_eq(p.rc, 7);
    cr_expect_str_eq(p.calls, "@f.yaml\nquiet\n");
    cr_expect_str_empty(p.err, "the callback says why, not the parser");
    parsed_free(&p);
}

/* cli_opt_id is the option's row; every command's list names options of
 * the table; every choice list is non-empty. */
Test(cli, the_table_is_consistent)
{
    int rows = 0;
    for (const px_option *o = cli_options; o->long_name; o++, rows++) {
        cr_expect_eq(cli_opt_id(o), rows, "--%s", o->long_name);
        cr_expect_eq(cli_option(o->long_name), o, "--%s: one row per name", o->long_name);
        cr_expect(!o->choices || (o->arg && o->choices[0]), "--%s: choices need a value", o->long_name);
    }
    cr_expect_eq(rows, PX_OPT_COUNT);
    for (const px_command *c = cli_commands; c->name; c++) {
        char *names = strdup(c->options);
        for (char *save = NULL, *w = strtok_r(names, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            w[strcspn(w, "=")] = '\0';
            cr_expect_not_null(cli_option(w), "%s names --%s, not in the table", c->name, w);
        }
        free(names);
    }
}

/* The choices are in each command's --help. */
Test(cli, help_lists_the_choices)
{
    cmd_result r = tl_run((const char *[]){"parity", "check", "--help", NULL});
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "FORMAT is one of text, json, tap\n"), "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "review", "--help", NULL});
    cr_expect(strstr(r.out, "WHEN is one of auto, always, never\n"), "%s", r.out);
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "decide", "--help", NULL});
    cr_expect(strstr(r.out, "D is one of accept, defect, unsupported, needs-rule, flag, clear\n"), "%s", r.out);
    tl_free(&r);
}

/* tig's rule: the docs cannot drift from the table. */
Test(cli, every_option_and_command_is_in_the_man_page)
{
    char *man = tl_slurp("man/parity.1");
    cr_assert_not_null(man);
    for (const px_option *o = cli_options; o->long_name; o++) {
        char want[96];
        snprintf(want, sizeof want, "Fl -%s", o->long_name);
        cr_expect(strstr(man, want) != NULL, "man/parity.1 lacks --%s", o->long_name);
        if (o->short_name) {
            snprintf(want, sizeof want, "Fl %c", o->short_name);
            cr_expect(strstr(man, want) != NULL, "man/parity.1 lacks -%c", o->short_name);
        }
    }
    for (const px_command *c = cli_commands; c->name; c++) {
        char want[96];
        snprintf(want, sizeof want, ".It Cm %s", c->name);
        cr_expect(strstr(man, want) != NULL, "man/parity.1 lacks command %s", c->name);
    }
    free(man);
}

Test(cli, help_lists_every_option_and_version_runs_without_libtorch)
{
    cmd_result r = tl_run((const char *[]){"parity", "--help", NULL});
    cr_expect_eq(r.status, 0);
    for (const px_option *o = cli_options; o->long_name; o++) {
        char want[96];
        snprintf(want, sizeof want, "--%s", o->long_name);
        cr_expect(strstr(r.out, want) != NULL, "--help lacks %s", want);
    }
    tl_free(&r);
    r = tl_run((const char *[]){"parity", "--version", NULL});
    cr_expect_eq(r.status, 0);
    cr_expect(strncmp(r.out, "parity ", 7) == 0, "%s", r.out);
    tl_free(&r);
}

Test(cli, usage_errors_exit_2_with_one_line)
{
    const char *const *cases[] = {
        (const char *[]){"parity", NULL},
        (const char *[]){"parity", "frobnicate", NULL},
        (const char *[]){"parity", "run", NULL},
        (const char *[]){"parity", "run", "fixtures/campus-club/fixture.yaml", "--bogus", NULL},
        (const char *[]){"parity", "run", "fixtures/campus-club/fixture.yaml", "-e", NULL},
        (const char *[]){"parity", "run", "fixtures/campus-club/fixture.yaml", "-e", "tpu", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cmd_result r = tl_run(cases[i]);
        cr_expect_eq(r.status, 2, "case %zu: status %d", i, r.status);
        if (i > 0)
            cr_expect_eq(tl_lines(r.err), 1, "case %zu: stderr is one line: %s", i, r.err);
        tl_free(&r);
    }
}

/* What the man page's SYNOPSIS says a command takes: its blocks (".Nm" then
 * ".Cm NAME" or ".Op Cm NAME", up to the next ".Nm"), joined. */
static char *man_synopsis_of(const char *man, const char *name)
{
    const char *syn = strstr(man, ".Sh SYNOPSIS\n"), *end = syn ? strstr(syn, "\n.Sh DESCRIPTION") : NULL;
    cr_assert(syn && end);
    char *out = calloc(1, (size_t)(end - syn) + 1), want[64], want_op[64];
    snprintf(want, sizeof want, ".Nm\n.Cm %s\n", name);
    snprintf(want_op, sizeof want_op, ".Nm\n.Op Cm %s\n", name);
    for (const char *p = syn; p < end; p++)
        if (!strncmp(p, want, strlen(want)) || !strncmp(p, want_op, strlen(want_op))) {
            const char *next = strstr(p + 4, "\n.Nm\n");
            if (!next || next > end)
                next = end;
            strncat(out, p, (size_t)(next - p));
        }
    return out;
}

/* tok in s, followed by the end, a space, a newline, ']' or '='. */
static int has_token(const char *s, const char *tok)
{
    size_t n = strlen(tok);
    for (const char *p = s; (p = strstr(p, tok)); p++)
        if (strchr(" \n]=", p[n]))
            return 1;
    return 0;
}

/* parity COMMAND --help, the option table and the man page's SYNOPSIS agree
 * on what each command takes, both ways. */
Test(cli, each_command_help_table_and_man_page_agree)
{
    char *man = tl_slurp("man/parity.1");
    cr_assert_not_null(man);
    static const char *const executor_group[] = {"executor", "python", "backend-module", "compile-backend", "backend-lib",
                                                 NULL};
    for (const px_command *c = cli_commands; c->name; c++) {
        cmd_result r = tl_run((const char *[]){"parity", c->name, "--help", NULL});
        cr_expect_eq(r.status, 0, "parity %s --help: exit %d", c->name, r.status);
        char head[512];
        snprintf(head, sizeof head, "usage: parity %s\n", c->synopsis);
        cr_expect(!strncmp(r.out, head, strlen(head)), "parity %s --help starts otherwise:\n%s", c->name, r.out);
        char *syn = man_synopsis_of(man, c->name);
        cr_expect(syn[0], "man/parity.1 SYNOPSIS has no %s", c->name);
        for (const px_option *o = cli_options; o->long_name; o++) {
            if (!strcmp(o->long_name, "max-size"))
                continue; /* every command's; said once in parity(1) */
            int takes = cli_command_has_option(c, o->long_name);
            char lng[64], shrt[16], fl[64], fs[16];
            snprintf(lng, sizeof lng, "--%s", o->long_name);
            snprintf(shrt, sizeof shrt, "[-%c", o->short_name);
            snprintf(fl, sizeof fl, "Fl -%s", o->long_name);
            snprintf(fs, sizeof fs, "Fl %c", o->short_name);
            int grouped = 0;
            for (int g = 0; executor_group[g]; g++)
                grouped |= !strcmp(executor_group[g], o->long_name);
            int in_help = has_token(r.out, lng);
            int in_table = has_token(c->synopsis, lng) || (o->short_name && has_token(c->synopsis, shrt));
            int in_man = has_token(syn, fl) || (o->short_name && has_token(syn, fs)) ||
                         (grouped && strstr(syn, "Ar executor options"));
            cr_expect_eq(in_help, takes, "parity %s --help %s --%s", c->name, takes ? "lacks" : "shows",
                         o->long_name);
            cr_expect_eq(in_table, takes, "the table's synopsis of %s %s --%s", c->name, takes ? "lacks" : "shows",
                         o->long_name);
            cr_expect_eq(in_man, takes, "man/parity.1 SYNOPSIS of %s %s --%s", c->name, takes ? "lacks" : "shows",
                         o->long_name);
        }
        free(syn);
        tl_free(&r);
    }
    free(man);
}

/* --budget and --min-time: seconds, or numbers with units, largest first. */
Test(cli, durations)
{
    const struct {
        const char *text;
        double s;
    } good[] = {{"90", 90}, {"90s", 90}, {"5m", 300}, {"1h", 3600}, {"1h30m", 5400}, {"2.5s", 2.5},
                {"250ms", 0.25}, {"1m30s", 90}, {"1h0m5s", 3605}, {"1s500ms", 1.5}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        double s = -1;
        cr_expect_eq(cli_duration(good[i].text, &s), 0, "%s", good[i].text);
        cr_expect_float_eq(s, good[i].s, 1e-9, "%s gave %g", good[i].text, s);
    }
    const char *bad[] = {"", "0", "0s", "s", "5x", "-1s", "30s1m", "1m1h", "1h1h", "5 m", "1e3", "nan", "inf",
                         "1.2.3s", "5mm", "10000000000h"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double s = -1;
        cr_expect_eq(cli_duration(bad[i], &s), -1, "'%s' is not a duration (gave %g)", bad[i], s);
    }
    long n = 0;
    cr_expect(cli_count("3", 10, &n) == 0 && n == 3);
    cr_expect_eq(cli_count("11", 10, &n), -1);
    cr_expect_eq(cli_count("0", 10, &n), -1);
    cr_expect_eq(cli_count("+3", 10, &n), -1);
    cr_expect_eq(cli_count("3 ", 10, &n), -1);
}
