#define _GNU_SOURCE /* open_memstream, strndup */
#include "parity/splice.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "parity/decision.h"
#include "parity/emit.h"
#include "parity/strmap.h"
#include "parity/ydoc.h"

/* The document is read once, as libyaml events, onto a tape: one record per
 * node (scalar, alias, collection start) in document order, scalar values
 * and anchor and tag names copied into one arena. The tape is the document
 * tree laid flat: a collection's children follow its record, up to the
 * record its link gives (the first one past it); its end event gives only
 * its end mark. An alias links to the record its anchor names.
 * Locating the edit walks the tape; verifying the result parses the new
 * text once and compares its events with the tape in step. No libyaml
 * document is built (that costs a second copy of every value and a node per
 * event), and the reading is refused in time linear in the input as
 * ydoc_load refuses it: nesting deeper than PX_YAML_MAX_DEPTH, an anchor
 * defined twice, an alias to no anchor defined before it, a second document
 * or none, all through a hashed anchor table. */
enum { R_SCALAR, R_ALIAS, R_SEQ, R_MAP };
enum { P_ANCHOR = 1, P_TAG = 2, P_SEEN = 4, P_SEEN_INDENT = 8 };
#define NONE ((size_t)-1)

typedef struct rec {
    size_t start, end; /* mark.index (characters) of the start, and the end (a collection's: its end event's) */
    size_t val;        /* arena: [anchor NUL][tag NUL] value NUL; an alias's anchor name */
    union {
        size_t len;    /* a scalar's value length */
        size_t link;   /* a collection: the record past its last child; an alias: the anchored record */
    };
    uint32_t line, col; /* of the start, 0-based (past 2^32 - 1: that) */
    unsigned char type, style, props;
} rec;

typedef struct tape {
    rec *r;
    size_t n, cap;
    char *arena;
    size_t used, acap;
    size_t stack[PX_YAML_MAX_DEPTH]; /* open collections */
    int depth;
    int documents, open;
    px_strmap *anchors; /* name -> record */
    char **names;       /* the names, owned (the map borrows them) */
    size_t n_names, cap_names;
} tape;

static void tape_free(tape *t)
{
    free(t->r);
    free(t->arena);
    for (size_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    strmap_free(t->anchors);
    memset(t, 0, sizeof *t);
}

static int tape_init(tape *t, size_t text_len)
{
    memset(t, 0, sizeof *t);
    t->cap = text_len / 8 + 16; /* about one event in 10 bytes of a fixture */
    t->acap = text_len + 64;
    t->r = malloc(t->cap * sizeof *t->r);
    t->arena = malloc(t->acap);
    t->anchors = strmap_new(16);
    if (!t->r || !t->arena || !t->anchors) {
        tape_free(t);
        return -1;
    }
    return 0;
}

static size_t arena_put(tape *t, const void *s, size_t n)
{
    if (t->used + n + 1 > t->acap) {
        size_t cap = (t->used + n + 1) * 2;
        char *a = realloc(t->arena, cap);
        if (!a)
            return NONE;
        t->arena = a, t->acap = cap;
    }
    size_t at = t->used;
    memcpy(t->arena + at, s, n);
    t->arena[at + n] = '\0';
    t->used += n + 1;
    return at;
}

static int remember_name(char ***names, size_t *n, size_t *cap, char *name)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        char **v = realloc(*names, c * sizeof *v);
        if (!v)
            return -1;
        *names = v, *cap = c;
    }
    (*names)[(*n)++] = name;
    return 0;
}

static const char *rec_anchor(const tape *t, const rec *r)
{
    return r->props & P_ANCHOR ? t->arena + r->val : NULL;
}

static const char *rec_tag(const tape *t, const rec *r)
{
    const char *s = t->arena + r->val;
    if (!(r->props & P_TAG))
        return NULL;
    return r->props & P_ANCHOR ? s + strlen(s) + 1 : s;
}

static const char *rec_value(const tape *t, const rec *r)
{
    const char *s = t->arena + r->val;
    if (r->props & P_ANCHOR)
        s += strlen(s) + 1;
    if (r->props & P_TAG)
        s += strlen(s) + 1;
    return s;
}

/* Where the event's node lies: its span in characters, and its start's
 * line and column (past 2^32 - 1: that). */
static void rec_place(rec *r, const yaml_event_t *e)
{
    r->start = e->start_mark.index, r->end = e->end_mark.index;
    r->line = e->start_mark.line < UINT32_MAX ? (uint32_t)e->start_mark.line : UINT32_MAX;
    r->col = e->start_mark.column < UINT32_MAX ? (uint32_t)e->start_mark.column : UINT32_MAX;
}

/* The common case, taken first: a scalar with no anchor or tag, in a
 * collection, with room on the tape and in the arena. */
static int is_plain_scalar(const tape *t, const yaml_event_t *e)
{
    return e->type == YAML_SCALAR_EVENT && !e->data.scalar.anchor && !e->data.scalar.tag && t->open && t->depth &&
           t->n < t->cap && t->used + e->data.scalar.length < t->acap;
}

