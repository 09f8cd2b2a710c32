/* make bench (part): the time to apply one decision to a generated
 * 10 000-example fixture with the splice (locate, splice, verify), against
 * re-parsing and re-emitting the whole file with libyaml's emitter (what a
 * round-tripper does, and which loses comments besides), and against two
 * bare libyaml event parses of the file: the floor of an edit verified by
 * re-parsing (one parse to locate, one to check the result). Goals (the
 * issue): splice <= 1.2x parse + re-emit, and <= 1.1x two event parses.
 * The three are timed in turn in each of 9 rounds; medians, wall clock. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "parity/splice.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int write_handler(void *data, unsigned char *buf, size_t size)
{
    *(size_t *)data += size;
    (void)buf;
    return 1;
}

static double reemit(const char *text, size_t len)
{
    double t0 = now_ms();
    yaml_parser_t p;
    yaml_emitter_t e;
    yaml_event_t ev;
    size_t written = 0;
    yaml_parser_initialize(&p);
    yaml_emitter_initialize(&e);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    yaml_emitter_set_output(&e, write_handler, &written);
    int done = 0;
    while (!done && yaml_parser_parse(&p, &ev)) {
        done = ev.type == YAML_STREAM_END_EVENT;
        if (!yaml_emitter_emit(&e, &ev))
            break;
    }
    yaml_emitter_delete(&e);
    yaml_parser_delete(&p);
    return now_ms() - t0;
}

/* One event parse, each event deleted: what reading a file costs at least. */
static double parse_events(const char *text, size_t len)
{
    double t0 = now_ms();
    yaml_parser_t p;
    yaml_event_t ev;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int done = 0;
    while (!done && yaml_parser_parse(&p, &ev)) {
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return now_ms() - t0;
}

int main(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    fprintf(o, "parity: 1\ncontract:\n  task: t\n  model: {path: m.pt}\n  input:\n"
               "    tokenizer: {kind: wordpiece, vocab: v.txt}\n  labels: [a, b]\n"
               "environments:\n  reference: {device: cpu}\nexamples:\n");
    for (int i = 0; i < 10000; i++)
        fprintf(o, "  # example %d\n  - id: e%d\n    kind: normal\n    text: \"Free screening of film number %d "
                   "in the union, popcorn\"\n    expect: {label: a}\n    why: generated\n",
                i, i, i);
    fclose(o);
    double splice[9], whole[9], parses[9];
    for (int r = 0; r < 9; r++) {
        px_decision d = {"e5000", {"accept", "a note", "bench", "2026-12-02T00:00:00Z", NULL, NULL, NULL, NULL}};
        char *out = NULL;
        size_t out_len;
        px_error err = {0};
        double t0 = now_ms();
        if (splice_apply("bench.yaml", text, len, &d, 1, &out, &out_len, &err)) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        splice[r] = now_ms() - t0;
        free(out);
        whole[r] = reemit(text, len);
        parses[r] = parse_events(text, len);
        parses[r] += parse_events(text, len);
    }
    qsort(splice, 9, sizeof *splice, cmp);
    qsort(whole, 9, sizeof *whole, cmp);
    qsort(parses, 9, sizeof *parses, cmp);
    printf("decide, 10000 examples (%zu KiB): splice + verify median %.1f ms\n", len / 1024, splice[4]);
    printf("decide: libyaml parse + re-emit %.1f ms, two event parses %.1f ms\n", whole[4], parses[4]);
    printf("decide: ratio %.2f to re-emit (goal <= 1.2), %.2f to two parses (goal <= 1.1)\n", splice[4] / whole[4],
           splice[4] / parses[4]);
    free(text);
    return 0;
}
