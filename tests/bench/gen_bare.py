"""make bench (tests/bench/generate.sh): the bare Python loop that parity's
cached generation is measured against. The same model, the same steps as
parity_torch.py's generate_steps with the cache, and nothing of parity's:
the prompt once with use_cache=True, then each new id with past_key_values
and the attention mask over every position; each step's last row copied to
the host as float64 and the greedy id taken (torch.argmax). One thread,
inference mode, float32.

    PYTHON gen_bare.py MODEL_DIR NEW REPS ID...

generates REPS times (as parity generates REPS examples of one prompt in one
run) and prints each generation's milliseconds on a line of its own (the
loop alone: the model is loaded and one untimed token generated before),
then the ids chosen.
"""

import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402

hf_logging.disable_progress_bar()  # as the executor does


def generate(model, prompt, new):
    ids, past = list(prompt), None
    chosen = []
    for _ in range(new):
        feed = ids if past is None else ids[-1:]
        out = model(input_ids=torch.tensor([feed], dtype=torch.int64),
                    attention_mask=torch.ones((1, len(ids)), dtype=torch.int64),
                    past_key_values=past, use_cache=True)
        past = out.past_key_values
        row = out.logits[0, -1].to("cpu").to(torch.float64)
        tid = int(torch.argmax(row))
        chosen.append(tid)
        ids.append(tid)
    return chosen


def main(argv):
    model_dir, new, reps, prompt = argv[0], int(argv[1]), int(argv[2]), [int(x) for x in argv[3:]]
    torch.set_num_threads(1)
    model = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True).to(torch.float32).eval()
    with torch.inference_mode():
        generate(model, prompt, 1)
        for _ in range(reps):
            t0 = time.perf_counter()
            chosen = generate(model, prompt, new)
            print("%.3f" % ((time.perf_counter() - t0) * 1000.0))
    print(" ".join(str(i) for i in chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
