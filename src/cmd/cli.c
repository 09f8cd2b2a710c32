#include "parity/cli.h"

#include <stdio.h>
#include <string.h>

#include "parity/error.h"
#include "parity/version.h"

const px_option cli_options[] = {
    {'e', "env", "ENV", "only this environment (repeatable; default: all); decide: the one the decision was made on"},
    {'o', "output", "FILE", "write the results file here (default: results.yaml beside the fixture; - for stdout)"},
    {0, "executor", "PATH", "the parity-torch program (default: $PARITY_TORCH, else the one beside parity)"},
    {0, "backend-lib", "PATH", "load this PrivateUse1 backend library into every executor"},
    {0, "python", "PATH", "the interpreter for environments with executor: python (default: $PARITY_PYTHON, else "
                          "python3 on PATH); never taken from a fixture"},
    {0, "backend-module", "NAME", "import this Python module before the device is opened, e.g. torch_tpu or "
                                  "torch_xla (repeatable; executor: python)"},
    {'q', "quiet", NULL, "print no progress line"},
    {'f', "format", "FORMAT", "check's report: text (default), json or tap"},
    {'d', "decision", "D", "decide: accept, defect, unsupported, needs-rule, flag or clear (for the id before it)"},
    {'n', "note", "TEXT", "decide: the reviewer's note (for the id before it)"},
    {'r', "reviewer", "NAME", "decide: who decides (default: $USER)"},
    {0, "recover", NULL, "decide: apply the decisions a killed session left in the journal"},
    {0, "results", "FILE", "check, review: judge results recorded earlier (parity run -o, another host), repeatable; "
                           "decide: the results the decision was made on"},
    {0, "demo", NULL, "review: read-only, opens on a summary, Space steps through"},
    {0, "theme", "NAME", "review: default, light, high-contrast, mono, or one in ~/.config/parity/themes"},
    {0, "color", "WHEN", "review: --color=auto|always|never (NO_COLOR set also means never)"},
    {0, "max-size", "MIB", "any command: refuse a fixture or results file larger than this (default 16 MiB for a "
                           "fixture, 64 MiB for results)"},
    {0, "model", "FILE", "init: the TorchScript model (its sha256 is pinned)"},
    {0, "vocab", "FILE", "init: the vocab.txt (kind wordpiece)"},
    {0, "cased", NULL, "init: the vocab.txt is cased (lowercase: false)"},
    {0, "tokenizer", "FILE", "init: the model's tokenizer.json (kind huggingface), instead of --vocab"},
    {0, "labels", "A,B,...", "init: the label of each logit, in order"},
    {0, "texts", "FILE", "init: one example per line (default: five placeholders, one per kind)"},
    {0, "propose", NULL, "init: run the reference and write its answer as each example's expect, flagged as a "
                         "proposal to confirm"},
    {0, NULL, NULL, NULL},
};

const px_command cli_commands[] = {
    {"run", "run FIXTURE [-e ENV]... [-o FILE] [--executor PATH] [--python PATH] [--backend-module NAME]... "
            "[--backend-lib PATH] [-q]",
     "run every example through each environment, print the table, write the results file", cmd_run,
     "env output executor python backend-module backend-lib quiet"},
    {"check", "check FIXTURE [-e ENV]... [--format text|json|tap] [--results FILE]... [-o FILE] [--executor PATH] "
              "[--python PATH] [--backend-module NAME]... [--backend-lib PATH] [-q]",
     "judge every environment the contract names (run here, or from results files) against the contract",
     cmd_check, "env format results output executor python backend-module backend-lib quiet"},
    {"review", "review FIXTURE [--results FILE]... [--demo] [--theme NAME] [--color=WHEN] [--reviewer NAME] [-e ENV]... "
               "[--executor PATH] [--python PATH] [--backend-module NAME]... [--backend-lib PATH]",
     "the review screen (also: parity FIXTURE); keys under ? and in parity(1)", cmd_review,
     "results demo theme color reviewer env executor python backend-module backend-lib"},
    {"decide", "decide FIXTURE ID --decision D [--note TEXT] [ID --decision D ...] [--reviewer NAME] [--env ENV "
               "[--results FILE]] | --recover",
     "write review decisions into the fixture, touching nothing else (journal first, atomic write)", cmd_decide,
     "decision note reviewer env results recover"},
    {"init", "init DIR --model FILE --vocab FILE [--cased] | --tokenizer FILE --labels A,B,... [--texts FILE] [--propose]",
     "write DIR/fixture.yaml: pinned, loadable, the parts only you can write left for lint to name; never "
     "overwrites",
     cmd_init, "model vocab cased tokenizer labels texts propose"},
    {"lint", "lint FIXTURE", "static checks of a fixture, no model run: every finding names its line", cmd_lint, ""},
    {NULL, NULL, NULL, NULL, NULL},
};

static void option_line(FILE *out, const px_option *o);

void cli_usage(FILE *out)
{
    fprintf(out, "parity %s: does the result still mean the same thing on the new accelerator?\n\n"
                 "usage:\n",
            PX_VERSION);
    for (const px_command *c = cli_commands; c->name; c++)
        fprintf(out, "  parity %s\n      %s\n", c->synopsis, c->help);
    fprintf(out, "  parity --version | --help | COMMAND --help\n\noptions:\n");
    for (const px_option *o = cli_options; o->long_name; o++)
        option_line(out, o);
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

int cli_command_has_option(const px_command *c, const char *long_name)
{
    size_t n = strlen(long_name);
    for (const char *p = c->options; (p = strstr(p, long_name)); p += n)
        if ((p == c->options || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static void option_line(FILE *out, const px_option *o)
{
    char left[64];
    if (o->short_name)
        snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
    else
        snprintf(left, sizeof left, "    --%s%s%s", o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(out, "  %-26s %s\n", left, o->help);
}

void cli_command_usage(FILE *out, const px_command *c)
{
    fprintf(out, "usage: parity %s\n\n%s\n\noptions:\n", c->synopsis, c->help);
    for (const px_option *o = cli_options; o->long_name; o++)
        if (cli_command_has_option(c, o->long_name) || !strcmp(o->long_name, "max-size"))
            option_line(out, o);
    fprintf(out, "  %-26s %s\nSee parity(1) and parity-fixture(5).\n", "-h, --help", "this help");
}
