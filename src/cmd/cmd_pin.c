/* parity pin FIXTURE: re-pin after review. Every sha256 the fixture pins
 * (the contract's model file or each file of its Transformers directory,
 * its tokenizer or vocab, and each runnable environment's own model and
 * vocab) is compared with the file's sha256 now; the ones that differ are
 * rewritten in place, the 64 hex digits and nothing else, so comments,
 * quoting and layout stay byte for byte. The new text must load as a
 * fixture, and is written atomically. Each changed pin is printed,
 * "FIXTURE:LINE:COL: WHAT: OLD → NEW"; nothing is written when nothing
 * changed or on any error (a file that cannot be read, a pin not where the
 * document says). A pin not written is not added: lint names it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "parity/atomic.h"
#include "parity/cli.h"
#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/hash.h"
#include "parity/ydoc.h"

typedef struct repin {
    size_t off; /* byte offset of the first hex digit */
    int line, col;
    char what[256];
    char old[PX_SHA256_HEX], now[PX_SHA256_HEX];
} repin;

typedef struct pin_ctx {
    const char *path;
    const char *data;
    size_t len;
    yaml_document_t doc;
    repin *v;
    size_t n, cap;
    int failed;
} pin_ctx;

static const char *scalar_of(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The byte offset of a libyaml mark (0-based line, column in characters;
 * a BOM is not counted). */
static size_t byte_offset(const char *data, size_t len, yaml_mark_t m)
{
    size_t i = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
    for (size_t line = 0; line < m.line && i < len; i++)
        if (data[i] == '\n')
            line++;
    for (size_t col = 0; col < m.column && i < len; i++)
        if (((unsigned char)data[i + 1] & 0xC0) != 0x80 || i + 1 >= len)
            col++;
    return i;
}

/* The pin at node sha against the file at path. */
static void pin_check(pin_ctx *c, yaml_node_t *sha, const char *path, const char *what)
{
    const char *old = scalar_of(sha);
    if (!old)
        return;
    px_error err = {0};
    char now[PX_SHA256_HEX];
    if (hash_file(path, now, &err)) {
        fprintf(stderr, "parity: %s:%d:%d: %s: %s: %s\n", c->path, (int)sha->start_mark.line + 1,
                (int)sha->start_mark.column + 1, what, path, err.msg);
        c->failed = 1;
        return;
    }
    if (!strcmp(old, now))
        return;
    size_t off = byte_offset(c->data, c->len, sha->start_mark);
    if (off < c->len && (c->data[off] == '"' || c->data[off] == '\''))
        off++;
    if (strlen(old) != PX_SHA256_HEX - 1 || off + PX_SHA256_HEX - 1 > c->len ||
        memcmp(c->data + off, old, PX_SHA256_HEX - 1)) {
        fprintf(stderr, "parity: %s:%d:%d: %s: the pin is not written as 64 plain hex digits: edit it by hand (%s)\n",
                c->path, (int)sha->start_mark.line + 1, (int)sha->start_mark.column + 1, what, now);
        c->failed = 1;
        return;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        repin *v = realloc(c->v, cap * sizeof *v);
        if (!v) {
            c->failed = 1;
            return;
        }
        c->v = v, c->cap = cap;
    }
    repin *r = &c->v[c->n++];
    r->off = off;
    r->line = (int)sha->start_mark.line + 1, r->col = (int)sha->start_mark.column + 1;
    snprintf(r->what, sizeof r->what, "%s", what);
    memcpy(r->old, old, PX_SHA256_HEX);
    memcpy(r->now, now, PX_SHA256_HEX);
}

static yaml_node_t *get(pin_ctx *c, yaml_node_t *map, const char *key)
{
    return map && map->type == YAML_MAPPING_NODE ? ydoc_get(&c->doc, map, key) : NULL;
}

/* A model: its sha256 (a file), or each of its files: (a directory). */
static void pin_model(pin_ctx *c, yaml_node_t *m, const char *path, const char *what)
{
    char w[300];
    snprintf(w, sizeof w, "%s.sha256", what);
    pin_check(c, get(c, m, "sha256"), path, w);
    yaml_node_t *files = get(c, m, "files");
    if (!files || files->type != YAML_MAPPING_NODE)
        return;
    for (yaml_node_pair_t *p = files->data.mapping.pairs.start; p < files->data.mapping.pairs.top; p++) {
        const char *name = scalar_of(yaml_document_get_node(&c->doc, p->key));
        if (!name)
            continue;
        size_t n = strlen(path) + strlen(name) + 2;
        char *file = malloc(n);
        if (!file) {
            c->failed = 1;
            return;
        }
        snprintf(file, n, "%s/%s", path, name);
        snprintf(w, sizeof w, "%s.files.%s", what, name);
        pin_check(c, yaml_document_get_node(&c->doc, p->value), file, w);
        free(file);
    }
}

static void pin_all(pin_ctx *c, const px_fixture *f)
{
    yaml_node_t *root = yaml_document_get_root_node(&c->doc), *contract = get(c, root, "contract");
    pin_model(c, get(c, contract, "model"), f->model_path, "contract.model");
    pin_check(c, get(c, get(c, get(c, contract, "input"), "tokenizer"), "sha256"), f->vocab_path,
              "contract.input.tokenizer.sha256");
    yaml_node_t *envs = get(c, root, "environments");
    for (size_t i = 0; envs && i < f->n_envs; i++) {
        const px_env *e = &f->envs[i];
        yaml_node_t *en = yaml_document_get_node(&c->doc, envs->data.mapping.pairs.start[i].value);
        char w[300];
        if (!e->device)
            continue; /* imported: its files are on the machine that ran it */
        snprintf(w, sizeof w, "environment '%s'.model", e->name);
        if (e->own_model)
            pin_model(c, get(c, en, "model"), e->model_path, w);
        snprintf(w, sizeof w, "environment '%s'.vocab.sha256", e->name);
        if (e->own_vocab)
            pin_check(c, get(c, get(c, en, "vocab"), "sha256"), e->vocab_path, w);
    }
}

static int on_arg(void *ctx, const px_option *o, const char *v)
{
    const char **path = ctx;
    const px_command *c = cli_command("pin");
    if (o)
        return cli_usage_error(c, "--%s is not an option of pin", o->long_name);
    if (*path)
        return cli_usage_error(c, "one fixture at a time, got '%s' too", v);
    *path = v;
    return 0;
}

int cmd_pin(int argc, char **argv)
{
    const px_command *cmd = cli_command("pin");
    const char *path = NULL;
    int rc = cli_parse(cmd, argc, argv, on_arg, &path);
    if (rc != CLI_PARSED)
        return rc;
    if (!path)
        return cli_usage_error(cmd, "which fixture?");
    px_error err = {0};
    size_t len = 0;
    char *data = fixture_read(path, &len, &err);
    px_fixture *f = data ? fixture_parse_lint(path, data, len, &err) : NULL;
    pin_ctx c = {.path = path, .data = data, .len = len};
    if (!f || ydoc_load(path, data, len, "fixture", &c.doc, &err)) {
        cli_error(&err);
        fixture_free(f);
        free(data);
        return PX_EXIT_USAGE;
    }
    pin_all(&c, f);
    yaml_document_delete(&c.doc);
    fixture_free(f);
    rc = PX_EXIT_OK;
    if (c.failed) {
        fprintf(stderr, "parity: %s: nothing re-pinned\n", path);
        rc = PX_EXIT_USAGE;
    } else if (!c.n) {
        printf("%s: every pin is the file's sha256: nothing to re-pin\n", path);
    } else {
        char *text = malloc(len + 1);
        if (!text) {
            rc = px_error_oom(&err, path);
        } else {
            memcpy(text, data, len + 1);
            for (size_t i = 0; i < c.n; i++)
                memcpy(text + c.v[i].off, c.v[i].now, PX_SHA256_HEX - 1);
            /* What is written must load. */
            px_fixture *check = fixture_parse_lint(path, text, len, &err);
            rc = check ? atomic_write(path, text, len, &err) : -1;
            fixture_free(check);
            free(text);
        }
        if (rc) {
            cli_error(&err);
            rc = px_reason_exit(err.reason);
        } else {
            for (size_t i = 0; i < c.n; i++)
                printf("%s:%d:%d: %s: %s → %s\n", path, c.v[i].line, c.v[i].col, c.v[i].what, c.v[i].old,
                       c.v[i].now);
        }
    }
    free(c.v);
    free(data);
    return rc;
}
