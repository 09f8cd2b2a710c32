/* parity report -f html: the story as one self-contained file. Inline CSS
 * (light and dark by the reader's preference, and a print stylesheet),
 * inline SVG where people would rather look than read (each environment's
 * probabilities side by side; each difference against its tolerance with
 * the threshold drawn), an image's pictures as data: URIs (PNG), no
 * script, no font, image or anything else fetched
 * (a Content-Security-Policy says so to the browser too). Every text is
 * escaped after the review screen's sanitizing, so HTML, script tags,
 * terminal escapes and bidi overrides in an example show as text. Meaning
 * never rests on colour alone: every verdict keeps its word and a symbol.
 * What differs by the kind of model (the output in the contract, an
 * example's cell, an embedding's bump chart and the CSS for what a kind
 * draws) is the kind's (report_kind.h). */
#include "parity/report_html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_fmt.h"
#include "parity/report_kind.h"

static const char css[] =
    ":root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--card:#f6f8fa;"
    "--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--bar:#0969da;--bar2:#8250df}"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9da7b3;--line:#30363d;"
    "--card:#161b22;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--bar:#58a6ff;--bar2:#bc8cff}}"
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);background:var(--bg);"
    "max-width:72rem;margin:0 auto;padding:1rem 1.5rem;line-height:1.45}"
    "h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid var(--line);padding-bottom:.2rem;"
    "margin-top:2rem}h3{font-size:1.05rem;margin-bottom:.3rem}"
    "table{border-collapse:collapse;margin:.5rem 0;font-size:.92rem}"
    "th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}"
    "th{background:var(--card)}"
    ".verdict{font-size:1.1rem;font-weight:600;padding:.5rem .75rem;border:2px solid var(--line);"
    "border-radius:6px}"
    ".met{color:var(--ok)}.unmet{color:var(--bad)}.ne{color:var(--warn)}.muted{color:var(--muted)}"
    ".example{border:1px solid var(--line);border-radius:6px;padding:.5rem 1rem;margin:1rem 0;"
    "background:var(--card)}"
    "blockquote{margin:.4rem 0;padding:.3rem .8rem;border-left:4px solid var(--line);white-space:pre-wrap;"
    "overflow-wrap:anywhere;background:var(--bg)}"
    ".charts{display:flex;flex-wrap:wrap;gap:1rem;margin:.5rem 0}"
    ".chart{background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:.3rem}"
    "svg text{fill:var(--fg);font-size:11px;font-family:system-ui,sans-serif}"
    "svg .bar{fill:var(--bar)}svg .bar.top{fill:var(--bar2)}svg .track{fill:var(--card)}"
    "svg .limit{stroke:var(--bad);stroke-width:2;stroke-dasharray:4 2}svg .diff{fill:var(--bar)}"
    "svg .diff.over{fill:var(--bad)}"
    "ul{margin:.3rem 0}code{font-family:ui-monospace,monospace}"
    "@media print{body{max-width:none;color:#000;background:#fff}.example{break-inside:avoid;"
    "background:#fff}:root{--fg:#000;--bg:#fff;--card:#fff;--line:#888}a{color:#000}}";

static const char *mark(int met) { return met ? "✓" : "✗"; }

