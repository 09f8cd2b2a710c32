# A TorchScript trace of the real all-MiniLM-L6-v2 (the same weights, for
# tests/device/prepare_search.sh): forward(input_ids, attention_mask,
# token_type_ids) -> the token states [1, T, 384], for a GPU machine whose
# Python has torch but not transformers (parity-torch loads it there).
# Checked here against the eager model on another length than traced.
import sys, torch, transformers
src, out = sys.argv[1], sys.argv[2]
m = transformers.AutoModel.from_pretrained(src, attn_implementation="eager").eval()
class Enc(torch.nn.Module):
    def __init__(self, m):
        super().__init__(); self.m = m
    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, return_dict=False)[0]
ids = torch.tensor([[101, 7592, 2088, 102]]); mask = torch.ones_like(ids); tt = torch.zeros_like(ids)
with torch.no_grad():
    t = torch.jit.trace(Enc(m), (ids, mask, tt), check_trace=False)
    ids2 = torch.tensor([[101, 7592, 2088, 2003, 1037, 3231, 102]])
    a = t(ids2, torch.ones_like(ids2), torch.zeros_like(ids2)); b = m(input_ids=ids2, return_dict=False)[0]
    print("trace vs eager max|d|", (a - b).abs().max().item(), tuple(a.shape))
t.save(out)
