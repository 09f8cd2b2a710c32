#define _POSIX_C_SOURCE 200809L
#include "parity/prepare.h"
#include "parity/kind.h"
#include "parity/modeldir.h"
#include "parity/sbuf.h"
#include "parity/strf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_pin(const char *what, const char *path, const char *pinned, px_loc loc,
                     const px_fixture *f, char out[PX_SHA256_HEX], px_error *err)
{
    if (hash_file(path, out, err)) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return px_error_set(err, PX_ERR_MALFORMED, path, 0, 0, "%s file: %s", what, msg);
    }
    if (!pinned)
        return 0; /* lint reports an unpinned revision; run refuses it in main */
    if (strcmp(out, pinned))
        return px_error_set(err, PX_ERR_MISMATCH, f->path, loc.line, loc.col,
                            "%s %s has sha256 %s, not the pinned %s: a different file is a different task: "
                            "re-pin after review with: parity pin %s",
                            what, path, out, pinned, f->path);
    return 0;
}

/* The model's pin: a file's sha256, or a Transformers (or Diffusers
 * pipeline) directory's files one by one (modeldir.h), its revision then
 * the digest of what is there. */
static int check_model(const px_fixture *f, const px_env *e, char out[PX_SHA256_HEX], px_error *err)
{
    if (e->model_format != PX_FORMAT_TRANSFORMERS && e->model_format != PX_FORMAT_DIFFUSERS)
        return check_pin("model", e->model_path, e->model_sha256, e->model_sha_loc, f, out, err);
    if (!e->model_sha256) { /* no files: lint reports it; run refuses the contract's in main */
        out[0] = '\0';
        return 0;
    }
    modeldir_at at = {f->path, e->model_path_loc.line, e->model_path_loc.col, e->model_sha_loc.line,
                      e->model_sha_loc.col};
    return modeldir_check(&at, e->model_path, e->model_files, e->n_model_files, out, err);
}

/* An image pipeline's input processing has no text: the example's class is
 * looked up in the environment's labels (prep_class). No tokenizer. */
static int prep_open_classes(px_prep *p, const px_fixture *f, const px_env *e, int model, px_error *err)
{
    p->labels = (const char *const *)e->labels, p->n_labels = e->n_labels;
    p->env_labels = e->own_labels ? e->name : NULL;
    return model ? check_model(f, e, p->model_sha256, err) : 0;
}

/* A training run's data (kind training: fixture.h px_recipe): the pinned
 * text read once, at most PX_TRAIN_DATA_MAX bytes (a larger file refused
 * before it is read whole), tokenized by the contract's tokenizer as
 * tokenizer(text) encodes it (its post-processor included: a Llama
 * tokenizer's one BOS at the start of the file, none between windows), into
 * p->train_ids. Refused before any executor starts, each in one line at
 * its place: a text of fewer ids than one window of some run's seq_len
 * (seq_len + 1), and, with the model (run), an id at or past its
 * config.json vocab_size. */
