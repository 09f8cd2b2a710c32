#define _GNU_SOURCE /* open_memstream, strndup */
#include "parity/yamledit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "parity/decision.h"
#include "parity/emit.h"
#include "parity/strmap.h"
#include "parity/ydoc.h"

typedef struct doc {
    yaml_document_t d;
    int loaded;
    const char *text;
    size_t len;
    size_t start;          /* first byte after a BOM */
    size_t cur_index, cur_byte; /* last converted mark, to walk on from */
} doc;

typedef struct edit {
    size_t start, end; /* bytes replaced */
    char *repl;
    size_t seq;        /* insertions at one offset keep the order they were made */
} edit;

int yamledit_is_decision(const char *d) { return decision_kind(d) != PX_DEC_NONE; }

static int doc_open(doc *dc, const char *text, size_t len)
{
    memset(dc, 0, sizeof *dc);
    dc->text = text, dc->len = len;
    dc->start = dc->cur_byte = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    px_error ignored;
    dc->loaded = ydoc_load("", text, len, "fixture", &dc->d, &ignored) == 0;
    return dc->loaded ? 0 : -1;
}

static void doc_close(doc *dc)
{
    if (dc->loaded)
        yaml_document_delete(&dc->d);
}

/* libyaml marks count characters from after a BOM; a splice needs bytes.
 * Walk from the last converted mark (the marks asked for are few and near
 * each other), not from the start of a large file. */
static size_t at_byte(doc *dc, size_t index)
{
    if (index < dc->cur_index)
        dc->cur_index = 0, dc->cur_byte = dc->start;
    size_t b = dc->cur_byte, i = dc->cur_index;
    while (i < index && b < dc->len) {
        b++;
        while (b < dc->len && ((unsigned char)dc->text[b] & 0xC0) == 0x80)
            b++;
        i++;
    }
    dc->cur_index = i, dc->cur_byte = b;
    return b;
}
static yaml_node_t *node(doc *dc, int id) { return yaml_document_get_node(&dc->d, id); }

static int is_scalar(const yaml_node_t *n, const char *s)
{
    return n && n->type == YAML_SCALAR_NODE && !strcmp((const char *)n->data.scalar.value, s);
}

static yaml_node_pair_t *map_pair(doc *dc, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++)
        if (is_scalar(node(dc, p->key), key))
            return p;
    return NULL;
}

static yaml_node_t *find_example(doc *dc, const char *id)
{
    yaml_node_pair_t *ex = map_pair(dc, yaml_document_get_root_node(&dc->d), "examples");
    yaml_node_t *seq = ex ? node(dc, ex->value) : NULL;
    if (!seq || seq->type != YAML_SEQUENCE_NODE)
        return NULL;
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
        yaml_node_t *m = node(dc, *it);
        yaml_node_pair_t *p = map_pair(dc, m, "id");
        if (p && is_scalar(node(dc, p->value), id))
            return m;
    }
    return NULL;
}

static int is_block(const yaml_node_t *n)
{
    return (n->type == YAML_MAPPING_NODE && n->data.mapping.style == YAML_BLOCK_MAPPING_STYLE) ||
           (n->type == YAML_SEQUENCE_NODE && n->data.sequence.style == YAML_BLOCK_SEQUENCE_STYLE);
}

/* A block scalar with the keep indicator (|+, >2+) owns its trailing line
 * breaks: they are content, not the gap before the next key. */
static int keeps_breaks(doc *dc, const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE ||
        (n->data.scalar.style != YAML_LITERAL_SCALAR_STYLE && n->data.scalar.style != YAML_FOLDED_SCALAR_STYLE))
        return 0;
    for (size_t b = at_byte(dc, n->start_mark.index) + 1; b < dc->len && dc->text[b] != ' ' &&
                                                          dc->text[b] != '\n' && dc->text[b] != '\r' && dc->text[b] != '#';
         b++)
        if (dc->text[b] == '+')
            return 1;
    return 0;
}

/* The tree gives an alias (*name) as the node it names, written elsewhere;
 * its own text is the '*name' after the key. */
