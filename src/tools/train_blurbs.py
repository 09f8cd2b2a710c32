#!/usr/bin/python3
"""Train the "event-blurbs" demo generator shipped in fixtures/event-blurbs.

Run from the repository root with Debian's Python (python3-torch, 1.13):

    /usr/bin/python3 src/tools/train_blurbs.py \
        --corpus fixtures/event-blurbs/corpus.tsv --out fixtures/event-blurbs
    /usr/bin/python3 src/tools/train_blurbs.py --probe --out fixtures/event-blurbs \
        [--prompts FILE] [--max-new-tokens N]

Inputs : a hand-written corpus of lines "PROMPT<TAB>BLURB". PROMPT is an
         event's fields "category | title | day time | venue", optionally
         followed by a price field "| free" or "| £5"; BLURB is a one-line
         announcement that names the title, the day, the time and the venue
         verbatim, and the price only when the prompt has one:
         "film | Casablanca | Friday 19:00 | Union cinema" ->
         "Film night: Casablanca, Friday 19:00, Union cinema."
Outputs: OUT/vocab.txt  the vocabulary of tokenizer kind `chars`: [PAD]
                        [BOS] [EOS] [UNK] on lines 1-4, then one code point
                        a line (every character of the corpus, the separator
                        and the digits), in code point order
         OUT/model.pt   TorchScript module with the signature of a traced
                        causal language model: forward(input_ids: int64
                        [B,T], attention_mask: int64 [B,T]) -> logits
                        [B,T,V] (in the module's dtype), for any B and any
                        T <= MAX_POSITIONS

What the model sees: [BOS], the prompt, the separator " =>", the blurb,
[EOS]. The separator is part of the prompt text that parity sends (the
fixture's example texts end with " =>"), so generation starts right after
it, and the generated text is the blurb alone. The loss counts the blurb and
its [EOS] only, each character once except those where the blurb starts
or ends a field it copies from the prompt (field_marks()), MARK_WEIGHT
times: they decide whether a blurb keeps its facts.

The corpus is small (~150 lines), too small for a model to learn to COPY the
title, day, time and venue rather than to recite the corpus. So the training
examples are recombinations: each corpus line gives a template (its blurb
with the prompt's fields cut out: its wording, and where each field goes),
and each training example fills one template with fields drawn from all lines
(titles, venues, days, times and prices of the whole corpus), with titles and
venues also made up from the corpus's words (some of them long, so that the
positions of long prompts are trained: every LONG_EVERY-th batch,
smaller, holds only long ones) and times drawn at random. A template
that has a price gets a price (free or £1..£12); one without gets none, so
the model learns that a price appears in the blurb only when the prompt has
one. Each category has two wordings ("Film night:" / "Screening:") about as
often each: the first character of the blurb is close to a tie, which is
what the demo needs (a prompt where bfloat16 picks the other wording than
float32 while keeping the facts).

What it is worth: 520 steps of 16 examples, about 4-5 minutes on one core
of the 2-core build machine, 139k parameters, model.pt 0.6 MB. On short
prompts float32 greedy keeps the facts most of the time, not always: it may
put the venue where the title goes or repeat a field, and on prompts of
120+ characters it mostly does (fixtures/event-blurbs/PROBES.txt has probes
of both kinds). That suits a demo of parity's constraints; it is not a good
generator.

The build is deterministic: same corpus -> byte-identical vocab.txt and
model.pt (the tricks of train_demo.py: PYTHONHASHSEED=0 re-exec, one thread,
deterministic algorithms, the zip rewritten without *.debug_pkl with fixed
timestamps).

--probe runs the decoding of gen-spec (issue 15) on the saved model.pt for
each prompt: the whole sequence forwarded at each step, the last row's
logits as float64, greedy = the first largest (NaN first), in float32 and in
bfloat16 (model.to(torch.bfloat16) on the CPU), and sampling with the
splitmix64 sampler (temperature 0.7, top_k 5, seed 42, on the float32
logits); it prints the texts, whether each keeps the prompt's facts, and the
first step where bfloat16's greedy choice differs from float32's with both
tokens' logits in each dtype.
"""

