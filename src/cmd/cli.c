#include "parity/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/decision.h"
#include "parity/error.h"
#include "parity/version.h"
#include "parity/ydoc.h"

/* The decisions' names, from decision.h's table: "accept|defect|...|clear|". */
#define CLI_DECISION_NAME(e, n, s, d, st) n "|"

const px_option cli_options[] = {
    [PX_OPT_ENV] = {'e', "env", "ENV", "only this environment (repeatable; default: all); decide: the one the decision "
                                       "was made on", NULL, CLI_REPEAT_MAX},
    [PX_OPT_OUTPUT] = {'o', "output", "FILE", "write the results file here (default: results.yaml beside the "
                                              "fixture; - for stdout)", NULL, 0},
    [PX_OPT_EXECUTOR] = {0, "executor", "PATH", "the parity-torch program (default: $PARITY_TORCH, else the one "
                                                "beside parity)", NULL, 0},
    [PX_OPT_BACKEND_LIB] = {0, "backend-lib", "PATH", "load this PrivateUse1 backend library into every executor",
                            NULL, 0},
    [PX_OPT_PYTHON] = {0, "python", "PATH", "the interpreter for environments with executor: python (default: "
                                            "$PARITY_PYTHON, else python3 on PATH); never taken from a fixture",
                       NULL, 0},
    [PX_OPT_BACKEND_MODULE] = {0, "backend-module", "NAME", "import this Python module before the device is opened, "
                                                           "e.g. torch_tpu or torch_xla, in each executor: python "
                                                           "environment on a device other than cpu, cuda, mps, xpu "
                                                           "(or compiled with --compile-backend); ENV=NAME: in ENV "
                                                           "alone (repeatable)",
                               NULL, CLI_REPEAT_MAX},
    [PX_OPT_COMPILE_BACKEND] = {0, "compile-backend", "ENV=NAME", "compile environment ENV (which has compile:) with "
                                                                  "the torch.compile backend NAME that a "
                                                                  "--backend-module registers; never from a fixture "
                                                                  "(repeatable)",
                                NULL, CLI_REPEAT_MAX},
    [PX_OPT_QUIET] = {'q', "quiet", NULL, "print no progress line", NULL, 0},
    [PX_OPT_FORMAT] = {'f', "format", "FORMAT", "check: text (default), json or tap; report: md (default) or html",
                       "text|json|tap", 0},
    [PX_OPT_DECISION] = {'d', "decision", "D", "decide: the decision for the example id before it",
                         PX_DECISIONS(CLI_DECISION_NAME), 0},
    [PX_OPT_NOTE] = {'n', "note", "TEXT", "decide: the reviewer's note (for the id before it)", NULL, 0},
    [PX_OPT_REVIEWER] = {'r', "reviewer", "NAME", "decide: who decides (default: $USER)", NULL, 0},
    [PX_OPT_RECOVER] = {0, "recover", NULL, "decide: apply the decisions a killed session left in the journal", NULL,
                        0},
    [PX_OPT_RESULTS] = {0, "results", "FILE", "check, review, report, export, repro: judge results recorded earlier "
                                              "(parity run -o, another host) for the environments the file holds; "
                                              "the others run here (unless --no-run); repeatable; decide: the "
                                              "results the decision was made on",
                        NULL, CLI_REPEAT_MAX},
    [PX_OPT_DEMO] = {0, "demo", NULL, "review: read-only, opens on a summary, Space steps through", NULL, 0},
    [PX_OPT_THEME] = {0, "theme", "NAME", "review: default, light, high-contrast, mono, or one in "
                                          "~/.config/parity/themes", NULL, 0},
    [PX_OPT_COLOR] = {0, "color", "WHEN", "review: when to colour the screen (NO_COLOR set also means never)",
                      "auto|always|never", 0},
    [PX_OPT_MAX_SIZE] = {0, "max-size", "MIB", "any command: refuse a fixture or results file larger than this "
                                               "(default 16 MiB for a fixture, 64 MiB for results)", NULL, 0},
    [PX_OPT_MODEL] = {0, "model", "FILE", "init: the TorchScript model (its sha256 is pinned), or a Transformers model directory (each file's)", NULL, 0},
    [PX_OPT_VOCAB] = {0, "vocab", "FILE", "init: the vocab.txt (kind wordpiece)", NULL, 0},
    [PX_OPT_CASED] = {0, "cased", NULL, "init: the vocab.txt is cased (lowercase: false)", NULL, 0},
    [PX_OPT_TOKENIZER] = {0, "tokenizer", "FILE", "init: the model's tokenizer.json (kind huggingface), instead of "
                                                  "--vocab", NULL, 0},
    [PX_OPT_LABELS] = {0, "labels", "A,B,...", "init: the label of each logit, in order", NULL, 0},
    [PX_OPT_TEXTS] = {0, "texts", "FILE", "init: one example per line (default: five placeholders, one per kind)",
                      NULL, 0},
    [PX_OPT_PROPOSE] = {0, "propose", NULL, "init: run the reference and write its answer as each example's expect, "
                                            "flagged as a proposal to confirm", NULL, 0},
    [PX_OPT_BUDGET] = {0, "budget", "DURATION", "stop the run this long after it starts (90s, 5m, 1h30m): what it did "
                                                 "not reach is not-evaluated (budget), exit 5", NULL, 0},
    [PX_OPT_MAX_EXAMPLES] = {0, "max-examples", "N", "run at most N examples in each environment (the first N); the "
                                                     "rest are not-evaluated, exit 5", NULL, 0},
    [PX_OPT_ENDPOINT] = {0, "endpoint", "E", "bench: single (one example per forward, the default), batch:N (N "
                                            "examples stacked in one forward) or train-step:N (N SGD steps on "
                                            "the labelled examples, contract.train); repeatable", NULL, 4},
    [PX_OPT_WARMUP] = {0, "warmup", "N", "bench: passes over the examples before timing (default 2)", NULL, 0},
    [PX_OPT_ITERS] = {0, "iters", "N", "bench: timed passes over the examples (default: as many as --min-time "
                                      "allows, at least 5)", NULL, 0},
    [PX_OPT_MIN_TIME] = {0, "min-time", "DURATION", "bench: time at least this long per endpoint (default 1s)", NULL,
                         0},
    [PX_OPT_SHARD] = {0, "shard", "I/N", "run: only shard I of N (I from 0 to N-1, as SLURM_ARRAY_TASK_ID and "
                                         "JOB_COMPLETION_INDEX count): the examples whose id hashes to I; the "
                                         "results file says it is partial (parity merge joins the shards)", NULL, 0},
    [PX_OPT_SINCE_GOOD] = {0, "since-good", NULL, "check: exit 1 only for a regression, an environment that met the "
                                                   "contract before (its last good configuration) and does not now",
                           NULL, 0},
    [PX_OPT_NO_RUN] = {0, "no-run", NULL, "check, review, report, export, repro: run nothing here; an environment "
                                          "no results file provides is not evaluated (without it, it runs here)",
                       NULL, 0},
    [PX_OPT_COUNT] = {0, NULL, NULL, NULL, NULL, 0},
};