static void tape_add_plain(tape *t, const yaml_event_t *e)
{
    rec *r = &t->r[t->n++];
    r->type = R_SCALAR, r->style = (unsigned char)e->data.scalar.style, r->props = 0;
    rec_place(r, e);
    r->val = t->used, r->len = e->data.scalar.length;
    memcpy(t->arena + t->used, e->data.scalar.value, r->len);
    t->arena[t->used + r->len] = '\0';
    t->used += r->len + 1;
}

/* A collection's end: its record learns where its children end. */
static int tape_close(tape *t, const yaml_event_t *e)
{
    if (t->depth == 0)
        return -1;
    t->r[t->stack[--t->depth]].link = t->n;
    t->r[t->stack[t->depth]].end = e->end_mark.index;
    return 0;
}

/* An alias, record i: it links to the record its anchor names, which must
 * come before it. */
static int tape_alias(tape *t, size_t i, const yaml_event_t *e)
{
    long to = strmap_get(t->anchors, (const char *)e->data.alias.anchor);
    if (to < 0)
        return -1;
    t->r[i].link = (size_t)to;
    if (arena_put(t, e->data.alias.anchor, strlen((const char *)e->data.alias.anchor)) == NONE)
        return -2;
    t->n++;
    return 0;
}

/* Record i's anchor (named once in the anchor table) and tag, into the
 * arena before its value. */
static int tape_props(tape *t, size_t i, const yaml_char_t *anchor, const yaml_char_t *tag)
{
    if (anchor) {
        char *name = strdup((const char *)anchor);
        if (!name || remember_name(&t->names, &t->n_names, &t->cap_names, name)) {
            free(name);
            return -2;
        }
        int rc = strmap_put(t->anchors, name, (long)i, NULL);
        if (rc)
            return rc < 0 ? -2 : -1; /* defined twice */
        if (arena_put(t, anchor, strlen((const char *)anchor)) == NONE)
            return -2;
        t->r[i].props |= P_ANCHOR;
    }
    if (tag) {
        if (arena_put(t, tag, strlen((const char *)tag)) == NONE)
            return -2;
        t->r[i].props |= P_TAG;
    }
    return 0;
}

/* A node's first event (scalar, alias, collection start) as record
 * type, with its anchor, tag and style. */
static int tape_node(tape *t, const yaml_event_t *e, unsigned char type, const yaml_char_t *anchor,
                     const yaml_char_t *tag, unsigned char style)
{
    if (!t->open)
        return -1;
    if (t->n == t->cap) {
        size_t cap = t->cap * 2;
        rec *v = realloc(t->r, cap * sizeof *v);
        if (!v)
            return -2;
        t->r = v, t->cap = cap;
    }
    size_t i = t->n;
    rec *r = &t->r[i];
    r->type = type, r->style = style, r->props = 0;
    rec_place(r, e);
    r->link = NONE, r->val = t->used;
    if (t->n && t->depth == 0)
        return -1; /* a second root: not from libyaml */
    if (type == R_ALIAS)
        return tape_alias(t, i, e);
    int rc = tape_props(t, i, anchor, tag);
    if (rc)
        return rc;
    if (type == R_SCALAR) {
        r->len = e->data.scalar.length;
        if (arena_put(t, e->data.scalar.value, r->len) == NONE)
            return -2;
    } else {
        if (t->depth == PX_YAML_MAX_DEPTH)
            return -1;
        t->stack[t->depth++] = i;
    }
    t->n++;
    return 0;
}

/* One event onto the tape: 0, or -1 refused (what the text is not), -2 out
 * of memory. Stream and document events only count documents. */
static int tape_add(tape *t, const yaml_event_t *e)
{
    if (is_plain_scalar(t, e)) {
        tape_add_plain(t, e);
        return 0;
    }
    switch (e->type) {
    case YAML_DOCUMENT_START_EVENT:
        t->open = 1;
        return t->documents++ ? -1 : 0;
    case YAML_DOCUMENT_END_EVENT:
        t->open = 0;
        return 0;
    case YAML_SCALAR_EVENT:
        return tape_node(t, e, R_SCALAR, e->data.scalar.anchor, e->data.scalar.tag,
                         (unsigned char)e->data.scalar.style);
    case YAML_SEQUENCE_START_EVENT:
        return tape_node(t, e, R_SEQ, e->data.sequence_start.anchor, e->data.sequence_start.tag,
                         (unsigned char)e->data.sequence_start.style);
    case YAML_MAPPING_START_EVENT:
        return tape_node(t, e, R_MAP, e->data.mapping_start.anchor, e->data.mapping_start.tag,
                         (unsigned char)e->data.mapping_start.style);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return tape_close(t, e);
    case YAML_ALIAS_EVENT:
        return tape_node(t, e, R_ALIAS, NULL, NULL, 0);
    default:
        return 0;
    }
}

