"""SpecValidator: a classifier of task descriptions (clean / LV / US / SF) with evidence.

>>> from specdefects.validator import Detector, check_texts
>>> from specdefects.validator.train import TrainConfig, train
>>> res = train(TrainConfig(data="out/spec-defects", out="out/validator"))   # hybrid on CPU, LoRA on GPU
>>> check_texts(["Write a function to give back the collection of values."])[0]["label"]

Modules: ``train`` (hybrid; under accelerate probe / lora / full), ``hybrid`` (the CPU default:
TF-IDF stacked with evidence features, scikit-learn, no torch), ``features`` (its evidence
features), ``model`` (detector folders, ``load_detector``, markers for format defects),
``evaluate`` (Table 5, confusion and t-SNE figures, real defects), ``baselines`` (TF-IDF, LLM
zero/few-shot), ``evidence`` (vague words, typos, format breaks, unpinned constraints), ``check``,
``push`` (model card + Hub)."""

from .errors import ValidatorError
from .model import LABELS, Detector, latest_path, load_detector

__all__ = ["LABELS", "Detector", "ValidatorError", "latest_path", "load_detector", "check_texts"]


def __getattr__(name):  # heavy modules on demand
    if name == "check_texts":
        from .check import check_texts  # lazy: every command imports this package; check adds numpy and defects
        return check_texts
    raise AttributeError(name)