/* Every command's, outside the table (the man page and the synopses do not
 * list it per command). */
static const px_option help_option = {'h', "help", NULL, "this help", NULL, 0};

const px_command cli_commands[] = {
    {"run", "run FIXTURE [-e ENV]... [-o FILE] [--shard I/N] [--executor PATH] [--python PATH] "
            "[--backend-module NAME]... [--compile-backend ENV=NAME]... [--backend-lib PATH] [--budget DURATION] [--max-examples N] [-q]",
     "run every example (or one shard's) through each environment, print the table, write the results file",
     cmd_run, "env output shard executor python backend-module compile-backend backend-lib quiet budget max-examples"},
    {"merge", "merge FIXTURE SHARD... [-o FILE]",
     "join the shard files of one run (each written by run with a shard I/N) into the results file a whole run "
     "writes, refusing shards of another fixture or configuration, one shard twice, or one missing",
     cmd_merge, "output"},
    {"check", "check FIXTURE [-e ENV]... [--format text|json|tap] [--results FILE]... [--no-run] [--since-good] [-o FILE] "
              "[--executor PATH] [--python PATH] [--backend-module NAME]... [--compile-backend ENV=NAME]... [--backend-lib PATH] [--budget DURATION] "
              "[--max-examples N] [-q]",
     "judge every environment the contract names (run here, or from results files) against the contract, and "
     "against its last good configuration",
     cmd_check, "env format results no-run since-good output executor python backend-module compile-backend backend-lib quiet budget "
                "max-examples"},
    {"review", "review FIXTURE [--results FILE]... [--no-run] [--demo] [--theme NAME] [--color=WHEN] [--reviewer NAME] [-e ENV]... "
               "[--executor PATH] [--python PATH] [--backend-module NAME]... [--compile-backend ENV=NAME]... [--backend-lib PATH]",
     "the review screen (also: parity FIXTURE); keys under ? and in parity(1)", cmd_review,
     "results no-run demo theme color reviewer env executor python backend-module compile-backend backend-lib"},
    {"decide", "decide FIXTURE ID --decision D [--note TEXT] [ID --decision D ...] [--reviewer NAME] [--env ENV "
               "[--results FILE]] | --recover",
     "write review decisions into the fixture, touching nothing else (journal first, atomic write)", cmd_decide,
     "decision note reviewer env results recover"},
    {"bench", "bench FIXTURE [-e ENV]... [--endpoint single|batch:N|train-step:N]... [--warmup N] [--iters N | --min-time DURATION] "
              "[-o FILE] [--executor PATH] [--python PATH] [--backend-module NAME]... [--compile-backend ENV=NAME]... [--backend-lib PATH] [--budget "
              "DURATION] [--max-examples N] [-q]",
     "is this execution path fast enough, with the contract on: model load, first forward, warm latency and "
     "throughput per endpoint; every output the benchmark produces is judged",
     cmd_bench, "env endpoint warmup iters min-time output executor python backend-module compile-backend backend-lib budget "
                "max-examples quiet"},
    {"init", "init DIR --model FILE|DIR (--vocab FILE [--cased] | --tokenizer FILE) --labels A,B,... [--texts FILE] "
             "[--propose] [--executor PATH] [--python PATH]",
     "write DIR/fixture.yaml: pinned, loadable, the model's inputs and positions read from it, the parts only you "
     "can write left for lint to name; never overwrites, leaves nothing behind when it fails",
     cmd_init, "model vocab cased tokenizer labels texts propose executor python"},
    {"report", "report FIXTURE [--results FILE]... [--no-run] [-e ENV]... [-f md|html] [-o FILE] [--executor PATH] [--python "
               "PATH] [--backend-module NAME]... [--compile-backend ENV=NAME]... [--backend-lib PATH] [-q]",
     "a report a colleague can read: the task, the environments, the contract, every example, what was not "
     "evaluated (Markdown, or one self-contained HTML file)",
     cmd_report, "results no-run env format=md|html output executor python backend-module compile-backend backend-lib quiet"},
    {"export", "export FIXTURE [--results FILE]... [--no-run] [-e ENV]... --output DIR|FILE.tar.gz [--executor PATH] [--python PATH] "
               "[--backend-module NAME]... [--compile-backend ENV=NAME]... [--backend-lib PATH] [-q]",
     "everything needed to explain the experiment later, redacted, with SHA256SUMS; check and review work inside it",
     cmd_export, "results no-run env output executor python backend-module compile-backend backend-lib quiet"},
    {"repro", "repro FIXTURE ID --env ENV --output DIR|FILE.tar.gz [--results FILE]... [--no-run] [--executor PATH] [--python PATH] "
              "[--backend-module NAME]... [--compile-backend ENV=NAME]... [--backend-lib PATH] [-q]",
     "one example on one environment beside the reference, for a backend's maintainers: a one-example fixture, the "
     "inputs and outputs, the versions, the command that re-runs it",
     cmd_repro, "results no-run env output executor python backend-module compile-backend backend-lib quiet"},
    {"lint", "lint FIXTURE", "static checks of a fixture, no model run: every finding names its line", cmd_lint, ""},
    {"pin", "pin FIXTURE", "re-pin after review: rewrite each sha256 the fixture pins that its file no longer has, "
                           "in place (comments and layout kept), and print each old → new", cmd_pin, ""},
    {NULL, NULL, NULL, NULL, NULL},
};

