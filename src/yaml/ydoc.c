#define _POSIX_C_SOURCE 200809L
#include "parity/ydoc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/sbuf.h"
#include "parity/strmap.h"
#include "parity/textcell.h"
#include "parity/utf8.h"

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

yaml_node_t *ydoc_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), key))
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

static int fail(const char *path, const yaml_node_t *n, px_error *err, const char *msg)
{
    return px_error_set(err, PX_ERR_MALFORMED, path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, "%s",
                        msg);
}

const char *ydoc_type_name(yaml_node_type_t t)
{
    switch (t) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

int ydoc_want(const char *path, const yaml_node_t *n, yaml_node_type_t t, const char *what, px_error *err)
{
    if (n->type == t)
        return 0;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s must be %s, not %s", what, ydoc_type_name(t), ydoc_type_name(n->type));
    return fail(path, n, err, msg);
}

int ydoc_is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *s = scalar(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

yaml_node_t *ydoc_require(yaml_document_t *d, const char *path, yaml_node_t *map, const char *key, const char *what,
                          px_error *err)
{
    yaml_node_t *n = ydoc_get(d, map, key);
    if (!n) {
        char msg[512];
        snprintf(msg, sizeof msg, "%.200s: missing required key '%.200s'", what, key);
        fail(path, map, err, msg);
    }
    return n;
}

int ydoc_check_keys(yaml_document_t *d, const char *path, yaml_node_t *map, const char *what,
                    const char *const *allowed, px_error *err)
{
    char msg[1024];
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k->type != YAML_SCALAR_NODE) {
            snprintf(msg, sizeof msg, "%s: keys must be plain names", what);
            return fail(path, k, err, msg);
        }
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            ok |= strcmp(*a, scalar(k)) == 0;
        if (!ok) {
            char list[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, a == allowed ? "" : ", ", sizeof list - strlen(list) - 1);
                strncat(list, *a, sizeof list - strlen(list) - 1);
            }
            snprintf(msg, sizeof msg, "unknown key '%.200s' in %.200s (expected one of: %s)", scalar(k), what, list);
            return fail(path, k, err, msg);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *k2 = yaml_document_get_node(d, q->key);
            if (k2->type == YAML_SCALAR_NODE && !strcmp(scalar(k2), scalar(k))) {
                snprintf(msg, sizeof msg, "duplicate key '%.200s' in %.200s", scalar(k), what);
                return fail(path, k, err, msg);
            }
        }
    }
    return 0;
}

static double max_mb_override;

void ydoc_set_max_mb(double mb) { max_mb_override = mb > 0 ? mb : 0; }

size_t ydoc_max_bytes(const char *kind)
{
    double mb = max_mb_override ? max_mb_override : strstr(kind, "results") ? PX_RESULTS_MAX_MB : PX_FIXTURE_MAX_MB;
    double b = mb * 1024 * 1024;
    return b >= (double)(SIZE_MAX / 2) ? SIZE_MAX / 2 : (size_t)b;
}

/* Line and column (in characters) of byte `off`. */
static void loc_of_offset(const char *data, size_t len, size_t off, int *line, int *col)
{
    *line = 1, *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (data[i] == '\n')
            ++*line, *col = 1;
        else if (((unsigned char)data[i] & 0xC0) != 0x80)
            ++*col;
    }
}

