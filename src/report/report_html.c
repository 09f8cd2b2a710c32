/* parity report -f html: the story as one self-contained file. Inline CSS
 * (light and dark by the reader's preference, and a print stylesheet),
 * inline SVG where people would rather look than read (each environment's
 * probabilities side by side; each difference against its tolerance with
 * the threshold drawn), no script, no font, image or anything else fetched
 * (a Content-Security-Policy says so to the browser too). Every text is
 * escaped after the review screen's sanitizing, so HTML, script tags,
 * terminal escapes and bidi overrides in an example show as text. Meaning
 * never rests on colour alone: every verdict keeps its word and a symbol. */
#include "parity/report_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/textcell.h"

static void h(FILE *o, const char *s)
{
    if (!s)
        return;
    char *v = textcell_sanitize(s, strlen(s));
    for (const char *p = v ? v : "?"; *p; p++)
        switch (*p) {
        case '&': fputs("&amp;", o); break;
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '"': fputs("&quot;", o); break;
        case '\'': fputs("&#39;", o); break;
        default: fputc(*p, o);
        }
    free(v);
}

static void tag_text(FILE *o, const char *open, const char *s, const char *close)
{
    fputs(open, o);
    h(o, s);
    fputs(close, o);
}

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

/* A generator's report only (a classifier's stays as it was): the marks
 * in a generated text, each with its own outline or underline as well as
 * its colour, and a title that says what it is. */
static const char gen_css[] =
    ".generated{white-space:pre-wrap;overflow-wrap:anywhere}"
    "mark{color:inherit;border-radius:2px}mark.match{background:rgba(26,127,55,.22)}"
    "mark.bad{background:rgba(207,34,46,.25);text-decoration:underline wavy var(--bad)}"
    "mark.diverged{background:rgba(154,103,0,.25);outline:1px solid var(--warn)}";


/* An embedding's report only: the bump chart of each query's first k. */
static const char embed_css[] =
    "svg .doc{fill:var(--card);stroke:var(--line)}svg .doc.moved{stroke:var(--bad);stroke-width:2}"
    "svg .doc.reordered{stroke:var(--warn);stroke-width:2}"
    "svg .bump{stroke:var(--muted);stroke-width:1.5;fill:none}svg .bump.moved{stroke:var(--bad);stroke-width:2.5}"
    "svg .bump.reordered{stroke:var(--warn);stroke-width:2.5}svg .left{fill:var(--bad)}";

static const char *mark(int met) { return met ? "✓" : "✗"; }

/* A generator's text, its pieces marked: <mark class="match"> what a
 * must_match pattern matched, "bad" a must_not_match violation,
 * "diverged" the first token that parts from the reference's. */
static void generated_text(FILE *o, const px_story_cell *c)
{
    static const char *const open[] = {
        [PX_SPAN_PLAIN] = "",
        [PX_SPAN_MATCH] = "<mark class=\"match\" title=\"what must_match matched\">",
        [PX_SPAN_BAD] = "<mark class=\"bad\" title=\"what must_not_match matched: the violation\">",
        [PX_SPAN_DIVERGED] = "<mark class=\"diverged\" title=\"the first token that parts from the reference's\">"};
    if (!*c->generated) {
        fputs("<span class=\"muted\">(empty)</span>", o);
    } else {
        fputs("<span class=\"generated\">", o);
        size_t len = strlen(c->generated);
        for (size_t i = 0; i < c->n_spans; i++) {
            const px_span *p = &c->spans[i];
            if (p->end > len || p->at >= p->end)
                continue;
            char *piece = strndup(c->generated + p->at, p->end - p->at);
            tag_text(o, open[p->kind], piece ? piece : "?", p->kind == PX_SPAN_PLAIN ? "" : "</mark>");
            free(piece);
        }
        fputs("</span>", o);
    }
    fprintf(o, " <span class=\"muted\">(end %s, %zu tokens)</span>", c->gen_end, c->gen_tokens);
}