static int prep_train_data(px_prep *p, const px_fixture *f, const px_env *e, int model, px_error *err)
{
    const px_train_data *d = &f->train_data;
    px_loc at = d->loc.line ? d->loc : f->recipe.loc;
    if (!d->path)
        return px_error_set(err, PX_ERR_MALFORMED, f->path, at.line, at.col,
                            "a training contract needs its data: contract.train.data: {path, sha256}");
    FILE *in = fopen(d->path, "rb");
    if (!in)
        return px_error_set(err, PX_ERR_NOT_FOUND, f->path, at.line, at.col, "training data %s: %s", d->path,
                            strerror(errno));
    char *text = malloc(PX_TRAIN_DATA_MAX + 1);
    size_t len = text ? fread(text, 1, PX_TRAIN_DATA_MAX + 1, in) : 0;
    int bad = text && ferror(in);
    fclose(in);
    if (!text)
        return px_error_oom(err, f->path);
    if (bad || len > PX_TRAIN_DATA_MAX) {
        free(text);
        return px_error_set(err, bad ? PX_ERR_NOT_FOUND : PX_ERR_TOO_LARGE, f->path, at.line, at.col,
                            bad ? "training data %s: cannot be read" : "training data %s is over %u bytes",
                            d->path, PX_TRAIN_DATA_MAX);
    }
    hash_buffer(text, len, p->train_sha256);
    if (d->sha256 && strcmp(p->train_sha256, d->sha256)) {
        free(text);
        px_loc sl = d->sha_loc.line ? d->sha_loc : at;
        return px_error_set(err, PX_ERR_MISMATCH, f->path, sl.line, sl.col,
                            "training data %s has sha256 %s, not the pinned %s: different data is a different "
                            "task: re-pin after review with: parity pin %s",
                            d->path, p->train_sha256, d->sha256, f->path);
    }
    px_encoding enc = {0};
    int rc = tokenizer_encode(p->tok, text, len, 0, 0, &enc, err);
    free(text);
    if (rc) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return px_error_set(err, PX_ERR_MALFORMED, f->path, at.line, at.col, "training data %s: %s", d->path, msg);
    }
    size_t n = enc.n_real;
    /* The windows of every run: each run's seq_len needs seq_len + 1 ids. */
    /* The contract's recipe first: a run that keeps its seq_len is said there. */
    for (size_t k = 0; k <= f->n_examples; k++) {
        const px_recipe *r = k == 0 ? &f->recipe : f->examples[k - 1].recipe;
        if (!r || r->seq_len < 1 || n >= (size_t)r->seq_len + 1)
            continue;
        px_loc rl = k && r->loc.line ? r->loc : f->recipe.loc.line ? f->recipe.loc : at;
        encoding_free(&enc);
        if (k)
            return px_error_set(err, PX_ERR_MALFORMED, f->path, rl.line, rl.col,
                                "training data %s is %zu tokens, fewer than one window of run '%s''s seq_len %d "
                                "(%d tokens)",
                                d->path, n, f->examples[k - 1].id, r->seq_len, r->seq_len + 1);
        return px_error_set(err, PX_ERR_MALFORMED, f->path, rl.line, rl.col,
                            "training data %s is %zu tokens, fewer than one window of the recipe's seq_len %d (%d "
                            "tokens)",
                            d->path, n, r->seq_len, r->seq_len + 1);
    }
    long vocab = model && e->model_format == PX_FORMAT_TRANSFORMERS ? modeldir_config_long(e->model_path, "vocab_size")
                                                                     : 0;
    for (size_t i = 0; vocab > 0 && i < n; i++)
        if (enc.ids[i] < 0 || enc.ids[i] >= vocab) {
            long long id = (long long)enc.ids[i];
            encoding_free(&enc);
            return px_error_set(err, PX_ERR_MISMATCH, f->path, at.line, at.col,
                                "training data %s: token %zu is id %lld, past the model's vocab_size %ld "
                                "(config.json): the model has no embedding row for it",
                                d->path, i, id, vocab);
        }
    p->train_ids = malloc((n ? n : 1) * sizeof *p->train_ids);
    if (!p->train_ids) {
        encoding_free(&enc);
        return px_error_oom(err, f->path);
    }
    memcpy(p->train_ids, enc.ids, n * sizeof *p->train_ids);
    p->n_train_ids = n;
    encoding_free(&enc);
    return 0;
}