_Static_assert(sizeof cli_options / sizeof *cli_options == PX_OPT_COUNT + 1, "one row per px_opt, then the end");

/* Choices ("a|b|c", ending at a space or the end) as "a, b, c". */
static void choices_list(const char *choices, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (const char *p = choices; at < size;) {
        size_t n = strcspn(p, "| ");
        if (n)
            at += (size_t)snprintf(buf + at, size - at, "%s%.*s", at ? ", " : "", (int)n, p);
        if (p[n] != '|')
            break;
        p += n + 1;
    }
}

static int is_choice(const char *choices, const char *v)
{
    size_t len = strlen(v);
    for (const char *p = choices;;) {
        size_t n = strcspn(p, "| ");
        if (n && n == len && !strncmp(p, v, n))
            return 1;
        if (p[n] != '|')
            return 0;
        p += n + 1;
    }
}

static void option_line(FILE *out, const px_option *o, const char *choices);

void cli_usage(FILE *out)
{
    fprintf(out, "parity %s: does the result still mean the same thing on the new accelerator?\n\n"
                 "usage:\n",
            PX_VERSION);
    for (const px_command *c = cli_commands; c->name; c++)
        fprintf(out, "  parity %s\n      %s\n", c->synopsis, c->help);
    fprintf(out, "  parity --version | --help | COMMAND --help\n\noptions:\n");
    for (const px_option *o = cli_options; o->long_name; o++)
        option_line(out, o, o->choices);
    fprintf(out, "\nexit status (when several apply, the first listed wins):\n");
    for (int i = 0; i < px_exit_count; i++)
        fprintf(out, "  %-3d %s\n", px_exit_table[i].code, px_exit_table[i].meaning);
    fprintf(out, "See parity(1).\n");
}

