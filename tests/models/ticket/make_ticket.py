#!/usr/bin/env python3
"""Write the "ticket" test model: a new user's own small BERT-like classifier
(parity issue 27), the model with three inputs and a dict output among the
tests' models.

    build/venv/bin/python tests/models/ticket/make_ticket.py [OUT_DIR]

Needs torch and the tokenizers package (the venv of make deps). Writes into
OUT_DIR (default: beside this file):

    tokenizer.json  a WordPiece tokenizer made with the tokenizers library
                    (BertNormalizer lowercase, BertPreTokenizer, [CLS] $A
                    [SEP]), its vocabulary the synthetic corpus's below
    model.pt        TorchScript: forward(self, input_ids, attention_mask,
                    token_type_ids) -> {'logits': Tensor [B, 4]}, labels
                    billing, bug, account, feature; a position embedding of
                    128 rows (embeddings.position_embeddings.weight), so a
                    text of more than 128 tokens raises "index out of range"
                    unless parity rejects it first; a head
                    classifier.weight [4, DIM]
    scores.pt       the same weights, returning {'scores': ..., 'hidden': ...}
                    (for contract.model.output: scores)
    tuple.pt        the same weights, returning (hidden, logits) (for
                    contract.model.output: 1)
    raises.pt       the same signature; every forward raises "planted
                    failure: this ticket model always raises"
    texts.txt       twelve tickets, one per line; the last over 128 tokens
    SHA256SUMS      every file's sha256 (sha256sum -c SHA256SUMS)

Trained briefly (a few hundred synthetic tickets, fixed seeds, one thread,
deterministic algorithms) so that each text's label wins by a margin that
bfloat16 keeps. The TorchScript files are canonical (no debug records,
fixed timestamps: src/tools/torchscript_file.py) and load on torch 1.13's
libtorch as well as torch 2. Prints each file's sha256.
"""

import hashlib
import io
import os
import random
import sys
from typing import Dict, Tuple

# TorchScript writes a module's constants in set order: string hashing
# pinned, in a fresh process.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "src", "tools"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch import Tensor  # noqa: E402
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors  # noqa: E402
from torchscript_file import canonical_torchscript  # noqa: E402

LABELS = ["billing", "bug", "account", "feature"]
POSITIONS = 128
DIM = 32
SEED = 27

SUBJECT = {
    "billing": ["my invoice", "the last charge", "my credit card payment", "the refund", "my subscription fee",
                "the monthly bill", "a double charge", "the receipt", "the price on my invoice", "the payment", "the annual plan", "one payment this month"],
    "bug": ["the app", "the export button", "the dashboard", "the mobile app", "the search page",
            "the upload", "the sync", "the editor", "the report page", "the export button", "every click"],
    "account": ["my password", "my account", "my email address", "my username", "two factor login",
                "my profile", "the account owner", "my team seat", "the reset email", "the login"],
    "feature": ["dark mode", "an api for exports", "a calendar view", "keyboard shortcuts", "bulk editing",
                "a slack integration", "custom fields", "an offline mode", "more chart types", "a csv import"],
}
PROBLEM = {
    "billing": ["was charged twice", "is wrong", "shows the wrong amount", "needs a refund", "was billed after "
                "I cancelled", "has an unexpected fee", "did not go through", "costs more than the plan"],
    "bug": ["crashes on start", "throws an error", "freezes", "shows a blank screen", "is broken since the update",
            "fails with error 500", "does nothing when clicked", "loses my changes"],
    "account": ["cannot be reset", "is locked", "needs to change", "cannot be recovered", "was hacked",
                "should be deleted", "needs a new owner", "does not accept my code", "never arrives", "how do i change it"],
    "feature": ["would be great", "is something we need", "please add it", "would help our team",
                "is a feature request", "would save us time", "is on our wish list", "please add it at night"],
}
OPENERS = ["hello", "hi team", "good morning", "hey", "dear support", "", "", ""]
CLOSERS = ["thanks", "thank you", "please help", "regards", "urgent", "", "", ""]

