#!/usr/bin/python3
"""Train the "campus-club" demo classifier shipped in fixtures/campus-club.

Run from the repository root with Debian's Python (python3-torch, 1.13):

    /usr/bin/python3 src/tools/train_demo.py \
        --corpus fixtures/campus-club/corpus.tsv --out fixtures/campus-club

Inputs : a corpus of lines "LABEL<TAB>TEXT", LABEL one of LABELS below.
Outputs: OUT/vocab.txt  WordPiece vocabulary (id = 0-based line number)
         OUT/model.pt   TorchScript module with the signature of a traced
                        Hugging Face sequence classifier:
                        forward(input_ids: int64 [B,T], attention_mask: int64
                        [B,T]) -> logits [B,5] (in the module's dtype)

The tokenizer below is a Python rendering of BERT's BasicTokenizer followed by
greedy longest-match-first WordPiece. src/tokenizer/tokenizer.c follows Hugging Face's
`tokenizers` library instead (the fast tokenizer), which parts from this on
inputs the corpus does not hold (unassigned code points, final sigma, cased
composition); on every corpus text the two give the same ids (checked with
tests/tokenizer/hf_encode.js, 356 of 356).

The build is deterministic: same corpus -> byte-identical vocab.txt and
model.pt. torch.jit.save alone is not: the order of each module's Final
constants follows Python's per-process string hashing (so the script re-execs
itself under PYTHONHASHSEED=0), and the *.debug_pkl records embed the absolute
paths and source text of this script and of torch's own modules (so the zip
is rewritten without them, entries stored uncompressed with fixed timestamps).
"""

import argparse
import os
import random
import sys
import time
import unicodedata
from collections import Counter
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torchscript_file import save_model_and_vocab, sha256_bytes  # noqa: E402

LABELS = ["film", "volunteer", "sports", "music", "social"]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PAD_ID = 0
MASK_ID = 4
N_SPECIAL = len(SPECIALS)
# Common English suffix pieces, so the WordPiece path has real sub-word units
# beyond single characters.
SUFFIXES = [
    "##s", "##es", "##ed", "##ing", "##ings", "##er", "##ers", "##est",
    "##ly", "##ion", "##ions", "##tion", "##tions", "##ation", "##ations",
    "##al", "##ment", "##ments", "##ness", "##ful", "##less", "##able",
    "##ible", "##ity", "##ive", "##ous", "##ish", "##ize", "##ise", "##y",
    "##ies", "##ic", "##ist", "##ists", "##en", "##or", "##ors", "##ship",
    "##hood", "##ary", "##ery", "##ance", "##ence", "##ant", "##ent",
]
MAX_POSITIONS = 128
MAX_WORD_CHARS = 100

SEED = 1234
EPOCHS = 60
BATCH_SIZE = 16
LR = 3e-3
# Regularization (the corpus is a few hundred lines): each non-special token
# of a training batch is replaced by [MASK] with this probability, and the
# loss uses label smoothing, which also keeps logits small (bfloat16's error
# is relative, so smaller logits mean smaller absolute differences).
TOKEN_DROPOUT = 0.2
LABEL_SMOOTHING = 0.1

PROBES = [
    "Free screening of Casablanca in the student union, popcorn provided.",
    "Pickup basketball tournament Saturday at the rec center, all levels welcome.",
    "Jazz",
    "Charity 5k fun run for the food bank; volunteers needed at water stations.",
]


# --------------------------------------------------------------------------
# Tokenizer: BERT BasicTokenizer + WordPiece
# --------------------------------------------------------------------------

def _is_whitespace(ch: str) -> bool:
    if ch in (" ", "\t", "\n", "\r"):
        return True
    return unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    if ch in ("\t", "\n", "\r"):
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF
            or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic_tokenize(text: str) -> List[str]:
    # 1. clean: drop NUL, U+FFFD and control chars; white space -> ' '
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        out.append(" " if _is_whitespace(ch) else ch)
    text = "".join(out)
    # 2. spaces around CJK ideographs
    out = []
    for ch in text:
        if _is_cjk(ord(ch)):
            out.extend((" ", ch, " "))
        else:
            out.append(ch)
    text = "".join(out)
    # 3./4. per white-space token: lowercase, NFD, strip Mn, split punctuation
    tokens: List[str] = []
    for token in text.strip().split():
        token = token.lower()
        token = "".join(c for c in unicodedata.normalize("NFD", token)
                        if unicodedata.category(c) != "Mn")
        cur: List[str] = []
        for ch in token:
            if _is_punctuation(ch):
                if cur:
                    tokens.append("".join(cur))
                    cur = []
                tokens.append(ch)
            else:
                cur.append(ch)
        if cur:
            tokens.append("".join(cur))
    # whitespace_tokenize(" ".join(split_tokens)) as in BERT
    return " ".join(tokens).split()


