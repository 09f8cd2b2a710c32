/* The man pages' lists, printed from the tables the code uses, so that a
 * page cannot drift from the program (issue 38): tests/man_tables.sh puts
 * each between its page's markers
 *
 *     .\" BEGIN name
 *     ...
 *     .\" END name
 *
 * and `make man-tables` (in `make check`) fails when a page's text there
 * is not what this prints.
 *
 *     man_tables verdicts      parity(1) VERDICTS: every outcome (verdict.c)
 *     man_tables check-json    parity(1) JSON: check's keys (check_report.h)
 *     man_tables results-keys  "RECORD<TAB>KEY" for every key of the results
 *                              file's schema (results_schema.c): the script
 *                              checks parity-results(5) names each */
#include <stdio.h>
#include <string.h>

#include "parity/check_report.h"
#include "parity/results_schema.h"
#include "parity/verdict.h"

/* Plain text as roff text lines: a backslash escaped, each sentence on a
 * line of its own (mdoc's rule), and a line never starting with a control
 * character. */
static void roff_text(const char *s)
{
    int start = 1;
    for (; *s; s++) {
        if (start && (*s == '.' || *s == '\''))
            fputs("\\&", stdout);
        start = 0;
        if (*s == '\\')
            fputs("\\e", stdout);
        else
            putchar(*s);
        if (*s == '.' && s[1] == ' ' && s[2] >= 'A' && s[2] <= 'Z') {
            putchar('\n');
            s++;
            start = 1;
        }
    }
    putchar('\n');
}

static void verdicts(void)
{
    puts(".Bl -tag -width \"pass-within-tolerance\"");
    for (int o = 0; o < PX_OC_COUNT; o++) {
        printf(".It Sy %s\n", outcome_name((px_outcome)o));
        const char *more = outcome_more((px_outcome)o);
        char line[2048];
        snprintf(line, sizeof line, "%s%s%s%s", outcome_meaning((px_outcome)o), more ? "; " : "", more ? more : "",
                 outcome_met((px_outcome)o) ? " (meets the contract)" : "");
        roff_text(line);
    }
    puts(".El");
}

static const struct {
    const char *object, *key, *doc;
} json_keys[] = {
#define PX_CJ_ROW(object, key, doc) {object, key, doc},
    PX_CHECK_JSON_KEYS(PX_CJ_ROW)
#undef PX_CJ_ROW
};

static void check_json(void)
{
    size_t n = sizeof json_keys / sizeof *json_keys;
    puts(".Bl -tag -width Ds");
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(json_keys[i].object, json_keys[i - 1].object)) {
            if (i)
                puts(".El");
            printf(".It %s%s\n", strchr(json_keys[i].object, ' ') ? "" : "Cm ", json_keys[i].object);
            puts(".Bl -tag -width \"smallest_passing_atol\" -compact");
        }
        printf(".It Cm %s\n", json_keys[i].key);
        roff_text(json_keys[i].doc);
    }
    puts(".El\n.El");
}

static void results_keys(void)
{
    for (size_t r = 0; r < px_rs_count; r++)
        for (size_t i = 0; i < px_rs_all[r]->n; i++)
            printf("%s\t%s\n", px_rs_all[r]->name, px_rs_all[r]->fields[i].key);
}

int main(int argc, char **argv)
{
    const char *what = argc == 2 ? argv[1] : "";
    if (!strcmp(what, "verdicts"))
        verdicts();
    else if (!strcmp(what, "check-json"))
        check_json();
    else if (!strcmp(what, "results-keys"))
        results_keys();
    else {
        fprintf(stderr, "usage: man_tables verdicts|check-json|results-keys\n");
        return 2;
    }
    return 0;
}