import argparse
import math
import os
import random
import string
import sys
import time
from typing import Dict, List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torchscript_file import save_model_and_vocab  # noqa: E402

SPECIALS = ["[PAD]", "[BOS]", "[EOS]", "[UNK]"]
PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3
SEPARATOR = " =>"
MAX_POSITIONS = 512
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

SEED = 1234
STEPS = 520
BATCH_SIZE = 16
LR = 3e-3
WARMUP = 100
P_ORIGINAL = 0.2     # a corpus line as written
P_MADE_UP = 0.35     # a title / venue made of corpus words rather than drawn
MARK_WEIGHT = 5.0    # loss weight of the characters field_marks() names
LONG_EVERY = 8       # every 8th batch: LONG_BATCH examples with a long title and venue
LONG_BATCH = 8

DIM, HEADS, LAYERS, FF = 64, 4, 2, 128
FIELDS = 8           # field index embeddings: '|' seen so far (capped), before / after "=>"

PROBES = [
    "film | Casablanca | Friday 19:00 | Union cinema" + SEPARATOR,
    "music | Velvet Foxes | Saturday 21:00 | Union main room | £5" + SEPARATOR,
    "talk | Whales and their songs | Tuesday 18:15 | Biology lecture theatre" + SEPARATOR,
    "sports | Hockey trials | Sunday 10:30 | Astro pitch | free" + SEPARATOR,
]

# --------------------------------------------------------------------------
# Corpus, templates, vocabulary
# --------------------------------------------------------------------------

Fields = Dict[str, str]


def parse_prompt(prompt: str, where: str) -> Fields:
    parts = prompt.split(" | ")
    if len(parts) not in (4, 5):
        sys.exit(f"{where}: expected 'category | title | day time | venue [| price]'")
    day_time = parts[2].split(" ")
    if len(day_time) != 2 or day_time[0] not in DAYS or len(day_time[1]) != 5 \
            or day_time[1][2] != ":" or not (day_time[1][:2] + day_time[1][3:]).isdigit():
        sys.exit(f"{where}: expected 'Day HH:MM', got {parts[2]!r}")
    f = {"cat": parts[0], "T": parts[1], "DAY": day_time[0], "TIME": day_time[1],
         "V": parts[3]}
    if len(parts) == 5:
        p = parts[4]
        if p != "free" and not (p.startswith("£") and p[1:].isdigit()):
            sys.exit(f"{where}: price must be 'free' or '£N', got {p!r}")
        f["P"] = p
    return f


def make_prompt(f: Fields) -> str:
    parts = [f["cat"], f["T"], f["DAY"] + " " + f["TIME"], f["V"]]
    if "P" in f:
        parts.append(f["P"])
    return " | ".join(parts)


def make_template(f: Fields, blurb: str, where: str) -> str:
    """The blurb with each field replaced by {KEY}; each field must be there
    exactly once (the price only when the prompt has one)."""
    t = blurb
    for key in sorted((k for k in f if k != "cat"), key=lambda k: -len(f[k])):
        if t.count(f[key]) != 1:
            sys.exit(f"{where}: the blurb must hold {key} {f[key]!r} exactly once")
        t = t.replace(f[key], "{" + key + "}")
    if "£" in t or "free" in t:
        sys.exit(f"{where}: the blurb names a price the prompt does not have")
    if fill(t, f) != blurb:
        sys.exit(f"{where}: internal error: template {t!r} does not give back the blurb")
    return t


def fill(template: str, f: Fields) -> str:
    out = template
    for key in ("T", "DAY", "TIME", "V", "P"):
        if key in f:
            out = out.replace("{" + key + "}", f[key])
    return out


def read_corpus(path: str):
    lines = []
    with open(path, "r", encoding="utf-8", newline="") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            if line.count("\t") != 1:
                sys.exit(f"{where}: expected PROMPT<TAB>BLURB")
            prompt, blurb = line.split("\t")
            f = parse_prompt(prompt, where)
            lines.append((f, blurb, make_template(f, blurb, where)))
    if not lines:
        sys.exit(f"{path}: no lines")
    return lines


