"""The attention module of heed's reference: every score, masking, softmax and local-p.

One class, `Attention`, holds all scores, as heed's nn::Attention does; its parameters carry
the names heed's checkpoints use (W_q, U_h, v for mlp; W_a for general and location; W_a, v_a
for concat; W_p, v_p for local-p). `GlobalAttention` (Luong's name) is the same class and
`AdditiveAttention` builds Bahdanau's mlp score. The mathematics is docs/MODELS.md:
  #attention-scores     the score functions and the per-batch key precomputation
  #masking-and-softmax  padding masked with -inf, softmax over the source, c = sum alpha h
  #local-p-attention    the predicted centre p_t, the window and the Gaussian
  #location-aware-attention, #coverage   the features of the previous weights (F, U_f) and
                        of the coverage vector (w_c), added inside the additive score's tanh

Call protocol (used by the models and by tools/make_goldens.py):
  K = att.keys(H)                          once per batch, H (B, m, dk) the annotations
  context, alpha = att(q, H, K, mask)      every step, q (B, dq), mask (B, m) True = real
  context, alpha = att(q, H, K, mask, alpha_prev, coverage)   with location features
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SCORES = ("dot", "scaled_dot", "general", "concat", "location", "mlp")


class Attention(nn.Module):
    """Soft attention with one of SCORES, global or (local_p=True, window=D) local-p.

    attn_dim is the hidden size A of the concat and mlp scores (default: query_dim);
    max_src_len the number of positions the location score can address."""

    def __init__(self, score, query_dim, key_dim, attn_dim=None, max_src_len=100,
                 local_p=False, window=None, location_filters=0, location_width=0,
                 coverage=False):
        super().__init__()
        if score not in SCORES:
            raise ValueError(f"unknown score {score!r} (expected one of {', '.join(SCORES)})")
        self.score, self.query_dim, self.key_dim = score, query_dim, key_dim
        # The parameters are created in this order, with nn.Linear's own initialisation, so
        # that a given torch.manual_seed gives the weights the goldens were made with.
        if score in ("dot", "scaled_dot"):
            if query_dim != key_dim:
                raise ValueError(f"{score} needs query_dim == key_dim, got {query_dim} and "
                                 f"{key_dim}")
        elif score == "general":
            # score = q . (W_a h_j): W_a maps a key to the query's size.
            self.W_a = nn.Linear(key_dim, query_dim, bias=False)
        elif score == "concat":
            # score = v_a . tanh(W_a [q; h_j]); W_a's first query_dim columns read q.
            A = attn_dim or query_dim
            self.W_a = nn.Linear(query_dim + key_dim, A, bias=False)
            self.v_a = nn.Linear(A, 1, bias=False)
        elif score == "location":
            # score_j = row j of W_a . q: one logit per source position, no keys at all.
            self.max_src_len = max_src_len
            self.W_a = nn.Linear(query_dim, max_src_len, bias=False)
        else:  # mlp
            # score = v . tanh(W_q q + U_h h_j + b), with b = U_h.bias.
            A = attn_dim or query_dim
            self.W_q = nn.Linear(query_dim, A, bias=False)
            self.U_h = nn.Linear(key_dim, A, bias=True)
            self.v = nn.Linear(A, 1, bias=False)
        self.local_p = local_p
        if local_p:
            if window is None or window < 1:
                raise ValueError("local-p attention needs a window D >= 1")
            self.window = window
            self.W_p = nn.Linear(query_dim, query_dim, bias=False)
            self.v_p = nn.Linear(query_dim, 1, bias=False)
        # Location features (additive scores only): k filters of odd width r over the previous
        # step's weights, projected to A by U_f; the coverage vector projected by w_c.
        self.location_filters, self.coverage = location_filters, coverage
        if location_filters or coverage:
            if score not in ("mlp", "concat"):
                raise ValueError("location features enter the additive scores only")
            A = attn_dim or query_dim
        if location_filters:
            if location_width < 1 or location_width % 2 == 0:
                raise ValueError("the location filters' width must be odd")
            self.F = nn.Conv1d(1, location_filters, location_width,
                               padding=location_width // 2, bias=False)
            self.U_f = nn.Linear(location_filters, A, bias=False)
        if coverage:
            self.w_c = nn.Linear(1, A, bias=False)

    # ------------------------------------------------------------------ keys (once per batch)

    def keys(self, H):
        """The part of the score that depends on the annotations alone, for all positions:
        H (dot, scaled_dot), W_a h_j (general), the key block of W_a times h_j (concat),
        U_h h_j + b (mlp); None for location, which reads no keys."""
        if self.score in ("dot", "scaled_dot"):
            return H
        if self.score == "general":
            return self.W_a(H)
        if self.score == "concat":
            return F.linear(H, self.W_a.weight[:, self.query_dim:])
        if self.score == "mlp":
            return self.U_h(H)
        return None

    # ------------------------------------------------------------------ scores (every step)

    def feature_term(self, alpha_prev, coverage):
        """U_f (F * alpha_prev)_j + w_c c_j (B, m, A), each part when its feature is on;
        0 when neither is."""
        term = 0
        if self.location_filters:
            f = self.F(alpha_prev.unsqueeze(1)).transpose(1, 2)      # (B, m, k)
            term = term + self.U_f(f)
        if self.coverage:
            term = term + self.w_c(coverage.unsqueeze(2))
        return term

    def scores(self, q, H, K, alpha_prev=None, coverage=None):
        """Unmasked scores (B, m) of the queries q (B, dq) against the m positions."""
        if self.location_filters or self.coverage:
            K = K + self.feature_term(alpha_prev, coverage)
        if self.score == "mlp":
            return tanh_scores(K, self.W_q(q), self.v)
        if self.score == "concat":
            query_part = F.linear(q, self.W_a.weight[:, :self.query_dim])
            return tanh_scores(K, query_part, self.v_a)
        if self.score == "location":
            m = H.size(1)
            if m > self.max_src_len:
                raise ValueError(f"source length {m} > max_src_len {self.max_src_len}")
            # Row j of W_a scores position j, so a sentence's weights do not depend on how
            # long the other sentences of its batch are.
            return F.linear(q, self.W_a.weight[:m])
        # dot, scaled_dot, general: K_j . q, K being H or W_a H.
        s = torch.bmm(K, q.unsqueeze(2)).squeeze(2)
        if self.score == "scaled_dot":
            s = s / math.sqrt(self.query_dim)
        return s

    def forward(self, q, H, K, mask, alpha_prev=None, coverage=None):
        """(context (B, dk), alpha (B, m)) for queries q; mask (B, m) is True at real positions.
        alpha_prev and coverage (B, m): what the location features read."""
        s = self.scores(q, H, K, alpha_prev, coverage)
        if not self.local_p:
            return attend(s, H, mask)
        return self._local_p(q, s, H, mask)

    # ------------------------------------------------------------------ local-p

    def centres(self, q, lengths):
        """p_t = S * sigmoid(v_p . tanh(W_p q)) per row, S the row's own source length (B,)."""
        return lengths * torch.sigmoid(self.v_p(torch.tanh(self.W_p(q)))).squeeze(1)

    def _local_p(self, q, s, H, mask):
        p = self.centres(q, mask.sum(1).to(q.dtype))
        # Positions are numbered 1..m here, as in the paper (code index + 1).
        j = torch.arange(1, H.size(1) + 1, dtype=q.dtype, device=q.device)
        offset = j.unsqueeze(0) - p.unsqueeze(1)                        # j - p_t, (B, m)
        # p_t is not rounded: position j takes part iff |j - p_t| <= D.
        window = mask & (offset.abs() <= self.window)
        align = torch.softmax(s.masked_fill(~window, float("-inf")), dim=1)
        sigma = self.window / 2.0
        gauss = torch.exp(-offset * offset / (2.0 * sigma * sigma))
        alpha = align * gauss          # not renormalised: a row sums to at most 1
        context = torch.bmm(alpha.unsqueeze(1), H).squeeze(1)
        return context, alpha


GlobalAttention = Attention


def AdditiveAttention(query_dim, key_dim, attn_dim, location_filters=0, location_width=0,
                      coverage=False):
    """Bahdanau's attention: the mlp score, global, with optional location features."""
    return Attention("mlp", query_dim, key_dim, attn_dim, location_filters=location_filters,
                     location_width=location_width, coverage=coverage)


def tanh_scores(K, query_part, v):
    """v . tanh(K_j + query_part) for every position j: the mlp and concat scores. (B, m)"""
    return v(torch.tanh(K + query_part.unsqueeze(1))).squeeze(2)


def attend(scores, H, mask):
    """Masked softmax over the positions and the weighted sum of the annotations."""
    alpha = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=1)   # (B, m)
    context = torch.bmm(alpha.unsqueeze(1), H).squeeze(1)                   # (B, dk)
    return context, alpha