static void env_table(FILE *o, const px_story *s)
{
    fputs("<h2 id=\"environments\">Environments</h2>\n<table><thead><tr><th>Environment</th><th>What it is</th>"
          "<th>Device</th><th>dtype</th><th>Threads</th><th>Executor, torch, backend</th><th>Host, run at</th><th>Source</th>"
          "<th>Judged</th></tr></thead><tbody>\n",
          o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_env *se = &s->envs[e];
        tag_text(o, "<tr><th scope=\"row\">", se->name, "</th>");
        tag_text(o, "<td>", se->what, "</td><td>");
        h(o, se->device);
        if (*se->device_name)
            tag_text(o, " (", se->device_name, ")");
        tag_text(o, "</td><td>", se->dtype, "</td><td>");
        tag_text(o, "", *se->threads ? se->threads : "—", "</td><td>");
        h(o, *se->executor ? se->executor : "—");
        tag_text(o, ", torch ", *se->torch ? se->torch : "—", "");
        if (*se->backends)
            tag_text(o, ", ", se->backends, "");
        if (*se->settings)
            tag_text(o, "<br><span class=\"muted\">", se->settings, "</span>");
        tag_text(o, "</td><td>", *se->host ? se->host : "—", ", ");
        h(o, *se->date ? se->date : "—");
        tag_text(o, "</td><td>", se->source, "</td>");
        const char *cls = !se->selected || !se->evaluated ? "ne" : se->met ? "met" : "unmet";
        fprintf(o, "<td class=\"%s\">%s ", cls, !se->selected || !se->evaluated ? "–" : mark(se->met));
        h(o, se->state);
        if (*se->counts)
            tag_text(o, "<br><span class=\"muted\">", se->counts, "</span>");
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
}

static void list(FILE *o, const px_strs *l, const char *none)
{
    if (!l->n) {
        tag_text(o, "<p>", none, "</p>\n");
        return;
    }
    fputs("<ul>\n", o);
    for (size_t i = 0; i < l->n; i++)
        tag_text(o, "<li>", l->v[i], "</li>\n");
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
        tag_text(o, "<li><strong>", se->name, "</strong>: ");
        tag_text(o, se->regressed ? "<span class=\"unmet\">" : "<span>", se->last_good, "</span>");
        if (se->changed.n)
            list(o, &se->changed, "");
        fputs("</li>\n", o);
    }
    fputs("</ul>\n", o);
}

static void contract(FILE *o, const px_story *s)
{
    fputs("<h2 id=\"contract\">The contract in brief</h2>\n<ul>\n", o);
    if (s->generate) { /* a generator: its output settings where a classifier has its labels */
        tag_text(o, "<li>Task: ", s->task, "</li>\n<li>Output settings: ");
        h(o, s->generate);
    } else if (s->embedding) {
        tag_text(o, "<li>Task: ", s->task, "</li>\n<li>Output: ");
        h(o, s->embedding);
    } else {
        tag_text(o, "<li>Task: ", s->task, "</li>\n<li>Labels, in the model's output order: ");
        for (size_t i = 0; i < s->n_labels; i++)
            tag_text(o, i ? ", <code>" : "<code>", s->labels[i], "</code>");
    }
    fputs("</li>\n<li>Pinned:", o);
    list(o, &s->pins, "nothing");
    fputs("</li>\n<li>Cleaning rules, in order:", o);
    list(o, &s->rules, "none");
    fputs("</li>\n<li>Tolerances:", o);
    list(o, &s->tolerances, "none");
    tag_text(o, "</li>\n<li>Ambiguous examples: ", s->ambiguous_rule, "</li>\n</ul>\n");
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
        h(o, s->envs[e].name);
        fputs(": probability of each label</title>", o);
        fputs("<text x=\"0\" y=\"12\" font-weight=\"bold\">", o);
        h(o, s->envs[e].name);
        fputs("</text>", o);
        for (size_t i = 0; i < c->n_probs && i < s->n_labels; i++) {
            int y = (int)(row * (i + 1)) + 2, top = c->label && !strcmp(c->label, s->labels[i]);
            double p = c->probs[i];
            fprintf(o, "<text x=\"0\" y=\"%d\">%s", y + 11, top ? "▶ " : "");
            h(o, s->labels[i]);
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
        h(o, s->envs[e].name);
        fprintf(o, "</text><rect class=\"track\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"12\"/>"
                   "<rect class=\"diff%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"12\"><title>%.4g %s %.4g"
                   "</title></rect><line class=\"limit\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>",
                lw, y, w, over ? " over" : "", lw, y, dw > w ? (double)w : dw, c->diff, over ? "over" : "within",
                c->limit, lx, lx, y - 2, y + 14);
    }
    fputs("</svg></figure>\n", o);
}


