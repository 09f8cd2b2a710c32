/* The environment variables a manifest records (envrec.h). */
#define _POSIX_C_SOURCE 200809L
#include "parity/envrec.h"

#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "parity/emit.h"
#include "parity/redact.h"
#include "parity/strmap.h"
#include "parity/ydoc.h"

/* What changes a backend's numbers or its compilation: XLA and the TPU
 * runtime's flags, CUDA's TF32 and cuBLAS's workspace (deterministic
 * reductions), oneDNN's and MKL's kernels and the CPU thread count
 * (reduction order), torch's own switches, and the test device's numerics. */
const char *const px_envrec_builtin[] = {
    "XLA_FLAGS",     "LIBTPU_INIT_ARGS", "PJRT_DEVICE", "TPU_*",           "XLA_*", "NVIDIA_TF32_OVERRIDE",
    "CUBLAS_WORKSPACE_CONFIG", "TORCH_*", "ONEDNN_*", "DNNL_*", "OMP_NUM_THREADS", "MKL_*",
    "PARITY_TESTDEV_NUMERICS", NULL,
};

int envrec_valid_name(const char *name, size_t len)
{
    if (!len || (name[0] >= '0' && name[0] <= '9'))
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

/* name (len bytes, not NUL-terminated) against the built-in list. */
static int builtin_n(const char *name, size_t len)
{
    for (const char *const *b = px_envrec_builtin; *b; b++) {
        size_t bl = strlen(*b);
        if ((*b)[bl - 1] == '*' ? len >= bl - 1 && !memcmp(name, *b, bl - 1) : len == bl && !memcmp(name, *b, bl))
            return 1;
    }
    return 0;
}

int envrec_is_builtin(const char *name) { return builtin_n(name, strlen(name)); }

void envrec_clear(px_envvars *v)
{
    for (size_t i = 0; v->v && i < v->n; i++)
        free(v->v[i].name), free(v->v[i].value);
    free(v->v);
    memset(v, 0, sizeof *v);
}

int envrec_add(px_envvars *v, const char *name, const char *value)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        px_envvar *g = realloc(v->v, cap * sizeof *g);
        if (!g)
            return -1;
        v->v = g, v->cap = cap;
    }
    char *n = strdup(name), *val = strdup(value);
    if (!n || !val) {
        free(n), free(val);
        return -1;
    }
    v->v[v->n].name = n, v->v[v->n].value = val;
    v->n++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const px_envvar *)a)->name, ((const px_envvar *)b)->name);
}

void envrec_sort(px_envvars *v)
{
    if (v->n > 1)
        qsort(v->v, v->n, sizeof *v->v, by_name);
}

const char *envrec_get(const px_envvars *v, const char *name)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v->v[mid].name, name);
        if (!c)
            return v->v[mid].value;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int envrec_copy(px_envvars *dst, const px_envvars *src)
{
    memset(dst, 0, sizeof *dst);
    for (size_t i = 0; i < src->n; i++)
        if (envrec_add(dst, src->v[i].name, src->v[i].value)) {
            envrec_clear(dst);
            return -1;
        }
    dst->recorded = src->recorded;
    return 0;
}

/* The value as the redactor leaves it when it reads "NAME=value": a rule
 * that hides the whole text, or eats the name, hides the value. */
static char *redacted(struct px_redactor *rd, const char *name, const char *value)
{
    if (!rd)
        return strdup(value);
    size_t nl = strlen(name), vl = strlen(value);
    char *text = malloc(nl + vl + 2);
    if (!text)
        return NULL;
    memcpy(text, name, nl);
    text[nl] = '=';
    memcpy(text + nl + 1, value, vl + 1);
    char *t = redact_text(rd, text);
    free(text);
    if (!t)
        return NULL;
    char *out = strncmp(t, name, nl) || t[nl] != '=' ? strdup(PX_REDACTED) : strdup(t + nl + 1);
    free(t);
    return out;
}

int envrec_capture(px_envvars *out, char *const *env, char *const *extra, size_t n_extra, struct px_redactor *rd)
{
    memset(out, 0, sizeof *out);
    for (char *const *e = env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || eq == *e)
            continue;
        size_t len = (size_t)(eq - *e);
        int want = builtin_n(*e, len);
        for (size_t i = 0; !want && i < n_extra; i++)
            want = strlen(extra[i]) == len && !memcmp(extra[i], *e, len);
        if (!want)
            continue;
        char *name = strndup(*e, len);
        if (!name)
            goto oom;
        int seen = 0; /* environ may hold a name twice; getenv sees the first */
        for (size_t i = 0; !seen && i < out->n; i++)
            seen = !strcmp(out->v[i].name, name);
        char *value = seen ? NULL : redacted(rd, name, eq + 1);
        int rc = seen ? 0 : !value ? -1 : envrec_add(out, name, value);
        free(name), free(value);
        if (rc)
            goto oom;
    }
    envrec_sort(out);
    out->recorded = 1;
    return 0;
oom:
    envrec_clear(out);
    return -1;
}

const char *envrec_diff(const px_envvars *a, const px_envvars *b)
{
    if (!a->recorded || !b->recorded)
        return a->recorded == b->recorded ? NULL : "";
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->v[i].name, b->v[j].name);
        if (c < 0)
            return a->v[i].name;
        if (c > 0)
            return b->v[j].name;
        if (strcmp(a->v[i].value, b->v[j].value))
            return a->v[i].name;
        i++, j++;
    }
    return NULL;
}

