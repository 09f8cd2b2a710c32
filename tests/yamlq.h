/* Reading a results file in tests: load it with libyaml and walk it by keys,
 * so assertions are about what another reader of the file would see. */
#ifndef PARITY_YAMLQ_H
#define PARITY_YAMLQ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct yq {
    yaml_document_t doc;
    int ok;
} yq;

static inline int yq_load(yq *q, const char *path)
{
    memset(q, 0, sizeof *q);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    q->ok = yaml_parser_load(&p, &q->doc);
    yaml_parser_delete(&p);
    fclose(f);
    return q->ok ? 0 : -1;
}

static inline void yq_free(yq *q)
{
    if (q->ok)
        yaml_document_delete(&q->doc);
}

static inline yaml_node_t *yq_root(yq *q) { return yaml_document_get_root_node(&q->doc); }

static inline yaml_node_t *yq_key(yq *q, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&q->doc, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
            return yaml_document_get_node(&q->doc, p->value);
    }
    return NULL;
}

static inline size_t yq_len(yaml_node_t *seq)
{
    return seq && seq->type == YAML_SEQUENCE_NODE ? (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start) : 0;
}

static inline yaml_node_t *yq_at(yq *q, yaml_node_t *seq, size_t i)
{
    return i < yq_len(seq) ? yaml_document_get_node(&q->doc, seq->data.sequence.items.start[i]) : NULL;
}

static inline const char *yq_str(yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The example entry with this id in environment env. */
static inline yaml_node_t *yq_example(yq *q, const char *env, const char *id)
{
    yaml_node_t *ex = yq_key(q, yq_key(q, yq_key(q, yq_root(q), "environments"), env), "examples");
    for (size_t i = 0; i < yq_len(ex); i++) {
        yaml_node_t *e = yq_at(q, ex, i);
        const char *eid = yq_str(yq_key(q, e, "id"));
        if (eid && !strcmp(eid, id))
            return e;
    }
    return NULL;
}

#endif
