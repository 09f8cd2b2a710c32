/* Writing scalars that any YAML reader reads back byte for byte: strings are
 * always double-quoted with every character that YAML would otherwise
 * interpret escaped (quotes, backslash, control characters, line and
 * paragraph separators, BOM), and doubles are written with the fewest
 * digits that read back to the same value. */
#ifndef PARITY_EMIT_H
#define PARITY_EMIT_H

#include <stdio.h>

void emit_yaml_string(FILE *out, const char *s);
/* Shortest %g form that round-trips; "nan", ".inf", "-.inf" as YAML has them. */
void emit_yaml_double(FILE *out, double v);

/* JSON: strings escaped per RFC 8259 (control characters as \u00XX,
 * invalid UTF-8 bytes as U+FFFD so the output is always valid JSON);
 * numbers with the fewest digits that round-trip, null for NaN and inf. */
void emit_json_string(FILE *out, const char *s);
void emit_json_double(FILE *out, double v);

#endif
