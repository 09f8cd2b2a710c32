/* parity init DIR --model FILE|DIR (--vocab FILE [--cased] | --tokenizer FILE)
 *              --labels A,B,... [--texts FILE] [--propose]
 *              [--executor PATH] [--python PATH]
 * writes DIR/fixture.yaml: the first fixture, pinned and loadable, with the
 * parts only a person can write (tolerance why, the examples' expectations
 * and whys) left for lint to name. What the model takes (its inputs, its
 * positions, its head's width) is asked of its executor (DESCRIBE,
 * parity/describe.h), never guessed. Never overwrites a fixture; leaves
 * nothing behind when it fails. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "parity/self.h"
#include "parity/atomic.h"
#include "parity/cli.h"
#include "parity/describe.h"
#include "parity/emit.h"
#include "parity/error.h"
#include "parity/fixture.h"
#include "parity/hash.h"
#include "parity/lint.h"
#include "parity/modeldir.h"
#include "parity/results.h"
#include "parity/runner.h"
#include "parity/sbuf.h"
#include "parity/textcell.h"
#include "parity/tokenizer.h"
#include "parity/utf8.h"

typedef struct init_args {
    const char *dir, *model, *vocab, *tokenizer, *labels, *texts, *executor, *python;
    int cased, propose;
    char *specials; /* the special tokens the tokenizer adds, in words (specials_of) */
} init_args;

/* What the reference run proposes for one example (--propose). */
typedef struct proposal {
    char *label;      /* NULL: no label (an outcome other than ok) */
    char *second;     /* the runner-up label (kind ambiguous) */
    const char *kind; /* the kind the reference's answer suggests */
    int rejected;
} proposal;

static int on_arg(void *ctx, const px_option *o, const char *v)
{
    init_args *a = ctx;
    if (!o) {
        if (a->dir)
            return cli_usage_error(cli_command("init"), "one directory, got '%s' too", v);
        a->dir = v;
        return 0;
    }
    switch (cli_opt_id(o)) {
    case PX_OPT_MODEL: a->model = v; break;
    case PX_OPT_VOCAB: a->vocab = v; break;
    case PX_OPT_TOKENIZER: a->tokenizer = v; break;
    case PX_OPT_LABELS: a->labels = v; break;
    case PX_OPT_TEXTS: a->texts = v; break;
    case PX_OPT_CASED: a->cased = 1; break;
    case PX_OPT_PROPOSE: a->propose = 1; break;
    case PX_OPT_EXECUTOR: a->executor = v; break;
    case PX_OPT_PYTHON: a->python = v; break;
    default: return cli_usage_error(cli_command("init"), "--%s is not an option of init", o->long_name);
    }
    return 0;
}

/* CLI_PARSED, or the exit status. */
static int parse(int argc, char **argv, init_args *a)
{
    const px_command *c = cli_command("init");
    memset(a, 0, sizeof *a);
    int rc = cli_parse(c, argc, argv, on_arg, a);
    if (rc != CLI_PARSED)
        return rc;
    if (!a->dir)
        return cli_usage_error(c, "which directory?");
    if (!a->model)
        return cli_usage_error(c, "--model FILE|DIR is needed (the TorchScript model, or a Transformers model directory)");
    if (!!a->vocab == !!a->tokenizer)
        return cli_usage_error(c, "give the tokenizer: --vocab vocab.txt or --tokenizer tokenizer.json");
    if (a->cased && !a->vocab)
        return cli_usage_error(c, "--cased goes with --vocab (a tokenizer.json says it itself)");
    if (!a->labels || !a->labels[0])
        return cli_usage_error(c, "--labels A,B,... is needed (the label of each logit, in order)");
    return CLI_PARSED;
}

/* path as the fixture in dir will refer to it: relative to dir (with ../
 * where it is elsewhere; parity-fixture(5) resolves a path from the
 * fixture's directory), both resolved first; absolute only when dir cannot
 * be resolved. */