static int is_alias(const yaml_node_t *key, const yaml_node_t *val)
{
    return val->start_mark.index < key->end_mark.index;
}

static size_t alias_end(doc *dc, size_t from)
{
    size_t b = from;
    while (b < dc->len && dc->text[b] != '*')
        b++;
    for (b++; b < dc->len && !strchr(" \t\r\n,]}#", dc->text[b]); b++)
        ;
    return b;
}

static size_t content_end(doc *dc, yaml_node_t *n);

static size_t pair_end(doc *dc, yaml_node_pair_t *p)
{
    yaml_node_t *k = node(dc, p->key), *v = node(dc, p->value);
    return is_alias(k, v) ? alias_end(dc, at_byte(dc, k->end_mark.index)) : content_end(dc, v);
}

/* The byte just past a node's own text. A block collection's end mark lies
 * at the next token, past blank lines and comments that belong to what
 * follows; a block scalar's end includes its trailing line breaks. */
static size_t content_end(doc *dc, yaml_node_t *n)
{
    if (n->type == YAML_MAPPING_NODE && is_block(n) && n->data.mapping.pairs.top > n->data.mapping.pairs.start)
        return pair_end(dc, n->data.mapping.pairs.top - 1);
    if (n->type == YAML_SEQUENCE_NODE && is_block(n) && n->data.sequence.items.top > n->data.sequence.items.start)
        return content_end(dc, node(dc, n->data.sequence.items.top[-1]));
    size_t end = at_byte(dc, n->end_mark.index), start = at_byte(dc, n->start_mark.index);
    if (keeps_breaks(dc, n))
        return end;
    while (end > start && (dc->text[end - 1] == '\n' || dc->text[end - 1] == '\r'))
        end--;
    return end;
}

/* Where the line holding byte `off` ends (before its line break). */
static size_t line_end(const doc *dc, size_t off)
{
    while (off < dc->len && dc->text[off] != '\n' && dc->text[off] != '\r')
        off++;
    return off;
}

static const char *newline_of(const doc *dc)
{
    const char *nl = memchr(dc->text, '\n', dc->len);
    return nl && nl > dc->text && nl[-1] == '\r' ? "\r\n" : "\n";
}

/* A value as it will be written: decision words plain, everything else
 * double-quoted with every special character escaped, so any note (quotes,
 * colons, '#', newlines, emoji, control characters) reads back as given. */
static char *render(const char *key, const char *value)
{
    if (!strcmp(key, "decision"))
        return strdup(value);
    char *s = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&s, &n);
    if (!o)
        return NULL;
    emit_yaml_string(o, value);
    fclose(o);
    return s;
}

static char *join(const char *a, const char *b, const char *c, const char *d, const char *e)
{
    char *s = NULL;
    if (asprintf(&s, "%s%s%s%s%s", a, b, c, d, e) < 0)
        return NULL;
    return s;
}

static int push(edit *ed, size_t *n, size_t start, size_t end, char *repl)
{
    if (!repl)
        return -1;
    ed[*n].start = start, ed[*n].end = end, ed[*n].repl = repl, ed[*n].seq = *n;
    (*n)++;
    return 0;
}

static int push_after(doc *dc, edit *ed, size_t *n, size_t end, const char *body)
{
    const char *nl = newline_of(dc);
    if (end > 0 && dc->text[end - 1] == '\n') {
        /* "\nA\nB" becomes "A\nB\n" at the start of the next line. */
        return push(ed, n, end, end, join(body + strlen(nl), nl, "", "", ""));
    }
    size_t at = line_end(dc, end);
    return push(ed, n, at, at, strdup(body));
}

/* Spaces a nested block mapping is indented by, as the file already does
 * it: in this mapping, else in any example. */
static int nested_indent(doc *dc, yaml_node_t *map)
{
    if (map->type != YAML_MAPPING_NODE || !is_block(map))
        return -1;
    int col = (int)map->start_mark.column;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *v = node(dc, p->value);
        if (!is_alias(node(dc, p->key), v) && v->type == YAML_MAPPING_NODE && is_block(v) &&
            v->data.mapping.pairs.top > v->data.mapping.pairs.start) {
            int d = (int)node(dc, v->data.mapping.pairs.start->key)->start_mark.column - col;
            if (d > 0)
                return d;
        }
    }
    return -1;
}