char *ydoc_read(const char *path, const char *kind, size_t *len, px_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read %s: %s", kind, strerror(errno));
        return NULL;
    }
    size_t limit = ydoc_max_bytes(kind), cap = 0, n;
    char *data = NULL;
    *len = 0;
    errno = 0; /* so a read error names its cause (a directory, say) */
    do {
        if (*len + 65536 + 1 > cap) {
            char *d = realloc(data, cap = (*len + 65536) * 2);
            if (!d) {
                free(data), fclose(fp);
                px_error_oom(err, path);
                return NULL;
            }
            data = d;
        }
        n = fread(data + *len, 1, cap - *len - 1, fp);
        *len += n;
    } while (n > 0 && *len <= limit);
    int bad = ferror(fp) ? (errno ? errno : EIO) : 0;
    fclose(fp);
    if (bad) {
        free(data);
        px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read %s: %s", kind, strerror(bad));
        return NULL;
    }
    if (*len > limit) {
        int line, col;
        loc_of_offset(data, *len, limit, &line, &col);
        free(data);
        px_error_set(err, PX_ERR_TOO_LARGE, path, line, col,
                     "a %s of more than %zu bytes (%.4g MiB), here: refused before parsing (--max-size MIB raises the "
                     "limit)",
                     kind, limit, (double)limit / (1024 * 1024));
        return NULL;
    }
    data[*len] = '\0';
    return data;
}

/* ---- YAML's common mistakes in plain words, at the line where they are ---- */

/* Line n (1-based) of data: its start and length (no newline); NULL past
 * the end. */
static const char *line_at(const char *data, size_t len, int n, size_t *out_len)
{
    const char *s = data, *end = data + len;
    for (int i = 1; i < n && s < end; i++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl)
            return NULL;
        s = nl + 1;
    }
    if (s >= end && n > 1)
        return NULL;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    *out_len = (size_t)((nl ? nl : end) - s);
    if (*out_len && s[*out_len - 1] == '\r')
        --*out_len;
    return s;
}

/* Leading spaces of a line; -1 for a blank or comment-only line. */
static int indent_of(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    return i == n || s[i] == '#' ? -1 : (int)i;
}

/* The nearest line before line n (which starts at at) with content: its
 * number, 0 when none; *out and *out_len its text. One backward pass over
 * the bytes before it (never line_at per line: linear in the file). */
static int prev_content(const char *data, const char *at, int n, const char **out, size_t *out_len)
{
    const char *end = at; /* one past the previous line's newline */
    for (int k = n - 1; k >= 1 && end > data; k--) {
        const char *stop = end - 1; /* its newline */
        const char *s = stop;
        while (s > data && s[-1] != '\n')
            s--;
        size_t l = (size_t)(stop - s);
        if (l && s[l - 1] == '\r')
            l--;
        if (indent_of(s, l) >= 0) {
            *out = s, *out_len = l;
            return k;
        }
        end = s;
    }
    return 0;
}

/* Where a line (from its indentation) has its key's colon: the first ": "
 * or ':' ending it, outside quotes and before a comment; -1 when none.
 * "- " items count as the key after them. */
static long key_colon(const char *s, size_t n)
{
    char q = 0;
    for (size_t i = 0; i < n; i++) {
        if (q) {
            q = s[i] == q ? 0 : q;
        } else if (s[i] == '"' || s[i] == '\'') {
            q = s[i];
        } else if (s[i] == '#' && i && s[i - 1] == ' ') {
            return -1;
        } else if (s[i] == ':' && (i + 1 == n || s[i + 1] == ' ')) {
            return (long)i;
        }
    }
    return -1;
}

static int has_key_colon(const char *s, size_t n) { return key_colon(s, n) >= 0; }

/* s[0..n) as a terminal may show it, at most cols columns ("…" when cut). */
static void shown(const char *s, size_t n, int cols, char *out, size_t out_size)
{
    char *safe = textcell_sanitize(s, n);
    if (!safe) {
        snprintf(out, out_size, "%s", "");
        return;
    }
    textcell_fit(safe, cols, out, out_size);
    free(safe);
}

/* A plain value that holds ": " (`text: Note: this is great`): YAML takes
 * the second ": " for a key of its own, and libyaml says "mapping values
 * are not allowed" at it, which the indentation test would word as a
 * mis-indented key. Said as what it is, at the second ": ", with the
 * value quoted. 1 with *err set when it is one. */