static int prep_open_with(px_prep *p, const px_fixture *f, const px_env *e, int model, px_error *err)
{
    memset(p, 0, sizeof *p);
    if (kind_of(f)->denoises)
        return prep_open_classes(p, f, e, model, err);
    if ((model && check_model(f, e, p->model_sha256, err)) ||
        check_pin(f->tokenizer_hf ? "tokenizer" : "vocab", e->vocab_path, e->vocab_sha256, e->vocab_sha_loc, f,
                  p->vocab_sha256, err))
        return -1;
    p->cleaner = cleaner_new();
    for (size_t i = 0; i < f->n_rules; i++) {
        const px_clean_rule *r = &f->rules[i];
        if (cleaner_add(p->cleaner, r->pattern, r->replace, err)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            prep_close(p);
            return px_error_set(err, PX_ERR_MALFORMED, f->path, r->loc.line, r->loc.col, "cleaning rule: %s", msg);
        }
    }
    p->tok = f->tokenizer_hf      ? tokenizer_load_hf(e->vocab_path, err)
             : f->tokenizer_chars ? tokenizer_load_chars(e->vocab_path, err)
                                  : tokenizer_load(e->vocab_path, f->lowercase, err);
    if (!p->tok) {
        prep_close(p);
        return -1;
    }
    /* A tokenizer whose ids pass the model's embedding fails every forward
     * that meets one: refused before any model starts, as lint says it */
    px_loc at = e->own_vocab && e->vocab_sha_loc.line ? e->vocab_sha_loc : f->tokenizer_loc;
    if (model && e->model_format == PX_FORMAT_TRANSFORMERS &&
        modeldir_vocab_check(f->path, at.line, at.col, e->model_path, e->vocab_path, tokenizer_vocab_size(p->tok),
                             err)) {
        prep_close(p);
        return -1;
    }
    if (kind_of(f)->trains && prep_train_data(p, f, e, model, err)) {
        prep_close(p);
        return -1;
    }
    /* A generator's stop tokens, each one token of this vocabulary. */
    const px_generate *g = &f->gen;
    if (g->n_stop && !(p->stop_ids = calloc(g->n_stop, sizeof *p->stop_ids))) {
        prep_close(p);
        return px_error_oom(err, f->path);
    }
    for (size_t i = 0; i < g->n_stop; i++) {
        int64_t id = tokenizer_stop_id(p->tok, g->stop[i]);
        if (id >= 0) /* a token the executor stops on; a string is found later */
            p->stop_ids[p->n_stop++] = id;
    }
    return 0;
}

static int is_stop_id(const px_fixture *f, const px_tokenizer *tok, int64_t id)
{
    for (size_t i = 0; i < f->gen.n_stop; i++)
        if (tokenizer_stop_id(tok, f->gen.stop[i]) == id)
            return 1;
    return 0;
}

int prep_gen_text(const px_fixture *f, const px_tokenizer *tok, const int64_t *ids, size_t n, int end,
                  size_t *n_out, int *end_out, char **text, px_error *err)
{
    const px_generate *g = &f->gen;
    char **strings = g->n_stop ? calloc(g->n_stop, sizeof *strings) : NULL;
    size_t n_strings = 0, used = n;
    if (g->n_stop && !strings)
        return px_error_oom(err, NULL);
    for (size_t i = 0; i < g->n_stop; i++)
        if (tokenizer_stop_id(tok, g->stop[i]) < 0)
            strings[n_strings++] = g->stop[i];
    /* A stop token is recorded, never part of the text. */
    int on_token = end == 1 && n && is_stop_id(f, tok, ids[n - 1]);
    int stopped = 0;
    *text = tokenizer_text_until(tok, ids, n - on_token, g->skip_special, strings, n_strings, &used, &stopped, err);
    free(strings);
    if (!*text)
        return -1;
    *n_out = stopped ? used : n;
    *end_out = stopped ? 1 : end;
    return 0;
}

void prep_close(px_prep *p)
{
    cleaner_free(p->cleaner);
    tokenizer_free(p->tok);
    free(p->stop_ids);
    free(p->train_ids);
    p->train_ids = NULL, p->n_train_ids = 0;
    p->cleaner = NULL;
    p->tok = NULL;
    p->stop_ids = NULL, p->n_stop = 0;
}

static int only_space(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* An image's example: its class (the example's text) found in the labels
 * gives its class id; one that is not there is rejected, naming the class
 * and the labels (the first few: a contract may have a thousand). */
