"""Builds the tiny Llama of tests/data/training/ (the training kind's test
fixture): a LlamaConfig of hidden 32, 2 layers, 4 heads and a vocabulary of
300 (the ticket tokenizer's 236 ids fit below it), its weights drawn from
torch.manual_seed(40), saved with save_pretrained (safetensors) into model/.
Prints the pins fixture.yaml holds. Run with the venv's python:
  build/venv/bin/python tests/data/training/make_model.py
"""
import hashlib
import os
import sys

import torch
from transformers import LlamaConfig, LlamaForCausalLM

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "model")


def main():
    torch.manual_seed(40)
    cfg = LlamaConfig(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64,
                      bos_token_id=2, eos_token_id=3, pad_token_id=0, tie_word_embeddings=False,
                      attention_dropout=0.0)
    model = LlamaForCausalLM(cfg).eval()
    model.save_pretrained(out, safe_serialization=True)
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), "rb") as fh:
            print("%s: \"%s\"" % (name, hashlib.sha256(fh.read()).hexdigest()))


if __name__ == "__main__":
    sys.exit(main())