static int child_indent(doc *dc, yaml_node_t *map)
{
    int d = nested_indent(dc, map);
    if (d > 0)
        return d;
    yaml_node_pair_t *ex = map_pair(dc, yaml_document_get_root_node(&dc->d), "examples");
    yaml_node_t *seq = ex ? node(dc, ex->value) : NULL;
    for (yaml_node_item_t *it = seq && seq->type == YAML_SEQUENCE_NODE ? seq->data.sequence.items.start : NULL;
         it && it < seq->data.sequence.items.top; it++)
        if ((d = nested_indent(dc, node(dc, *it))) > 0)
            return d;
    return 2;
}

/* New lines (body: each line preceded by a line break) after the node text
 * that ends at `end`: at the end of that line, or, after kept line breaks,
 * at the start of the next one. */
static int push_after(doc *dc, edit *ed, size_t *n, size_t end, const char *body);

const char *const px_review_keys[PX_REVIEW_FIELDS] = {"decision", "note",    "by",  "at",
                                                       "note_by",  "note_at", "env", "results_sha256"};
#define fields px_review_keys

const char *decision_field(const px_decision *d, int i)
{
    const char *v[PX_REVIEW_FIELDS] = {d->decision, d->note, d->by, d->at, d->note_by, d->note_at, d->env, d->results};
    return i >= 0 && i < PX_REVIEW_FIELDS ? v[i] : NULL;
}
#define field_value decision_field

/* review: absent. Add it after the example's last line (block) or before
 * its closing brace (flow). */
static int add_review(doc *dc, yaml_node_t *ex, const px_decision *d, edit *ed, size_t *n)
{
    const char *nl = newline_of(dc);
    char *s = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&s, &len);
    if (!o)
        return -1;
    int block = is_block(ex);
    int col = (int)node(dc, ex->data.mapping.pairs.start->key)->start_mark.column;
    if (block)
        fprintf(o, "%s%*sreview:", nl, col, "");
    else
        fprintf(o, ", review: {");
    int first = 1;
    for (int i = 0; i < PX_REVIEW_FIELDS; i++) {
        const char *v = field_value(d, i);
        if (!v)
            continue;
        char *r = render(fields[i], v);
        if (block)
            fprintf(o, "%s%*s%s: %s", nl, col + child_indent(dc, ex), "", fields[i], r);
        else
            fprintf(o, "%s%s: %s", first ? "" : ", ", fields[i], r);
        first = 0;
        free(r);
    }
    if (!block)
        fputc('}', o);
    fclose(o);
    if (block) {
        int rc = push_after(dc, ed, n, content_end(dc, ex), s);
        free(s);
        return rc;
    }
    size_t at = at_byte(dc, ex->end_mark.index) - 1;
    return push(ed, n, at, at, s);
}

static int fail_node(px_error *err, const char *path, const yaml_node_t *n, const char *fmt, const char *a)
{
    return px_error_set(err, PX_ERR_MALFORMED, path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, fmt, a);
}

/* review: present as a mapping. Replace the values that are there, add the
 * keys that are not, in the review's own style and indentation. */