static int prep_class(const px_prep *p, const char *text, size_t len, px_prepared *out, px_error *err)
{
    out->clean_text = strndup(text ? text : "", len);
    if (!out->clean_text)
        return px_error_oom(err, NULL);
    for (size_t i = 0; i < p->n_labels; i++)
        if (strlen(p->labels[i]) == len && !memcmp(p->labels[i], text, len)) {
            out->class_id = (int64_t)i;
            return 0;
        }
    px_sbuf b = PX_SBUF_INIT;
    sbuf_addf(&b, "no class '%s' in ", out->clean_text);
    if (p->env_labels)
        sbuf_addf(&b, "environment '%s''s labels (", p->env_labels);
    else
        sbuf_add(&b, "contract.labels (");
    enum { SHOWN = 8 };
    for (size_t i = 0; i < p->n_labels && i < SHOWN; i++)
        sbuf_addf(&b, "%s%s", i ? ", " : "", p->labels[i]);
    if (p->n_labels > SHOWN)
        sbuf_addf(&b, ", ... %zu in all", p->n_labels);
    sbuf_add(&b, ")");
    out->rejected = 1;
    if (!(out->reason = sbuf_take(&b)))
        return px_error_oom(err, NULL);
    return 0;
}

int prep_example(const px_prep *p, const px_fixture *f, const char *text, size_t len, px_prepared *out,
                 px_error *err)
{
    memset(out, 0, sizeof *out);
    out->class_id = -1;
    /* A training run has no text: its input is the recipe and the data. */
    if (kind_of(f)->trains)
        return (out->clean_text = strdup("")) ? 0 : px_error_oom(err, NULL);
    if (kind_of(f)->denoises) {
        int rc = prep_class(p, text, len, out, err);
        if (rc)
            prepared_free(out);
        return rc;
    }
    size_t clen = 0;
    out->clean_text = cleaner_apply(p->cleaner, text, len, &clen, err);
    if (!out->clean_text)
        return -1;
    if (tokenizer_encode(p->tok, out->clean_text, clen, f->max_tokens, f->pad_to, &out->enc, err)) {
        prepared_free(out);
        return -1;
    }
    char reason[160];
    if (f->empty_reject && only_space(out->clean_text)) {
        snprintf(reason, sizeof reason, "empty text (contract: empty: reject)");
        out->rejected = 1;
    } else if (out->enc.over_limit) {
        snprintf(reason, sizeof reason, "%zu tokens > max_tokens %zu (never truncated)", out->enc.n_real,
                 f->max_tokens);
        out->rejected = 1;
    }
    if (out->rejected)
        out->reason = strdup(reason);
    return 0;
}

/* The probe is a real input: the shortest example that is run (fewest real
 * tokens, at least one; the first of equals), so that a tokenizer that adds
 * no special tokens (Qwen's, Llama 3's BPE without a template) still sends
 * the model something, and the cheapest one. With none, the empty text if
 * it encodes to a token ([CLS] [SEP]); else there is no probe (enc.n 0).
 * *words say what was sent, for messages. */
static int prep_probe(const px_prep *p, const px_fixture *f, const px_prepared *examples, px_prepared *out,
                      char **words, px_error *err);

/* An image's probe: the first example not rejected, as it is run (its
 * class and seed); none when every one is rejected. */
static int prep_probe_image(const px_prep *p, const px_fixture *f, const px_prepared *examples, px_prepared *out,
                            char **words, px_error *err)
{
    memset(out, 0, sizeof *out);
    out->class_id = -1;
    size_t k = 0;
    while (k < f->n_examples && examples[k].rejected)
        k++;
    if (k == f->n_examples)
        return 0;
    const px_example *x = &f->examples[k];
    if (prep_example(p, f, x->text, x->text_len, out, err))
        return -1;
    out->seed = examples[k].seed;
    *words = strf("example '%s', class '%s'", x->id, out->clean_text);
    return *words ? 0 : px_error_oom(err, f->path);
}

