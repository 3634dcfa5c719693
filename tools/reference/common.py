"""Token ids, masks and the packed recurrent run shared by every reference model.

docs/MODELS.md#notation fixes the conventions used here: batch-first tensors, token ids
PAD = 0, BOS = 1, EOS = 2 (UNK = 3 is an ordinary token to the models), and a source batch
given as padded ids plus each row's real length.
"""
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

PAD, BOS, EOS, UNK = 0, 1, 2, 3


def length_mask(lengths, width):
    """(B, width) bool: True at the real positions of each row (j < lengths[b])."""
    positions = torch.arange(width, device=lengths.device)
    return positions.unsqueeze(0) < lengths.unsqueeze(1)


def run_packed(rnn, x, lengths):
    """Runs an nn.GRU / nn.LSTM over a padded batch as heed's rnn_sequence does.

    Padding never reaches a real state: the forward direction stops at each row's last real
    token and the backward direction starts there (docs/MODELS.md#encoders). The rows need
    not be sorted by length. Returns the outputs (B, T, dirs * d), zero at padding, and the
    final states in the batch's own row order (h_n, or (h_n, c_n) for an LSTM), each
    (layers * dirs, B, d), layer-major and direction-minor as PyTorch lays them out."""
    packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    outputs, final = rnn(packed)
    outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=x.size(1))
    return outputs, final


def select_rows(tensors, rows):
    """Rows `rows` (dimension 0) of every tensor of a tuple; None passes through.

    Encodings and decoder states are tuples of batch-major tensors, so this one function
    replicates them for beam search and follows the beams' back-pointers."""
    return tuple(None if t is None else t.index_select(0, rows) for t in tensors)
