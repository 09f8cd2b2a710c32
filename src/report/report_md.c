/* parity report -f md: the story (include/parity/story.h) as Markdown that
 * reads well as plain text and on a forge: headings, lists and tables, no
 * HTML. Every text from a fixture, a run or a person is shown as text:
 * control and bidi characters as visible escapes (the review screen's
 * textcell_sanitize), Markdown's own characters backslash-escaped
 * (report_fmt.h). What differs by the kind of model (the output in the
 * contract, an example's cell, an embedding's searches) is the kind's
 * (report_kind.h). */
#include "parity/report_md.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fmt.h"
#include "parity/report_kind.h"
#include "parity/textcell.h"

static void md_line_item(FILE *o, const char *s)
{
    fputs("- ", o);
    md_text(o, s);
    fputc('\n', o);
}

static const char *or_dash(const char *s) { return s && *s ? s : "—"; }

/* A long text folded to 76 columns, as a block quote. */
static void md_quote(FILE *o, const char *s)
{
    char *v = textcell_sanitize(s, strlen(s));
    if (!v) {
        fputs("> ?\n", o);
        return;
    }
    if (!*v) {
        fputs("> (empty)\n", o);
        free(v);
        return;
    }
    textcell_line lines[256];
    size_t hidden = 0;
    int n = textcell_layout(v, 76, lines, 256, &hidden);
    for (int i = 0; i < n; i++) {
        char *line = strndup(v + lines[i].start, lines[i].end - lines[i].start);
        fputs("> ", o);
        if (line && strchr("-+#>=", line[0]))
            fputc('\\', o); /* not a list, heading or quote */
        md_text(o, line ? line : "?");
        fputs(i == n - 1 && hidden ? "…\n" : "\n", o);
        free(line);
    }
    free(v);
}

static void md_envs(FILE *o, const px_story *s)
{
    fputs("## Environments\n\n"
          "| Environment | What it is | Device | dtype | Threads | Executor, torch, backend | Host, run at | Judged |\n"
          "|---|---|---|---|---|---|---|---|\n",
          o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_env *se = &s->envs[e];
        fputs("| ", o), md_cell_text(o, se->name);
        fputs(" | ", o), md_cell_text(o, se->what);
        fputs(" | ", o), md_cell_text(o, se->device);
        if (*se->device_name)
            fputs(" (", o), md_cell_text(o, se->device_name), fputs(")", o);
        fputs(" | ", o), md_cell_text(o, se->dtype);
        fputs(" | ", o), md_cell_text(o, or_dash(se->threads));
        fputs(" | ", o), md_cell_text(o, or_dash(se->executor));
        fputs(", torch ", o), md_cell_text(o, or_dash(se->torch));
        if (*se->backends)
            fputs(", ", o), md_cell_text(o, se->backends);
        fputs(" | ", o), md_cell_text(o, or_dash(se->host));
        fputs(", ", o), md_cell_text(o, or_dash(se->date));
        fputs(" | ", o), md_cell_text(o, se->state);
        fputs(" |\n", o);
    }
    fputc('\n', o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_env *se = &s->envs[e];
        fputs("- **", o), md_text(o, se->name), fputs("**: ", o), md_text(o, se->source);
        if (*se->settings)
            fputs("; ", o), md_text(o, se->settings);
        if (*se->counts)
            fputs("; ", o), md_text(o, se->counts);
        fputc('\n', o);
    }
    fputc('\n', o);
}

/* Each environment against the last good configuration check recorded;
 * nothing when the history has nothing to say. */
static void md_last_good(FILE *o, const px_story *s)
{
    if (!s->n_last_good)
        return;
    fputs("## Since the last good configuration\n\n", o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_env *se = &s->envs[e];
        if (!se->last_good)
            continue;
        fputs("- **", o), md_text(o, se->name), fputs("**: ", o), md_text(o, se->last_good), fputc('\n', o);
        for (size_t i = 0; i < se->changed.n; i++)
            fputs("  ", o), md_line_item(o, se->changed.v[i]);
    }
    fputc('\n', o);
}