static void env_table(FILE *o, const px_story *s)
{
    fputs("<h2 id=\"environments\">Environments</h2>\n<table><thead><tr><th>Environment</th><th>What it is</th>"
          "<th>Device</th><th>dtype</th><th>Threads</th><th>Executor, torch, backend</th><th>Host, run at</th><th>Source</th>"
          "<th>Judged</th></tr></thead><tbody>\n",
          o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_env *se = &s->envs[e];
        html_tag(o, "<tr><th scope=\"row\">", se->name, "</th>");
        html_tag(o, "<td>", se->what, "</td><td>");
        html_text(o, se->device);
        if (*se->device_name)
            html_tag(o, " (", se->device_name, ")");
        html_tag(o, "</td><td>", se->dtype, "</td><td>");
        html_tag(o, "", *se->threads ? se->threads : "—", "</td><td>");
        html_text(o, *se->executor ? se->executor : "—");
        html_tag(o, ", torch ", *se->torch ? se->torch : "—", "");
        if (*se->backends)
            html_tag(o, ", ", se->backends, "");
        if (*se->settings)
            html_tag(o, "<br><span class=\"muted\">", se->settings, "</span>");
        html_tag(o, "</td><td>", *se->host ? se->host : "—", ", ");
        html_text(o, *se->date ? se->date : "—");
        html_tag(o, "</td><td>", se->source, "</td>");
        const char *cls = !se->selected || !se->evaluated ? "ne" : se->met ? "met" : "unmet";
        fprintf(o, "<td class=\"%s\">%s ", cls, !se->selected || !se->evaluated ? "–" : mark(se->met));
        html_text(o, se->state);
        if (*se->counts)
            html_tag(o, "<br><span class=\"muted\">", se->counts, "</span>");
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
}

static void list(FILE *o, const px_strs *l, const char *none)
{
    if (!l->n) {
        html_tag(o, "<p>", none, "</p>\n");
        return;
    }
    fputs("<ul>\n", o);
    for (size_t i = 0; i < l->n; i++)
        html_tag(o, "<li>", l->v[i], "</li>\n");
    fputs("</ul>\n", o);
}

/* Each environment against the last good configuration check recorded;
 * nothing when the history has nothing to say. */
static void last_good(FILE *o, const px_story *s)
{
    if (!s->n_last_good)
        return;
    fputs("<h2 id=\"last-good\">Since the last good configuration</h2>\n<ul>\n", o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_env *se = &s->envs[e];
        if (!se->last_good)
            continue;
        html_tag(o, "<li><strong>", se->name, "</strong>: ");
        html_tag(o, se->regressed ? "<span class=\"unmet\">" : "<span>", se->last_good, "</span>");
        if (se->changed.n)
            list(o, &se->changed, "");
        fputs("</li>\n", o);
    }
    fputs("</ul>\n", o);
}

static void contract(FILE *o, const px_story *s)
{
    fputs("<h2 id=\"contract\">The contract in brief</h2>\n<ul>\n", o);
    const px_report_kind *rk = report_kind_for(s->model_kind);
    html_tag(o, "<li>Task: ", s->task, "</li>\n");
    if (rk->html_output) /* a classifier's labels, a generator's output settings */
        fputs("<li>", o), rk->html_output(o, s), fputs("</li>\n", o);
    fputs("<li>Pinned:", o);
    list(o, &s->pins, "nothing");
    fputs("</li>\n<li>Cleaning rules, in order:", o);
    list(o, &s->rules, "none");
    fputs("</li>\n<li>Tolerances:", o);
    list(o, &s->tolerances, "none");
    html_tag(o, "</li>\n<li>Ambiguous examples: ", s->ambiguous_rule, "</li>\n</ul>\n");
}

/* Each environment's probabilities as bars, one chart per environment,
 * side by side; the decided label marked by a ▶ and its own colour. */
static void prob_charts(FILE *o, const px_story *s, const px_story_example *x)
{
    int any = 0;
    for (size_t e = 0; e < s->n_envs; e++)
        any |= x->cells[e].probs != NULL;
    if (!any)
        return;
    fputs("<div class=\"charts\">", o);
    const int bar_w = 150, row = 16, label_w = 90;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        if (!c->probs)
            continue;
        int height = (int)(row * (c->n_probs + 1)) + 4, width = label_w + bar_w + 60;
        fprintf(o, "<figure class=\"chart\" style=\"margin:0\"><svg role=\"img\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>",
                width, height, width, height);
        html_text(o, s->envs[e].name);
        fputs(": probability of each label</title>", o);
        fputs("<text x=\"0\" y=\"12\" font-weight=\"bold\">", o);
        html_text(o, s->envs[e].name);
        fputs("</text>", o);
        for (size_t i = 0; i < c->n_probs && i < s->n_labels; i++) {
            int y = (int)(row * (i + 1)) + 2, top = c->label && !strcmp(c->label, s->labels[i]);
            double p = c->probs[i];
            fprintf(o, "<text x=\"0\" y=\"%d\">%s", y + 11, top ? "▶ " : "");
            html_text(o, s->labels[i]);
            fprintf(o, "</text><rect class=\"track\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"12\"/>"
                       "<rect class=\"bar%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"12\"/>"
                       "<text x=\"%d\" y=\"%d\">%.1f%%</text>",
                    label_w, y, bar_w, top ? " top" : "", label_w, y, bar_w * (p >= 0 && p <= 1 ? p : 0),
                    label_w + bar_w + 4, y + 11, 100 * p);
        }
        fputs("</svg></figure>", o);
    }
    fputs("</div>\n", o);
}

/* Each candidate's difference against what its tolerance allows: a bar,
 * the threshold as a dashed line, and the words. */
