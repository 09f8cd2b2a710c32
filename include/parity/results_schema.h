/* The results file's records (man/parity-results.5) described once, key by
 * key, in the file's order: what type each value is, where it lives in the
 * structs of results.h, whether it is required, and the format version that
 * introduced it. The writer (results_write.c) and the reader
 * (results_read.c) both walk these tables, so a field added here is written
 * and read back, and the reader accepts exactly the keys listed here
 * (its "expected one of" lists are these keys, in this order).
 *
 * A field of type PX_RF_OWN has code of its own on both sides (a list, a
 * nested record, a value derived from another: the outcome's name, the
 * label's, the redacted fixture path); the table still lists its key, so the
 * reader's key check and the format version stay here. */
#ifndef PARITY_RESULTS_SCHEMA_H
#define PARITY_RESULTS_SCHEMA_H

#include <stddef.h>

typedef enum px_rftype {
    PX_RF_OWN,     /* written and read by the record's own code */
    PX_RF_STR,     /* char *: a string, null when NULL (required: "" when NULL) */
    PX_RF_FIXED,   /* char[size]: a string; null or absent reads as "" */
    PX_RF_SHA,     /* char[PX_SHA256_HEX]: as FIXED, and "" or 64 hex digits */
    PX_RF_INT,     /* int: a whole number from `low`; null or absent: low */
    PX_RF_SIZE,    /* size_t: a count; null or absent: 0 */
    PX_RF_MS,      /* double: milliseconds, 0 or more; null, absent, -1: not measured */
    PX_RF_FIGURE,  /* double: a finite number of 0 or more (a time, a rate); as MS */
    PX_RF_ENVVARS, /* px_envvars: a mapping of names to values (envrec.h);
                      absent is not recorded, which is not none set */
} px_rftype;

/* Field flags. */
#define PX_RF_REQUIRED 1u   /* the reader refuses a record without it */
#define PX_RF_OMIT_NULL 2u  /* STR: not written at all when NULL */
#define PX_RF_EMPTY_NULL 4u /* FIXED, SHA: written null when "" */

/* Which struct a record's fields are offsets into. */
typedef enum px_rfbase {
    PX_RB_NONE,      /* only PX_RF_OWN fields */
    PX_RB_ENV,       /* px_env_result (the manifest's are e->m's, and restarts) */
    PX_RB_EXAMPLE,   /* px_example_result */
    PX_RB_BENCH,     /* px_bench */
    PX_RB_GENERATED, /* px_generated */
    PX_RB_MERGED,    /* px_merged_from */
    PX_RB_IMAGE,     /* px_image_out */
    PX_RB_TRAIN,     /* px_train_out */
    PX_RB_TRAIN_GROUP, /* px_train_group */
} px_rfbase;

typedef struct px_rfield {
    const char *key;
    px_rftype type;
    unsigned flags;
    int since;         /* the results format that introduced it */
    size_t offset;     /* into the record's base struct (OWN: 0) */
    size_t size;       /* FIXED, SHA: the buffer's size */
    int low;           /* INT: the least value, and what null reads as */
    const char *gate;  /* another field of the record: this one is written
                          null unless that one is set (not NULL, not 0) */
} px_rfield;

typedef struct px_rrecord {
    const char *name; /* for messages: "manifest", "an example", ... */
    px_rfbase base;
    const px_rfield *fields;
    size_t n;
} px_rrecord;

/* The records, outermost first. */
extern const px_rrecord px_rs_top;         /* the file's top level */
extern const px_rrecord px_rs_merged_from; /* an entry of merged_from: */
extern const px_rrecord px_rs_env;         /* an environment */
extern const px_rrecord px_rs_down;        /* its down: */
extern const px_rrecord px_rs_manifest;    /* its manifest: */
extern const px_rrecord px_rs_bench;       /* an entry of its bench: */
extern const px_rrecord px_rs_example;     /* an entry of its examples: */
extern const px_rrecord px_rs_output;      /* an example's output: */
extern const px_rrecord px_rs_generated;   /* an example's generated: */
extern const px_rrecord px_rs_image;       /* an example's image: (kind image) */
extern const px_rrecord px_rs_latent;      /* an entry of its latents: */
extern const px_rrecord px_rs_train;       /* an example's train: (kind training) */
extern const px_rrecord px_rs_train_group; /* an entry of its groups: */

/* Every record above, and how many. */
extern const px_rrecord *const px_rs_all[];
extern const size_t px_rs_count;

/* The field of rec named key; NULL when there is none. */
const px_rfield *results_schema_field(const px_rrecord *rec, const char *key);
/* The format version that introduced rec's key (1 when there is none). */
int results_schema_since(const px_rrecord *rec, const char *key);
/* rec's keys, NULL-terminated, into keys (room for n + 1); the reader's
 * list of allowed keys. */
void results_schema_keys(const px_rrecord *rec, const char **keys);
/* The fields of rec from key `from` to key `to`, both included (NULL: the
 * first, the last), as indices [*lo, *hi). */
void results_schema_span(const px_rrecord *rec, const char *from, const char *to, size_t *lo, size_t *hi);
/* The address of a field's value in its record's struct. */
void *results_schema_at(const px_rfield *fld, void *base);
const void *results_schema_cat(const px_rfield *fld, const void *base);

#endif