TEXTS = [
    "I was charged twice for my subscription this month, please refund one payment",
    "The export button crashes the app every time I click it",
    "I cannot reset my password, the reset email never arrives",
    "Please add a dark mode to the dashboard, it would help at night",
    "My invoice shows the wrong amount for the annual plan",
    "The mobile app throws an error and crashes since the update",
    "How do I change the email address on my account?",
    "Would be great to have keyboard shortcuts for bulk editing",
    "refund",
    "login locked",
    # Long but within the positions: init --propose calls it the long one.
    "Hello, I upgraded to the annual plan last week but my card was charged for the monthly plan as well, and "
    "the invoice shows both payments; please refund the monthly charge and send a corrected invoice for the "
    "annual plan, thanks",
    # Over 128 tokens: parity must reject it, never cut it (the model's
    # position embedding has 128 rows).
    "Hello team, " + " ".join(
        "the dashboard throws an error and freezes, then shows a blank screen after the update;" for _ in range(9))
    + " please help",
]


# The label each of TEXTS (but the last) should get: they are in the
# training data too, so that each wins by a margin bfloat16 keeps.
TEXT_LABELS = ["billing", "bug", "account", "feature", "billing", "bug", "account", "feature", "billing", "account",
               "billing"]


def corpus(rng):
    out = [(label, text) for label, text in zip(TEXT_LABELS, TEXTS) for _ in range(3)]
    for _ in range(150):
        for label in LABELS:
            parts = [rng.choice(OPENERS), rng.choice(SUBJECT[label]), rng.choice(PROBLEM[label]),
                     rng.choice(CLOSERS)]
            out.append((label, " ".join(p for p in parts if p)))
    rng.shuffle(out)
    return out


def make_tokenizer(texts):
    """A WordPiece tokenizer.json of the tokenizers library (BERT's
    normalizer, pre-tokenizer and [CLS] $A [SEP]), its vocabulary chosen
    here, in a fixed order (the library's WordPieceTrainer orders its
    alphabet by hash, differently in each process): the specials, every
    character and its ## continuation, a few suffixes, then each word seen
    at least twice, most frequent first. A word seen once is split into
    pieces, so the WordPiece path is exercised."""
    normalizer = normalizers.BertNormalizer(lowercase=True)
    pre = pre_tokenizers.BertPreTokenizer()
    counts, chars = {}, set()
    for t in texts:
        for w, _ in pre.pre_tokenize_str(normalizer.normalize_str(t)):
            counts[w] = counts.get(w, 0) + 1
            chars.update(w)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(chars) + ["##" + c for c in sorted(chars)]
    vocab += [p for p in ("##ed", "##ing", "##ly", "##er", "##ion") if p not in vocab]
    seen = set(vocab)
    vocab += [w for w, c in sorted(counts.items(), key=lambda x: (-x[1], x[0])) if c >= 2 and w not in seen]
    assert len(set(vocab)) == len(vocab)
    tok = Tokenizer(models.WordPiece(vocab={w: i for i, w in enumerate(vocab)}, unk_token="[UNK]",
                                     max_input_chars_per_word=100))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    return tok


class Embeddings(nn.Module):
    def __init__(self, vocab: int):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, DIM)
        self.position_embeddings = nn.Embedding(POSITIONS, DIM)
        self.token_type_embeddings = nn.Embedding(2, DIM)
        self.LayerNorm = nn.LayerNorm(DIM)

    def forward(self, input_ids: Tensor, token_type_ids: Tensor) -> Tensor:
        pos = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        x = self.word_embeddings(input_ids) + self.position_embeddings(pos) + self.token_type_embeddings(
            token_type_ids)
        return self.LayerNorm(x)


class Encoder(nn.Module):
    """One self-attention layer (one head) and a feed-forward, BERT's shape."""

    def __init__(self):
        super().__init__()
        self.query = nn.Linear(DIM, DIM)
        self.key = nn.Linear(DIM, DIM)
        self.value = nn.Linear(DIM, DIM)
        self.attn_norm = nn.LayerNorm(DIM)
        self.ff1 = nn.Linear(DIM, 2 * DIM)
        self.ff2 = nn.Linear(2 * DIM, DIM)
        self.ff_norm = nn.LayerNorm(DIM)
        self.scale = float(DIM) ** 0.5

    def forward(self, x: Tensor, attention_mask: Tensor) -> Tensor:
        scores = torch.matmul(self.query(x), self.key(x).transpose(1, 2)) / self.scale
        bias = (1.0 - attention_mask.to(x.dtype)).unsqueeze(1) * -10000.0
        attn = torch.softmax(scores + bias, dim=-1)
        x = self.attn_norm(x + torch.matmul(attn, self.value(x)))
        return self.ff_norm(x + self.ff2(torch.relu(self.ff1(x))))