static int colon_in_value(const char *path, const char *s, size_t n, int line, int col, px_error *err)
{
    size_t at = 0; /* the problem's byte in the line: col counts characters */
    for (int c = 1; at < n && c < col; at++)
        c += at + 1 < n && ((unsigned char)s[at + 1] & 0xC0) != 0x80;
    int in = indent_of(s, n);
    if (in < 0 || at >= n || s[at] != ':')
        return 0;
    size_t k = (size_t)in;
    if (n - k >= 2 && s[k] == '-' && s[k + 1] == ' ')
        k += 2; /* a list item's key */
    long kc = key_colon(s + k, at - k);
    if (kc < 0)
        return 0; /* the problem's colon is the line's first: a key, mis-indented or not */
    size_t v = k + (size_t)kc + 1, e = n;
    while (v < n && s[v] == ' ')
        v++;
    if (v < n && (s[v] == '"' || s[v] == '\'' || s[v] == '|' || s[v] == '>'))
        return 0; /* quoted already: something else is wrong */
    for (size_t i = at; i + 1 < n; i++)
        if (s[i] == ' ' && s[i + 1] == '#') { /* a comment stays outside the quotes */
            e = i;
            break;
        }
    while (e > v && s[e - 1] == ' ')
        e--;
    /* Double quotes unless the value holds one, or a backslash, which
     * double quotes would read as an escape; single quotes double their own. */
    int dq = !memchr(s + v, '"', e - v) && !memchr(s + v, '\\', e - v);
    px_sbuf q = PX_SBUF_INIT;
    sbuf_addf(&q, "%c", dq ? '"' : '\'');
    for (size_t i = v; i < e; i++)
        sbuf_addf(&q, dq || s[i] != '\'' ? "%c" : "''", s[i]);
    sbuf_addf(&q, "%c", dq ? '"' : '\'');
    char *quoted = sbuf_take(&q), key[256], val[512] = "";
    shown(s + k, (size_t)kc, 40, key, sizeof key);
    if (quoted) { /* a long value cut inside its quotes, which stay */
        size_t ql = strlen(quoted);
        shown(quoted, ql - 1, 64, val, sizeof val - 1);
        strncat(val, quoted + ql - 1, 1);
    }
    free(quoted);
    px_error_set(err, PX_ERR_MALFORMED, path, line, col,
                 "the value of '%s' holds ': ', which YAML reads as a second key: quote the whole value, as %s: %s",
                 key, key, val);
    return 1;
}

/* Text after a quoted value's closing quote (`text: "Note" this`): a
 * quoted value ends at its quote, and libyaml says it "did not find
 * expected key" at the text after it. 1 with *err set when it is that. */
static int after_quote(const char *path, const char *s, size_t n, int line, int col, px_error *err)
{
    size_t at = 0;
    for (int c = 1; at < n && c < col; at++)
        c += at + 1 < n && ((unsigned char)s[at + 1] & 0xC0) != 0x80;
    if (at >= n || s[at] == ' ' || s[at] == '#')
        return 0;
    size_t b = at;
    while (b > 0 && s[b - 1] == ' ')
        b--;
    if (b == 0 || (s[b - 1] != '"' && s[b - 1] != '\''))
        return 0;
    px_error_set(err, PX_ERR_MALFORMED, path, line, col,
                 "text after the closing quote: a quoted value ends at its quote; put the whole value inside the "
                 "quotes (a %c inside %c...%c is written %s)",
                 s[b - 1], s[b - 1], s[b - 1], s[b - 1] == '"' ? "\\\"" : "''");
    return 1;
}

/* A syntax error libyaml words in its terms, said as what to do at the line
 * of the mistake: a tab in the indentation, a key indented unlike its
 * siblings, a key without its colon, a quote or bracket never closed. 1
 * with *err set when it is one of those. */