def wordpiece(word: str, vocab: dict) -> List[str]:
    chars = list(word)
    if len(chars) > MAX_WORD_CHARS:
        return ["[UNK]"]
    pieces: List[str] = []
    start = 0
    while start < len(chars):
        end = len(chars)
        found = None
        while start < end:
            sub = "".join(chars[start:end])
            if start > 0:
                sub = "##" + sub
            if sub in vocab:
                found = sub
                break
            end -= 1
        if found is None:
            return ["[UNK]"]
        pieces.append(found)
        start = end
    return pieces


def encode(text: str, vocab: dict) -> List[int]:
    pieces = ["[CLS]"]
    for word in basic_tokenize(text):
        pieces.extend(wordpiece(word, vocab))
    pieces.append("[SEP]")
    return [vocab[p] for p in pieces]


# --------------------------------------------------------------------------
# Corpus and vocabulary
# --------------------------------------------------------------------------

def read_corpus(path: str):
    examples = []
    with open(path, "r", encoding="utf-8", newline="") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            if "\t" not in line:
                sys.exit(f"{path}:{lineno}: expected LABEL<TAB>TEXT")
            label, text = line.split("\t", 1)
            if label not in LABELS:
                sys.exit(f"{path}:{lineno}: unknown label {label!r} "
                         f"(expected one of {', '.join(LABELS)})")
            examples.append((LABELS.index(label), text))
    if not examples:
        sys.exit(f"{path}: no examples")
    return examples


def build_vocab(texts: List[str]) -> List[str]:
    counts: Counter = Counter()
    for t in texts:
        counts.update(basic_tokenize(t))
    chars = sorted({c for w in counts for c in w})
    vocab: List[str] = []
    seen = set()

    def add(tok: str) -> None:
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)

    for tok in SPECIALS:
        add(tok)
    for c in chars:
        add(c)
        add("##" + c)
    for s in SUFFIXES:
        add(s)
    for w, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if n >= 2:
            add(w)
    for tok in vocab:
        if not tok or any(_is_whitespace(c) or c in "\n\r" for c in tok):
            sys.exit(f"internal error: bad vocab token {tok!r}")
    return vocab


# --------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------

class CampusClubClassifier(nn.Module):
    """Token + position embeddings, one post-LN self-attention block (2 heads),
    GELU feed-forward, masked mean pooling, linear head.

    Every dtype-dependent value derives from the activations' dtype, so the
    module runs after .to(torch.bfloat16) / .to(torch.float16) /
    .to(torch.float64). Padded keys are masked with the finite value -1e4
    (representable in float16 and bfloat16) rather than -inf."""

    def __init__(self, vocab_size: int, num_labels: int = 5, dim: int = 32,
                 heads: int = 2, ff: int = 64, max_positions: int = MAX_POSITIONS):
        super().__init__()
        assert dim % heads == 0
        self.dim = dim
        self.heads = heads
        self.head_dim = dim // heads
        self.scale = 1.0 / float(self.head_dim) ** 0.5
        self.tok_emb = nn.Embedding(vocab_size, dim, padding_idx=PAD_ID)
        self.pos_emb = nn.Embedding(max_positions, dim)
        # Zero-initialized: positions beyond the longest training sequence
        # are never trained and must add nothing (random rows there would
        # swamp the token embeddings after the LayerNorm).
        nn.init.zeros_(self.pos_emb.weight)
        self.emb_norm = nn.LayerNorm(dim)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.o = nn.Linear(dim, dim)
        self.attn_norm = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, ff)
        self.ff2 = nn.Linear(ff, dim)
        self.ff_norm = nn.LayerNorm(dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        b = input_ids.size(0)
        t = input_ids.size(1)
        positions = torch.arange(t, dtype=torch.long, device=input_ids.device)
        x = self.tok_emb(input_ids) + self.pos_emb(positions).unsqueeze(0)
        x = self.emb_norm(x)

        q = self.q(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = self.v(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        pad_keys = (attention_mask == 0).view(b, 1, 1, t)
        scores = scores.masked_fill(pad_keys, -1e4)
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, t, self.dim)
        x = self.attn_norm(x + self.o(ctx))

        x = self.ff_norm(x + self.ff2(F.gelu(self.ff1(x))))

        mask = attention_mask.to(x.dtype).unsqueeze(-1)
        pooled = (x * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        return self.classifier(pooled)


# --------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------

def pad_batch(seqs: List[List[int]]):
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), PAD_ID, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, :len(s)] = 1
    return ids, mask


def accuracy(model: nn.Module, seqs, labels) -> float:
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(seqs), 64):
            ids, mask = pad_batch(seqs[i:i + 64])
            pred = model(ids, mask).argmax(dim=-1)
            correct += int((pred == torch.tensor(labels[i:i + 64])).sum())
    return correct / len(seqs)