static void diff_chart(FILE *o, const px_story *s, const px_story_example *x)
{
    size_t n = 0;
    double top = 0;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        if (!c->has_diff)
            continue;
        n++;
        if (isfinite(c->diff))
            top = c->diff > top ? c->diff : top;
        if (isfinite(c->limit))
            top = c->limit > top ? c->limit : top;
    }
    if (!n)
        return;
    top = top > 0 ? top * 1.15 : 1;
    const int w = 220, row = 18, lw = 90;
    int height = (int)(row * n) + 22, width = lw + w + 10;
    fprintf(o, "<figure class=\"chart\" style=\"margin:.3rem 0\"><svg role=\"img\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>difference from the reference "
               "against the tolerance</title>",
            width, height, width, height);
    fputs("<text x=\"0\" y=\"12\" font-weight=\"bold\">|Δlogit| vs allowed (dashed)</text>", o);
    size_t i = 0;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        if (!c->has_diff)
            continue;
        int y = 18 + (int)(row * i++);
        double dw = isfinite(c->diff) ? w * (c->diff / top) : w, lx = lw + w * (isfinite(c->limit) ? c->limit / top : 1);
        int over = !(c->diff <= c->limit);
        fputs("<text x=\"0\" y=\"", o);
        fprintf(o, "%d\">", y + 11);
        html_text(o, s->envs[e].name);
        fprintf(o, "</text><rect class=\"track\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"12\"/>"
                   "<rect class=\"diff%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"12\"><title>%.4g %s %.4g"
                   "</title></rect><line class=\"limit\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>",
                lw, y, w, over ? " over" : "", lw, y, dw > w ? (double)w : dw, c->diff, over ? "over" : "within",
                c->limit, lx, lx, y - 2, y + 14);
    }
    fputs("</svg></figure>\n", o);
}


static void example(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    const px_story_example *x = &s->examples[k];
    const px_report_kind *rk = report_kind_for(s->model_kind);
    fputs("<section class=\"example\" id=\"ex-", o);
    fprintf(o, "%zu\"><h3>%zu. <code>", k + 1, k + 1);
    html_text(o, x->id);
    html_tag(o, "</code> <span class=\"muted\">(", x->kind, ")</span></h3>\n");
    html_tag(o, "<blockquote>", *x->text ? x->text : "(empty)", "</blockquote>\n");
    html_tag(o, "<p><b>Why this example:</b> ", x->why ? x->why : "(not written)", "<br>");
    html_tag(o, "<b>Expected:</b> ", x->expect, "</p>\n");
    fprintf(o, "<table><thead><tr><th>Environment</th><th>Outcome</th><th>%s</th><th>Difference from the "
               "reference</th></tr></thead><tbody>\n",
            rk->cell_title);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        html_tag(o, "<tr><th scope=\"row\">", s->envs[e].name, "</th>");
        if (!c->present) {
            fprintf(o, "<td class=\"ne\">– %s</td><td>—</td><td>—</td></tr>\n",
                    s->envs[e].selected ? "no results" : "not selected");
            continue;
        }
        if (c->not_compared)
            fputs("<td class=\"ne\">– ", o);
        else
            fprintf(o, "<td class=\"%s\">%s ", c->met ? "met" : "unmet", mark(c->met));
        html_text(o, outcome_name(c->outcome));
        fputs(c->met            ? " (meets the contract)"
              : c->not_compared ? " (task checks hold; not compared: no reference)"
                                : " (does NOT meet it)",
              o);
        fputs("</td><td>", o);
        if (rk->html_cell)
            rk->html_cell(o, s, c);
        else
            fputs("—", o);
        fputs("</td><td>", o);
        html_text(o, c->diff_words ? c->diff_words : (int)e == s->reference ? "(the reference)" : "—");
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
    prob_charts(o, s, x);
    diff_chart(o, s, x);
    if (rk->html_example_extra)
        rk->html_example_extra(o, s, j, k);
    fputs("<ul>\n", o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        if (!c->present)
            continue;
        if (c->detail && !c->met && !c->not_compared)
            html_tag(o, "<li>", s->envs[e].name, ": "), html_text(o, c->detail), fputs("</li>\n", o);
        if (c->divergence)
            html_tag(o, "<li>Earliest divergence in ", s->envs[e].name, ": "), html_text(o, c->divergence),
                fputs("</li>\n", o);
        if (c->cause)
            html_tag(o, "<li>Cause in ", s->envs[e].name, ": "), html_text(o, c->cause), fputs("</li>\n", o);
    }
    if (x->proposal)
        fputs("<li>Review: a proposal from the reference run, not yet confirmed by a person</li>\n", o);
    else if (x->decision) {
        html_tag(o, "<li>Review: <b>", x->decision, "</b>");
        if (x->by)
            html_tag(o, " by ", x->by, "");
        if (x->at)
            html_tag(o, " at ", x->at, "");
        if (x->decision_words)
            html_tag(o, " (", x->decision_words, ")");
        fputs("</li>\n", o);
        if (x->note)
            html_tag(o, "<li>Note: ", x->note, "</li>\n");
    } else
        fputs("<li>Review: none</li>\n", o);
    if (x->pending)
        html_tag(o, "<li>Pending, not yet written into the fixture: ", x->pending, "</li>\n");
    fputs("</ul>\n</section>\n", o);
}