static int update_review(doc *dc, const char *path, yaml_node_t *rv, const px_decision *d, edit *ed, size_t *n,
                         px_error *err)
{
    int block = is_block(rv), empty = rv->data.mapping.pairs.top == rv->data.mapping.pairs.start;
    const char *nl = newline_of(dc);
    for (int i = 0; i < PX_REVIEW_FIELDS; i++) {
        const char *v = field_value(d, i);
        if (!v)
            continue;
        yaml_node_pair_t *p = map_pair(dc, rv, fields[i]);
        if (p) {
            yaml_node_t *val = node(dc, p->value), *key = node(dc, p->key);
            /* An alias (*name) stands for a node written elsewhere, which
             * other places share: never edit through it. */
            if (val->start_mark.index < key->end_mark.index)
                return fail_node(err, path, key, "review.%s is an alias; replace it by hand first", fields[i]);
            if (val->type != YAML_SCALAR_NODE)
                return fail_node(err, path, val, "review.%s must be a scalar", fields[i]);
            size_t s = at_byte(dc, val->start_mark.index), e = content_end(dc, val);
            /* An empty value ("note:") has no span: write after "key: ". */
            if (s == e && val->data.scalar.length == 0) {
                size_t colon = at_byte(dc, node(dc, p->key)->end_mark.index);
                while (colon < dc->len && dc->text[colon] != ':')
                    colon++;
                char *r = render(fields[i], v);
                int rc = push(ed, n, colon + 1, colon + 1, join(" ", r ? r : "", "", "", ""));
                free(r);
                if (rc)
                    return -1;
                continue;
            }
            if (push(ed, n, s, e, render(fields[i], v)))
                return -1;
            continue;
        }
        char *r = render(fields[i], v);
        int rc;
        if (block && !empty) {
            int col = (int)node(dc, rv->data.mapping.pairs.start->key)->start_mark.column;
            char ind[256];
            snprintf(ind, sizeof ind, "%*s", col < 200 ? col : 200, "");
            char *body = join(nl, ind, fields[i], ": ", r ? r : "");
            rc = body ? push_after(dc, ed, n, content_end(dc, rv), body) : -1;
            free(body);
        } else {
            size_t at = at_byte(dc, rv->end_mark.index) - 1; /* the closing brace */
            rc = push(ed, n, at, at, join(empty ? "" : ", ", fields[i], ": ", r ? r : "", ""));
            empty = 0;
        }
        free(r);
        if (rc)
            return -1;
    }
    return 0;
}

/* clear: the review entry goes, whole lines in block style, the pair in
 * flow style. */
static int clear_review(doc *dc, yaml_node_t *ex, yaml_node_pair_t *p, edit *ed, size_t *n)
{
    yaml_node_t *k = node(dc, p->key), *v = node(dc, p->value);
    size_t ks = at_byte(dc, k->start_mark.index), ve = pair_end(dc, p);
    if (is_block(ex)) {
        size_t s = ks;
        while (s > 0 && dc->text[s - 1] == ' ')
            s--;
        size_t e = keeps_breaks(dc, v) ? ve : line_end(dc, ve);
        e += e < dc->len && dc->text[e] == '\r';
        e += e < dc->len && dc->text[e] == '\n';
        if (s > 0 && dc->text[s - 1] != '\n') {
            /* "- review: ..." : the next key moves up behind the "- ". */
            size_t col = k->start_mark.column, skip = 0;
            while (skip < col && e + skip < dc->len && dc->text[e + skip] == ' ')
                skip++;
            return push(ed, n, ks, e + skip, strdup(""));
        }
        if (e == dc->len && !(e > 0 && dc->text[e - 1] == '\n') && s > 0) {
            /* The last line of a file without a final newline: take the
             * break before it instead. */
            s -= 1 + (s > 1 && dc->text[s - 2] == '\r');
        }
        return push(ed, n, s, e, strdup(""));
    }
    /* Flow: take the comma before the pair, or the one after when first. */
    size_t s = ks, e = ve;
    size_t b = s;
    while (b > 0 && dc->text[b - 1] != ',' && dc->text[b - 1] != '{')
        b--;
    if (b > 0 && dc->text[b - 1] == ',')
        s = b - 1;
    else {
        while (e < dc->len && (dc->text[e] == ' ' || dc->text[e] == ','))
            e++;
    }
    return push(ed, n, s, e, strdup(""));
}

static int cmp_edit(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    /* Last first, so earlier offsets stay valid; at one offset the later
     * insertion goes in first and ends up after the earlier one. */
    if (x->start != y->start)
        return (x->start < y->start) - (x->start > y->start);
    return (x->seq < y->seq) - (x->seq > y->seq);
}

