/* Small modules: the protocol's framing, the YAML scalar writer, atomic
 * writes, the exit statuses against the man page, the decisions' table. (The
 * command table and its parser: test_cli.c.) */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "parity/atomic.h"
#include "parity/decision.h"
#include "parity/emit.h"
#include "parity/proto.h"
#include "testlib.h"

Test(proto, frame_round_trip_across_partial_reads)
{
    px_buf b = {0};
    proto_begin(&b, PX_FRAME_OUTPUT);
    buf_put_str(&b, "bfloat16");
    buf_put_u32(&b, 2);
    buf_put_i64(&b, -7);
    buf_put_f64(&b, -0.1);
    proto_end(&b);
    uint32_t type;
    size_t len;
    /* Every prefix shorter than the frame is "need more", never a frame. */
    for (size_t n = 0; n < b.len; n++)
        cr_expect_eq(proto_frame_ready(b.data, n, &type, &len), 0, "prefix %zu", n);
    cr_assert_eq(proto_frame_ready(b.data, b.len, &type, &len), 1);
    cr_expect_eq(type, PX_FRAME_OUTPUT);
    cr_expect_eq(len, b.len);
    px_buf r = {0};
    buf_put(&r, b.data + PX_FRAME_HEADER, len - PX_FRAME_HEADER);
    char *s = buf_get_str(&r);
    cr_expect_str_eq(s, "bfloat16");
    cr_expect_eq(buf_get_u32(&r), 2);
    cr_expect_eq(buf_get_i64(&r), -7);
    cr_expect(buf_get_f64(&r) == -0.1);
    cr_expect_eq(r.bad, 0);
    buf_get_u32(&r); /* past the end */
    cr_expect_eq(r.bad, 1);
    free(s);
    buf_free(&r);
    buf_free(&b);
}

Test(proto, oversized_header_is_rejected)
{
    uint8_t hdr[8] = {'F', 'A', 'I', 'L', 0xff, 0xff, 0xff, 0x7f};
    uint32_t type;
    size_t len;
    cr_expect_eq(proto_frame_ready(hdr, sizeof hdr, &type, &len), -1);
}

Test(proto, little_endian_on_the_wire)
{
    px_buf b = {0};
    buf_put_u32(&b, 0x01020304u);
    cr_expect_eq(b.data[0], 4);
    cr_expect_eq(b.data[3], 1);
    buf_free(&b);
}

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
                           "\xe2\x80\xa8 line separator", "- leading dash", "null", "true", "123", "'single'"};
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

Test(atomic, replaces_keeps_mode_and_writes_through_links)
{
    char *dir = tl_tmpdir();
    char path[256], link[256];
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    snprintf(link, sizeof link, "%s/l.yaml", dir);
    tl_write(path, "old\n");
    chmod(path, 0600);
    cr_assert_eq(symlink("f.yaml", link), 0);
    px_error err = {0};
    cr_assert_eq(atomic_write(link, "new\n", 4, &err), 0, "%s", err.msg);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link is kept");
    char *got = tl_slurp(path);
    cr_expect_str_eq(got, "new\n");
    free(got);
    stat(path, &st);
    cr_expect_eq(st.st_mode & 0777, 0600);
    unlink(link), unlink(path), rmdir(dir);
    free(dir);
}

Test(atomic, failed_write_leaves_the_original)
{
    if (geteuid() == 0)
        cr_skip_test("root ignores directory permissions");
    char *dir = tl_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    tl_write(path, "old\n");
    chmod(dir, 0500);
    px_error err = {0};
    cr_expect_neq(atomic_write(path, "new\n", 4, &err), 0);
    cr_expect_eq(err.code, PX_EXIT_IO);
    char *got = tl_slurp(path);
    cr_expect_str_eq(got, "old\n");
    free(got);
    chmod(dir, 0700);
    unlink(path), rmdir(dir);
    free(dir);
}

Test(atomic, missing_directory_is_an_error)
{
    px_error err = {0};
    cr_expect_neq(atomic_write("/nonexistent-dir/x.yaml", "x", 1, &err), 0);
    cr_expect(strstr(err.msg, "cannot create") != NULL, "%s", err.msg);
}

