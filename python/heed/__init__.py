"""heed for Python: load an attention model and translate with it, train one from a config,
and score output (docs/PYTHON.md). A thin layer over heed's public C++ API (libheed.so).

    import heed
    t = heed.Translator.load("runs/g2p")
    r = t.translate("hello", beam=5, n_best=3, attention=True)
    print(r.best, r.nbest[0].attention.shape)
"""
from ._heed import (AlignmentScores, Error, Hypothesis, Outcome, Progress, Result, Trainer,
                    TrainResult, Translator, UsageError, __version__, aer, bleu, chrf, wer)

__all__ = ["AlignmentScores", "Error", "Hypothesis", "Outcome", "Progress", "Result", "Trainer",
           "TrainResult", "Translator", "UsageError", "__version__", "aer", "bleu", "chrf", "wer"]