def build_vocab(lines) -> List[str]:
    chars = set(SEPARATOR) | set(string.digits) | set("£")
    for f, blurb, _ in lines:
        chars |= set(make_prompt(f)) | set(blurb)
    for c in chars:
        if c in "\n\r\t" or len(c) != 1:
            sys.exit(f"the corpus holds a character the vocab cannot: {c!r}")
    return SPECIALS + sorted(chars)


def encode(text: str, index: Dict[str, int]) -> List[int]:
    return [index.get(c, UNK_ID) for c in text]


def decode(ids: List[int], vocab: List[str]) -> str:
    out = []
    for i in ids:
        if i == UNK_ID:
            out.append("\ufffd")
        elif i >= len(SPECIALS):
            out.append(vocab[i])
    return "".join(out)


# --------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------

class Block(nn.Module):
    def __init__(self, dim: int, heads: int, ff: int):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.scale = 1.0 / float(self.head_dim) ** 0.5
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.o = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, ff)
        self.ff2 = nn.Linear(ff, dim)

    def forward(self, x: Tensor, blocked: Tensor) -> Tensor:
        b = x.size(0)
        t = x.size(1)
        d = x.size(2)
        qkv = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, self.head_dim)
        q = qkv[:, :, 0].transpose(1, 2)
        k = qkv[:, :, 1].transpose(1, 2)
        v = qkv[:, :, 2].transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        scores = scores.masked_fill(blocked, -1e4)
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, t, d)
        x = x + self.o(ctx)
        return x + self.ff2(F.gelu(self.ff1(self.norm2(x))))