/* The exit statuses scripts depend on: the man page lists exactly the
 * table's codes, in its order of precedence; --help prints them; and the
 * precedence is what px_exit_worse returns. */
Test(cli, the_exit_status_table_is_the_man_pages)
{
    char *man = tl_slurp("man/parity.1");
    cr_assert_not_null(man);
    char *sec = strstr(man, ".Sh EXIT STATUS"), *end = sec ? strstr(sec, ".Sh EXAMPLES") : NULL;
    cr_assert(sec && end);
    *end = '\0';
    const char *at = sec;
    int listed = 0;
    for (const char *l = sec; (l = strstr(l, "\n.It ")); l++)
        listed++;
    cr_expect_eq(listed, px_exit_count, "the man page lists %d codes, the table %d", listed, px_exit_count);
    for (int i = 0; i < px_exit_count; i++) {
        char want[32];
        snprintf(want, sizeof want, "\n.It %d\n", px_exit_table[i].code);
        const char *found = strstr(at, want);
        cr_expect_not_null(found, "exit %d missing from man/parity.1 or out of order", px_exit_table[i].code);
        if (found)
            at = found + 1;
    }
    cmd_result r = tl_run((const char *[]){"parity", "--help", NULL});
    for (int i = 0; i < px_exit_count; i++) {
        char want[32];
        snprintf(want, sizeof want, "  %-3d %.20s", px_exit_table[i].code, px_exit_table[i].meaning);
        cr_expect(strstr(r.out, want), "--help lacks '%s'", want);
    }
    tl_free(&r);
    cr_expect_eq(px_exit_worse(PX_EXIT_FAILED, PX_EXIT_ENV), PX_EXIT_ENV, "an incomplete check is worse");
    cr_expect_eq(px_exit_worse(PX_EXIT_ENV, PX_EXIT_IO), PX_EXIT_IO);
    cr_expect_eq(px_exit_worse(PX_EXIT_OK, PX_EXIT_FAILED), PX_EXIT_FAILED);
    cr_expect_eq(px_exit_worse(PX_EXIT_INTERNAL, PX_EXIT_USAGE), PX_EXIT_USAGE);
    cr_expect_eq(px_exit_worse(PX_EXIT_CUT_SHORT, PX_EXIT_ENV), PX_EXIT_CUT_SHORT);
    free(man);
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

/* -o /dev/null must not replace the device with a regular file. */
Test(atomic, a_device_is_written_to_not_replaced)
{
    px_error err = {0};
    cr_assert_eq(atomic_write("/dev/null", "x\n", 2, &err), 0, "%s", err.msg);
    struct stat st;
    cr_assert_eq(stat("/dev/null", &st), 0);
    cr_expect(S_ISCHR(st.st_mode), "/dev/null is still a character device");
    char *dir = tl_tmpdir();
    cr_expect_neq(atomic_write(dir, "x", 1, &err), 0);
    cr_expect(strstr(err.msg, "is a directory"), "%s", err.msg);
    rmdir(dir);
    free(dir);
}

/* The decisions' one table: names round-trip, the lists the messages use,
 * the review list's symbols, and which settle an ambiguous example. */
Test(decision, one_table_names_symbols_and_what_settles)
{
    for (int k = 0; k < PX_DEC_COUNT; k++)
        cr_expect_eq(decision_kind(px_decision_table[k].name), k, "%s", px_decision_table[k].name);
    cr_expect_eq(decision_kind(NULL), PX_DEC_NONE);
    cr_expect_eq(decision_kind("accepted"), PX_DEC_NONE);
    cr_expect_str_eq(decision_list(0), "accept, defect, unsupported, needs-rule or flag");
    cr_expect_str_eq(decision_list(1), "accept, defect, unsupported, needs-rule, flag or clear");
    cr_expect_str_eq(px_decision_table[PX_DEC_DEFECT].symbol, "X");
    cr_expect_str_eq(px_decision_table[PX_DEC_NEEDS_RULE].symbol, "P");
    cr_expect(px_decision_table[PX_DEC_ACCEPT].settles && px_decision_table[PX_DEC_UNSUPPORTED].settles);
    cr_expect(!px_decision_table[PX_DEC_FLAG].settles && !px_decision_table[PX_DEC_NEEDS_RULE].settles);
}