const px_command *cli_command(const char *name)
{
    for (const px_command *c = cli_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

const px_option *cli_option(const char *long_name)
{
    for (const px_option *o = cli_options; o->long_name; o++)
        if (!strcmp(o->long_name, long_name))
            return o;
    return NULL;
}

/* Where the command's list names the option: just after its name (at a
 * space, "=CHOICES" or the end); NULL when it does not. */
static const char *in_list(const px_command *c, const char *long_name)
{
    size_t n = strlen(long_name);
    for (const char *p = c->options; (p = strstr(p, long_name)); p += n)
        if ((p == c->options || p[-1] == ' ') && (p[n] == ' ' || p[n] == '=' || p[n] == '\0'))
            return p + n;
    return NULL;
}

int cli_command_has_option(const px_command *c, const char *long_name) { return in_list(c, long_name) != NULL; }

const char *cli_choices(const px_command *c, const px_option *o)
{
    const char *at = c ? in_list(c, o->long_name) : NULL;
    return at && *at == '=' ? at + 1 : o->choices;
}

/* The options every command takes, outside its list. */
static int is_global(const px_option *o) { return o == &cli_options[PX_OPT_MAX_SIZE]; }

int cli_command_takes(const px_command *c, const px_option *o)
{
    return is_global(o) || cli_command_has_option(c, o->long_name);
}

static void option_line(FILE *out, const px_option *o, const char *choices)
{
    char left[64];
    if (o->short_name)
        snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
    else
        snprintf(left, sizeof left, "    --%s%s%s", o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
    char list[256] = "";
    if (choices)
        choices_list(choices, list, sizeof list);
    fprintf(out, "  %-26s %s%s%s%s%s\n", left, o->help, choices ? "; " : "", choices ? o->arg : "",
            choices ? " is one of " : "", list);
}

void cli_command_usage(FILE *out, const px_command *c)
{
    fprintf(out, "usage: parity %s\n\n%s\n\noptions:\n", c->synopsis, c->help);
    for (const px_option *o = cli_options; o->long_name; o++)
        if (cli_command_takes(c, o))
            option_line(out, o, cli_choices(c, o));
    option_line(out, &help_option, NULL);
    fprintf(out, "See parity(1) and parity-fixture(5).\n");
}

int cli_usage_error(const px_command *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* One line whatever the words given held. */
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (c)
        fprintf(stderr, "parity %s: %s (try parity %s --help)\n", c->name, msg, c->name);
    else
        fprintf(stderr, "parity: %s (try parity --help)\n", msg);
    return PX_EXIT_USAGE;
}

/* An option word ("--name", "--name=VALUE", "-x"): the option it names
 * (the table's or --help; NULL when none) and its "=VALUE" (*eq, NULL when
 * none). */
static const px_option *match(const char *word, const char **eq)
{
    *eq = NULL;
    if (word[1] == '-') {
        const char *name = word + 2;
        size_t n = strcspn(name, "=");
        if (name[n] == '=')
            *eq = name + n + 1;
        for (const px_option *o = cli_options; o->long_name; o++)
            if (strlen(o->long_name) == n && !strncmp(o->long_name, name, n))
                return o;
        return n == 4 && !strncmp(name, "help", 4) ? &help_option : NULL;
    }
    for (const px_option *o = cli_options; word[2] == '\0' && o->long_name; o++)
        if (o->short_name == word[1])
            return o;
    return word[2] == '\0' && word[1] == help_option.short_name ? &help_option : NULL;
}

int cli_duration(const char *s, double *seconds)
{
    /* "ms" before "m": the first unit that matches is taken. */
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"h", 3600}, {"ms", 1e-3}, {"m", 60}, {"s", 1}};
    double total = 0, last = 1e10;
    for (const char *p = s; *p;) {
        if (!(*p >= '0' && *p <= '9') && *p != '.')
            return -1;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        /* Digits and a point only: no exponent, no hex, no inf. */
        if (end == p || end != p + strspn(p, "0123456789.") || errno || !(v >= 0) || v > 1e9)
            return -1;
        double scale = -1;
        if (!*end && p == s)
            scale = 1; /* a bare number: seconds */
        for (size_t u = 0; scale < 0 && u < sizeof units / sizeof *units; u++)
            if (!strncmp(end, units[u].unit, strlen(units[u].unit)))
                scale = units[u].s, end += strlen(units[u].unit);
        if (scale < 0 || scale >= last) /* no unit, or units out of order */
            return -1;
        last = scale;
        total += v * scale;
        p = end;
    }
    if (!(total > 0) || total > 1e9)
        return -1;
    *seconds = total;
    return 0;
}

int cli_count(const char *s, long max, long *n)
{
    char *end;
    errno = 0;
    if (!(*s >= '0' && *s <= '9'))
        return -1;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < 1 || v > max)
        return -1;
    *n = v;
    return 0;
}