static char *path_from(const char *dir, const char *path, px_error *err)
{
    char d[PATH_MAX], p[PATH_MAX];
    if (!realpath(path, p)) {
        px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot read: %s", strerror(errno));
        return NULL;
    }
    if (!realpath(dir, d))
        return strdup(p);
    /* The longest common run of whole components. */
    size_t common = 0;
    for (size_t i = 0;; i++) {
        int d_end = d[i] == '\0' || d[i] == '/', p_end = p[i] == '\0' || p[i] == '/';
        if (d_end && p_end)
            common = i;
        if (d[i] != p[i] || !d[i] || !p[i])
            break;
    }
    size_t ups = 0;
    for (const char *c = d + common; *c; c++)
        ups += *c == '/';
    if (!strcmp(d, "/"))
        ups = 0, common = 0;
    const char *rest = p + common + (p[common] == '/');
    char *out = malloc(3 * ups + strlen(rest) + 2);
    if (!out) {
        px_error_oom(err, NULL);
        return NULL;
    }
    out[0] = '\0';
    for (size_t i = 0; i < ups; i++)
        strcat(out, "../");
    strcat(out, rest);
    return out;
}

static int sha_of(const char *path, char out[PX_SHA256_HEX], px_error *err) { return hash_file(path, out, err); }