class EventBlurbs(nn.Module):
    """A pre-LN causal transformer over characters with a copy head.

    Each position's input is the sum of the embeddings of its token, of the
    token before it and of the one before that (zero rows before the start),
    and of its position; then LAYERS blocks of HEADS-head self-attention and
    a GELU feed-forward, a final LayerNorm, and the logits: a linear head to
    the vocab plus gate(x) * copy, where copy (see copy()) is a distribution
    over the prompt's tokens that followed earlier occurrences of the
    current one- to four-character context, found by exact comparison of
    ids, and what the prompt has after them tells the head where a field
    ends.

    Why: this machine affords a few hundred training steps, too few for a
    plain transformer to learn induction (copying the title and the venue
    character by character); with the copy head it only has to learn when to
    copy (the gate) and where each field starts. Everything is causal:
    position t reads the tokens at positions <= t whose attention_mask is 1.
    Blocked scores get the finite -1e4 (representable in float16 and
    bfloat16) rather than -inf, and every dtype-dependent value follows the
    activations, so the module runs after .to(torch.bfloat16); positions
    past MAX_POSITIONS are an error (an index out of range in forward)."""

    def __init__(self, vocab_size: int, pipe_id: int, arrow_id: int, dim: int = DIM,
                 heads: int = HEADS, layers: int = LAYERS, ff: int = FF,
                 max_positions: int = MAX_POSITIONS):
        super().__init__()
        assert dim % heads == 0
        self.max_positions = max_positions
        self.pipe_id = pipe_id
        self.arrow_id = arrow_id
        self.fields = FIELDS
        self.tok_emb = nn.Embedding(vocab_size, dim)
        self.prev1_emb = nn.Embedding(vocab_size, dim)
        self.prev2_emb = nn.Embedding(vocab_size, dim)
        self.pos_emb = nn.Embedding(max_positions, dim)
        self.field_emb = nn.Embedding(2 * FIELDS, dim)
        self.ahead_emb = nn.Embedding(vocab_size, dim)
        for e in (self.tok_emb, self.prev1_emb, self.prev2_emb, self.pos_emb, self.field_emb,
                  self.ahead_emb):
            nn.init.normal_(e.weight, std=0.1)
        self.mix1 = nn.Linear(2 * dim, dim)
        self.mix2 = nn.Linear(dim, dim)
        self.blocks = nn.ModuleList([Block(dim, heads, ff) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)
        self.vocab_size = vocab_size
        # the copy head: weights of a 1-, 2-, 3- and 4-character context match,
        # the score of "no match", and the gate from the hidden state
        self.match_w = nn.Parameter(torch.tensor([1.0, 2.0, 2.0, 2.0]))
        self.no_match = nn.Parameter(torch.tensor(1.0))
        self.gate = nn.Linear(dim, 1)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        b = input_ids.size(0)
        t = input_ids.size(1)
        positions = torch.arange(t, dtype=torch.long, device=input_ids.device)
        # which field each position is in: the '|' seen so far, and whether
        # the "=>" has been (counting its '>'), both up to this position
        pipes = (input_ids == self.pipe_id).long().cumsum(1).clamp(max=self.fields - 1)
        answer = (input_ids == self.arrow_id).long().cumsum(1).clamp(max=1)
        x = (self.tok_emb(input_ids) + self.pos_emb(positions).unsqueeze(0)
             + self.field_emb(pipes + self.fields * answer))
        p1 = self.prev1_emb(input_ids)
        p2 = self.prev2_emb(input_ids)
        x = x + F.pad(p1, (0, 0, 1, 0))[:, :t] + F.pad(p2, (0, 0, 2, 0))[:, :t]
        future = torch.ones(t, t, dtype=torch.bool, device=input_ids.device).triu(1)
        blocked = future.view(1, 1, t, t) | (attention_mask == 0).view(b, 1, 1, t)
        for block in self.blocks:
            x = block(x, blocked)
        x = self.norm(x)
        copy, ahead = self.copy(input_ids, blocked.squeeze(1), answer, x.dtype)
        # the hidden state, told what the prompt has after the copied
        # character (a '|': the field ends here)
        e = torch.matmul(ahead, self.ahead_emb.weight.to(x.dtype))
        h = x + self.mix2(F.gelu(self.mix1(torch.cat([x, e], dim=2))))
        return self.head(h) + self.gate(h) * copy

    def copy(self, ids: Tensor, blocked: Tensor, answer: Tensor,
             dtype: torch.dtype) -> Tuple[Tensor, Tensor]:
        """Two [B,T,V] distributions for each position t: the tokens that
        followed an earlier occurrence in the prompt (before the "=>") of
        its context, and the tokens after those. Position j <= t of the
        prompt scores by how many of ids[j-1], ids[j-2], ids[j-3], ids[j-4]
        equal ids[t], ids[t-1], ids[t-2], ids[t-3] in a row (exact
        comparisons of ids, a learned weight per length of the match), against a "no match" score; the first distribution
        puts the mass on ids[j], the second on ids[j+1] (none when j = t)."""
        t = ids.size(1)
        cur1 = F.pad(ids, (1, 0), value=-1.0)[:, :t]
        cur2 = F.pad(ids, (2, 0), value=-1.0)[:, :t]
        cur3 = F.pad(ids, (3, 0), value=-1.0)[:, :t]
        cur4 = F.pad(ids, (4, 0), value=-1.0)[:, :t]
        m1 = (ids.unsqueeze(2) == cur1.unsqueeze(1)) & (answer == 0).unsqueeze(1)
        m2 = m1 & (cur1.unsqueeze(2) == cur2.unsqueeze(1)) & (cur1 >= 0).unsqueeze(2)
        m3 = m2 & (cur2.unsqueeze(2) == cur3.unsqueeze(1)) & (cur2 >= 0).unsqueeze(2)
        m4 = m3 & (cur3.unsqueeze(2) == cur4.unsqueeze(1)) & (cur3 >= 0).unsqueeze(2)
        scores = (self.match_w[0] * m1.to(dtype) + self.match_w[1] * m2.to(dtype)
                  + self.match_w[2] * m3.to(dtype) + self.match_w[3] * m4.to(dtype))
        scores = scores.masked_fill(blocked | ~m1, -1e4)
        sink = self.no_match.to(dtype).expand(scores.size(0), t, 1)
        probs = torch.softmax(torch.cat([scores, sink], dim=2), dim=2)[:, :, :t]
        onehot = F.one_hot(ids, self.vocab_size).to(dtype)
        # ids[j+1] for j < t; position j = t has no next token yet
        nxt = F.pad(onehot[:, 1:], (0, 0, 0, 1))
        diag = torch.eye(t, dtype=torch.bool, device=ids.device).view(1, t, t)
        return torch.matmul(probs, onehot), torch.matmul(probs.masked_fill(diag, 0.0), nxt)


# --------------------------------------------------------------------------
# Training data: recombined templates
# --------------------------------------------------------------------------

class Sampler:
    def __init__(self, lines, rng: random.Random):
        self.lines = lines
        self.rng = rng
        self.titles = sorted({f["T"] for f, _, _ in lines})
        self.venues = sorted({f["V"] for f, _, _ in lines})
        self.times = sorted({f["TIME"] for f, _, _ in lines})
        self.title_words = sorted({w for t in self.titles for w in t.split(" ")})
        self.venue_words = sorted({w for v in self.venues for w in v.split(" ")})

    def words(self, pool: List[str], lo: int, hi: int) -> str:
        n = self.rng.randint(lo, hi)
        out = [self.rng.choice(pool) for _ in range(n)]
        out[0] = out[0][:1].upper() + out[0][1:]
        return " ".join(out)

    def time(self) -> str:
        if self.rng.random() < 0.5:
            return self.rng.choice(self.times)
        return f"{self.rng.randint(0, 23):02d}:{self.rng.randint(0, 59):02d}"

    def example(self, long: bool = False) -> Tuple[str, str]:
        f, blurb, template = self.rng.choice(self.lines)
        if not long and self.rng.random() < P_ORIGINAL:
            return make_prompt(f), blurb
        g = {"cat": f["cat"], "DAY": self.rng.choice(DAYS), "TIME": self.time()}
        if long:
            g["T"] = self.words(self.title_words, 6, 9)[:70]
            g["V"] = self.words(self.venue_words, 3, 6)[:50]
        else:
            g["T"] = (self.words(self.title_words, 1, 5) if self.rng.random() < P_MADE_UP
                      else self.rng.choice(self.titles))
            g["V"] = (self.words(self.venue_words, 1, 4) if self.rng.random() < P_MADE_UP
                      else self.rng.choice(self.venues))
        if "P" in f:
            g["P"] = "free" if self.rng.random() < 0.3 else f"£{self.rng.randint(1, 12)}"
        return make_prompt(g), fill(template, g)


def field_marks(prompt: str, blurb: str) -> List[int]:
    """Indices into the blurb (len(blurb) is the [EOS]) of the first
    character of each field copied from the prompt and of the character
    after it: where the model chooses which field comes next and where one
    ends, the few characters that decide whether a blurb keeps its facts."""
    f = parse_prompt(prompt, "training example")
    marks = []
    for key in ("T", "DAY", "TIME", "V", "P"):
        if key in f:
            at = blurb.find(f[key])
            if at >= 0:
                marks += [at, at + len(f[key])]
    return marks


def make_batch(pairs, index):
    seqs, starts = [], []
    for prompt, blurb in pairs:
        p = [BOS_ID] + encode(prompt + SEPARATOR, index)
        seqs.append(p + encode(blurb, index) + [EOS_ID])
        starts.append(len(p))
    width = max(len(s) for s in seqs)
    if width > MAX_POSITIONS:
        sys.exit(f"internal error: a training sequence of {width} tokens")
    ids = torch.full((len(seqs), width), PAD_ID, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    target = torch.full((len(seqs), width), -100, dtype=torch.long)
    weight = torch.zeros((len(seqs), width))
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, :len(s)] = 1
        # logits at position j predict token j+1: the blurb and its [EOS]
        target[i, starts[i] - 1:len(s) - 1] = torch.tensor(s[starts[i]:], dtype=torch.long)
        weight[i, starts[i] - 1:len(s) - 1] = 1.0
        for k in field_marks(*pairs[i]):
            weight[i, starts[i] - 1 + k] = MARK_WEIGHT
    return ids, mask, target, weight


def train(model: nn.Module, sampler: Sampler, index, steps: int) -> None:
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)

    def lr_at(step: int) -> float:
        if step < WARMUP:
            return LR * (step + 1) / WARMUP
        return LR * 0.5 * (1 + math.cos(math.pi * (step - WARMUP) / (steps - WARMUP)))

    model.train()
    total, count = 0.0, 0
    t0 = time.monotonic()
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        long = step % LONG_EVERY == LONG_EVERY - 1
        ids, mask, target, weight = make_batch([sampler.example(long) for _ in
                                        range(LONG_BATCH if long else BATCH_SIZE)], index)
        logits = model(ids, mask)
        per_token = F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1),
                                    ignore_index=-100, reduction="none")
        loss = (per_token * weight.reshape(-1)).sum() / weight.sum()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        total += float(loss)
        count += 1
        if (step + 1) % 100 == 0 or step == 0:
            print(f"step {step + 1:5d}  loss {total / count:.4f}  "
                  f"({time.monotonic() - t0:.0f} s)", flush=True)
            total, count = 0.0, 0