static int plain_words(const char *path, const yaml_parser_t *p, const char *data, size_t len, px_error *err)
{
    int line = (int)p->problem_mark.line + 1;
    const char *problem = p->problem ? p->problem : "", *context = p->context ? p->context : "";
    int cl = (int)p->context_mark.line + 1, cc = (int)p->context_mark.column + 1;
    size_t n;
    /* A tab in the indentation of the line, or the one before it. */
    for (int k = line; k >= line - 1 && k >= 1; k--) {
        const char *s = line_at(data, len, k, &n);
        for (size_t i = 0; s && i < n && (s[i] == ' ' || s[i] == '\t'); i++)
            if (s[i] == '\t')
                return px_error_set(err, PX_ERR_MALFORMED, path, k, (int)i + 1,
                                    "a tab at %d:%zu: YAML indents with spaces; replace the tab by spaces", k, i + 1);
    }
    if (strstr(context, "quoted scalar"))
        return px_error_set(err, PX_ERR_MALFORMED, path, cl, cc,
                            "a quote opened at %d:%d is never closed: end the text with the same quote on line %d "
                            "(YAML: %s)",
                            cl, cc, cl, problem);
    if (strstr(context, "flow sequence") || strstr(context, "flow mapping")) {
        int seq = strstr(context, "sequence") != NULL;
        return px_error_set(err, PX_ERR_MALFORMED, path, cl, cc,
                            "a '%c' opened at %d:%d is not closed: close it with '%c' (and part its items with ',') "
                            "(YAML: %s at %d:%d)",
                            seq ? '[' : '{', cl, cc, seq ? ']' : '}', problem, line, (int)p->problem_mark.column + 1);
    }
    int mapping_values = !strcmp(problem, "mapping values are not allowed in this context");
    int expected_key = (!strcmp(problem, "did not find expected key") && strstr(context, "block mapping")) ||
                       (!strcmp(problem, "did not find expected '-' indicator") && strstr(context, "block collection"));
    if (!mapping_values && !expected_key)
        return 0;
    const char *s = line_at(data, len, line, &n), *ps = NULL;
    if (s && mapping_values && colon_in_value(path, s, n, line, (int)p->problem_mark.column + 1, err))
        return 1;
    if (s && expected_key && after_quote(path, s, n, line, (int)p->problem_mark.column + 1, err))
        return 1;
    size_t pn = 0;
    int pl = s ? prev_content(data, s, line, &ps, &pn) : 0;
    if (!s || !pl)
        return 0;
    int in = indent_of(s, n), pin = indent_of(ps, pn);
    if (pin >= 0 && pn >= (size_t)pin + 2 && ps[pin] == '-' && ps[pin + 1] == ' ' &&
        has_key_colon(ps + pin + 2, pn - (size_t)pin - 2))
        pin += 2; /* "- id: x": the item's keys stand where id does */
    if (mapping_values && !has_key_colon(ps + pin, pn - (size_t)pin) && pin == in)
        return px_error_set(err, PX_ERR_MALFORMED, path, pl, pin + 1,
                            "no ':' after the key on line %d: write it as 'key: value' (YAML read it and line %d as "
                            "one text)",
                            pl, line);
    if (in >= 0 && pin >= 0 && in != pin)
        return px_error_set(err, PX_ERR_MALFORMED, path, line, in + 1,
                            "this key is indented %d spaces, its siblings %d: indent it as the keys beside it", in,
                            pin);
    return 0;
}