/* The texts, one example per non-empty line. */
static char **read_texts(const char *path, size_t *n, px_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        px_error_set(err, PX_ERR_NOT_FOUND, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char **v = NULL, *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t got;
    *n = 0;
    while ((got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        long bad = utf8_invalid_at(line, (size_t)got);
        if (bad >= 0 || memchr(line, '\0', (size_t)got)) {
            px_error_set(err, PX_ERR_MALFORMED, path, (int)lineno, bad >= 0 ? (int)bad + 1 : 0,
                         bad >= 0 ? "not UTF-8" : "a NUL byte (a fixture is text)");
            break;
        }
        if (!got)
            continue;
        char **grown = realloc(v, (*n + 1) * sizeof *v);
        if (!grown || !(grown[*n] = strdup(line))) {
            v = grown ? grown : v;
            px_error_oom(err, NULL);
            break;
        }
        v = grown;
        (*n)++;
    }
    free(line);
    fclose(f);
    if (err->code) {
        for (size_t i = 0; i < *n; i++)
            free(v[i]);
        free(v);
        return NULL;
    }
    return v;
}

static void write_example(FILE *o, const char *id, const char *kind, const char *text, const char *labels_flow,
                          const char *why, const proposal *p, const char *now)
{
    fprintf(o, "  - id: %s\n    kind: %s\n    text: ", id, kind);
    emit_yaml_string(o, text);
    fprintf(o, "\n");
    if (p && (p->label || p->rejected)) {
        /* The reference's answer, as a proposal a person confirms. */
        if (p->rejected) {
            fprintf(o, "    expect: {rejected: true}\n");
        } else if (p->second) { /* the closest call: both labels, for a person to decide */
            fprintf(o, "    expect: {any_of: [");
            emit_yaml_string(o, p->label);
            fprintf(o, ", ");
            emit_yaml_string(o, p->second);
            fprintf(o, "]}\n");
        } else {
            fprintf(o, "    expect: {label: ");
            emit_yaml_string(o, p->label);
            fprintf(o, "}\n");
        }
        fprintf(o, "    review:\n      decision: flag\n      note: \"%s\"\n      by: parity init\n      at: \"%s\"\n",
                PX_PROPOSAL_NOTE, now);
    } else if (!strcmp(kind, "reject"))
        fprintf(o, "    expect: {rejected: true, reason: empty}\n");
    else
        fprintf(o, "    expect: {any_of: %s}   # narrow this to the label it must give\n", labels_flow);
    if (why) {
        fprintf(o, "    why: ");
        emit_yaml_string(o, why);
        fputc('\n', o);
    }
    else
        fprintf(o, "    # why: what this example stands for, and what a change in it would mean\n");
}

/* The label list as a YAML flow list (malloc'd), each label quoted as
 * needed; the loader checks it (duplicates, empty) with the rest. */
static char *labels_flow(const char *list)
{
    char *labels = strdup(list), *flow = NULL;
    size_t flow_len = 0, n_labels = 0;
    FILE *fl = open_memstream(&flow, &flow_len);
    fputc('[', fl);
    for (char *save = NULL, *l = strtok_r(labels, ",", &save); l; l = strtok_r(NULL, ",", &save)) {
        while (*l == ' ')
            l++;
        fputs(n_labels++ ? ", " : "", fl);
        emit_yaml_string(fl, l);
    }
    fputc(']', fl);
    fclose(fl);
    free(labels);
    return flow;
}

/* What the fixture pins: the model and the tokenizer file, as the fixture
 * refers to them, with their hashes. */
typedef struct pins {
    char *model, *tok; /* malloc'd */
    char model_sha[PX_SHA256_HEX], tok_sha[PX_SHA256_HEX];
    char *files;       /* a model directory's files: lines (malloc'd), else NULL */
} pins;

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A Transformers model directory's files: block, every file loading could
 * read pinned (modeldir.h), in name order. */
static char *dir_pins(const char *dir, px_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        px_error_set(err, PX_ERR_NOT_FOUND, dir, 0, 0, "cannot read: %s", strerror(errno));
        return NULL;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!modeldir_readable(e->d_name) || stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown)
            break;
        names = grown;
        if ((names[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX], sha[PX_SHA256_HEX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!rc && !(rc = sha_of(path, sha, err))) {
            fputs("      ", o);
            emit_yaml_string(o, names[i]);
            fprintf(o, ": \"%s\"\n", sha);
        }
        free(names[i]);
    }
    free(names);
    if (fclose(o) || rc) {
        free(text);
        return rc ? NULL : (px_error_oom(err, NULL), NULL);
    }
    return text;
}

static int pins_read(const init_args *a, pins *p, px_error *err)
{
    const char *tok_file = a->vocab ? a->vocab : a->tokenizer;
    struct stat st;
    p->files = NULL;
    p->model = path_from(a->dir, a->model, err);
    p->tok = p->model ? path_from(a->dir, tok_file, err) : NULL;
    int dir = p->model && !stat(a->model, &st) && S_ISDIR(st.st_mode);
    if (!p->model || !p->tok || (dir ? !(p->files = dir_pins(a->model, err)) : sha_of(a->model, p->model_sha, err)) ||
        sha_of(tok_file, p->tok_sha, err)) {
        free(p->model), free(p->tok), free(p->files);
        return -1;
    }
    return 0;
}

/* The special tokens the tokenizer adds to every text, read from what it
 * makes of an empty one (its post-processor's template): "[CLS] and
 * [SEP]" for BERT's, "<|begin_of_text|>" for Llama 3's, "" for one that
 * adds none (Qwen's); malloc'd, each token as a terminal shows it (it goes
 * into a comment: never a line break). NULL with *err when the tokenizer
 * cannot be read: a fixture with it could never run, so init says so
 * before anything is made. */
static char *specials_of(const init_args *a, px_error *err)
{
    px_tokenizer *tok = a->vocab ? tokenizer_load(a->vocab, !a->cased, err) : tokenizer_load_hf(a->tokenizer, err);
    px_encoding enc = {0};
    if (!tok || tokenizer_encode(tok, "", 0, 0, 0, &enc, err)) {
        tokenizer_free(tok);
        return NULL;
    }
    px_sbuf b = PX_SBUF_INIT;
    for (size_t i = 0; i < enc.n_real; i++) {
        const char *piece = enc.pieces[i] ? enc.pieces[i] : "?";
        char *shown = textcell_sanitize(piece, strlen(piece));
        sbuf_addf(&b, "%s%s", !i ? "" : i + 1 == enc.n_real ? " and " : ", ", shown ? shown : "?");
        free(shown);
    }
    encoding_free(&enc);
    tokenizer_free(tok);
    char *s = sbuf_take(&b);
    if (!s)
        px_error_oom(err, NULL);
    return s;
}

/* The max_tokens line: the model's positions (or the default when they
 * could not be read), and what of them the tokenizer's own tokens take. */
static void write_max_tokens(FILE *f, const init_args *a, const px_describe *d)
{
    char specials[600];
    if (a->specials && *a->specials)
        snprintf(specials, sizeof specials, "%.500s included", a->specials);
    else
        snprintf(specials, sizeof specials, "the tokenizer adds no special tokens");
    if (d->max_positions > 0)
        fprintf(f, "    max_tokens: %ld   # the model's %ld positions%s%s%s; longer is rejected, never cut\n",
                d->max_positions, d->max_positions, a->specials && *a->specials ? ", " : " (", specials,
                a->specials && *a->specials ? "" : ")");
    else
        fprintf(f, "    max_tokens: 512   # the model's positions could not be read: set what it takes (%s); "
                   "longer is rejected, never cut\n",
                specials);
}

/* The contract's inputs: those of input_ids, attention_mask and
 * token_type_ids the forward takes, in its order (a flow list, or "" when
 * its names are not known or are its own: parity then sends input_ids and
 * attention_mask in that order, and token_type_ids where the forward takes
 * it). */
static void write_inputs(FILE *f, const px_describe *d)
{
    static const char *const known[] = {"input_ids", "attention_mask", "token_type_ids"};
    size_t n = 0;
    for (size_t i = 0; i < d->n_args; i++)
        for (size_t k = 0; k < 3; k++)
            if (!strcmp(d->args[i], known[k]))
                fprintf(f, "%s%s", n++ ? ", " : "    inputs: [", known[k]);
    if (n)
        fprintf(f, "]   # read from the model's forward: sent by name\n");
}

/* The head comment, the contract and the two environments every first
 * fixture starts with; d is what the model's executor said of it. */
static void write_contract(FILE *f, const init_args *a, const pins *p, const char *flow, const px_describe *d)
{
    /* parity-torch loads TorchScript only: a directory needs the Python
     * executor (with torch 2 and transformers: --python or PARITY_PYTHON). */
    static const char python[] = "    executor: python\n";
    fprintf(f, "# Written by `parity init`. Read it through, then:\n"
               "#   parity lint fixture.yaml      names what is still to write (whys, expectations)\n"
               "#   parity run fixture.yaml       runs the reference and the twin\n"
               "# The format: parity-fixture(5).\n"
               "parity: 1\n\ncontract:\n"
               "  task: %s\n"
               "  model:\n    path: ",
            px_init_task);
    emit_yaml_string(f, p->model);
    /* A directory is a Transformers model (save_pretrained's), each file
     * pinned. The inputs are those the forward's signature names (DESCRIBE),
     * for either kind of model. */
    if (p->files)
        fprintf(f, "\n    format: transformers\n    files:   # every file of the directory (sha256sum)\n%s", p->files);
    else
        fprintf(f, "\n    sha256: \"%s\"\n", p->model_sha);
    write_inputs(f, d);
    fprintf(f, "    output: logits\n"
               "  input:\n    clean:   # keep the rules your task needs, remove the others\n"
               "      - {pattern: '\\s+', replace: ' ', why: collapse white space and line breaks from copy-paste}\n"
               "      - {pattern: '^ | $', replace: '', why: leading or trailing space carries no meaning}\n"
               "    tokenizer:\n");
    if (a->vocab) {
        fprintf(f, "      kind: wordpiece\n      vocab: ");
        emit_yaml_string(f, p->tok);
        fprintf(f, "\n      sha256: \"%s\"\n      lowercase: %s\n", p->tok_sha, a->cased ? "false" : "true");
    } else {
        fprintf(f, "      kind: huggingface\n      file: ");
        emit_yaml_string(f, p->tok);
        fprintf(f, "\n      sha256: \"%s\"\n", p->tok_sha);
    }
    /* The model's positions are what an input may hold, the tokenizer's
     * special tokens included (max_tokens counts them): a longer text is
     * rejected, never cut, and never reaches the model's position table. */
    write_max_tokens(f, a, d);
    fprintf(f, "    empty: reject\n"
               "  labels: %s   # logits[i] means labels[i]\n"
               "  compare:\n"
               "    logits:\n"
               "      rtol: 0.016   # torch.testing's bfloat16 rtol\n"
               "      atol: 0.05\n"
               "      stat: max\n"
               "      # why: say why these numbers are right for this task (lint asks until it is written)\n"
               "    decision: exact\n\n"
               "environments:\n"
               "  reference:\n    device: cpu\n    dtype: float32\n    threads: 1\n    role: reference\n%s"
               "    note: the environment the task was built and reviewed in\n"
               "  cpu-bf16:\n    device: cpu\n    dtype: bfloat16\n    threads: 1\n    role: twin\n%s"
               "    note: a CPU twin of bfloat16 numerics, not an accelerator\n\n"
               "examples:\n",
            flow, p->files ? python : "", p->files ? python : "");
}

/* One example a text (--texts), else one of each kind to fill in. */
static void write_examples(FILE *f, char **texts, size_t n_texts, const char *flow, const proposal *props,
                           const char *now)
{
    if (texts) {
        for (size_t i = 0; i < n_texts; i++) {
            char id[32];
            snprintf(id, sizeof id, "example-%zu", i + 1);
            write_example(f, id, props && props[i].kind ? props[i].kind : "normal", texts[i], flow, NULL,
                          props ? &props[i] : NULL, now);
        }
        return;
    }
    /* the texts are lint's placeholders (lint.h), so lint names each one left */
    static const char *const kinds[][2] = {
        {"normal", NULL},
        {"short", "few words give little evidence: precision shows first on thin margins"},
        {"long", "attention over many tokens accumulates rounding"},
        {"reject", "empty after cleaning: must be rejected, never classified"},
        {"ambiguous", NULL},
    };
    for (size_t i = 0; i < 5; i++)
        write_example(f, kinds[i][0], kinds[i][0], px_init_texts[i], flow, kinds[i][1], props ? &props[i] : NULL,
                      now);
}

/* The fixture's text (malloc'd in *out), with the reference's proposals
 * when props is not NULL (one per example, in order). */
static int fixture_text(const init_args *a, const px_describe *d, const proposal *props, char **out, size_t *out_len,
                        px_error *err)
{
    pins p;
    if (pins_read(a, &p, err))
        return -1;
    size_t n_texts = 0;
    char **texts = a->texts ? read_texts(a->texts, &n_texts, err) : NULL;
    if (a->texts && !texts && err->code) {
        free(p.model), free(p.tok);
        return -1;
    }
    char *flow = labels_flow(a->labels);
    char *text = NULL, now[32];
    size_t len = 0;
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    FILE *f = open_memstream(&text, &len);
    write_contract(f, a, &p, flow, d);
    write_examples(f, texts, n_texts, flow, props, now);
    for (size_t i = 0; i < n_texts; i++)
        free(texts[i]);
    free(texts);
    free(flow), free(p.model), free(p.tok), free(p.files);
    if (fclose(f)) {
        free(text);
        return px_error_oom(err, NULL);
    }
    *out = text, *out_len = len;
    return 0;
}

/* The text loads as a fixture at path (nothing written). */
static int parse_check(const char *path, const char *text, size_t len, px_error *err)
{
    px_fixture *check = fixture_parse(path, text, len, err);
    fixture_free(check);
    return check ? 0 : -1;
}

/* What was written must load: a fixture init makes is never broken. */
static int write_checked(const char *path, const char *text, size_t len, px_error *err)
{
    px_fixture *check = fixture_parse(path, text, len, err);
    int rc = check ? atomic_write(path, text, len, err) : -1;
    fixture_free(check);
    return rc;
}

/* The last non-empty line of a detail (a traceback's is its error), cut
 * to one line of at most 200 bytes (malloc'd). */
static char *one_line(const char *detail)
{
    if (!detail || !*detail)
        return strdup("no output");
    size_t end = strlen(detail);
    for (;;) {
        while (end > 0 && (detail[end - 1] == '\n' || detail[end - 1] == '\r' || detail[end - 1] == ' '))
            end--;
        size_t start = end;
        while (start > 0 && detail[start - 1] != '\n')
            start--;
        while (start < end && detail[start] == ' ')
            start++;
        if (start < end || end == 0) {
            size_t n = end - start > 200 ? 200 : end - start;
            while (n < end - start && n > 0 && ((unsigned char)detail[start + n] & 0xC0) == 0x80)
                n--; /* never half a character */
            return strndup(detail + start, n);
        }
    }
}

/* The kinds the reference's answers suggest, so that a draft from --texts
 * holds every kind lint asks for when the texts have them: rejected ->
 * reject; three words or fewer -> short; the longest answered text, when
 * it fills at least a quarter of max_tokens -> long; and the answered
 * normal text with the smallest margin between its two top logits ->
 * ambiguous, expecting either label, for a person to decide (lint asks
 * until one has). The rest stay normal. All of it is a proposal: every
 * example carries the review flag a person clears. */
static void propose_kinds(const px_fixture *f, const px_env_result *e, proposal *p)
{
    long longest = -1, closest = -1;
    double margin = 0;
    for (size_t k = 0; k < f->n_examples; k++) {
        const px_example_result *x = &e->ex[k];
        if (p[k].rejected) {
            p[k].kind = "reject";
            continue;
        }
        if (!p[k].label)
            continue;
        size_t words = 0;
        for (const char *c = f->examples[k].text; c && *c; c++)
            words += (c == f->examples[k].text || c[-1] == ' ') && *c != ' ';
        if (words <= 3)
            p[k].kind = "short";
        else if (longest < 0 || x->n_ids > e->ex[longest].n_ids)
            longest = (long)k;
    }
    if (longest >= 0 && e->ex[longest].n_ids * 4 >= f->max_tokens)
        p[longest].kind = "long";
    for (size_t k = 0; k < f->n_examples; k++) {
        const px_example_result *x = &e->ex[k];
        if (p[k].kind || !p[k].label || x->n_values < 2 || x->label < 0)
            continue;
        double top = x->values[x->label], next = -HUGE_VAL;
        for (size_t v = 0; v < x->n_values; v++)
            if ((int)v != x->label && x->values[v] > next)
                next = x->values[v];
        if (closest < 0 || top - next < margin)
            closest = (long)k, margin = top - next;
    }
    if (closest < 0)
        return;
    const px_example_result *x = &e->ex[closest];
    size_t second = x->label ? 0 : 1;
    for (size_t v = 0; v < x->n_values; v++)
        if ((int)v != x->label && x->values[v] > x->values[second])
            second = v;
    if (second < e->n_labels && (p[closest].second = strdup(e->labels[second])))
        p[closest].kind = "ambiguous";
}

/* --propose: run the reference on a draft beside the fixture (parity run,
 * this very program) and read what it decided for each example. Every
 * example it could not propose is named on stderr with its one-line reason;
 * no label proposed at all (every forward raised: rejections are the
 * tokenizer's) is a failure (PX_ERR_ENV: exit 3). */
static proposal *propose(const init_args *a, const char *draft, const char *results, size_t *n_out, px_error *err)
{
    char self[PATH_MAX];
    if (self_exe(self, sizeof self)) {
        px_error_set(err, PX_ERR_ENV, NULL, 0, 0, "cannot find this parity to run the reference");
        return NULL;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        const char *argv[16];
        int n = 0;
        argv[n++] = self, argv[n++] = "run", argv[n++] = draft, argv[n++] = "-e", argv[n++] = "reference";
        argv[n++] = "-q", argv[n++] = "-o", argv[n++] = results;
        if (a->executor)
            argv[n++] = "--executor", argv[n++] = a->executor;
        if (a->python)
            argv[n++] = "--python", argv[n++] = a->python;
        argv[n] = NULL;
        execv(self, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    /* A run whose every example raised exits non-zero and still writes its
     * results: they say why, example by example. */
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || access(results, R_OK)) {
        px_error_set(err, PX_ERR_ENV, a->dir, 0, 0,
                     "--propose: the reference run failed (its message is above); nothing written");
        return NULL;
    }
    px_fixture *f = fixture_load(draft, err);
    px_results *r = f ? results_load(results, f, err) : NULL;
    *n_out = f ? f->n_examples : 0;
    proposal *p = r ? calloc(*n_out ? *n_out : 1, sizeof *p) : NULL;
    size_t proposed = 0;
    for (size_t k = 0; p && r->n_envs && k < *n_out; k++) {
        const px_env_result *e = &r->envs[0];
        const px_example_result *x = &e->ex[k];
        const char *l = results_label(e, x);
        p[k].rejected = x->status == PX_ST_REJECTED;
        p[k].label = l ? strdup(l) : NULL; /* copied: the results go before the text is made */
        proposed += l != NULL; /* a rejection is the tokenizer's, not the model's answer */
        if (l || p[k].rejected)
            continue;
        /* Never silent: an example the reference gave no label keeps its
         * placeholder, and the user hears which and why. */
        char *why = one_line(x->detail);
        fprintf(stderr, "parity init: --propose: %s: no proposal: %s: %s\n", f->examples[k].id,
                status_name(x->status), why ? why : "");
        free(why);
    }
    if (p && proposed && a->texts) /* init's own examples have their kinds */
        propose_kinds(f, &r->envs[0], p);
    if (r && !p)
        px_error_oom(err, NULL);
    else if (p && !proposed) {
        px_error_set(err, PX_ERR_ENV, a->dir, 0, 0,
                     "--propose: the reference gave a label to none of the %zu example%s (each it could not is named "
                     "above with its reason); nothing written",
                     *n_out, *n_out == 1 ? "" : "s");
        free(p);
        p = NULL;
    }
    results_free(r);
    fixture_free(f);
    return p;
}

/* What init learns of the model from its executor: a file is TorchScript
 * (parity-torch), a directory a Transformers model (the Python executor).
 * An executor that cannot describe it here fails init with --propose (the
 * reference cannot run here either); without, it is a warning and the
 * fixture keeps the defaults (no inputs: list, max_tokens 512, commented),
 * for a model that runs on another machine. */
static int describe(const init_args *a, px_describe *d, px_error *err)
{
    struct stat st;
    int dir = !stat(a->model, &st) && S_ISDIR(st.st_mode);
    px_runner_opts where = {0};
    runner_locate(&where, a->executor, a->python);
    int rc = describe_model(a->model, dir ? PX_FORMAT_TRANSFORMERS : PX_FORMAT_TORCHSCRIPT, dir, &where, 0, d, err);
    runner_locate_free(&where);
    if (rc) {
        /* The executor's words, and what init was doing. */
        char said[900];
        px_error_format(err, said, sizeof said);
        px_error e = {0};
        if (err->reason == PX_ERR_NO_MEMORY)
            return -1;
        px_error_set(&e, PX_ERR_ENV, a->model, 0, 0, "cannot read what the model takes (%s)", said);
        if (a->propose) {
            *err = e;
            return -1;
        }
        px_error_format(&e, said, sizeof said);
        fprintf(stderr, "parity init: warning: %s; contract.model.inputs %s left at %s: check %s\n", said,
                dir ? "is" : "and max_tokens are", dir ? "its default (max_tokens is config.json's positions)"
                                                       : "their defaults",
                dir ? "it" : "them");
        *err = (px_error){0};
        memset(d, 0, sizeof *d);
        d->max_positions = d->head = -1;
        /* A directory's config.json still says its positions. */
        long positions = dir ? modeldir_config_long(a->model, "max_position_embeddings") : 0;
        if (positions > 0)
            d->max_positions = positions;
        return 0;
    }
    /* The labels name the head's outputs, one each. */
    size_t n_labels = 1;
    for (const char *c = a->labels; *c; c++)
        n_labels += *c == ',';
    if (d->head > 0 && (size_t)d->head != n_labels) {
        px_error_set(err, PX_ERR_MISMATCH, a->model, 0, 0,
                     "--labels names %zu label%s, but the model's head gives %ld outputs: name one label per output, "
                     "in order",
                     n_labels, n_labels == 1 ? "" : "s", d->head);
        describe_free(d);
        return -1;
    }
    return 0;
}

/* Removes what init made under dir (the draft, its results) and dir itself
 * when init made it: a failed init leaves nothing behind. */
static void clean_up(const char *dir, int made, const char *draft, const char *results)
{
    if (draft)
        unlink(draft);
    if (results)
        unlink(results);
    if (made)
        rmdir(dir);
}

int cmd_init(int argc, char **argv)
{
    init_args a;
    int parsed = parse(argc, argv, &a);
    if (parsed != CLI_PARSED)
        return parsed;
    px_error err = {0};
    /* What can fail before anything is made, fails first. */
    struct stat st;
    if (stat(a.model, &st)) {
        px_error_set(&err, PX_ERR_NOT_FOUND, a.model, 0, 0, "cannot read: %s", strerror(errno));
        return cli_error(&err);
    }
    if (a.texts && stat(a.texts, &st)) {
        px_error_set(&err, PX_ERR_NOT_FOUND, a.texts, 0, 0, "cannot open: %s", strerror(errno));
        return cli_error(&err);
    }
    if (!(a.specials = specials_of(&a, &err)))
        return cli_error(&err);
    int made = mkdir(a.dir, 0777) == 0;
    if (!made && errno != EEXIST) {
        px_error_set(&err, PX_ERR_WRITE, a.dir, 0, 0, "cannot make the directory: %s", strerror(errno));
        free(a.specials);
        return cli_error(&err);
    }
    size_t n = strlen(a.dir) + sizeof "/fixture.yaml";
    char *path = malloc(n);
    snprintf(path, n, "%s/fixture.yaml", a.dir);
    int rc = 0;
    if (access(path, F_OK) == 0) {
        px_error_set(&err, PX_ERR_USAGE, path, 0, 0, "already exists: parity init never overwrites a fixture");
        rc = cli_error(&err);
    } else {
        char *text = NULL, *draft = NULL, *results = NULL;
        size_t len = 0;
        proposal *props = NULL;
        size_t n_props = 0;
        px_describe d = {0}, blank = {.max_positions = -1, .head = -1};
        /* What the files say is checked first (the tokenizer, the labels,
         * the texts), then what the model says. */
        int failed = fixture_text(&a, &blank, NULL, &text, &len, &err) || parse_check(path, text, len, &err);
        free(text);
        text = NULL;
        failed = failed || describe(&a, &d, &err) || fixture_text(&a, &d, NULL, &text, &len, &err);
        if (!failed && a.propose) {
            draft = malloc(strlen(a.dir) + 64), results = malloc(strlen(a.dir) + 64);
            sprintf(draft, "%s/.parity-init-draft.yaml", a.dir);
            sprintf(results, "%s/.parity-init-results.yaml", a.dir);
            failed = write_checked(draft, text, len, &err) || !(props = propose(&a, draft, results, &n_props, &err));
            free(text);
            text = NULL;
            failed = failed || fixture_text(&a, &d, props, &text, &len, &err);
            unlink(draft), unlink(results);
        }
        if (failed || write_checked(path, text, len, &err)) {
            rc = cli_error(&err);
            clean_up(a.dir, made, draft, results);
        }
        else
            printf("%s written: now `parity lint %s` names what is still to write\n", path, path);
        for (size_t k = 0; k < n_props && props; k++)
            free(props[k].label), free(props[k].second);
        free(text), free(draft), free(results), free(props);
        describe_free(&d);
    }
    if (rc && made)
        rmdir(a.dir);
    free(path), free(a.specials);
    return rc;
}