/* The whole text onto the tape: 0, -1 not a document this program reads,
 * -2 out of memory. */
static int tape_read(tape *t, const char *text, size_t len)
{
    if (tape_init(t, len))
        return -2;
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    yaml_event_t e;
    int rc = 0;
    for (;;) {
        if (!yaml_parser_parse(&p, &e)) {
            rc = p.error == YAML_MEMORY_ERROR ? -2 : -1;
            break;
        }
        if (e.type == YAML_STREAM_END_EVENT || e.type == YAML_NO_EVENT) {
            yaml_event_delete(&e);
            break;
        }
        rc = tape_add(t, &e);
        yaml_event_delete(&e);
        if (rc)
            break;
    }
    yaml_parser_delete(&p);
    if (!rc && (t->n == 0 || t->depth))
        rc = -1; /* no document, or no root */
    return rc;
}

/* The record after node i and everything in it. */
static size_t after(const tape *t, size_t i)
{
    return t->r[i].type == R_SEQ || t->r[i].type == R_MAP ? t->r[i].link : i + 1;
}

/* What node i stands for: an alias names a node written elsewhere. */
static size_t res(const tape *t, size_t i) { return t->r[i].type == R_ALIAS ? t->r[i].link : i; }

static int is_scalar(const tape *t, size_t i, const char *s)
{
    const rec *r = &t->r[i];
    return r->type == R_SCALAR && r->len == strlen(s) && !memcmp(rec_value(t, r), s, r->len);
}

/* The key record of the first pair whose key reads `key`, or NONE. */
static size_t map_pair(const tape *t, size_t map, const char *key)
{
    if (map == NONE || t->r[map].type != R_MAP)
        return NONE;
    for (size_t k = map + 1; k < t->r[map].link; k = after(t, after(t, k)))
        if (is_scalar(t, res(t, k), key))
            return k;
    return NONE;
}

static size_t examples_seq(const tape *t)
{
    size_t ex = map_pair(t, 0, "examples");
    size_t seq = ex == NONE ? NONE : res(t, after(t, ex));
    return seq != NONE && t->r[seq].type == R_SEQ ? seq : NONE;
}

/* The example (a mapping) whose id is `id`. An alias in the list stands
 * for the mapping it names; each mapping is looked at once, however many
 * aliases name it. */
static size_t find_example(tape *t, const char *id)
{
    size_t seq = examples_seq(t);
    for (size_t it = seq == NONE ? NONE : seq + 1; seq != NONE && it < t->r[seq].link; it = after(t, it)) {
        size_t m = res(t, it);
        if (t->r[m].type != R_MAP || (t->r[m].props & P_SEEN))
            continue;
        t->r[m].props |= P_SEEN;
        size_t p = map_pair(t, m, "id");
        if (p != NONE && is_scalar(t, res(t, after(t, p)), id))
            return m;
    }
    return NONE;
}

/* The text being edited and its tape. */
typedef struct doc {
    tape t;
    const char *text;
    size_t len;
    size_t start;               /* first byte after a BOM */
    size_t cur_index, cur_byte; /* last converted mark, to walk on from */
} doc;

typedef struct edit {
    size_t start, end; /* bytes replaced */
    char *repl;
    size_t seq;        /* insertions at one offset keep the order they were made */
} edit;

int splice_is_decision(const char *d) { return decision_kind(d) != PX_DEC_NONE; }

/* libyaml marks count characters from after a BOM; a splice needs bytes.
 * Walk from the last converted mark, forwards or back (the marks asked for
 * are few and near each other), not from the start of a large file. The
 * text is valid UTF-8: libyaml read it. */
static size_t at_byte(doc *dc, size_t index)
{
    size_t b = dc->cur_byte, i = dc->cur_index;
    while (i > index) { /* back to an earlier mark, character by character */
        b--;
        while (b > dc->start && ((unsigned char)dc->text[b] & 0xC0) == 0x80)
            b--;
        i--;
    }
    /* Eight bytes at a time while they end before `index`: a character
     * is a byte that is not a continuation byte (10xxxxxx). */
    while (b + 8 < dc->len && ((unsigned char)dc->text[b + 8] & 0xC0) != 0x80) {
        uint64_t x;
        memcpy(&x, dc->text + b, 8);
        uint64_t cont = x & ~(x << 1) & 0x8080808080808080ull;
        size_t chars = 8 - (size_t)(((cont >> 7) * 0x0101010101010101ull) >> 56);
        if (i + chars > index)
            break;
        i += chars, b += 8;
    }
    while (i < index && b < dc->len) {
        b++;
        while (b < dc->len && ((unsigned char)dc->text[b] & 0xC0) == 0x80)
            b++;
        i++;
    }
    dc->cur_index = i, dc->cur_byte = b;
    return b;
}

static rec *R(doc *dc, size_t i) { return &dc->t.r[i]; }