static void ladders(FILE *o, const px_story *s)
{
    static const char *const w[] = {"✓ passed", "✗ FAILED", "– not reached", "– not measured"};
    static const char *const cls[] = {"met", "unmet", "ne", "ne"};
    fputs("<h2 id=\"ladders\">Checkpoint ladders</h2>\n<table><thead><tr><th>Environment</th>", o);
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        html_tag(o, "<th>", rung_name((px_rung)r), "</th>");
    fputs("</tr></thead><tbody>\n", o);
    for (size_t e = 0; e < s->n_envs; e++) {
        html_tag(o, "<tr><th scope=\"row\">", s->envs[e].name, "</th>");
        for (int r = 0; r < PX_RUNG_COUNT; r++) {
            px_rung_state st = s->envs[e].rung[r];
            if (!s->envs[e].selected)
                fputs("<td class=\"ne\">– not selected</td>", o);
            else
                fprintf(o, "<td class=\"%s\">%s</td>", cls[st], w[st]);
        }
        fputs("</tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
    for (size_t e = 0; e < s->n_envs; e++)
        for (int r = 0; r < PX_RUNG_COUNT; r++)
            if (s->envs[e].rung_detail[r]) {
                html_tag(o, "<p>", s->envs[e].name, ", ");
                html_text(o, rung_name((px_rung)r));
                html_tag(o, " failed: ", s->envs[e].rung_detail[r], "</p>\n");
            }
}

void report_html(FILE *o, const px_story *s) { report_html_judged(o, s, NULL); }

void report_html_judged(FILE *o, const px_story *s, const px_judgement *j)
{
    const px_report_kind *rk = report_kind_for(s->model_kind);
    /* A kind that shows pictures embeds them (data: URIs): still nothing
     * fetched. */
    fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
               "'unsafe-inline'%s\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
            rk->html_images ? "; img-src data:" : "");
    html_tag(o, "<title>parity report: ", s->task, "</title>\n");
    const char *kind_css = rk->html_css ? rk->html_css(s, j) : NULL;
    fprintf(o, "<style>%s%s</style>\n</head>\n<body>\n", css, kind_css ? kind_css : "");
    html_tag(o, "<h1>parity report: ", s->task, "</h1>\n");
    fprintf(o, "<p class=\"verdict %s\">%s ", s->met > 0 ? "met" : s->met == 0 ? "unmet" : "ne",
            s->met > 0 ? "✓" : s->met == 0 ? "✗" : "–");
    html_text(o, s->verdict);
    fputs("</p>\n<p>Fixture <code>", o);
    html_text(o, s->fixture);
    fprintf(o, "</code> (sha256 %.12s…); made by ", s->fixture_sha256);
    html_text(o, s->generated);
    fprintf(o, ". Redacted: %zu value%s (secrets, the home directory, the fixture's own patterns), never shown.</p>\n",
            s->redacted, s->redacted == 1 ? "" : "s");
    fputs("<p class=\"muted\">The reference is what the others are compared with, not the truth; the examples and "
          "their expectations were reviewed by people.</p>\n",
          o);
    if (s->warnings.n) {
        fputs("<h2 id=\"warnings\">Warnings</h2>\n", o);
        list(o, &s->warnings, "");
    }
    env_table(o, s);
    last_good(o, s);
    contract(o, s);
    fputs("<h2 id=\"examples\">Examples</h2>\n", o);
    for (size_t k = 0; k < s->n_examples; k++)
        example(o, s, j, k);
    ladders(o, s);
    fputs("<h2 id=\"not-evaluated\">What was not evaluated</h2>\n", o);
    list(o, &s->not_evaluated, "Everything the contract names was evaluated.");
    if (s->performance.n) {
        fputs("<h2 id=\"performance\">Performance (a question apart from the contract)</h2>\n", o);
        list(o, &s->performance, "");
    }
    fputs("<h2 id=\"pending\">Decisions pending</h2>\n", o);
    list(o, &s->pending, "None: every decision is written into the fixture.");
    fputs("<h2 id=\"outcomes\">What the outcomes mean</h2>\n", o);
    int any = 0;
    for (int k = 0; k < PX_OC_COUNT; k++) {
        if (!story_outcome_shown(s, (px_outcome)k))
            continue;
        if (!any++)
            fputs("<p>The outcomes this report shows (parity(1), VERDICTS, lists them all).</p>\n"
                  "<table><thead><tr><th>Outcome</th><th>Meaning</th></tr></thead><tbody>\n",
                  o);
        html_tag(o, "<tr><td>", outcome_name((px_outcome)k), "</td>");
        html_tag(o, "<td>", outcome_meaning((px_outcome)k), "</td></tr>\n");
    }
    fputs(any ? "</tbody></table>\n" : "<p>No example was judged (parity(1), VERDICTS, lists the outcomes).</p>\n", o);
    fputs("</body>\n</html>\n", o);
}