static char *splice(const char *text, size_t len, edit *ed, size_t n, size_t *out_len)
{
    qsort(ed, n, sizeof *ed, cmp_edit);
    /* Edits must lie inside the text and not overlap; anything else is a bug
     * in locating them, and must not become a memory error. */
    for (size_t i = 0; i < n; i++)
        if (ed[i].start > ed[i].end || ed[i].end > len || (i && ed[i].end > ed[i - 1].start))
            return NULL;
    size_t extra = 0;
    for (size_t i = 0; i < n; i++)
        extra += strlen(ed[i].repl);
    char *out = malloc(len + extra + 1), *cur = malloc(len + extra + 1);
    if (!out || !cur) {
        free(out), free(cur);
        return NULL;
    }
    memcpy(cur, text, len);
    size_t cl = len;
    for (size_t i = 0; i < n; i++) {
        size_t r = strlen(ed[i].repl);
        memmove(cur + ed[i].start + r, cur + ed[i].end, cl - ed[i].end);
        memcpy(cur + ed[i].start, ed[i].repl, r);
        cl = cl - (ed[i].end - ed[i].start) + r;
    }
    cur[cl] = '\0';
    free(out);
    *out_len = cl;
    return cur;
}

/* Verification walks the old document's tree and the new text's event
 * stream side by side (one event parse of the new text, no second tree):
 * every node must read the same, in order, except the edited example's
 * review, which is collected instead and must read back as decided. */
typedef struct walker {
    doc *old;
    yaml_parser_t p;
    yaml_event_t ev;
    int have, bad, ended;
    yaml_node_t *target;          /* the edited example in the old tree */
    yaml_node_pair_t *skip;       /* its old review pair */
    char *got[PX_REVIEW_FIELDS];  /* the new review's fields */
    int saw_review;
    px_strmap *anchors;           /* anchor name -> node id in the old tree */
    char **names;                 /* the names, owned */
    size_t n_names;
} walker;

/* The next event, or NULL on a parse error or past the end of the stream:
 * libyaml answers every call after STREAM-END with an empty event and
 * success, so a loop waiting for an end that never comes (a review mapping
 * cut short by a syntax libyaml accepts) would spin for ever. Every loop
 * over events therefore stops on NULL. */
static yaml_event_t *next_event(walker *w)
{
    if (w->have)
        yaml_event_delete(&w->ev);
    w->have = !w->ended && yaml_parser_parse(&w->p, &w->ev);
    if (w->have && w->ev.type == YAML_NO_EVENT) {
        yaml_event_delete(&w->ev);
        w->have = 0;
    }
    if (!w->have) {
        w->bad = 1;
        return NULL;
    }
    w->ended = w->ev.type == YAML_STREAM_END_EVENT;
    return &w->ev;
}

static void remember_anchor(walker *w, const yaml_char_t *anchor, int node_id)
{
    if (!anchor)
        return;
    char **v = realloc(w->names, (w->n_names + 1) * sizeof *v);
    char *name = v ? strdup((const char *)anchor) : NULL;
    if (v)
        w->names = v;
    /* A name defined twice is refused by the loader of the old text, so a
     * second one here means the texts differ. */
    if (!name || strmap_put(w->anchors, name, node_id, NULL)) {
        free(name);
        w->bad = 1;
        return;
    }
    w->names[w->n_names++] = name;
}

static int walk_node(walker *w, int id, const yaml_event_t *e);

/* Skip the rest of a node whose first event was just read. */
static void skip_node(walker *w)
{
    int depth = w->ev.type == YAML_MAPPING_START_EVENT || w->ev.type == YAML_SEQUENCE_START_EVENT;
    while (depth > 0) {
        yaml_event_t *e = next_event(w);
        if (!e)
            return;
        if (e->type == YAML_MAPPING_START_EVENT || e->type == YAML_SEQUENCE_START_EVENT)
            depth++;
        else if (e->type == YAML_MAPPING_END_EVENT || e->type == YAML_SEQUENCE_END_EVENT)
            depth--;
    }
}

/* Consume the new review's value, keeping the scalar fields this edit
 * writes; other keys and values (left as they were) may be anything. */