static int prep_probe(const px_prep *p, const px_fixture *f, const px_prepared *examples, px_prepared *out,
                      char **words, px_error *err)
{
    if (kind_of(f)->denoises)
        return prep_probe_image(p, f, examples, out, words, err);
    memset(out, 0, sizeof *out);
    out->class_id = -1;
    if (kind_of(f)->trains) /* no probe: the first TRAINSTEP is the first output */
        return (out->clean_text = strdup("")) ? 0 : px_error_oom(err, f->path);
    out->class_id = -1;
    size_t best = f->n_examples;
    for (size_t k = 0; k < f->n_examples; k++)
        if (!examples[k].rejected && examples[k].enc.n_real > 0 &&
            (best == f->n_examples || examples[k].enc.n_real < examples[best].enc.n_real))
            best = k;
    px_sbuf b = PX_SBUF_INIT;
    if (best < f->n_examples) {
        const px_example *x = &f->examples[best];
        if (prep_example(p, f, x->text, x->text_len, out, err))
            return -1;
        sbuf_addf(&b, "example '%s', %zu token%s", x->id, out->enc.n_real, out->enc.n_real == 1 ? "" : "s");
    } else {
        out->clean_text = strdup("");
        if (tokenizer_encode(p->tok, "", 0, f->max_tokens, f->pad_to, &out->enc, err))
            return -1;
        if (out->enc.n_real == 0)
            out->enc.n = 0; /* nothing to send: no probe */
        sbuf_add(&b, "the empty text (");
        for (size_t k = 0; k < out->enc.n_real; k++)
            sbuf_addf(&b, "%s%s", k ? " " : "", out->enc.pieces[k]);
        sbuf_add(&b, out->enc.n_real ? ")" : "no tokens)");
    }
    *words = sbuf_take(&b);
    if (!*words)
        return px_error_oom(err, f->path);
    return 0;
}

void prepared_free(px_prepared *x)
{
    free(x->clean_text);
    free(x->reason);
    encoding_free(&x->enc);
    memset(x, 0, sizeof *x);
}

static int env_input_open_with(px_env_input *in, const px_fixture *f, const px_env *e, int model, px_error *err)
{
    memset(in, 0, sizeof *in);
    if (prep_open_with(&in->prep, f, e, model, err))
        return -1;
    in->examples = calloc(f->n_examples ? f->n_examples : 1, sizeof *in->examples);
    if (!in->examples) {
        prep_close(&in->prep);
        return px_error_oom(err, f->path);
    }
    for (size_t k = 0; k < f->n_examples; k++) {
        const px_example *x = &f->examples[k];
        if (prep_example(&in->prep, f, x->text, x->text_len, &in->examples[k], err)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            px_reason why = err->reason;
            env_input_close(in, f->n_examples);
            return px_error_set(err, why, f->path, x->text_loc.line, x->text_loc.col,
                                "example '%s': %s", x->id, msg);
        }
        in->examples[k].seed = x->has_seed ? x->seed : f->image.seed;
    }
    if (prep_probe(&in->prep, f, in->examples, &in->probe, &in->probe_words, err)) {
        env_input_close(in, f->n_examples);
        return -1;
    }
    return 0;
}

int env_input_open(px_env_input *in, const px_fixture *f, const px_env *e, px_error *err)
{
    return env_input_open_with(in, f, e, 1, err);
}

int env_input_open_text(px_env_input *in, const px_fixture *f, const px_env *e, px_error *err)
{
    return env_input_open_with(in, f, e, 0, err);
}

int env_input_has_probe(const px_env_input *in) { return in->probe.enc.n > 0 || in->probe.class_id >= 0; }

void env_input_close(px_env_input *in, size_t n_examples)
{
    for (size_t k = 0; in->examples && k < n_examples; k++)
        prepared_free(&in->examples[k]);
    free(in->examples);
    prepared_free(&in->probe);
    free(in->probe_words);
    prep_close(&in->prep);
    memset(in, 0, sizeof *in);
}
