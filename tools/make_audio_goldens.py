#!/usr/bin/python3
"""Writes the log-mel golden values (tests/golden/log_mel.safetensors) from torchaudio.

heed's log-mel features (src/heed/audio/log_mel.h) are defined as torchaudio's
MelSpectrogram (Hann window, power spectrum, centred frames with reflected edges, no
normalisation of the STFT) followed by log(max(mel, log_floor)). This script computes them
with torchaudio in float64 for fixed signals and options; tests/audio/log_mel_test.cpp
compares heed's (an FFT in float) within 1e-4.

Each signal is drawn in float64 and rounded to float32, so that heed reads exactly the
samples torchaudio saw. Layout of the file (tests/golden/README.md):
  in.<case>        the signal, (samples,)
  out.<case>       log-mel, (frames, n_mels): torchaudio's (n_mels, frames) transposed
and __metadata__ with "<case>.options": the options as key=value words, the names of
heed's LogMelOptions fields.

Usage: /usr/bin/python3 tools/make_audio_goldens.py [--out DIR]
       (Debian: apt-get install python3-torch python3-torchaudio)
"""
import argparse
import math
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

DEFAULTS = dict(sample_rate=16000, n_fft=400, win_length=400, hop_length=160, n_mels=80,
                f_min=0.0, f_max=0.0, mel_scale="htk", mel_norm="none", log_floor=1e-10)


def signal(gen, rate, n, tones, noise_db):
    """Sines (Hz, amplitude), a chirp from 100 Hz to rate/2 and white noise at noise_db
    below full scale: energy in every mel band, so that no band sits at the float FFT's
    rounding floor."""
    t = torch.arange(n, dtype=torch.float64) / rate
    x = torch.zeros(n, dtype=torch.float64)
    for hz, amp in tones:
        x += amp * torch.sin(2 * math.pi * hz * t + hz / 1000.0)
    top = rate / 2.0
    duration = n / rate
    x += 0.1 * torch.sin(2 * math.pi * (100 * t + (top - 100) * t * t / (2 * duration)))
    x += 10 ** (noise_db / 20) * torch.randn(n, generator=gen, dtype=torch.float64)
    return x.to(torch.float32).to(torch.float64)


def log_mel(x, o):
    f_max = o["f_max"] if o["f_max"] > 0 else None
    mel = torchaudio.transforms.MelSpectrogram(
        sample_rate=o["sample_rate"], n_fft=o["n_fft"], win_length=o["win_length"],
        hop_length=o["hop_length"], f_min=o["f_min"], f_max=f_max, n_mels=o["n_mels"],
        window_fn=torch.hann_window, power=2.0, normalized=False, center=True,
        pad_mode="reflect", onesided=True, norm=None if o["mel_norm"] == "none" else "slaney",
        mel_scale=o["mel_scale"]).to(torch.float64)
    m = mel(x)                                   # (n_mels, frames)
    return torch.log(torch.clamp(m, min=o["log_floor"])).transpose(0, 1).contiguous()


def cases(gen):
    """(name, options, signal) for each case."""
    out = []
    def case(name, n, tones, noise_db, **options):
        o = dict(DEFAULTS, **options)
        out.append((name, o, signal(gen, o["sample_rate"], n, tones, noise_db)))
    speech_like = [(220, 0.3), (440, 0.2), (1250, 0.1), (3100, 0.05)]
    case("htk_16k", 8000, speech_like, -30)
    case("slaney_16k", 8000, speech_like, -30, mel_scale="slaney", mel_norm="slaney")
    # FSDD's rate, 25 ms / 10 ms frames, a length that is no multiple of the hop.
    case("htk_8k", 2963, [(180, 0.3), (900, 0.2), (2500, 0.1)], -35,
         sample_rate=8000, n_fft=200, win_length=200, hop_length=80, n_mels=40)
    # Just longer than half a window: every frame reaches a reflected edge.
    case("short_16k", 250, speech_like, -30)
    # A window shorter than the FFT, and a band limited at both ends.
    case("window_in_fft", 4000, speech_like, -30, n_fft=512, win_length=400, f_min=20.0,
         f_max=7600.0, n_mels=64)
    # Silence: every band at the floor.
    o = dict(DEFAULTS)
    out.append(("silence", o, torch.zeros(1000, dtype=torch.float64)))
    return out


def options_text(o):
    return " ".join(f"{k}={o[k]!r}" if isinstance(o[k], float) else f"{k}={o[k]}"
                    for k in DEFAULTS)


def main():
    global torch, torchaudio
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "golden"))
    args = ap.parse_args()

    import torch as _torch
    import torchaudio as _torchaudio
    import make_goldens
    torch, torchaudio = _torch, _torchaudio
    make_goldens.torch = _torch       # its writer uses the module-level name
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.set_default_dtype(torch.float64)   # the filterbank's linspace uses the default

    gen = torch.Generator().manual_seed(3000)
    tensors, meta = [], {"case": "log_mel", "dtype": "F64 (computed in float64)",
                         "torch": torch.__version__, "torchaudio": torchaudio.__version__,
                         "call": "log(clamp(MelSpectrogram(power=2, center=True, "
                                 "pad_mode='reflect', window_fn=hann_window)(x), min=log_floor))"
                                 ".T"}
    for name, o, x in cases(gen):
        tensors.append(("in." + name, x))
        tensors.append(("out." + name, log_mel(x, o)))
        meta[name + ".options"] = options_text(o)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "log_mel.safetensors")
    make_goldens.write_safetensors(path, tensors, meta)
    print(f"{path}: {len(tensors)} tensors")


if __name__ == "__main__":
    main()