static int is_block(doc *dc, size_t i)
{
    const rec *r = R(dc, i);
    return (r->type == R_MAP && r->style == YAML_BLOCK_MAPPING_STYLE) ||
           (r->type == R_SEQ && r->style == YAML_BLOCK_SEQUENCE_STYLE);
}

/* A collection with at least one child. */
static int has_children(doc *dc, size_t i)
{
    return (R(dc, i)->type == R_MAP || R(dc, i)->type == R_SEQ) && R(dc, i)->link > i + 1;
}

/* A block scalar with the keep indicator (|+, >2+) owns its trailing line
 * breaks: they are content, not the gap before the next key. */
static int keeps_breaks(doc *dc, size_t i)
{
    const rec *r = R(dc, i);
    if (r->type != R_SCALAR || (r->style != YAML_LITERAL_SCALAR_STYLE && r->style != YAML_FOLDED_SCALAR_STYLE))
        return 0;
    for (size_t b = at_byte(dc, r->start) + 1;
         b < dc->len && dc->text[b] != ' ' && dc->text[b] != '\n' && dc->text[b] != '\r' && dc->text[b] != '#'; b++)
        if (dc->text[b] == '+')
            return 1;
    return 0;
}

/* The last child of a collection that has one (a mapping's: its last value). */
static size_t last_child(doc *dc, size_t i)
{
    size_t last = NONE;
    for (size_t k = i + 1; k < R(dc, i)->link; k = after(&dc->t, k))
        last = k;
    return last;
}

/* The byte just past a node's own text (an alias's: the '*name'). A block
 * collection's end mark lies at the next token, past blank lines and
 * comments that belong to what follows; a block scalar's end includes its
 * trailing line breaks. */
