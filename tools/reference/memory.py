"""The end-to-end memory network (model.kind memn2n, Sukhbaatar et al. 2015) in PyTorch.

The mathematics, the parameter names and the input layout are heed's (docs/MODELS.md), so
that a state_dict moves between heed and PyTorch unchanged (docs/INTEROP.md#memn2n):
  embeddings.0.weight .. embeddings.K.weight   (V, d)  A^k = embeddings.(k-1), C^k =
                                                       embeddings.k (adjacent tying), B = A^1,
                                                       W^T = C^K
  temporal.0.weight .. temporal.K.weight       (memory_size, d)  T_A^k = temporal.(k-1),
                                                       T_C^k = temporal.k (temporal encoding)

Inputs, a batch of B examples (S the most statements, J the longest statement, Jq the
longest question of the batch; PAD = 0 everywhere it pads):
  memory    (B, S, J) int64   slot i < counts[b] holds statement i (oldest first), left-aligned
  counts    (B,) int64        n_b, the statements of each story (0 allowed)
  time      (B, S) int64      t_{b,i}, the temporal index of statement i (anything on padding)
  question  (B, Jq) int64     left-aligned
forward(...) gives the logits (B, V) and the attention p (K, B, S), 0 on padded slots.
make_batch builds these tensors from plain examples, random_empty_memories draws the
temporal indices of training's "random noise" option (torch's generator, not heed's).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import PAD


def position_weights(ids, d, position_encoding=True, dtype=torch.float64):
    """l (..., J, d) for word ids (..., J), left-aligned with PAD after: row j of a sentence
    of J' real words (its own length) is l_{kj} = (1 - j/J') - (k/d)(1 - 2j/J') for
    j = 1..J' and k = 1..d, 0 at PAD; without position encoding 1 at the real words."""
    real = (ids != PAD).to(dtype)
    if not position_encoding:
        return real.unsqueeze(-1).expand(*ids.shape, d)
    length = real.sum(-1, keepdim=True).clamp(min=1).unsqueeze(-1)        # (..., 1, 1)
    j = torch.arange(1, ids.shape[-1] + 1, dtype=real.dtype).view(-1, 1)  # (J, 1)
    k = torch.arange(1, d + 1, dtype=real.dtype) / d                      # (d,)
    l = (1 - j / length) - k * (1 - 2 * j / length)
    return l * real.unsqueeze(-1)


class MemN2N(nn.Module):
    """model.kind memn2n: K hops of soft attention over the story's sentence embeddings.

    m_i^k = sum_j l_j . A^k[x_ij] + T_A^k[t_i],  c_i^k likewise with C^k and T_C^k,
    u^1 = sum_j l_j . B[q_j]; hop k: p^k = softmax_i(u^k . m_i^k) over the real statements
    (linear start: p_i^k = u^k . m_i^k), o^k = sum_i p_i^k c_i^k, u^{k+1} = u^k + o^k;
    logits = W u^{K+1} = embeddings.K.weight u^{K+1}. A story of no statements has o^k = 0.
    pad_memory: the softmax's denominator also counts memory_size - n empty slots of score 0
    (exp(0) each) that read nothing."""

    def __init__(self, vocab, d, hops=3, memory_size=50, position_encoding=True,
                 temporal_encoding=True, pad_memory=False):
        super().__init__()
        self.d, self.hops, self.memory_size = d, hops, memory_size
        self.position_encoding, self.pad_memory = position_encoding, pad_memory
        # Creation order = state_dict order = heed's parameter order: embeddings, temporal.
        self.embeddings = nn.ModuleList(nn.Embedding(vocab, d) for _ in range(hops + 1))
        self.temporal = (nn.ModuleList(nn.Embedding(memory_size, d) for _ in range(hops + 1))
                         if temporal_encoding else None)
        for p in self.parameters():
            nn.init.normal_(p, 0.0, 0.1)

    def dtype(self):
        return self.embeddings[0].weight.dtype

    def sentences(self, memory, time):
        """The K + 1 sentence embeddings (K + 1, B, S, d): entry k is sum_j l_j .
        embeddings.k[x_ij] (+ temporal.k[t_i]), i.e. m^{k+1} and c^k with adjacent tying."""
        l = position_weights(memory, self.d, self.position_encoding, self.dtype())  # (B,S,J,d)
        out = []
        for k, emb in enumerate(self.embeddings):
            m = (l * emb(memory)).sum(2)
            if self.temporal is not None:
                m = m + self.temporal[k](time)
            out.append(m)
        return torch.stack(out)

    def forward(self, memory, counts, time, question, linear=False):
        """(logits (B, V), p (K, B, S)); linear=True removes every hop's softmax."""
        S = memory.shape[1]
        real = torch.arange(S).unsqueeze(0) < counts.unsqueeze(1)              # (B, S)
        time = time.masked_fill(~real, 0)  # padded slots may hold anything: never looked up
        M = self.sentences(memory, time)
        u = (position_weights(question, self.d, self.position_encoding, self.dtype())
             * self.embeddings[0](question)).sum(1)                           # u^1 = B q
        # An empty story's row scores all 0 instead of -inf (no NaN); its p is masked to 0.
        fill = u.new_zeros(len(counts), 1).masked_fill((counts > 0).unsqueeze(1), -math.inf)
        ps = []
        for k in range(1, self.hops + 1):
            m, c = M[k - 1], M[k]
            scores = torch.bmm(m, u.unsqueeze(2)).squeeze(2)                  # u^k . m_i^k
            if linear:
                p = scores.masked_fill(~real, 0.0)
            elif self.pad_memory:
                empty = (self.memory_size - counts).clamp(min=0).to(scores.dtype).unsqueeze(1)
                masked = scores.masked_fill(~real, -math.inf)
                log_den = torch.logaddexp(torch.logsumexp(masked, 1, keepdim=True), empty.log())
                p = (masked - log_den).exp()
            else:
                p = torch.where(real, scores, fill).softmax(1).masked_fill(~real, 0.0)
            u = u + torch.bmm(p.unsqueeze(1), c).squeeze(1)                   # u + o^k
            ps.append(p)
        return u @ self.embeddings[self.hops].weight.t(), torch.stack(ps)


def memn2n_loss(logits, answer):
    """Cross-entropy of the answer word, the mean over the batch."""
    return F.cross_entropy(logits, answer)


def make_batch(examples, memory_size=50):
    """(memory, counts, time, question, answer) from examples, each (statements, question,
    answer): statements a list of word-id lists (the story before the question, oldest
    first), question a word-id list, answer a word id. Keeps the last memory_size statements;
    t_i = n - i for i = 1..n (0 for the most recent); padded time slots hold 0."""
    stories = [list(statements)[-memory_size:] if memory_size > 0 else []
               for statements, _, _ in examples]
    B = len(examples)
    S = max(1, max(len(s) for s in stories))
    J = max([1] + [len(x) for s in stories for x in s])
    Jq = max(1, max(len(q) for _, q, _ in examples))
    memory = torch.full((B, S, J), PAD, dtype=torch.long)
    time = torch.zeros(B, S, dtype=torch.long)
    question = torch.full((B, Jq), PAD, dtype=torch.long)
    for b, (story, (_, q, _)) in enumerate(zip(stories, examples)):
        n = len(story)
        for i, words in enumerate(story):
            if not words or PAD in words:
                raise ValueError(f"example {b}, statement {i}: empty or holds PAD: {words}")
            memory[b, i, :len(words)] = torch.tensor(words)
            time[b, i] = n - 1 - i
        if not q or PAD in q:
            raise ValueError(f"example {b}: question empty or holds PAD: {q}")
        question[b, :len(q)] = torch.tensor(q)
    counts = torch.tensor([len(s) for s in stories], dtype=torch.long)
    answer = torch.tensor([a for _, _, a in examples], dtype=torch.long)
    return memory, counts, time, question, answer


def random_empty_memories(counts, S, memory_size, generator=None):
    """time (B, S) for training's random empty memories: for a story of n statements draw
    nb uniformly from 0..ceil(0.1 n), choose n of the n + nb temporal slots at random keeping
    their order, statement i (oldest first) gets the i-th chosen slot counted from the end,
    capped at memory_size - 1. nb = 0 gives t_i = n - i. Padded slots hold 0."""
    time = torch.zeros(len(counts), S, dtype=torch.long)
    for b, n in enumerate(counts.tolist()):
        nb = int(torch.randint(0, math.ceil(0.1 * n) + 1, (1,), generator=generator))
        chosen = torch.randperm(n + nb, generator=generator)[:n].sort(descending=True).values
        time[b, :n] = chosen.clamp(max=memory_size - 1)
    return time
