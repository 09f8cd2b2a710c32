/* The training loop of the Python executor (src/executor/parity_train.py,
 * issue 40) held to independent computations by tests/train_agree.py: in
 * float32 its loss curve and gradient norms bit-identical to a plain
 * training loop, the loaded model unchanged, bfloat16 weights and bf16
 * autocast both run (autocast the closer to float32), 2-process DDP and
 * FSDP on gloo under torchrun within a small tolerance of one process, the
 * sketches' estimate of the distance between two runs within 25% of the
 * true one, and the PARITY_TRAIN_FAULT hook. The venv's Python (torch 2,
 * transformers) runs it: skipped, saying so, without it. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define VENV_PY "build/venv/bin/python"

static void need_venv(void)
{
    TL_ONCE_PER_CHECK();
    if (access(VENV_PY, X_OK))
        cr_skip_test("no %s (make deps builds the venv with torch 2 and transformers)", VENV_PY);
}

Test(train, the_training_loop_agrees_with_a_plain_loop_and_with_two_processes, .timeout = 240)
{
    need_venv();
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "HF_HUB_OFFLINE=1 %s tests/train_agree.py > '%s/agree.log' 2>&1", VENV_PY,
             tl_test_dir());
    int st = system(cmd);
    char path[700];
    snprintf(path, sizeof path, "%s/agree.log", tl_test_dir());
    char *log = tl_slurp(path);
    cr_expect_eq(st, 0, "tests/train_agree.py:\n%s", log ? log : "(no output)");
    cr_expect(log && strstr(log, "ok    (a) float32 loss curve bit-identical"), "%s", log ? log : "");
    cr_expect(log && strstr(log, "ok    (d) 2-process FSDP on gloo"), "%s", log ? log : "");
    cr_expect(log && strstr(log, "0 failed"), "%s", log ? log : "");
    free(log);
}
