/* The report layer's kinds, one row each (report_kind.h), and what their
 * parts share with story.c and check_report.c. */
#define _GNU_SOURCE
#include "parity/report_kind.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parity/emit.h"

static const px_report_kind *const rows[] = {
    [PX_MODEL_CLASSIFIER] = &rk_classifier,
    [PX_MODEL_GENERATOR] = &rk_generator,
    [PX_MODEL_EMBEDDING] = &rk_embedding,
    [PX_MODEL_IMAGE] = &rk_image,
    [PX_MODEL_TRAINING] = &rk_training,
};

const px_report_kind *report_kind_for(enum px_model_kind kind)
{
    size_t k = (size_t)kind;
    return k < sizeof rows / sizeof *rows && rows[k] ? rows[k] : &rk_classifier;
}

const px_report_kind *report_kind_of(const px_fixture *f) { return report_kind_for(f->kind); }

char *rk_fmt(px_story_ctx *b, const char *f, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, f);
    if (vasprintf(&s, f, ap) < 0) {
        s = NULL;
        b->oom = 1;
    }
    va_end(ap);
    return s;
}

char *rk_dup(px_story_ctx *b, const char *s)
{
    char *d = strdup(s ? s : "");
    b->oom |= !d;
    return d;
}

char *rk_red(px_story_ctx *b, const char *s)
{
    if (!s)
        return NULL;
    char *t = redact_text(b->rd, s);
    b->oom |= !t;
    return t;
}

void rk_json_key(FILE *o, const char *k)
{
    emit_json_string(o, k);
    fputc(':', o);
}

void rk_json_str_or_null(FILE *o, const char *s)
{
    if (s)
        emit_json_string(o, s);
    else
        fputs("null", o);
}

void rk_json_double_or_null(FILE *o, double v)
{
    if (isfinite(v))
        emit_json_double(o, v);
    else
        fputs("null", o);
}