# --------------------------------------------------------------------------
# Deterministic save (as train_demo.py)
# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# Decoding as gen-spec says (greedy, splitmix64 sampling)
# --------------------------------------------------------------------------

# The executor's own choice (src/executor/parity_torch.py, proved bit-for-bit
# equal to src/proto/generate.c by tests/test_generate.c): what the probe says is
# what parity's environments will do.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "executor"))
import parity_torch as executor  # noqa: E402


def generate(model, prompt_ids: List[int], max_new: int, stop: List[int],
             mode: str = "greedy", temperature: float = 0.7, top_k: int = 5,
             seed: int = 42):
    """Returns (chosen ids, per-step logit rows as float64 lists, end)."""
    seq = list(prompt_ids)
    chosen, rows = [], []
    settings = (executor.GEN_GREEDY if mode == "greedy" else executor.GEN_SAMPLE, temperature, top_k)
    state = seed & executor.MASK64
    with torch.no_grad():
        for _ in range(max_new):
            ids = torch.tensor([seq], dtype=torch.long)
            out = model(ids, torch.ones_like(ids))
            row = out[0, -1].double().tolist()
            rows.append(row)
            tok, state = executor.gen_choose(row, settings, state)
            chosen.append(tok)
            if tok in stop:
                return chosen, rows, "stop"
            seq.append(tok)
    return chosen, rows, "length"