static void collect_review(walker *w)
{
    yaml_event_t *e = next_event(w);
    if (!e || e->type != YAML_MAPPING_START_EVENT) {
        w->bad = 1;
        return;
    }
    w->saw_review = 1;
    while ((e = next_event(w)) && e->type != YAML_MAPPING_END_EVENT) {
        int f = -1;
        for (int i = 0; e->type == YAML_SCALAR_EVENT && i < PX_REVIEW_FIELDS; i++)
            if (!strcmp((const char *)e->data.scalar.value, fields[i]))
                f = i;
        skip_node(w);
        if (!(e = next_event(w)))
            return;
        if (f >= 0 && e->type == YAML_SCALAR_EVENT) {
            free(w->got[f]);
            w->got[f] = strndup((const char *)e->data.scalar.value, e->data.scalar.length);
        }
        skip_node(w);
    }
    if (!e)
        w->bad = 1;
}

static int walk_mapping(walker *w, yaml_node_t *x)
{
    yaml_node_pair_t *p = x->data.mapping.pairs.start;
    for (;;) {
        if (p == w->skip)
            p++;
        yaml_event_t *e = next_event(w);
        if (!e)
            return 0;
        if (x == w->target && e->type == YAML_SCALAR_EVENT && !strcmp((char *)e->data.scalar.value, "review")) {
            collect_review(w);
            continue;
        }
        if (p >= x->data.mapping.pairs.top)
            return e->type == YAML_MAPPING_END_EVENT;
        if (!walk_node(w, p->key, e) || !(e = next_event(w)) || !walk_node(w, p->value, e))
            return 0;
        p++;
    }
}

static int walk_sequence(walker *w, yaml_node_t *x)
{
    for (yaml_node_item_t *it = x->data.sequence.items.start;; it++) {
        yaml_event_t *e = next_event(w);
        if (!e)
            return 0;
        if (it >= x->data.sequence.items.top)
            return e->type == YAML_SEQUENCE_END_EVENT;
        if (!walk_node(w, *it, e))
            return 0;
    }
}

/* e is the node's first event, already read. */
static int walk_node(walker *w, int id, const yaml_event_t *e)
{
    yaml_node_t *x = node(w->old, id);
    if (e->type == YAML_ALIAS_EVENT)
        return strmap_get(w->anchors, (const char *)e->data.alias.anchor) == id;
    const yaml_char_t *anchor = e->type == YAML_SCALAR_EVENT           ? e->data.scalar.anchor
                                : e->type == YAML_MAPPING_START_EVENT  ? e->data.mapping_start.anchor
                                : e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor
                                                                       : NULL;
    remember_anchor(w, anchor, id);
    if (x->type == YAML_SCALAR_NODE)
        return e->type == YAML_SCALAR_EVENT && e->data.scalar.length == x->data.scalar.length &&
               e->data.scalar.style == x->data.scalar.style &&
               !memcmp(e->data.scalar.value, x->data.scalar.value, x->data.scalar.length);
    if (x->type == YAML_MAPPING_NODE)
        return e->type == YAML_MAPPING_START_EVENT && walk_mapping(w, x);
    return e->type == YAML_SEQUENCE_START_EVENT && walk_sequence(w, x);
}

static int walk_document(walker *w, yaml_node_t *root)
{
    yaml_event_t *e;
    if (!(e = next_event(w)) || e->type != YAML_STREAM_START_EVENT || !(e = next_event(w)) ||
        e->type != YAML_DOCUMENT_START_EVENT || !(e = next_event(w)))
        return 0;
    int root_id = (int)(root - w->old->d.nodes.start) + 1;
    return walk_node(w, root_id, e) && (e = next_event(w)) && e->type == YAML_DOCUMENT_END_EVENT &&
           (e = next_event(w)) && e->type == YAML_STREAM_END_EVENT;
}

/* The new text reads as the old one everywhere but the example's review,
 * and that review reads back as decided. */