static int parse_error(const char *path, yaml_parser_t *p, const char *data, size_t len, const char *kind,
                       px_error *err)
{
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    if (p->error == YAML_MEMORY_ERROR)
        return px_error_oom(err, path);
    if (p->error == YAML_READER_ERROR) {
        long bad = utf8_invalid_at(data, len);
        loc_of_offset(data, len, bad >= 0 ? (size_t)bad : p->problem_offset, &line, &col);
        if (bad >= 0)
            return px_error_set(err, PX_ERR_MALFORMED, path, line, col, "byte 0x%02X is not UTF-8: a %s must be UTF-8 text",
                                (unsigned char)data[bad], kind);
        return px_error_set(err, PX_ERR_MALFORMED, path, line, col, "%s", p->problem ? p->problem : "bad input");
    }
    const char *problem = p->problem ? p->problem : "syntax error";
    if (data && plain_words(path, p, data, len, err))
        return -1;
    if (p->context)
        return px_error_set(err, PX_ERR_MALFORMED, path, line, col, "YAML: %s (%s started at %d:%d)", problem, p->context,
                            (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
    return px_error_set(err, PX_ERR_MALFORMED, path, line, col, "YAML: %s", problem);
}

/* The document under construction: a stack of open collections (with the
 * key a mapping waits to pair, and the key each collection hangs under) and
 * the anchors seen so far. Nodes are pushed here rather than through
 * yaml_document_add_*, which copies every value and gives every node a
 * malloc'd tag: a scalar's value is taken from its event, and no node has a
 * tag (nothing reads them; yaml_document_delete frees what is there). */
typedef struct builder {
    yaml_document_t *doc;
    int stack[PX_YAML_MAX_DEPTH], pending[PX_YAML_MAX_DEPTH], key_of[PX_YAML_MAX_DEPTH];
    int depth, max_depth; /* max_depth: what is left of PX_YAML_MAX_DEPTH (an item is nested already) */
    px_strmap *anchors;
    char **names; /* the anchor names, owned (the map borrows them) */
    size_t n_names, cap_names;
} builder;

static int fail_mark(const char *path, yaml_mark_t m, px_error *err, const char *fmt, const char *a)
{
    return px_error_set(err, PX_ERR_MALFORMED, path, (int)m.line + 1, (int)m.column + 1, fmt, a);
}

static yaml_node_t *node_of(builder *b, int id) { return b->doc->nodes.start + id - 1; }

/* Grow a libyaml stack (start, end, top) of elements of `size` bytes to
 * hold one more; libyaml frees it with free(). */
static int stack_room(void **start, void **end, void **top, size_t size)
{
    if (*top != *end)
        return 0;
    size_t n = (size_t)((char *)*end - (char *)*start) / size, cap = n ? n * 2 : 4;
    if (n > (size_t)INT32_MAX / 2)
        return -1;
    char *p = realloc(*start, cap * size);
    if (!p)
        return -1;
    *start = p, *top = p + n * size, *end = p + cap * size;
    return 0;
}

#define ROOM(st, size) stack_room((void **)&(st).start, (void **)&(st).end, (void **)&(st).top, size)

/* A node onto the document; its id (1-based), 0 when out of memory. */
static int push_node(yaml_document_t *d, const yaml_node_t *n)
{
    if (ROOM(d->nodes, sizeof *n))
        return 0;
    *d->nodes.top++ = *n;
    return (int)(d->nodes.top - d->nodes.start);
}

/* Hang a finished node (or an alias's target) on the open collection;
 * *key (when not NULL) gets the key it hangs under in a mapping, else 0. */
static int attach(builder *b, int id, int *key_out)
{
    if (key_out)
        *key_out = 0;
    if (b->depth == 0)
        return 0; /* the root: the first node added */
    yaml_node_t *parent = node_of(b, b->stack[b->depth - 1]);
    if (parent->type == YAML_SEQUENCE_NODE) {
        if (ROOM(parent->data.sequence.items, sizeof(yaml_node_item_t)))
            return -1;
        *parent->data.sequence.items.top++ = id;
        return 0;
    }
    int *key = &b->pending[b->depth - 1];
    if (!*key) {
        *key = id;
        return 0;
    }
    if (ROOM(parent->data.mapping.pairs, sizeof(yaml_node_pair_t)))
        return -1;
    *parent->data.mapping.pairs.top++ = (yaml_node_pair_t){*key, id};
    if (key_out)
        *key_out = *key;
    *key = 0;
    return 0;
}

static int remember(builder *b, const yaml_char_t *anchor, int id, yaml_mark_t at, const char *path, px_error *err)
{
    if (!anchor)
        return 0;
    if (b->n_names == b->cap_names) {
        size_t cap = b->cap_names ? b->cap_names * 2 : 16;
        char **v = realloc(b->names, cap * sizeof *v);
        if (!v)
            return px_error_oom(err, path);
        b->names = v, b->cap_names = cap;
    }
    char *name = strdup((const char *)anchor);
    if (!name)
        return px_error_oom(err, path);
    b->names[b->n_names++] = name;
    int rc = strmap_put(b->anchors, name, id, NULL);
    if (rc < 0)
        return px_error_oom(err, path);
    return rc ? fail_mark(path, at, err, "anchor '&%.200s' is defined twice", name) : 0;
}

/* One event into the document (a scalar's value is taken from the event).
 * 1 when the document is complete. */
static int build(builder *b, yaml_event_t *e, const char *path, px_error *err)
{
    int id;
    yaml_node_t n;
    memset(&n, 0, sizeof n);
    n.start_mark = e->start_mark, n.end_mark = e->end_mark;
    switch (e->type) {
    case YAML_SCALAR_EVENT:
        n.type = YAML_SCALAR_NODE;
        n.data.scalar.value = e->data.scalar.value;
        n.data.scalar.length = e->data.scalar.length;
        n.data.scalar.style = e->data.scalar.style;
        if (!(id = push_node(b->doc, &n)))
            return px_error_oom(err, path);
        e->data.scalar.value = NULL; /* the document's now */
        return remember(b, e->data.scalar.anchor, id, e->start_mark, path, err) || attach(b, id, NULL) ? -1 : 0;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        int seq = e->type == YAML_SEQUENCE_START_EVENT;
        if (b->depth == b->max_depth)
            return fail_mark(path, e->start_mark, err, "nesting deeper than %s levels: refused", "64");
        n.type = seq ? YAML_SEQUENCE_NODE : YAML_MAPPING_NODE;
        if (seq)
            n.data.sequence.style = e->data.sequence_start.style;
        else
            n.data.mapping.style = e->data.mapping_start.style;
        if (!(id = push_node(b->doc, &n)))
            return px_error_oom(err, path);
        if (remember(b, seq ? e->data.sequence_start.anchor : e->data.mapping_start.anchor, id, e->start_mark, path,
                     err))
            return -1;
        if (attach(b, id, &b->key_of[b->depth]))
            return px_error_oom(err, path);
        b->stack[b->depth] = id, b->pending[b->depth] = 0;
        b->depth++;
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        node_of(b, b->stack[--b->depth])->end_mark = e->end_mark;
        return b->depth == 0;
    case YAML_ALIAS_EVENT:
        id = (int)strmap_get(b->anchors, (const char *)e->data.alias.anchor);
        if (id < 0)
            return fail_mark(path, e->start_mark, err, "alias '*%.200s' names no anchor defined before it",
                             (const char *)e->data.alias.anchor);
        return attach(b, id, NULL) ? px_error_oom(err, path) : 0;
    default:
        return 0;
    }
}

/* The next event starts an item of a sequence at dv->path. */
static int at_divert(builder *b, const ydoc_divert *dv)
{
    if (!dv)
        return 0;
    int n = 0;
    const char *seg[4];
    for (const char *p = dv->path; p && n < 4; p = strchr(p, '/'), p = p ? p + 1 : NULL)
        seg[n++] = p;
    if (b->depth != n + 1 || node_of(b, b->stack[n])->type != YAML_SEQUENCE_NODE)
        return 0;
    for (int d = 0; d < n; d++) {
        size_t len = strcspn(seg[d], "/");
        if (node_of(b, b->stack[d])->type != YAML_MAPPING_NODE)
            return 0;
        if (len == 1 && seg[d][0] == '*')
            continue;
        const yaml_node_t *k = b->key_of[d + 1] ? node_of(b, b->key_of[d + 1]) : NULL;
        if (!k || k->type != YAML_SCALAR_NODE || k->data.scalar.length != len || memcmp(scalar(k), seg[d], len))
            return 0;
    }
    return 1;
}

static void builder_free(builder *b)
{
    for (size_t i = 0; i < b->n_names; i++)
        free(b->names[i]);
    free(b->names);
    strmap_free(b->anchors);
}

static int doc_init(yaml_document_t *doc)
{
    memset(doc, 0, sizeof *doc);
    return yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1) ? 0 : -1;
}

/* An item being diverted (ydoc_divert): built into a document of its own,
 * then handed over. */
typedef struct diverting {
    const ydoc_divert *dv;
    builder item;
    yaml_document_t doc;
    size_t pos;       /* the position take() was told */
    int in_item;      /* 1: an item is being built into doc */
    int again;        /* the input must be read whole (YDOC_AGAIN) */
    int item_failed;  /* item() said no: its error stands */
} diverting;

/* At the start of an item of the diverted sequence: whether take() takes
 * it (then it is built apart). 0, or -1 with *err or again. */
static int divert_start(diverting *v, builder *b, const yaml_event_t *e, const char *path, px_error *err)
{
    yaml_node_t *at = node_of(b, b->stack[1]); /* the pair of the path's second key */
    v->pos = b->depth > 2 ? (size_t)(at->data.mapping.pairs.top - at->data.mapping.pairs.start) - 1 : 0;
    int take = v->dv->take(v->dv->ctx, b->doc, b->stack[b->depth - 2], b->depth > 2 ? b->key_of[2] : 0, v->pos);
    if (take < 0 || (take && doc_init(&v->doc)))
        return px_error_oom(err, path);
    if (take)
        v->item = (builder){.doc = &v->doc, .max_depth = PX_YAML_MAX_DEPTH - b->depth}, v->in_item = 1;
    else if (e->type == YAML_ALIAS_EVENT)
        return v->again = 1, -1; /* kept items and taken ones are never mixed */
    return 0;
}

/* An event of an item being diverted; a finished item goes to item(). */
static int divert_event(diverting *v, yaml_event_t *e, const char *path, px_error *err)
{
    if (e->type == YAML_ALIAS_EVENT || (e->type == YAML_SCALAR_EVENT && e->data.scalar.anchor) ||
        (e->type == YAML_SEQUENCE_START_EVENT && e->data.sequence_start.anchor) ||
        (e->type == YAML_MAPPING_START_EVENT && e->data.mapping_start.anchor)) {
        /* An anchor or alias could tie the item to the rest of the
         * document: such a file is read whole instead. */
        return v->again = 1, -1;
    }
    int scalar_item = v->item.depth == 0 && e->type == YAML_SCALAR_EVENT;
    int rc = build(&v->item, e, path, err);
    if (rc == 1 || (rc == 0 && scalar_item)) {
        rc = v->dv->item(v->dv->ctx, &v->doc, v->pos, err);
        v->item_failed = rc != 0;
        yaml_document_delete(&v->doc);
        v->in_item = 0;
    }
    return rc;
}

/* An event inside the document: into the document, or into an item
 * diverted from it. */
static int doc_event(builder *b, diverting *v, yaml_event_t *e, const char *path, px_error *err)
{
    if (!v->in_item && at_divert(b, v->dv) && e->type != YAML_SEQUENCE_END_EVENT && divert_start(v, b, e, path, err))
        return -1; /* out of memory, or read whole */
    return v->in_item ? divert_event(v, e, path, err) : build(b, e, path, err);
}

/* The parse shared by ydoc_load and ydoc_load_stream. dv NULL: everything
 * into doc, errors as they are (data must be the whole input). Otherwise
 * any failure of the parse returns YDOC_AGAIN, for the caller to read the
 * input whole and say exactly what is wrong; except, when data holds the
 * whole input, a YAML syntax or encoding error and an empty document,
 * which are said here: the whole read's parser would meet the same error
 * after the same events, none of which failed here (an item's anchor,
 * nesting or item() stops this read first), so its message is this one,
 * and reading a mostly invalid input twice cost fuzz_results a quarter of
 * its time. */
static int load(yaml_parser_t *p, const char *path, const char *data, size_t len, const char *kind,
                yaml_document_t *doc, const ydoc_divert *dv, px_error *err)
{
    memset(doc, 0, sizeof *doc);
    builder b = {.doc = doc, .max_depth = PX_YAML_MAX_DEPTH, .anchors = strmap_new(16)};
    diverting v = {.dv = dv};
    int rc = b.anchors ? 0 : px_error_oom(err, path);
    int documents = 0, open = 0, started = 0, said = 0; /* said: the error is the whole read's */
    yaml_event_t e;
    while (!rc) {
        if (!yaml_parser_parse(p, &e)) {
            said = !dv || data;
            rc = said ? parse_error(path, p, data, len, kind, err) : -1;
            break;
        }
        if (e.type == YAML_STREAM_END_EVENT || e.type == YAML_NO_EVENT) {
            yaml_event_delete(&e);
            break;
        }
        if (e.type == YAML_DOCUMENT_START_EVENT) {
            if (documents++)
                rc = fail_mark(path, e.start_mark, err, "a second YAML document: a %s is one document", kind);
            else if (doc_init(doc))
                rc = px_error_oom(err, path);
            else
                started = open = 1;
        } else if (e.type == YAML_DOCUMENT_END_EVENT) {
            open = 0;
        } else if (open) {
            rc = doc_event(&b, &v, &e, path, err);
        }
        rc = rc == 1 ? 0 : rc;
        yaml_event_delete(&e);
    }
    if (v.in_item)
        yaml_document_delete(&v.doc);
    if (!rc && (!started || !yaml_document_get_root_node(doc))) {
        if (dv && !data)
            v.again = 1, rc = -1;
        else
            said = 1, rc = px_error_set(err, PX_ERR_MALFORMED, path, 1, 1, "empty file: not a parity %s", kind);
    }
    if (dv && rc && !v.item_failed && !said)
        v.again = 1;
    builder_free(&b);
    if (rc) {
        if (started)
            yaml_document_delete(doc);
        memset(doc, 0, sizeof *doc);
    }
    return v.again ? YDOC_AGAIN : rc;
}

int ydoc_load(const char *path, const char *data, size_t len, const char *kind, yaml_document_t *doc,
              px_error *err)
{
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    int rc = load(&p, path, data, len, kind, doc, NULL, err);
    yaml_parser_delete(&p);
    return rc;
}

/* A file read through this stops at the size limit plus one byte: one that
 * grew past it since the caller looked is then read whole, and refused as
 * such. */
typedef struct capped {
    FILE *fp;
    size_t left;
} capped;

static int read_capped(void *data, unsigned char *buf, size_t size, size_t *got)
{
    capped *cp = data;
    *got = 0;
    if (!cp->left)
        return 0;
    *got = fread(buf, 1, size < cp->left ? size : cp->left, cp->fp);
    cp->left -= *got;
    return !ferror(cp->fp);
}

int ydoc_load_stream(const char *path, FILE *fp, const char *data, size_t len, const char *kind,
                     yaml_document_t *doc, const ydoc_divert *dv, px_error *err)
{
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    capped cp = {fp, ydoc_max_bytes(kind) + 1};
    if (fp)
        yaml_parser_set_input(&p, read_capped, &cp);
    else
        yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    int rc = load(&p, path, data, len, kind, doc, dv, err);
    yaml_parser_delete(&p);
    return rc;
}