static size_t content_end(doc *dc, size_t i)
{
    if (is_block(dc, i) && has_children(dc, i))
        return content_end(dc, last_child(dc, i));
    const rec *r = R(dc, i);
    size_t start = at_byte(dc, r->start), end = at_byte(dc, r->end);
    if (r->type == R_ALIAS || keeps_breaks(dc, i))
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

/* New lines (body: each line preceded by a line break) after the node text
 * that ends at `end`: at the end of that line, or, after kept line breaks,
 * at the start of the next one. */
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
 * it: in this mapping, else in any example. Each mapping is looked at once
 * (an alias in the list names one already seen): ask once per tape. */
static int nested_indent(doc *dc, size_t map)
{
    if (R(dc, map)->type != R_MAP || !is_block(dc, map) || (R(dc, map)->props & P_SEEN_INDENT))
        return -1;
    R(dc, map)->props |= P_SEEN_INDENT;
    uint32_t col = R(dc, map)->col;
    for (size_t k = map + 1; k < R(dc, map)->link; k = after(&dc->t, after(&dc->t, k))) {
        size_t v = after(&dc->t, k);
        if (R(dc, v)->type == R_MAP && is_block(dc, v) && has_children(dc, v) && R(dc, v + 1)->col > col)
            return (int)(R(dc, v + 1)->col - col);
    }
    return -1;
}

static int child_indent(doc *dc, size_t map)
{
    int d = nested_indent(dc, map);
    if (d > 0)
        return d;
    size_t seq = examples_seq(&dc->t);
    for (size_t it = seq == NONE ? NONE : seq + 1; seq != NONE && it < R(dc, seq)->link; it = after(&dc->t, it))
        if ((d = nested_indent(dc, res(&dc->t, it))) > 0)
            return d;
    return 2;
}

/* The review record's table (include/parity/decision.h): every loop over
 * a review's fields below walks it, so a new field is written and
 * verified like the others. */
#define fields px_review_keys

static const char *field_value(const px_decision *d, int i) { return review_field(&d->review, i); }

/* review: absent. Add it after the example's last line (block) or before
 * its closing brace (flow). */
static int add_review(doc *dc, size_t ex, const px_decision *d, edit *ed, size_t *n)
{
    const char *nl = newline_of(dc);
    char *s = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&s, &len);
    if (!o)
        return -1;
    int block = is_block(dc, ex);
    int col = (int)R(dc, ex + 1)->col; /* the first key: an example has its id */
    if (block)
        fprintf(o, "%s%*sreview:", nl, col, "");
    else
        fprintf(o, ", review: {");
    int first = 1, indent = block ? col + child_indent(dc, ex) : 0;
    for (int i = 0; i < PX_REVIEW_FIELDS; i++) {
        const char *v = field_value(d, i);
        if (!v)
            continue;
        char *r = render(fields[i], v);
        if (block)
            fprintf(o, "%s%*s%s: %s", nl, indent, "", fields[i], r);
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
    size_t at = at_byte(dc, R(dc, ex)->end) - 1;
    return push(ed, n, at, at, s);
}

static int fail_node(px_error *err, const char *path, const rec *r, const char *fmt, const char *a)
{
    return px_error_set(err, PX_ERR_MALFORMED, path, (int)r->line + 1, (int)r->col + 1, fmt, a);
}

/* review: present as a mapping. Replace the values that are there, add the
 * keys that are not, in the review's own style and indentation. */
static int update_review(doc *dc, const char *path, size_t rv, const px_decision *d, edit *ed, size_t *n,
                         px_error *err)
{
    int block = is_block(dc, rv), empty = !has_children(dc, rv);
    const char *nl = newline_of(dc);
    for (int i = 0; i < PX_REVIEW_FIELDS; i++) {
        const char *v = field_value(d, i);
        if (!v)
            continue;
        size_t p = map_pair(&dc->t, rv, fields[i]);
        if (p != NONE) {
            size_t val = after(&dc->t, p);
            /* An alias (*name) stands for a node written elsewhere, which
             * other places share: never edit through it. */
            if (R(dc, val)->type == R_ALIAS)
                return fail_node(err, path, R(dc, p), "review.%s is an alias; replace it by hand first", fields[i]);
            if (R(dc, val)->type != R_SCALAR)
                return fail_node(err, path, R(dc, val), "review.%s must be a scalar", fields[i]);
            size_t s = at_byte(dc, R(dc, val)->start), e = content_end(dc, val);
            /* An empty value ("note:") has no span: write after "key: ". */
            if (s == e && R(dc, val)->len == 0) {
                size_t colon = at_byte(dc, R(dc, p)->end);
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
            int col = (int)R(dc, rv + 1)->col;
            char ind[256];
            snprintf(ind, sizeof ind, "%*s", col < 200 ? col : 200, "");
            char *body = join(nl, ind, fields[i], ": ", r ? r : "");
            rc = body ? push_after(dc, ed, n, content_end(dc, rv), body) : -1;
            free(body);
        } else {
            size_t at = at_byte(dc, R(dc, rv)->end) - 1; /* the closing brace */
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
static int clear_review(doc *dc, size_t ex, size_t p, edit *ed, size_t *n)
{
    size_t v = after(&dc->t, p);
    size_t ks = at_byte(dc, R(dc, p)->start), ve = content_end(dc, v);
    if (is_block(dc, ex)) {
        size_t s = ks;
        while (s > 0 && dc->text[s - 1] == ' ')
            s--;
        size_t e = keeps_breaks(dc, v) ? ve : line_end(dc, ve);
        e += e < dc->len && dc->text[e] == '\r';
        e += e < dc->len && dc->text[e] == '\n';
        if (s > 0 && dc->text[s - 1] != '\n') {
            /* "- review: ..." : the next key moves up behind the "- ". */
            size_t col = R(dc, p)->col, skip = 0;
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
    /* In text order; at one offset, insertions in the order they were made. */
    if (x->start != y->start)
        return (x->start > y->start) - (x->start < y->start);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One pass: the text between the edits copied once, each edit's text put
 * in its place. */
static char *splice(const char *text, size_t len, edit *ed, size_t n, size_t *out_len)
{
    qsort(ed, n, sizeof *ed, cmp_edit);
    /* Edits must lie inside the text and not overlap; anything else is a bug
     * in locating them, and must not become a memory error. */
    size_t extra = 0;
    for (size_t i = 0; i < n; i++) {
        if (ed[i].start > ed[i].end || ed[i].end > len || (i && ed[i].start < ed[i - 1].end))
            return NULL;
        extra += strlen(ed[i].repl);
    }
    char *out = malloc(len + extra + 1);
    if (!out)
        return NULL;
    size_t o = 0, from = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = strlen(ed[i].repl);
        memcpy(out + o, text + from, ed[i].start - from);
        o += ed[i].start - from;
        memcpy(out + o, ed[i].repl, r);
        o += r;
        from = ed[i].end;
    }
    memcpy(out + o, text + from, len - from);
    o += len - from;
    out[o] = '\0';
    *out_len = o;
    return out;
}

/* Verification parses the new text once and walks its events in step with
 * the old text's tape. Every node must read as before, in order: the same
 * kind, style, anchor and tag, scalars byte for byte, aliases naming the
 * same node. The edited example is the one exception, and only at a key:
 * its old review pair is not expected, and a "review" key in the new text
 * is read instead, once. That review must hold every pair the old one held,
 * in order and reading the same, except the fields this edit writes, which
 * must be scalars reading back exactly as decided (replacing the old field
 * in its place, or added). A clear must leave no review at all. */
#define IN_REVIEW ((long)-3) /* what an anchor defined in a written review field names */

typedef struct walker {
    const tape *old;
    yaml_parser_t p;
    yaml_event_t ev;
    int have, bad, ended;
    const px_decision *d;
    size_t target;               /* the edited example's record */
    size_t skip, skip_end;       /* its old review pair: [skip, skip_end) */
    size_t old_review;           /* the old review's value record, a mapping, or NONE */
    char *got[PX_REVIEW_FIELDS]; /* the new review's written fields */
    size_t got_len[PX_REVIEW_FIELDS];
    int saw_review;
    px_strmap *anchors;          /* anchor name in the new text -> the old record it stands for */
    char **names;                /* the names, owned */
    size_t n_names, cap_names;
    tape *next;                  /* when not NULL: the new text's own tape, for the next edit */
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
    if (!w->have || (w->next && tape_add(w->next, &w->ev))) {
        w->bad = 1;
        return NULL;
    }
    w->ended = w->ev.type == YAML_STREAM_END_EVENT;
    return &w->ev;
}

static const yaml_char_t *anchor_of(const yaml_event_t *e)
{
    return e->type == YAML_SCALAR_EVENT           ? e->data.scalar.anchor
           : e->type == YAML_MAPPING_START_EVENT  ? e->data.mapping_start.anchor
           : e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor
                                                  : NULL;
}

static const yaml_char_t *tag_of(const yaml_event_t *e)
{
    return e->type == YAML_SCALAR_EVENT           ? e->data.scalar.tag
           : e->type == YAML_MAPPING_START_EVENT  ? e->data.mapping_start.tag
           : e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.tag
                                                  : NULL;
}

/* An anchor the new text defines stands for old record `to`: a name
 * defined twice is refused, as in the old text. */
static int remember_anchor(walker *w, const yaml_char_t *anchor, long to)
{
    if (!anchor)
        return 1;
    char *name = strdup((const char *)anchor);
    if (!name || remember_name(&w->names, &w->n_names, &w->cap_names, name)) {
        free(name);
        return 0;
    }
    return strmap_put(w->anchors, name, to, NULL) == 0;
}

static int same_str(const char *a, const yaml_char_t *b)
{
    return (!a && !b) || (a && b && !strcmp(a, (const char *)b));
}

static size_t walk_node(walker *w, size_t i, const yaml_event_t *e);

/* Skip the rest of a node whose first event was just read. Anchors in it
 * name nothing of the old text. */
static int skip_node(walker *w)
{
    int depth = w->ev.type == YAML_MAPPING_START_EVENT || w->ev.type == YAML_SEQUENCE_START_EVENT;
    if (!remember_anchor(w, anchor_of(&w->ev), IN_REVIEW))
        return 0;
    while (depth > 0) {
        yaml_event_t *e = next_event(w);
        if (!e || !remember_anchor(w, anchor_of(e), IN_REVIEW) ||
            (e->type == YAML_ALIAS_EVENT && strmap_get(w->anchors, (const char *)e->data.alias.anchor) == -1))
            return 0;
        if (e->type == YAML_MAPPING_START_EVENT || e->type == YAML_SEQUENCE_START_EVENT)
            depth++;
        else if (e->type == YAML_MAPPING_END_EVENT || e->type == YAML_SEQUENCE_END_EVENT)
            depth--;
    }
    return 1;
}

/* The written field a key event names, or -1. */
static int written_field(const walker *w, const yaml_event_t *e)
{
    if (e->type != YAML_SCALAR_EVENT)
        return -1;
    for (int i = 0; i < PX_REVIEW_FIELDS; i++)
        if (field_value(w->d, i) && e->data.scalar.length == strlen(fields[i]) &&
            !memcmp(e->data.scalar.value, fields[i], e->data.scalar.length))
            return i;
    return -1;
}

/* The new review's value, against the old review (if any). */
static int collect_review(walker *w)
{
    const tape *t = w->old;
    if (w->saw_review++)
        return 0;
    yaml_event_t *e = next_event(w);
    if (!e || e->type != YAML_MAPPING_START_EVENT || !remember_anchor(w, anchor_of(e), IN_REVIEW))
        return 0;
    size_t o = w->old_review == NONE ? NONE : w->old_review + 1;
    size_t o_end = w->old_review == NONE ? NONE : t->r[w->old_review].link;
    while ((e = next_event(w)) && e->type != YAML_MAPPING_END_EVENT) {
        int f = written_field(w, e);
        if (f < 0) {
            /* A pair left as it was. */
            if (o == o_end || !(o = walk_node(w, o, e)) || !(e = next_event(w)) || !(o = walk_node(w, o, e)))
                return 0;
            continue;
        }
        if (o != o_end && is_scalar(t, res(t, o), fields[f]))
            o = after(t, after(t, o)); /* the old field, replaced in its place */
        if (!skip_node(w) || !(e = next_event(w)) || e->type != YAML_SCALAR_EVENT || !skip_node(w))
            return 0;
        free(w->got[f]);
        if (!(w->got[f] = malloc(e->data.scalar.length + 1)))
            return 0;
        memcpy(w->got[f], e->data.scalar.value, e->data.scalar.length);
        w->got_len[f] = e->data.scalar.length;
    }
    return e && o == o_end;
}

static size_t walk_mapping(walker *w, size_t i)
{
    const tape *t = w->old;
    size_t k = i + 1, end = t->r[i].link;
    for (;;) {
        if (i == w->target && k == w->skip)
            k = w->skip_end;
        yaml_event_t *e = next_event(w);
        if (!e)
            return 0;
        if (i == w->target && e->type == YAML_SCALAR_EVENT && e->data.scalar.length == 6 &&
            !memcmp(e->data.scalar.value, "review", 6)) {
            if (!collect_review(w))
                return 0;
            continue;
        }
        if (k == end)
            return e->type == YAML_MAPPING_END_EVENT ? end : 0;
        if (!(k = walk_node(w, k, e)) || !(e = next_event(w)) || !(k = walk_node(w, k, e)))
            return 0;
    }
}

static size_t walk_sequence(walker *w, size_t i)
{
    size_t k = i + 1, end = w->old->r[i].link;
    for (;;) {
        yaml_event_t *e = next_event(w);
        if (!e)
            return 0;
        if (k == end)
            return e->type == YAML_SEQUENCE_END_EVENT ? end : 0;
        if (!(k = walk_node(w, k, e)))
            return 0;
    }
}

/* e is the new node's first event, already read; i the old node's record.
 * The record after the old node, or 0 when they differ. */
static size_t walk_node(walker *w, size_t i, const yaml_event_t *e)
{
    const tape *t = w->old;
    const rec *r = &t->r[i];
    if (r->type == R_SCALAR && !r->props && e->type == YAML_SCALAR_EVENT && !e->data.scalar.anchor &&
        !e->data.scalar.tag) /* the common case */
        return e->data.scalar.length == r->len && e->data.scalar.style == (yaml_scalar_style_t)r->style &&
                       !memcmp(e->data.scalar.value, t->arena + r->val, r->len)
                   ? i + 1
                   : 0;
    if (r->type == R_ALIAS)
        return e->type == YAML_ALIAS_EVENT && strmap_get(w->anchors, (const char *)e->data.alias.anchor) == (long)r->link
                   ? i + 1
                   : 0;
    const yaml_char_t *anchor = anchor_of(e), *tag = tag_of(e);
    if ((r->props & (P_ANCHOR | P_TAG)) || anchor || tag) /* rare */
        if (!same_str(rec_anchor(t, r), anchor) || !same_str(rec_tag(t, r), tag) ||
            !remember_anchor(w, anchor, (long)i))
            return 0;
    switch (r->type) {
    case R_SCALAR:
        return e->type == YAML_SCALAR_EVENT && e->data.scalar.length == r->len &&
                       e->data.scalar.style == (yaml_scalar_style_t)r->style &&
                       !memcmp(e->data.scalar.value, rec_value(t, r), r->len)
                   ? i + 1
                   : 0;
    case R_MAP:
        return e->type == YAML_MAPPING_START_EVENT && e->data.mapping_start.style == (yaml_mapping_style_t)r->style
                   ? walk_mapping(w, i)
                   : 0;
    case R_SEQ:
        return e->type == YAML_SEQUENCE_START_EVENT && e->data.sequence_start.style == (yaml_sequence_style_t)r->style
                   ? walk_sequence(w, i)
                   : 0;
    default:
        return 0;
    }
}

static int walk_document(walker *w)
{
    yaml_event_t *e;
    if (!(e = next_event(w)) || e->type != YAML_STREAM_START_EVENT || !(e = next_event(w)) ||
        e->type != YAML_DOCUMENT_START_EVENT || !(e = next_event(w)))
        return 0;
    return walk_node(w, 0, e) == w->old->n && (e = next_event(w)) && e->type == YAML_DOCUMENT_END_EVENT &&
           (e = next_event(w)) && e->type == YAML_STREAM_END_EVENT;
}

/* The new text reads as the old one everywhere but the example's review,
 * and that review reads back as decided. With `next`, the new text's tape
 * is recorded on the way, for the next decision. */
static int verify(const tape *old, size_t target, size_t review_key, const char *path, const char *text, size_t len,
                  const px_decision *d, tape *next, px_error *err)
{
    walker w;
    memset(&w, 0, sizeof w);
    w.old = old, w.d = d, w.target = target, w.next = next;
    w.skip = review_key;
    w.skip_end = review_key == NONE ? NONE : after(old, after(old, review_key));
    w.old_review = review_key != NONE && old->r[after(old, review_key)].type == R_MAP ? after(old, review_key) : NONE;
    w.anchors = strmap_new(16);
    int ok = w.anchors && (!next || !tape_init(next, len));
    yaml_parser_initialize(&w.p);
    yaml_parser_set_input_string(&w.p, (const unsigned char *)text, len);
    ok = ok && walk_document(&w) && !w.bad;
    int clear = decision_kind(d->review.decision) == PX_DEC_CLEAR;
    ok = ok && (clear ? !w.saw_review : w.saw_review == 1);
    for (int i = 0; ok && !clear && i < PX_REVIEW_FIELDS; i++) {
        const char *want = field_value(d, i);
        ok = !want || (w.got[i] && w.got_len[i] == strlen(want) && !memcmp(w.got[i], want, w.got_len[i]));
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
    if (!ok && next)
        tape_free(next);
    if (!ok)
        return px_error_set(err, PX_ERR_MALFORMED, path, 0, 0,
                            "the edit for '%s' did not verify; nothing written (please report this fixture)", d->id);
    return 0;
}

/* One decision applied to dc's text (its tape read): *out verified. */
static int apply_one(doc *dc, const char *path, const px_decision *d, tape *next, char **out, size_t *out_len,
                     px_error *err)
{
    edit ed[PX_REVIEW_FIELDS];
    size_t n = 0;
    int rc = 0;
    tape *t = &dc->t;
    size_t ex = find_example(t, d->id);
    size_t rp = ex != NONE ? map_pair(t, ex, "review") : NONE;
    size_t rv = rp != NONE ? after(t, rp) : NONE;
    *out = NULL;
    if (ex == NONE)
        rc = px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "no example with id '%s'", d->id);
    else if (decision_kind(d->review.decision) == PX_DEC_CLEAR)
        rc = rp != NONE ? clear_review(dc, ex, rp, ed, &n) : 0;
    else if (rv != NONE && t->r[rv].type == R_ALIAS)
        rc = fail_node(err, path, &t->r[rp], "review of '%s' is an alias; replace it by hand first", d->id);
    else if (rv != NONE && t->r[rv].type != R_MAP)
        rc = fail_node(err, path, &t->r[rv], "review of '%s' must be a mapping (decision, note, by, at)", d->id);
    else
        rc = rv != NONE ? update_review(dc, path, rv, d, ed, &n, err) : add_review(dc, ex, d, ed, &n);
    if (rc == 0 && !(*out = splice(dc->text, dc->len, ed, n, out_len)))
        rc = px_error_set(err, PX_ERR_MALFORMED, path, 0, 0, "cannot place the edit for '%s'; nothing written", d->id);
    for (size_t i = 0; i < n; i++)
        free(ed[i].repl);
    if (rc == 0 && verify(t, ex, rp, path, *out, *out_len, d, next, err)) {
        free(*out);
        *out = NULL;
        rc = -1;
    }
    return rc;
}

static void doc_set(doc *dc, const char *text, size_t len)
{
    dc->text = text, dc->len = len;
    dc->start = dc->cur_byte = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    dc->cur_index = 0;
}

int splice_apply(const char *path, const char *text, size_t len, const px_decision *d, size_t n, char **out,
                   size_t *out_len, px_error *err)
{
    char *cur = NULL; /* the text after the decisions so far (NULL: still `text`) */
    size_t cur_len = len;
    doc dc;
    memset(&dc, 0, sizeof dc);
    for (size_t i = 0; i < n; i++) {
        int rc = 0;
        if (!splice_is_decision(d[i].review.decision))
            rc = px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "decision must be %s, not '%s'", decision_list(1),
                              d[i].review.decision);
        else if (i == 0 && (rc = tape_read(&dc.t, text, len)))
            rc = rc == -2 ? px_error_oom(err, path)
                          : px_error_set(err, PX_ERR_MALFORMED, path, 0, 0, "not a YAML fixture this program can edit");
        if (rc) {
            tape_free(&dc.t);
            free(cur);
            return -1;
        }
        doc_set(&dc, cur ? cur : text, cur_len);
        /* The check of this edit reads the new text: its tape serves the
         * next decision, so each decision costs one parse, and the first
         * one more. */
        tape next;
        memset(&next, 0, sizeof next);
        char *o = NULL;
        size_t o_len = 0;
        rc = apply_one(&dc, path, &d[i], i + 1 < n ? &next : NULL, &o, &o_len, err);
        tape_free(&dc.t);
        free(cur);
        if (rc) {
            tape_free(&next);
            return -1;
        }
        cur = o, cur_len = o_len;
        dc.t = next;
    }
    if (!cur) {
        if (!(cur = malloc(len + 1)))
            return px_error_oom(err, path);
        memcpy(cur, text, len);
        cur[len] = '\0';
    }
    *out = cur;
    *out_len = cur_len;
    return 0;
}

int splice_verify(const char *path, const char *old, size_t old_len, const char *new_text, size_t new_len,
                    const px_decision *d, px_error *err)
{
    if (!splice_is_decision(d->review.decision))
        return px_error_set(err, PX_ERR_USAGE, NULL, 0, 0, "decision must be %s, not '%s'", decision_list(1),
                            d->review.decision);
    tape t;
    int rc = tape_read(&t, old, old_len);
    if (rc) {
        tape_free(&t);
        return rc == -2 ? px_error_oom(err, path)
                        : px_error_set(err, PX_ERR_MALFORMED, path, 0, 0, "not a YAML fixture this program can edit");
    }
    size_t ex = find_example(&t, d->id);
    if (ex == NONE)
        rc = px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "no example with id '%s'", d->id);
    else
        rc = verify(&t, ex, map_pair(&t, ex, "review"), path, new_text, new_len, d, NULL, err);
    tape_free(&t);
    return rc;
}