def facts(prompt: str, text: str) -> str:
    """What the blurb lost or invented, as the demo's constraints would see
    it; "ok" when it keeps the title, day, time and venue and names a price
    exactly when the prompt has one (and that one)."""
    body = prompt[:-len(SEPARATOR)] if prompt.endswith(SEPARATOR) else prompt
    try:
        f = parse_prompt(body, "probe")
    except SystemExit as e:
        return f"(prompt not in the corpus's form: {e})"
    bad = [f"{k}={f[k]!r} missing" for k in ("T", "DAY", "TIME", "V") if f[k] not in text]
    has_price = "£" in text or "free" in text.lower().replace(f["T"].lower(), "")
    if "P" in f and f["P"] not in text:
        bad.append(f"price {f['P']!r} missing")
    if "P" not in f and has_price:
        bad.append("invented a price")
    if "P" in f and f["P"] == "free" and "£" in text:
        bad.append("invented a £ price")
    return "ok" if not bad else "; ".join(bad)


def probe(out_dir: str, prompts: List[str], max_new: int) -> int:
    vocab_path = os.path.join(out_dir, "vocab.txt")
    with open(vocab_path, "r", encoding="utf-8", newline="") as fh:
        vocab = fh.read().split("\n")[:-1]
    index = {tok: i for i, tok in enumerate(vocab)}
    model_path = os.path.join(out_dir, "model.pt")
    f32 = torch.jit.load(model_path).eval()
    bf16 = torch.jit.load(model_path).to(torch.bfloat16).eval()
    stop = [EOS_ID]

    def tokname(i: int) -> str:
        return repr(vocab[i]) if i >= len(SPECIALS) else vocab[i]

    n_ok = 0
    for prompt in prompts:
        ids = [BOS_ID] + encode(prompt, index)
        a, rows_a, end_a = generate(f32, ids, max_new, stop)
        b, rows_b, end_b = generate(bf16, ids, max_new, stop)
        s, _, end_s = generate(f32, ids, max_new, stop, "sample", 0.7, 5, 42)
        ta, tb, ts = decode(a, vocab), decode(b, vocab), decode(s, vocab)
        fa = facts(prompt, ta)
        n_ok += fa == "ok"
        print(f"prompt  {prompt!r} ({len(prompt)} chars, {len(ids)} ids)")
        print(f"  f32   {ta!r} [{end_a}, {len(a)} steps] facts: {fa}")
        print(f"  bf16  {tb!r} [{end_b}, {len(b)} steps] facts: {facts(prompt, tb)}")
        print(f"  sample(t=0.7,k=5,seed=42) {ts!r} [{end_s}] facts: {facts(prompt, ts)}")
        top = sorted(range(len(rows_a[0])), key=lambda i: (-rows_a[0][i], i))[:2]
        print(f"  step 0 f32 top2: {tokname(top[0])} {rows_a[0][top[0]]:.6f}, "
              f"{tokname(top[1])} {rows_a[0][top[1]]:.6f} "
              f"(margin {rows_a[0][top[0]] - rows_a[0][top[1]]:.6f})")
        div = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), None)
        if div is None:
            print("  bf16 = f32 (no divergence)")
        else:
            ia, ib = a[div], b[div]
            print(f"  diverged-at-token {div}: f32 {tokname(ia)} (id {ia}) vs bf16 "
                  f"{tokname(ib)} (id {ib}); f32 logits {rows_a[div][ia]:.6f} vs "
                  f"{rows_a[div][ib]:.6f} (margin {rows_a[div][ia] - rows_a[div][ib]:.6f}); "
                  f"bf16 logits {rows_b[div][ia]:.6f} vs {rows_b[div][ib]:.6f} "
                  f"(margin {rows_b[div][ib] - rows_b[div][ia]:.6f})")
        sys.stdout.flush()
    print(f"{n_ok} of {len(prompts)} prompts: float32 greedy keeps the facts")
    return 0


