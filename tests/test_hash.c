/* SHA-256 (src/base/hash.c): FIPS 180-4's own examples, and for lengths around
 * every block boundary the digest coreutils' sha256sum gives of the same
 * bytes, each through the CPU's SHA extensions (where this CPU has them)
 * and through the portable code: both must agree with the references. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/hash.h"
#include "testlib.h"

static void check_vectors(void)
{
    static const struct {
        const char *text;
        const char *want;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrst"
         "nopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    char hex[PX_SHA256_HEX];
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        hash_buffer(v[i].text, strlen(v[i].text), hex);
        cr_expect_str_eq(hex, v[i].want, "'%s'", v[i].text);
    }
    size_t n = 1000000;
    char *a = malloc(n);
    memset(a, 'a', n);
    hash_buffer(a, n, hex);
    cr_expect_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "a million a");
    free(a);
}

/* Files of lengths 0..200 and around larger block multiples, read by
 * hash_file, against sha256sum's digest of the same file. */
static void check_files(void)
{
    char *dir = tl_tmpdir(), path[600], cmd[800];
    snprintf(path, sizeof path, "%s/data", dir);
    unsigned seed = 7;
    size_t lens[260], n = 0;
    for (size_t l = 0; l <= 200; l++)
        lens[n++] = l;
    for (size_t k = 1; k <= 20; k++)
        lens[n++] = 64 * 1021 * k - 1, lens[n++] = 64 * 1021 * k + 55;
    for (size_t i = 0; i < n; i++) {
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f);
        for (size_t j = 0; j < lens[i]; j++) {
            seed = seed * 1103515245u + 12345u;
            fputc((int)(seed >> 16) & 0xff, f);
        }
        fclose(f);
        char hex[PX_SHA256_HEX], want[PX_SHA256_HEX] = "";
        px_error err = {0};
        cr_assert_eq(hash_file(path, hex, &err), 0, "%s", err.msg);
        snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
        FILE *p = popen(cmd, "r");
        cr_assert_not_null(p);
        cr_assert_eq(fscanf(p, "%64s", want), 1);
        pclose(p);
        cr_expect_str_eq(hex, want, "%zu bytes", lens[i]);
    }
    remove(path);
    remove(dir);
    free(dir);
}

Test(hash, the_cpus_sha_extensions_give_the_reference_digests, .timeout = 120)
{
    if (!hash_use_cpu_sha(1))
        cr_skip_test("this CPU has no SHA extensions: the portable code is all there is (tested below)");
    check_vectors();
    check_files();
}

Test(hash, the_portable_code_gives_the_reference_digests, .timeout = 120)
{
    cr_expect_eq(hash_use_cpu_sha(0), 0, "asked for the portable code");
    check_vectors();
    check_files();
    hash_use_cpu_sha(1);
}

Test(hash, a_file_that_cannot_be_read_is_an_error)
{
    char hex[PX_SHA256_HEX];
    px_error err = {0};
    cr_expect_eq(hash_file("/nonexistent/model.pt", hex, &err), -1);
    cr_expect_eq(err.reason, PX_ERR_NOT_FOUND);
    cr_expect(strstr(err.msg, "cannot open"), "%s", err.msg);
}

Test(hash, hex_and_bytes_round_trip)
{
    char hex[PX_SHA256_HEX], back[PX_SHA256_HEX];
    unsigned char bin[32];
    hash_buffer("abc", 3, hex);
    hash_from_hex(hex, bin);
    cr_expect_eq(bin[0], 0xba);
    cr_expect_eq(bin[31], 0xad);
    hash_to_hex(bin, back);
    cr_expect_str_eq(back, hex);
    /* Upper case reads as the same digest; it is written in lower case. */
    char upper[PX_SHA256_HEX];
    for (int i = 0; i < 65; i++)
        upper[i] = (char)toupper((unsigned char)hex[i]);
    hash_from_hex(upper, bin);
    hash_to_hex(bin, back);
    cr_expect_str_eq(back, hex);
}
