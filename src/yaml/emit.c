#include "parity/emit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static int utf8_len(const unsigned char *s, unsigned *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    int n = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!n)
        return 0;
    unsigned v = s[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* The escapes YAML's double-quoted style and JSON share. */
static int common_escape(FILE *out, unsigned cp)
{
    if (cp == '"' || cp == '\\')
        fprintf(out, "\\%c", (char)cp);
    else if (cp == '\n')
        fputs("\\n", out);
    else if (cp == '\t')
        fputs("\\t", out);
    else if (cp == '\r')
        fputs("\\r", out);
    else
        return 0;
    return 1;
}

/* The fewest %g digits that read back to v (v finite). */
static void shortest(char *buf, size_t size, double v)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void emit_yaml_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        unsigned cp;
        int n = utf8_len(p, &cp);
        if (n == 0) { /* not UTF-8: keep the byte visible, never emit invalid text */
            fprintf(out, "\\x%02X", *p++);
            continue;
        }
        if (common_escape(out, cp))
            ;
        else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            fprintf(out, "\\x%02X", cp);
        else if (cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF || cp == 0x85 || cp == 0xFFFE || cp == 0xFFFF)
            fprintf(out, "\\u%04X", cp);
        else
            fwrite(p, 1, (size_t)n, out);
        p += n;
    }
    fputc('"', out);
}

void emit_yaml_double(FILE *out, double v)
{
    if (isnan(v)) {
        fputs(".nan", out);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? ".inf" : "-.inf", out);
        return;
    }
    char buf[40];
    shortest(buf, sizeof buf, v);
    /* YAML 1.1 readers (PyYAML) read 1e-05 as a string: give it a dot. */
    char *e = strchr(buf, 'e');
    if (e && !strchr(buf, '.')) {
        fwrite(buf, 1, (size_t)(e - buf), out);
        fputs(".0", out);
        fputs(e, out);
        return;
    }
    fputs(buf, out);
}

void emit_json_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    fputc('"', out);
    while (*p) {
        unsigned cp;
        int n = utf8_len(p, &cp);
        if (n == 0) {
            fputs("\\ufffd", out);
            p++;
            continue;
        }
        if (common_escape(out, cp))
            ;
        else if (cp < 0x20 || cp == 0x7F)
            fprintf(out, "\\u%04x", cp);
        else if (cp == 0x2028 || cp == 0x2029) /* valid JSON, but not valid JavaScript */
            fprintf(out, "\\u%04x", cp);
        else
            fwrite(p, 1, (size_t)n, out);
        p += n;
    }
    fputc('"', out);
}

void emit_json_double(FILE *out, double v)
{
    if (isnan(v) || isinf(v)) {
        fputs("null", out);
        return;
    }
    char buf[40];
    shortest(buf, sizeof buf, v);
    fputs(buf, out);
}