# --------------------------------------------------------------------------

def main() -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="the corpus (training)")
    ap.add_argument("--out", required=True, help="where vocab.txt and model.pt go (or are)")
    ap.add_argument("--probe", action="store_true",
                    help="decode prompts with the saved model instead of training")
    ap.add_argument("--prompts", help="with --probe: a file of prompts, one a line "
                    "(each the exact text, ending with ' =>')")
    ap.add_argument("--max-new-tokens", type=int, default=160)
    ap.add_argument("--steps", type=int, default=STEPS,
                    help="training steps (the shipped model: the default)")
    args = ap.parse_args()

    torch.set_num_threads(1)
    if args.probe:
        prompts = PROBES
        if args.prompts:
            with open(args.prompts, "r", encoding="utf-8") as fh:
                prompts = [l.rstrip("\n") for l in fh if l.strip()]
        return probe(args.out, prompts, args.max_new_tokens)
    if not args.corpus:
        ap.error("--corpus is needed to train")

    random.seed(SEED)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)

    lines = read_corpus(args.corpus)
    vocab_list = build_vocab(lines)
    index = {tok: i for i, tok in enumerate(vocab_list)}
    sampler = Sampler(lines, random.Random(SEED))
    print(f"corpus: {len(lines)} lines, {len({f['cat'] for f, _, _ in lines})} categories, "
          f"{len({t for _, _, t in lines})} templates; vocab {len(vocab_list)} tokens")

    model = EventBlurbs(len(vocab_list), index["|"], index[">"])
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params} parameters")
    t0 = time.monotonic()
    train(model, sampler, index, args.steps)
    print(f"training: {args.steps} steps of {BATCH_SIZE} in {time.monotonic() - t0:.1f} s")

    model_path, vocab_path = save_model_and_vocab(model, vocab_list, args.out)

    loaded = torch.jit.load(model_path).eval()
    with torch.no_grad():
        ids, mask, _, _ = make_batch([(make_prompt(f), b) for f, b, _ in lines[:16]], index)
        if not torch.equal(model(ids, mask), loaded(ids, mask)):
            sys.exit("reloaded model disagrees with the trained model")
    return probe(args.out, PROBES, 160)


if __name__ == "__main__":
    sys.exit(main())