/* ---- an embedding's searches (from the judgement, when given) ---- */

static const px_embed_verdict *search_of(const px_story *s, const px_judgement *j, size_t e, size_t k)
{
    if (!j || e >= j->n_envs || k >= j->n_examples || k >= s->n_examples || !s->examples[k].cells[e].present)
        return NULL;
    return j->envs[e].ex[k].embed;
}

static size_t search_window(const px_story *s, const px_judgement *j, size_t k)
{
    size_t win = 0;
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_embed_verdict *em = search_of(s, j, e, k);
        if (em && em->k > 0 && (size_t)em->k > win)
            win = (size_t)em->k;
    }
    return win;
}

static int any_search(const px_story *s, const px_judgement *j)
{
    for (size_t k = 0; k < s->n_examples; k++)
        if (search_window(s, j, k))
            return 1;
    return 0;
}

/* How a document at rank i of environment e's search stands against the
 * reference's first win: "" the same rank (or e is the reference),
 * "moved" at another rank or new to the first win where the first win
 * changed, "reordered" at another rank where they held (order: set). */
static const char *moved_class(const px_story *s, const px_embed_verdict *ref, const px_embed_verdict *em, size_t e,
                               size_t i, size_t win)
{
    if ((int)e == s->reference || !ref || !ref->n_ranked)
        return "";
    if (embed_rank_of(ref, em->doc[i], win) == (long)i)
        return "";
    return em->held == 1 ? " reordered" : " moved";
}

/* A query's first k per environment as a bump chart: one column per
 * environment, one row per rank, each document a labelled box with its
 * cosine to the query, a line joining the same document across
 * neighbouring columns; what moved against the reference drawn in the
 * bad colour (the warning's where the first k held as a set), and said in
 * words too: the box's title, and "left:" under a column for what left
 * its first k. */
static void bump_chart(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    size_t win = search_window(s, j, k);
    if (!win)
        return;
    const px_embed_verdict *ref = s->reference >= 0 ? search_of(s, j, (size_t)s->reference, k) : NULL;
    const int colw = 170, boxw = 130, rowh = 26, top = 22;
    size_t n = s->n_envs;
    int height = top + (int)(rowh * win) + 22, width = colw * (int)n;
    /* what moved, for the chart's title */
    char moved[512] = "";
    for (size_t e = 0; e < n; e++) {
        const px_embed_verdict *em = search_of(s, j, e, k);
        for (size_t i = 0; em && i < em->n_ranked && i < win && strlen(moved) < sizeof moved - 80; i++)
            if (*moved_class(s, ref, em, e, i, win) && !strstr(moved, s->examples[em->doc[i]].id))
                snprintf(moved + strlen(moved), sizeof moved - strlen(moved), "%s%s", *moved ? ", " : "",
                         s->examples[em->doc[i]].id);
    }
    fprintf(o, "<figure class=\"chart\" style=\"margin:.3rem 0\"><svg class=\"bump-chart\" role=\"img\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>",
            width, height, width, height);
    h(o, s->examples[k].id);
    fprintf(o, ": the first %zu documents by cosine in each environment", win);
    if (*moved)
        fputs("; at another rank than in the reference: ", o), h(o, moved);
    else
        fputs("; every environment ranks them as the reference does", o);
    fputs("</title>", o);
    /* the lines first, under the boxes */
    for (size_t e = 0; e + 1 < n; e++) {
        const px_embed_verdict *a = search_of(s, j, e, k), *b = search_of(s, j, e + 1, k);
        for (size_t i = 0; a && b && i < a->n_ranked && i < win; i++) {
            long to = embed_rank_of(b, a->doc[i], win);
            if (to < 0)
                continue;
            const char *cls = moved_class(s, ref, b, e + 1, (size_t)to, win);
            fprintf(o, "<line class=\"bump%s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", cls, (int)e * colw + boxw,
                    top + (int)i * rowh + 10, (int)(e + 1) * colw, top + (int)to * rowh + 10);
        }
    }
    for (size_t e = 0; e < n; e++) {
        const px_embed_verdict *em = search_of(s, j, e, k);
        int x = (int)e * colw;
        fprintf(o, "<text x=\"%d\" y=\"12\" font-weight=\"bold\">", x);
        h(o, s->envs[e].name);
        fputs("</text>", o);
        if (!em || !em->n_ranked) {
            fprintf(o, "<text x=\"%d\" y=\"%d\">no ranking</text>", x, top + 14);
            continue;
        }
        for (size_t i = 0; i < em->n_ranked && i < win; i++) {
            const char *cls = moved_class(s, ref, em, e, i, win), *id = s->examples[em->doc[i]].id;
            long was = embed_rank_of(ref, em->doc[i], win);
            int y = top + (int)i * rowh;
            fputs("<g><title>", o);
            h(o, id);
            fprintf(o, ": rank %zu in ", i + 1);
            h(o, s->envs[e].name);
            fprintf(o, ", cosine %.4f", em->score[i]);
            if (*cls && was >= 0)
                fprintf(o, "; rank %ld in the reference", was + 1);
            else if (*cls)
                fprintf(o, "; not in the reference's first %zu", win);
            fprintf(o, "</title><rect class=\"doc%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"20\" rx=\"3\"/>"
                       "<text x=\"%d\" y=\"%d\">%zu. ",
                    cls, x, y, boxw, x + 4, y + 14, i + 1);
            h(o, id);
            fprintf(o, " %.3f%s</text></g>", em->score[i], *cls ? (was >= 0 ? (was > (long)i ? " ↑" : " ↓") : " new") : "");
        }
        /* what left this column's first k */
        char left[256] = "";
        for (size_t i = 0; (int)e != s->reference && ref && i < ref->n_ranked && i < win; i++)
            if (embed_rank_of(em, ref->doc[i], win) < 0 && strlen(left) < sizeof left - 64)
                snprintf(left + strlen(left), sizeof left - strlen(left), "%s%s", *left ? ", " : "left: ",
                         s->examples[ref->doc[i]].id);
        if (*left) {
            fprintf(o, "<text class=\"left\" x=\"%d\" y=\"%d\">", x, top + (int)win * rowh + 12);
            h(o, left);
            fputs("</text>", o);
        }
    }
    fputs("</svg></figure>\n", o);
}

