/* The YAML and JSON scalar writers (src/yaml/emit.c): what they write reads back
 * byte for byte with libyaml and with a real JSON parser. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "parity/emit.h"
#include "testlib.h"

/* Emit a string as a YAML scalar and read it back with libyaml. */
static char *yaml_round_trip(const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    fputs("k: ", o);
    emit_yaml_string(o, s);
    fputc('\n', o);
    fclose(o);
    yaml_parser_t p;
    yaml_document_t d;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    cr_assert(yaml_parser_load(&p, &d), "libyaml rejected %s", text);
    yaml_node_t *root = yaml_document_get_root_node(&d);
    yaml_node_t *v = yaml_document_get_node(&d, root->data.mapping.pairs.start[0].value);
    char *out = malloc(v->data.scalar.length + 1);
    memcpy(out, v->data.scalar.value, v->data.scalar.length);
    out[v->data.scalar.length] = '\0';
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
    free(text);
    return out;
}

Test(emit, strings_read_back_byte_for_byte)
{
    const char *cases[] = {"", "plain", "colon: and # hash", "quote \" backslash \\", "line\nbreak\ttab\r",
                           "\x01\x1f\x7f control", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\xb7",
                           "\xe2\x80\xa8 line separator", "- leading dash", "null", "true", "123", "'single'",
                           "nonchars \xef\xbf\xbe \xef\xbf\xbf (libyaml refuses them raw)"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *back = yaml_round_trip(cases[i]);
        cr_expect_str_eq(back, cases[i], "case %zu", i);
        free(back);
    }
}

Test(emit, invalid_utf8_is_escaped_not_copied)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    emit_yaml_string(o, "a\xff" "b");
    fclose(o);
    cr_expect_str_eq(text, "\"a\\xFFb\"");
    free(text);
}

Test(emit, doubles_round_trip_with_a_dot)
{
    double cases[] = {0.0, -0.1, 1.0 / 3.0, 1e-5, 6.02e23, -2.5, 0.015625};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *o = open_memstream(&text, &len);
        emit_yaml_double(o, cases[i]);
        fclose(o);
        cr_expect(strtod(text, NULL) == cases[i], "%s", text);
        if (strchr(text, 'e'))
            cr_expect(strchr(text, '.') != NULL, "YAML 1.1 float needs a dot: %s", text);
        free(text);
    }
}

/* The JSON writer's strings are read back by a real JSON parser. */
Test(emit, json_strings_read_back_with_python)
{
    const char *cases[] = {"", "plain", "quote \" backslash \\ slash /", "line\nbreak\ttab\r",
                           "\x01\x1f\x7f control", "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x8e\xb7",
                           "\xe2\x80\xa8 separators \xe2\x80\xa9", "</script>"};
    char *dir = tl_tmpdir(), path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/s.json", dir);
    FILE *o = fopen(path, "w");
    fputc('[', o);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fputs(i ? "," : "", o);
        emit_json_string(o, cases[i]);
    }
    fputs(",", o);
    emit_json_double(o, 0.1);
    fputs(",", o);
    emit_json_double(o, NAN);
    fputs("]", o);
    fclose(o);
    /* Python prints each string's UTF-8 bytes in hex; compare with ours. */
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
             "assert d[-2]==0.1 and d[-1] is None; print(\" \".join(s.encode().hex() for s in d[:-2]))' %s > %s.out",
             path, path);
    cr_assert_eq(system(cmd), 0);
    char out_path[300];
    snprintf(out_path, sizeof out_path, "%s.out", path);
    char *got = tl_slurp(out_path), want[4096] = "";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        strcat(want, i ? " " : "");
        for (const unsigned char *c = (const unsigned char *)cases[i]; *c; c++)
            sprintf(want + strlen(want), "%02x", *c);
    }
    strcat(want, "\n");
    cr_expect_str_eq(got, want);
    free(got);
    unlink(out_path), unlink(path), rmdir(dir);
    free(dir);
}

Test(emit, json_replaces_invalid_utf8)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    emit_json_string(o, "a\xff" "b");
    fclose(o);
    cr_expect_str_eq(text, "\"a\\ufffdb\"");
    free(text);
}
