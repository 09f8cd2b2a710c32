/* What the generator tests on tests/models/make_llama.py's tiny Llamas
 * share (test_cmd_kvcache.c, test_cmd_llmtok.c): a skip on torch 1.13,
 * and the TorchScript trace of a model directory. Include after criterion
 * and testlib.h. */
#ifndef PARITY_TESTS_LLAMA_TRACE_H
#define PARITY_TESTS_LLAMA_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Skip, saying why, unless tl_python()'s torch is 2 or newer. */
static inline void llama_need_torch2(void)
{
    if (atoi(tl_torch_version()) < 2)
        cr_skip_test("torch %s under %s: a Transformers model needs torch 2 and transformers "
                     "(run with PARITY_PYTHON=build/venv/bin/python)",
                     tl_torch_version(), tl_python());
}

/* make_llama.py [ARGS] --torchscript dir/NAME: the trace written, its
 * sha256 into sha. */
static inline void llama_trace(const char *args, const char *dir, const char *name, char sha[65])
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 %s tests/models/make_llama.py %s--torchscript %s/%s 2>/dev/null",
             tl_python(), args, dir, name);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char line[4096] = "";
    int got = fgets(line, sizeof line, p) != NULL;
    int rc = pclose(p);
    cr_assert(got && rc == 0 && strlen(line) > 64 && line[64] == ' ', "make_llama.py %s--torchscript: exit %d, '%s'",
              args, rc, line);
    memcpy(sha, line, 64);
    sha[64] = '\0';
}

#endif