static void md_contract(FILE *o, const px_story *s)
{
    fputs("## The contract in brief\n\n", o);
    fputs("- Task: ", o), md_text(o, s->task), fputc('\n', o);
    const px_report_kind *rk = report_kind_for(s->model_kind);
    if (rk->md_output) /* a classifier's labels, a generator's output settings */
        fputs("- ", o), rk->md_output(o, s), fputc('\n', o);
    fputs("- Pinned:\n", o);
    for (size_t i = 0; i < s->pins.n; i++)
        fputs("  ", o), md_line_item(o, s->pins.v[i]);
    fputs("- Cleaning rules, in order:", o);
    fputs(s->rules.n ? "\n" : " none\n", o);
    for (size_t i = 0; i < s->rules.n; i++)
        fputs("  ", o), md_line_item(o, s->rules.v[i]);
    fputs("- Tolerances:\n", o);
    for (size_t i = 0; i < s->tolerances.n; i++)
        fputs("  ", o), md_line_item(o, s->tolerances.v[i]);
    fputs("- Ambiguous examples: ", o), md_text(o, s->ambiguous_rule), fputs("\n\n", o);
}

static void md_example(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    const px_story_example *x = &s->examples[k];
    const px_report_kind *rk = report_kind_for(s->model_kind);
    fprintf(o, "### %zu. ", k + 1);
    md_text(o, x->id);
    fputs(" (", o), md_text(o, x->kind), fputs(")\n\n", o);
    md_quote(o, x->text);
    fputs("\n- Why this example: ", o), md_text(o, x->why ? x->why : "(not written)");
    fputs("\n- Expected: ", o), md_text(o, x->expect);
    fprintf(o, "\n\n| Environment | Outcome | %s | Difference from the reference |\n|---|---|---|---|\n",
            rk->cell_title);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        fputs("| ", o), md_cell_text(o, s->envs[e].name), fputs(" | ", o);
        if (!c->present) {
            fputs(s->envs[e].selected ? "no results | — | — |\n" : "not selected | — | — |\n", o);
            continue;
        }
        md_cell_text(o, outcome_name(c->outcome));
        fputs(c->met            ? " (meets the contract)"
              : c->not_compared ? " (task checks hold; not compared: no reference)"
                                : " (does NOT meet it)",
              o);
        fputs(" | ", o);
        if (rk->md_cell)
            rk->md_cell(o, s, c);
        else
            fputs("—", o);
        fputs(" | ", o);
        md_cell_text(o, c->diff_words ? c->diff_words : (int)e == s->reference ? "(the reference)" : "—");
        fputs(" |\n", o);
    }
    fputc('\n', o);
    if (rk->md_example_extra)
        rk->md_example_extra(o, s, j, k);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        if (!c->present)
            continue;
        if (c->detail && !c->met && !c->not_compared)
            fputs("- ", o), md_text(o, s->envs[e].name), fputs(": ", o), md_text(o, c->detail), fputc('\n', o);
        if (c->divergence)
            fputs("- Earliest divergence in ", o), md_text(o, s->envs[e].name), fputs(": ", o),
                md_text(o, c->divergence), fputc('\n', o);
        if (c->cause)
            fputs("- Cause in ", o), md_text(o, s->envs[e].name), fputs(": ", o), md_text(o, c->cause),
                fputc('\n', o);
    }
    if (x->proposal)
        fputs("- Review: a proposal from the reference run, not yet confirmed by a person\n", o);
    else if (x->decision) {
        fputs("- Review: ", o), md_text(o, x->decision);
        if (x->by)
            fputs(" by ", o), md_text(o, x->by);
        if (x->at)
            fputs(" at ", o), md_text(o, x->at);
        if (x->decision_words)
            fputs(" (", o), md_text(o, x->decision_words), fputs(")", o);
        fputc('\n', o);
        if (x->note)
            fputs("- Note: ", o), md_text(o, x->note), fputc('\n', o);
    } else
        fputs("- Review: none\n", o);
    if (x->pending)
        fputs("- Pending, not yet written into the fixture: ", o), md_text(o, x->pending), fputc('\n', o);
    fputc('\n', o);
}