/* --max-size MIB: the size limit for every fixture and results file read. */
static int set_max_size(const px_command *c, const char *v)
{
    char *end;
    errno = 0;
    double mb = strtod(v, &end);
    if (end == v || *end || errno || !(mb > 0) || mb > 1048576)
        return cli_usage_error(c, "--max-size must be a size in MiB above 0 (up to 1048576), not '%s'", v);
    ydoc_set_max_mb(mb);
    return 0;
}

/* The walk of cli_parse. With stop (cli_parse_leading: c NULL), it takes
 * only the options every command takes and stops at the first other word,
 * its index in *stop. */
static int walk(const px_command *c, int argc, char **argv, cli_on_arg fn, void *ctx, int *stop)
{
    int count[PX_OPT_COUNT] = {0}, rc, only_positionals = 0;
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i], *eq = NULL;
        const px_option *o = NULL;
        if (!only_positionals && w[0] == '-' && w[1]) {
            o = match(w, &eq);
            if (!stop && !strcmp(w, "--")) {
                only_positionals = 1;
                continue;
            }
        }
        if (stop && (!o || !is_global(o))) {
            *stop = i;
            return CLI_PARSED;
        }
        if (only_positionals || w[0] != '-' || !w[1]) {
            if ((rc = fn(ctx, NULL, w)))
                return rc;
            continue;
        }
        if (!o)
            return cli_usage_error(c, "unknown option: %.*s", (int)strcspn(w, "="), w);
        if (o != &help_option && !cli_command_takes(c, o))
            return cli_usage_error(c, "--%s is not an option of %s", o->long_name, c->name);
        const char *v = NULL;
        if (o->arg && eq)
            v = eq;
        else if (o->arg && i + 1 < argc)
            v = argv[++i];
        else if (o->arg)
            return cli_usage_error(c, "--%s needs a value", o->long_name);
        else if (eq)
            return cli_usage_error(c, "--%s takes no value, not '%s'", o->long_name, eq);
        if (o == &help_option) { /* cli_parse saw it first; kept for a caller that did not */
            cli_command_usage(stdout, c);
            return PX_EXIT_OK;
        }
        const char *choices = cli_choices(c, o);
        if (choices && !is_choice(choices, v)) {
            char list[256];
            choices_list(choices, list, sizeof list);
            return cli_usage_error(c, "--%s must be one of %s, not '%s'", o->long_name, list, v);
        }
        if (o->max && ++count[cli_opt_id(o)] > o->max)
            return cli_usage_error(c, "--%s may be given at most %d times", o->long_name, o->max);
        if (is_global(o))
            rc = set_max_size(c, v);
        else
            rc = fn(ctx, o, v);
        if (rc)
            return rc;
    }
    if (stop)
        *stop = argc;
    return CLI_PARSED;
}

int cli_parse(const px_command *c, int argc, char **argv, cli_on_arg fn, void *ctx)
{
    /* --help anywhere wins over what else is on the line, a mistake
     * included: first look for it, skipping the options' values. */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        const char *eq;
        const px_option *o = argv[i][0] == '-' && argv[i][1] ? match(argv[i], &eq) : NULL;
        if (o == &help_option && !eq) {
            cli_command_usage(stdout, c);
            return PX_EXIT_OK;
        }
        if (o && o->arg && !eq)
            i++;
    }
    return walk(c, argc, argv, fn, ctx, NULL);
}

int cli_parse_leading(int argc, char **argv)
{
    int stop = argc;
    return walk(NULL, argc, argv, NULL, NULL, &stop) == CLI_PARSED ? stop : -1;
}

int cli_error(const px_error *err)
{
    char line[2048];
    px_error_format(err, line, sizeof line);
    fprintf(stderr, "parity: %s\n", line);
    return err->code ? err->code : PX_EXIT_USAGE;
}
