"""Greedy decoding and batched beam search over the reference models (models.py).

docs/MODELS.md#greedy-decoding and #beam-search define what these compute; heed's
decode/greedy.cpp and decode/beam_search.cpp follow the same rules, so the two can be
compared token for token (tests/golden/models_*: out.greedy.*, out.beam.*, out.beam_gnmt.*).
"""
import torch

from .common import BOS, EOS, PAD, select_rows


def max_steps(src_len, max_len=None, len_a=2.0, len_b=10):
    """max_len, or int(len_a * longest source + len_b): one limit for the whole batch."""
    if max_len is not None:
        return int(max_len)
    return int(len_a * int(src_len.max()) + len_b)


@torch.inference_mode()
def greedy_decode(model, src, src_len, max_len=None, len_a=2.0, len_b=10, stop_at_eos=True):
    """The argmax of every step's logits (the first on ties), fed back as the next input.

    A row that has emitted EOS is given PAD from then on. Returns tokens (B, T), PAD after
    EOS, and the attention (B, T, m) (None for a model without attention). T is the number
    of steps run: the limit, or fewer when every row ended first (unless stop_at_eos is
    False, which runs exactly the limit, as the speed benchmark does)."""
    limit = max_steps(src_len, max_len, len_a, len_b)
    enc, state = model.encode(src, src_len)
    B = src.size(0)
    y = torch.full((B,), BOS, dtype=torch.long, device=src.device)
    ended = torch.zeros(B, dtype=torch.bool, device=src.device)
    tokens, attention = [], []
    for _ in range(limit):
        logits, state, alpha = model.step(y, state, enc)
        y = logits.argmax(1).masked_fill(ended, PAD)
        tokens.append(y)
        attention.append(alpha)
        ended |= y == EOS
        if stop_at_eos and bool(ended.all()):
            break
    attention = None if attention[0] is None else torch.stack(attention, 1)
    return torch.stack(tokens, 1), attention


def length_penalty(lengths, alpha, norm):
    """lp(|y|) = |y|^alpha ('length') or ((5 + |y|) / 6)^alpha ('gnmt').

    Computed in float32, as it was when the committed goldens were made (heed computes it
    in double; the goldens' scores are therefore compared to about 1e-6 relative)."""
    L = lengths.float()
    if norm == "length":
        return L.pow(alpha)
    return ((5.0 + L) / 6.0).pow(alpha)


@torch.inference_mode()
def beam_search(model, src, src_len, beam=5, max_len=None, len_a=2.0, len_b=10, alpha=0.0,
                norm="length", n_best=1, stop_at_eos=True):
    """Beam search over B sentences at once: B * k rows of one model.step per time step.

    Row b * k + i holds hypothesis i of sentence b; at the start only hypothesis 0 of each
    sentence is alive (the others score -inf). Every step keeps, per sentence, the k best of
    its k * V continuations score + log p(v). A hypothesis that has emitted EOS is frozen:
    its one continuation is PAD at cost 0, so it keeps its score and its length |y| (EOS
    counted) while it competes with the live ones. At the end the k hypotheses are ranked
    by score / lp(|y|) and the n_best best are traced back through the back-pointers.

    Returns a dict: tokens (B, n_best, T), attention (B, n_best, T, m) or None, scores
    (normalised), raw_scores and lengths (B, n_best)."""
    limit = max_steps(src_len, max_len, len_a, len_b)
    B, k, dev = src.size(0), beam, src.device
    enc, state = model.encode(src, src_len)
    copies = torch.arange(B, device=dev).repeat_interleave(k)    # k rows per sentence
    enc, state = select_rows(enc, copies), select_rows(state, copies)
    # The score buffer takes torch's default dtype (the generator sets float64).
    scores = torch.full((B, k), float("-inf"), device=dev)
    scores[:, 0] = 0.0
    y = torch.full((B * k,), BOS, dtype=torch.long, device=dev)
    ended = torch.zeros(B * k, dtype=torch.bool, device=dev)
    lengths = torch.zeros(B * k, dtype=torch.long, device=dev)
    first_row = (torch.arange(B, device=dev) * k).unsqueeze(1)  # (B, 1)
    history = []                                  # per step: (token, back-pointer, attention)
    for _ in range(limit):
        logits, state, att = model.step(y, state, enc)
        logp = _continuations(torch.log_softmax(logits, dim=-1), ended)   # (B * k, V)
        V = logp.size(1)
        candidates = (scores.view(-1, 1) + logp).view(B, k * V)
        scores, flat = candidates.topk(k, dim=1)                 # (B, k), best first
        back, tok = flat // V, flat % V                          # parent hypothesis, token
        parent = (back + first_row).view(-1)
        state = select_rows(state, parent)
        parent_ended = ended.index_select(0, parent)
        lengths = lengths.index_select(0, parent) + (~parent_ended).long()
        y = tok.view(-1)
        ended = parent_ended | (y == EOS)
        history.append((tok, back, None if att is None else att.view(B, k, -1)))
        if stop_at_eos and bool(ended.all()):
            break

    lengths = lengths.view(B, k).clamp(min=1)
    normed = scores / length_penalty(lengths, alpha, norm)
    best_scores, chosen = normed.topk(n_best, dim=1)             # (B, n_best)
    tokens, attention = _trace_back(history, chosen)
    return {"tokens": tokens, "attention": attention, "scores": best_scores,
            "raw_scores": scores.gather(1, chosen), "lengths": lengths.gather(1, chosen)}


def _continuations(logp, ended):
    """log p(v) of each row's continuations; an ended row's only one is PAD, at cost 0."""
    if not bool(ended.any()):
        return logp
    frozen = torch.full_like(logp[0], float("-inf"))
    frozen[PAD] = 0.0
    return torch.where(ended.unsqueeze(1), frozen.unsqueeze(0), logp)


def _trace_back(history, chosen):
    """Tokens (B, n, T) and attention (B, n, T, m) or None of the hypotheses `chosen`
    (B, n) (beam indices after the last step), following the back-pointers from the end."""
    B, n = chosen.shape
    steps = len(history)
    first_att = history[0][2]
    tokens = torch.empty(B, n, steps, dtype=torch.long, device=chosen.device)
    attention = None
    if first_att is not None:
        m = first_att.size(2)
        attention = torch.empty(B, n, steps, m, dtype=first_att.dtype, device=chosen.device)
    cur = chosen
    for t in reversed(range(steps)):
        tok, back, att = history[t]
        tokens[:, :, t] = tok.gather(1, cur)
        parent = back.gather(1, cur)
        if attention is not None:   # token t's attention was computed by its parent row
            attention[:, :, t] = att.gather(1, parent.unsqueeze(2).expand(-1, -1, m))
        cur = parent
    return tokens, attention