static void md_ladders(FILE *o, const px_story *s)
{
    fputs("## Checkpoint ladders\n\n| Environment |", o);
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        fprintf(o, " %s |", rung_name((px_rung)r));
    fputs("\n|---|", o);
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        fputs("---|", o);
    fputc('\n', o);
    for (size_t e = 0; e < s->n_envs; e++) {
        fputs("| ", o), md_cell_text(o, s->envs[e].name), fputs(" |", o);
        for (int r = 0; r < PX_RUNG_COUNT; r++) {
            static const char *const w[] = {"passed", "FAILED", "not reached", "not measured"};
            fprintf(o, " %s |", s->envs[e].selected ? w[s->envs[e].rung[r]] : "not selected");
        }
        fputc('\n', o);
    }
    int details = 0;
    for (size_t e = 0; e < s->n_envs; e++)
        for (int r = 0; r < PX_RUNG_COUNT; r++)
            if (s->envs[e].rung_detail[r]) {
                fputs(details++ ? "- " : "\n- ", o), md_text(o, s->envs[e].name);
                fprintf(o, ", %s failed: ", rung_name((px_rung)r));
                md_text(o, s->envs[e].rung_detail[r]);
                fputc('\n', o);
            }
    fputc('\n', o);
}

static void md_list_section(FILE *o, const char *title, const px_strs *l, const char *none)
{
    fprintf(o, "## %s\n\n", title);
    if (!l->n)
        fprintf(o, "%s\n", none);
    for (size_t i = 0; i < l->n; i++)
        md_line_item(o, l->v[i]);
    fputc('\n', o);
}

void report_markdown(FILE *o, const px_story *s) { report_markdown_judged(o, s, NULL); }

void report_markdown_judged(FILE *o, const px_story *s, const px_judgement *j)
{
    fputs("# parity report: ", o), md_text(o, s->task), fputs("\n\n", o);
    fputs("**Verdict:** ", o), md_text(o, s->verdict), fputs("\n\n", o);
    fputs("Fixture ", o), md_text(o, s->fixture);
    fprintf(o, " (sha256 %.12s…); made by ", s->fixture_sha256);
    md_text(o, s->generated);
    fprintf(o, ". Redacted: %zu value%s (secrets, the home directory, the fixture's own patterns), never shown.\n\n",
            s->redacted, s->redacted == 1 ? "" : "s");
    fputs("The reference is what the others are compared with, not the truth; the examples and their "
          "expectations were reviewed by people.\n\n",
          o);
    if (s->warnings.n)
        md_list_section(o, "Warnings", &s->warnings, "");
    md_envs(o, s);
    md_last_good(o, s);
    md_contract(o, s);
    fputs("## Examples\n\n", o);
    for (size_t k = 0; k < s->n_examples; k++)
        md_example(o, s, j, k);
    md_ladders(o, s);
    md_list_section(o, "What was not evaluated", &s->not_evaluated, "Everything the contract names was evaluated.");
    if (s->performance.n)
        md_list_section(o, "Performance (a question apart from the contract)", &s->performance, "");
    md_list_section(o, "Decisions pending", &s->pending, "None: every decision is written into the fixture.");
    fputs("## What the outcomes mean\n\n", o);
    int any = 0;
    for (int k = 0; k < PX_OC_COUNT; k++) {
        if (!story_outcome_shown(s, (px_outcome)k))
            continue;
        if (!any++)
            fputs("The outcomes this report shows (parity(1), VERDICTS, lists them all).\n\n"
                  "| Outcome | Meaning |\n|---|---|\n",
                  o);
        fprintf(o, "| %s | %s |\n", outcome_name((px_outcome)k), outcome_meaning((px_outcome)k));
    }
    if (!any)
        fputs("No example was judged (parity(1), VERDICTS, lists the outcomes).\n", o);
}