def train(model: nn.Module, seqs, labels) -> None:
    rng = random.Random(SEED)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    order = list(range(len(seqs)))
    for epoch in range(EPOCHS):
        model.train()
        rng.shuffle(order)
        total = 0.0
        for i in range(0, len(order), BATCH_SIZE):
            idx = order[i:i + BATCH_SIZE]
            ids, mask = pad_batch([seqs[j] for j in idx])
            drop = torch.rand(ids.shape) < TOKEN_DROPOUT
            drop &= ids >= N_SPECIAL
            ids = ids.masked_fill(drop, MASK_ID)
            y = torch.tensor([labels[j] for j in idx], dtype=torch.long)
            loss = F.cross_entropy(model(ids, mask), y,
                                   label_smoothing=LABEL_SMOOTHING)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(idx)
        if (epoch + 1) % 10 == 0 or epoch == 0:
            print(f"epoch {epoch + 1:3d}  loss {total / len(order):.4f}")


# --------------------------------------------------------------------------
# Deterministic save
# --------------------------------------------------------------------------

def main() -> int:
    # TorchScript serializes a module's Final constants in set-iteration
    # order, which follows str hashing: pin the hash seed for a byte-stable
    # model.pt by re-running under PYTHONHASHSEED=0.
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    examples = read_corpus(args.corpus)
    texts = [t for _, t in examples]
    labels = [y for y, _ in examples]
    vocab_list = build_vocab(texts)
    vocab = {tok: i for i, tok in enumerate(vocab_list)}
    seqs = [encode(t, vocab) for t in texts]
    longest = max(len(s) for s in seqs)
    if longest > MAX_POSITIONS:
        sys.exit(f"a corpus line encodes to {longest} tokens "
                 f"(> {MAX_POSITIONS} positions)")
    n_wp = sum(1 for s in seqs for i in s if vocab_list[i].startswith("##"))
    print(f"corpus: {len(examples)} examples, "
          + ", ".join(f"{l}={labels.count(i)}" for i, l in enumerate(LABELS)))
    print(f"vocab: {len(vocab_list)} tokens; longest sequence {longest}; "
          f"{n_wp} '##' pieces in the encoded corpus")

    model = CampusClubClassifier(len(vocab_list), num_labels=len(LABELS))
    t0 = time.monotonic()
    train(model, seqs, labels)
    elapsed = time.monotonic() - t0
    acc = accuracy(model, seqs, labels)
    print(f"training: {EPOCHS} epochs in {elapsed:.1f} s; "
          f"training accuracy {acc * 100:.1f}%")

    model_path, vocab_path = save_model_and_vocab(model, vocab_list, args.out)

    # Reload what was written and check it, in float32 and bfloat16.
    loaded = torch.jit.load(model_path)
    loaded.eval()
    with torch.no_grad():
        ids, mask = pad_batch(seqs)
        ref = model(ids, mask)
        got = loaded(ids, mask)
        if not torch.equal(ref, got):
            sys.exit("reloaded model disagrees with the trained model")
        probe_logits = []
        print("probes (float32 vs bfloat16):")
        for text in PROBES:
            s = encode(text, vocab)
            pieces = " ".join(vocab_list[i] for i in s)
            x_ids = torch.tensor([s], dtype=torch.long)
            x_mask = torch.ones_like(x_ids)
            f32 = loaded(x_ids, x_mask)
            probe_logits.append(f32)
            print(f"  {text!r}")
            print(f"    pieces: {pieces}")
            print(f"    logits f32: "
                  + " ".join(f"{v:.4f}" for v in f32[0].tolist()))
            p32 = LABELS[int(f32.argmax(dim=-1))]
            p16s = []
            diffs = []
            for dt in (torch.bfloat16, torch.float64):
                m = torch.jit.load(model_path).to(dt)
                out = m(x_ids, x_mask)
                if out.dtype != dt:
                    sys.exit(f"{dt} model returned {out.dtype}")
                p16s.append(LABELS[int(out.argmax(dim=-1))])
                diffs.append(float((out.double() - f32.double()).abs().max()))
            print(f"    float32 -> {p32}; bfloat16 -> {p16s[0]} "
                  f"(max |diff| {diffs[0]:.4g}); float64 -> {p16s[1]} "
                  f"(max |diff| {diffs[1]:.3g})")
        blob = b"".join(t.numpy().tobytes() for t in probe_logits)
        print(f"probe logits sha256: {sha256_bytes(blob)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