static int verify(doc *old, const char *path, const char *text, size_t len, const px_decision *d, px_error *err)
{
    walker w;
    memset(&w, 0, sizeof w);
    w.old = old;
    w.target = find_example(old, d->id);
    w.skip = map_pair(old, w.target, "review");
    w.anchors = strmap_new(16);
    w.bad = !w.anchors;
    yaml_parser_initialize(&w.p);
    yaml_parser_set_input_string(&w.p, (const unsigned char *)text, len);
    int ok = !w.bad && w.target && walk_document(&w, yaml_document_get_root_node(&old->d)) && !w.bad;
    if (ok && decision_kind(d->decision) == PX_DEC_CLEAR)
        ok = !w.saw_review;
    for (int i = 0; ok && decision_kind(d->decision) != PX_DEC_CLEAR && i < PX_REVIEW_FIELDS; i++) {
        const char *want = field_value(d, i);
        ok = !want || (w.got[i] && !strcmp(w.got[i], want));
    }
    if (w.have)
        yaml_event_delete(&w.ev);
    yaml_parser_delete(&w.p);
    for (int i = 0; i < PX_REVIEW_FIELDS; i++)
        free(w.got[i]);
    for (size_t i = 0; i < w.n_names; i++)
        free(w.names[i]);
    free(w.names);
    strmap_free(w.anchors);
    if (!ok)
        return px_error_set(err, PX_ERR_MALFORMED, path, 0, 0,
                            "the edit for '%s' did not verify; nothing written (please report this fixture)", d->id);
    return 0;
}

static int apply_one(const char *path, const char *text, size_t len, const px_decision *d, char **out,
                     size_t *out_len, px_error *err)
{
    doc dc;
    if (doc_open(&dc, text, len)) {
        doc_close(&dc);
        return px_error_set(err, PX_ERR_MALFORMED, path, 0, 0, "not a YAML fixture this program can edit");
    }
    edit ed[8];
    size_t n = 0;
    int rc = 0;
    yaml_node_t *ex = find_example(&dc, d->id);
    yaml_node_pair_t *rp = ex ? map_pair(&dc, ex, "review") : NULL;
    yaml_node_t *rv = rp ? node(&dc, rp->value) : NULL;
    if (!ex || ex->type != YAML_MAPPING_NODE)
        rc = px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "no example with id '%s'", d->id);
    else if (decision_kind(d->decision) == PX_DEC_CLEAR)
        rc = rp ? clear_review(&dc, ex, rp, ed, &n) : 0;
    else if (rv && rv->start_mark.index < node(&dc, rp->key)->end_mark.index)
        rc = fail_node(err, path, node(&dc, rp->key), "review of '%s' is an alias; replace it by hand first", d->id);
    else if (rv && rv->type != YAML_MAPPING_NODE)
        rc = fail_node(err, path, rv, "review of '%s' must be a mapping (decision, note, by, at)", d->id);
    else
        rc = rv ? update_review(&dc, path, rv, d, ed, &n, err) : add_review(&dc, ex, d, ed, &n);
    if (rc == 0 && !(*out = splice(text, len, ed, n, out_len)))
        rc = px_error_set(err, PX_ERR_MALFORMED, path, 0, 0, "cannot place the edit for '%s'; nothing written", d->id);
    for (size_t i = 0; i < n; i++)
        free(ed[i].repl);
    if (rc == 0 && verify(&dc, path, *out, *out_len, d, err)) {
        free(*out);
        *out = NULL;
        rc = -1;
    }
    doc_close(&dc);
    return rc;
}

int yamledit_apply(const char *path, const char *text, size_t len, const px_decision *d, size_t n, char **out,
                   size_t *out_len, px_error *err)
{
    char *cur = malloc(len + 1);
    if (!cur)
        return px_error_oom(err, path);
    memcpy(cur, text, len);
    cur[len] = '\0';
    size_t cur_len = len;
    for (size_t i = 0; i < n; i++) {
        if (!yamledit_is_decision(d[i].decision)) {
            free(cur);
            return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0,
                                "decision must be %s, not '%s'", decision_list(1), d[i].decision);
        }
        char *next = NULL;
        size_t next_len = 0;
        if (apply_one(path, cur, cur_len, &d[i], &next, &next_len, err)) {
            free(cur);
            return -1;
        }
        free(cur);
        cur = next, cur_len = next_len;
    }
    *out = cur;
    *out_len = cur_len;
    return 0;
}