void envrec_show(const char *value, size_t max, char *buf, size_t size)
{
    if (!size)
        return;
    if (!value) {
        snprintf(buf, size, "not set");
        return;
    }
    size_t o = 0, len = strlen(value), cut = max && len > max ? max : len;
    /* Never cut inside a UTF-8 character. */
    while (cut < len && cut > 0 && ((unsigned char)value[cut] & 0xC0) == 0x80)
        cut--;
#define PUT(...) (o += (size_t)snprintf(buf + (o < size ? o : size - 1), o < size ? size - o : 1, __VA_ARGS__))
    PUT("'");
    for (size_t i = 0; i < cut; i++) {
        unsigned char ch = (unsigned char)value[i];
        if (ch == '\\' || ch == '\'')
            PUT("\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            PUT("\\x%02X", ch);
        else
            PUT("%c", ch);
    }
    PUT("'%s", cut < len ? "…" : "");
#undef PUT
}

char *envrec_text(const px_envvars *v)
{
    if (!v->recorded)
        return NULL;
    if (!v->n)
        return strdup("none set");
    size_t total = 1;
    for (size_t i = 0; i < v->n; i++) /* at most 4 bytes shown per byte, quotes, '=', ' ' */
        total += strlen(v->v[i].name) + 4 * strlen(v->v[i].value) + 8;
    char *s = malloc(total), *p = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < v->n; i++) {
        p += sprintf(p, "%s%s=", i ? " " : "", v->v[i].name);
        envrec_show(v->v[i].value, 0, p, total - (size_t)(p - s));
        p += strlen(p);
    }
    return s;
}

void envrec_changes(const px_envvars *last, const px_envvars *now, char *buf, size_t size)
{
    if (!size)
        return;
    buf[0] = '\0';
    if (!last->recorded || !now->recorded) {
        if (last->recorded == now->recorded)
            return;
        char *a = envrec_text(last), *b = envrec_text(now);
        snprintf(buf, size, "%s → %s", a ? a : "not recorded", b ? b : "not recorded");
        free(a), free(b);
        return;
    }
    size_t i = 0, j = 0, o = 0;
    while (i < last->n || j < now->n) {
        int c = i == last->n ? 1 : j == now->n ? -1 : strcmp(last->v[i].name, now->v[j].name);
        const char *name = c <= 0 ? last->v[i].name : now->v[j].name;
        const char *a = c <= 0 ? last->v[i].value : NULL, *b = c >= 0 ? now->v[j].value : NULL;
        i += c <= 0, j += c >= 0;
        if (a && b && !strcmp(a, b))
            continue;
        char sa[256], sb[256];
        envrec_show(a, 120, sa, sizeof sa);
        envrec_show(b, 120, sb, sizeof sb);
        if (o < size)
            o += (size_t)snprintf(buf + o, size - o, "%s%s: %s → %s", o ? "; " : "", name, sa, sb);
    }
}

void envrec_write_yaml(FILE *o, int indent, const char *key, const px_envvars *v)
{
    if (!v->recorded)
        return;
    fprintf(o, "%*s%s:%s\n", indent, "", key, v->n ? "" : " {}");
    for (size_t i = 0; i < v->n; i++) {
        fprintf(o, "%*s", indent + 2, "");
        emit_yaml_string(o, v->v[i].name);
        fputs(": ", o);
        emit_yaml_string(o, v->v[i].value);
        fputc('\n', o);
    }
}

int envrec_read_yaml(yaml_document_t *doc, yaml_node_t *n, const char *path, const char *what, px_envvars *out,
                     px_error *err)
{
    memset(out, 0, sizeof *out);
    if (ydoc_is_null(n))
        return 0;
    if (ydoc_want(path, n, YAML_MAPPING_NODE, what, err))
        return -1;
    size_t len = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    px_strmap *seen = strmap_new(len ? len : 1);
    if (!seen)
        return px_error_oom(err, path);
    yaml_node_t *bad = NULL;
    char msg[600];
    for (size_t i = 0; !bad && i < len; i++) {
        yaml_node_t *k = yaml_document_get_node(doc, n->data.mapping.pairs.start[i].key);
        yaml_node_t *v = yaml_document_get_node(doc, n->data.mapping.pairs.start[i].value);
        const char *name = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
        if (!name) {
            bad = k;
            snprintf(msg, sizeof msg, "%.300s: a key must be an environment variable's name, not %s", what,
                     ydoc_type_name(k->type));
        } else if (!envrec_valid_name(name, k->data.scalar.length)) {
            bad = k;
            snprintf(msg, sizeof msg, "%.300s: '%.80s' is not an environment variable's name (a letter or _, then "
                                      "letters, digits and _)",
                     what, name);
        } else if (v->type != YAML_SCALAR_NODE || ydoc_is_null(v)) {
            bad = v;
            snprintf(msg, sizeof msg, "%.300s.%.80s must be a string (\"\" when set to empty; a variable not set is "
                                      "left out), not %s",
                     what, name, ydoc_is_null(v) ? "null" : ydoc_type_name(v->type));
        } else if (strlen((const char *)v->data.scalar.value) != v->data.scalar.length) {
            bad = v;
            snprintf(msg, sizeof msg, "%.300s.%.80s contains a NUL character", what, name);
        } else {
            int dup = strmap_put(seen, name, (long)i, NULL);
            if (dup < 0 || envrec_add(out, name, (const char *)v->data.scalar.value)) {
                strmap_free(seen);
                envrec_clear(out);
                return px_error_oom(err, path);
            }
            if (dup) {
                bad = k;
                snprintf(msg, sizeof msg, "duplicate key '%.80s' in %.300s", name, what);
            }
        }
    }
    strmap_free(seen);
    if (bad) {
        envrec_clear(out);
        return px_error_set(err, PX_ERR_MALFORMED, path, (int)bad->start_mark.line + 1,
                            (int)bad->start_mark.column + 1, "%s", msg);
    }
    envrec_sort(out);
    out->recorded = 1;
    return 0;
}