class TicketClassifier(nn.Module):
    def __init__(self, vocab: int):
        super().__init__()
        self.embeddings = Embeddings(vocab)
        self.encoder = Encoder()
        self.classifier = nn.Linear(DIM, len(LABELS))

    def pooled(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Tensor:
        x = self.encoder(self.embeddings(input_ids, token_type_ids), attention_mask)
        m = attention_mask.to(x.dtype).unsqueeze(-1)
        return (x * m).sum(dim=1) / m.sum(dim=1).clamp(min=1.0)

    def forward(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Dict[str, Tensor]:
        return {"logits": self.classifier(self.pooled(input_ids, attention_mask, token_type_ids))}


class Scores(TicketClassifier):
    """scores.pt: the same model under other keys."""

    def forward(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Dict[str, Tensor]:
        h = self.pooled(input_ids, attention_mask, token_type_ids)
        return {"scores": self.classifier(h), "hidden": h}


class Pair(TicketClassifier):
    """tuple.pt: the same model returning a tuple (hidden, logits)."""

    def forward(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Tuple[Tensor, Tensor]:
        h = self.pooled(input_ids, attention_mask, token_type_ids)
        return h, self.classifier(h)


class Raises(TicketClassifier):
    """raises.pt: every forward raises."""

    def forward(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Dict[str, Tensor]:
        if input_ids.size(0) >= 0:
            raise RuntimeError("planted failure: this ticket model always raises")
        return {"logits": self.classifier(self.pooled(input_ids, attention_mask, token_type_ids))}


def batch(tok, texts):
    enc = tok.encode_batch(texts)
    t = max(len(e.ids) for e in enc)
    ids = torch.zeros(len(enc), t, dtype=torch.long)
    mask = torch.zeros(len(enc), t, dtype=torch.long)
    for i, e in enumerate(enc):
        ids[i, :len(e.ids)] = torch.tensor(e.ids)
        mask[i, :len(e.ids)] = 1
    return ids, mask, torch.zeros_like(ids)


def save(module, path):
    scripted = torch.jit.script(module)
    buf = io.BytesIO()
    torch.jit.save(scripted, buf)
    data = canonical_torchscript(buf.getvalue())
    with open(path, "wb") as f:
        f.write(data)
    print("%s  %s (%d bytes)" % (hashlib.sha256(data).hexdigest(), os.path.basename(path), len(data)))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rng = random.Random(SEED)
    data = corpus(rng)
    tok = make_tokenizer([t for _, t in data] + TEXTS[:-1])
    model = TicketClassifier(tok.get_vocab_size())
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(40):
        for k in range(0, len(data), 32):
            chunk = data[k:k + 32]
            ids, mask, types = batch(tok, [t for _, t in chunk])
            target = torch.tensor([LABELS.index(l) for l, _ in chunk])
            opt.zero_grad()
            loss = loss_fn(model(ids, mask, types)["logits"], target)
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        for text in TEXTS[:-1]:
            ids, mask, types = batch(tok, [text])
            lg = model(ids, mask, types)["logits"][0]
            top = torch.topk(lg, 2)
            got = LABELS[int(top.indices[0])]
            print("  %-8s margin %.2f  %s" % (got, float(top.values[0] - top.values[1]), text[:60]))
            assert got == TEXT_LABELS[TEXTS.index(text)], text
        print("  last text: %d tokens" % len(tok.encode(TEXTS[-1]).ids))
    os.makedirs(out, exist_ok=True)
    tok.save(os.path.join(out, "tokenizer.json"), pretty=True)
    state = model.state_dict()
    for cls, name in ((TicketClassifier, "model.pt"), (Scores, "scores.pt"), (Pair, "tuple.pt"), (Raises, "raises.pt")):
        m = cls(tok.get_vocab_size())
        m.load_state_dict(state)
        m.eval()
        save(m, os.path.join(out, name))
    with open(os.path.join(out, "texts.txt"), "w") as f:
        f.write("\n".join(TEXTS) + "\n")
    # The pins, as sha256sum writes them (sha256sum -c SHA256SUMS checks a
    # rebuild: the same bytes, torch and tokenizers alike).
    sums = []
    for name in ("model.pt", "raises.pt", "scores.pt", "texts.txt", "tokenizer.json", "tuple.pt"):
        with open(os.path.join(out, name), "rb") as f:
            sums.append("%s  %s\n" % (hashlib.sha256(f.read()).hexdigest(), name))
    with open(os.path.join(out, "SHA256SUMS"), "w") as f:
        f.writelines(sums)
    print("".join(sums), end="")


if __name__ == "__main__":
    main()