static void example(FILE *o, const px_story *s, const px_judgement *j, size_t k)
{
    const px_story_example *x = &s->examples[k];
    fputs("<section class=\"example\" id=\"ex-", o);
    fprintf(o, "%zu\"><h3>%zu. <code>", k + 1, k + 1);
    h(o, x->id);
    tag_text(o, "</code> <span class=\"muted\">(", x->kind, ")</span></h3>\n");
    tag_text(o, "<blockquote>", *x->text ? x->text : "(empty)", "</blockquote>\n");
    tag_text(o, "<p><b>Why this example:</b> ", x->why ? x->why : "(not written)", "<br>");
    tag_text(o, "<b>Expected:</b> ", x->expect, "</p>\n");
    fprintf(o, "<table><thead><tr><th>Environment</th><th>Outcome</th><th>%s</th><th>Difference from the "
               "reference</th></tr></thead><tbody>\n",
            s->generate ? "Generated text" : s->embedding ? "Search" : "Label");
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        tag_text(o, "<tr><th scope=\"row\">", s->envs[e].name, "</th>");
        if (!c->present) {
            fprintf(o, "<td class=\"ne\">– %s</td><td>—</td><td>—</td></tr>\n",
                    s->envs[e].selected ? "no results" : "not selected");
            continue;
        }
        if (c->not_compared)
            fputs("<td class=\"ne\">– ", o);
        else
            fprintf(o, "<td class=\"%s\">%s ", c->met ? "met" : "unmet", mark(c->met));
        h(o, outcome_name(c->outcome));
        fputs(c->met            ? " (meets the contract)"
              : c->not_compared ? " (task checks hold; not compared: no reference)"
                                : " (does NOT meet it)",
              o);
        fputs("</td><td>", o);
        if (s->generate && c->generated)
            generated_text(o, c);
        else if (s->embedding && c->search)
            h(o, c->search);
        else if (c->label && !s->embedding) {
            h(o, c->label);
            for (size_t i = 0; c->probs && i < c->n_probs && i < s->n_labels; i++)
                if (!strcmp(s->labels[i], c->label))
                    fprintf(o, " (%.1f%%)", 100 * c->probs[i]);
        } else
            fputs("—", o);
        fputs("</td><td>", o);
        h(o, c->diff_words ? c->diff_words : (int)e == s->reference ? "(the reference)" : "—");
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
    prob_charts(o, s, x);
    diff_chart(o, s, x);
    bump_chart(o, s, j, k);
    fputs("<ul>\n", o);
    for (size_t e = 0; e < s->n_envs; e++) {
        const px_story_cell *c = &x->cells[e];
        if (!c->present)
            continue;
        if (c->detail && !c->met && !c->not_compared)
            tag_text(o, "<li>", s->envs[e].name, ": "), h(o, c->detail), fputs("</li>\n", o);
        if (c->divergence)
            tag_text(o, "<li>Earliest divergence in ", s->envs[e].name, ": "), h(o, c->divergence),
                fputs("</li>\n", o);
        if (c->cause)
            tag_text(o, "<li>Cause in ", s->envs[e].name, ": "), h(o, c->cause), fputs("</li>\n", o);
    }
    if (x->proposal)
        fputs("<li>Review: a proposal from the reference run, not yet confirmed by a person</li>\n", o);
    else if (x->decision) {
        tag_text(o, "<li>Review: <b>", x->decision, "</b>");
        if (x->by)
            tag_text(o, " by ", x->by, "");
        if (x->at)
            tag_text(o, " at ", x->at, "");
        if (x->decision_words)
            tag_text(o, " (", x->decision_words, ")");
        fputs("</li>\n", o);
        if (x->note)
            tag_text(o, "<li>Note: ", x->note, "</li>\n");
    } else
        fputs("<li>Review: none</li>\n", o);
    if (x->pending)
        tag_text(o, "<li>Pending, not yet written into the fixture: ", x->pending, "</li>\n");
    fputs("</ul>\n</section>\n", o);
}

static void ladders(FILE *o, const px_story *s)
{
    static const char *const w[] = {"✓ passed", "✗ FAILED", "– not reached", "– not measured"};
    static const char *const cls[] = {"met", "unmet", "ne", "ne"};
    fputs("<h2 id=\"ladders\">Checkpoint ladders</h2>\n<table><thead><tr><th>Environment</th>", o);
    for (int r = 0; r < PX_RUNG_COUNT; r++)
        tag_text(o, "<th>", rung_name((px_rung)r), "</th>");
    fputs("</tr></thead><tbody>\n", o);
    for (size_t e = 0; e < s->n_envs; e++) {
        tag_text(o, "<tr><th scope=\"row\">", s->envs[e].name, "</th>");
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
                tag_text(o, "<p>", s->envs[e].name, ", ");
                h(o, rung_name((px_rung)r));
                tag_text(o, " failed: ", s->envs[e].rung_detail[r], "</p>\n");
            }
}

void report_html(FILE *o, const px_story *s) { report_html_judged(o, s, NULL); }

void report_html_judged(FILE *o, const px_story *s, const px_judgement *j)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
          o);
    tag_text(o, "<title>parity report: ", s->task, "</title>\n");
    fprintf(o, "<style>%s%s%s</style>\n</head>\n<body>\n", css, s->generate ? gen_css : "",
            any_search(s, j) ? embed_css : "");
    tag_text(o, "<h1>parity report: ", s->task, "</h1>\n");
    fprintf(o, "<p class=\"verdict %s\">%s ", s->met > 0 ? "met" : s->met == 0 ? "unmet" : "ne",
            s->met > 0 ? "✓" : s->met == 0 ? "✗" : "–");
    h(o, s->verdict);
    fputs("</p>\n<p>Fixture <code>", o);
    h(o, s->fixture);
    fprintf(o, "</code> (sha256 %.12s…); made by ", s->fixture_sha256);
    h(o, s->generated);
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
    fputs("<h2 id=\"outcomes\">What the outcomes mean</h2>\n<table><thead><tr><th>Outcome</th><th>Meaning</th>"
          "</tr></thead><tbody>\n",
          o);
    for (int k = 0; k < PX_OC_COUNT; k++) {
        tag_text(o, "<tr><td>", outcome_name((px_outcome)k), "</td>");
        tag_text(o, "<td>", outcome_meaning((px_outcome)k), "</td></tr>\n");
    }
    fputs("</tbody></table>\n</body>\n</html>\n", o);
}
