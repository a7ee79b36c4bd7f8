"""A sentence-transformers model's forward pass traced once into a TorchScript graph.

Eager PyTorch runs Python between the operators of every layer: for a question (one short
text) that is about a third of the model's time on this machine, spent holding the GIL that the
reads retrieval overlaps with the embedding also need. Traced, the transformer, its mean pooling
and the normalisation run as one graph.

Only for models of the default model's shape (a transformer, mean pooling, L2 normalisation,
inputs `input_ids`, `attention_mask`, `token_type_ids`), and only when the traced graph gives the
model's own vectors on probe batches of texts of different lengths (padded and alone). Anything
else, or any failure while tracing, leaves the model as it is.

Tracing records the Python branches the transformer takes on the probe batch. Its padding mask
is then always applied (a no-op for a text alone), and the branches that look at the mask's
length and at causality never change for a bidirectional encoder's self-attention; the probe
check covers both cases.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

__all__ = ["TracedEncoder", "eager_vectors", "trace_encoder"]

log = logging.getLogger(__name__)

# Different lengths, so the traced batch is padded; Latin, CJK and empty text.
_PROBES = (
    "What is water glass?",
    "Compare the release procedure of the staging cluster with production, step by step, "
    "with the rollback and the checks after each step.",
    "水玻璃是什么？",
    "",
)
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_TOLERANCE = 1e-5  # largest difference from the model's own vector, per component


class TracedEncoder:
    """Texts to normalised vectors through the traced graph; the model only tokenises."""

    def __init__(self, model: Any, graph: Any) -> None:
        self.model = model
        self.graph = graph

    def __call__(self, texts: list[str]) -> list[list[float]]:
        import torch

        features = self.model.preprocess(texts)
        with torch.inference_mode():
            vectors: list[list[float]] = self.graph(*(features[k] for k in _INPUTS)).tolist()
        return vectors


def trace_encoder(model: Any) -> TracedEncoder | None:
    """The model's forward as a TracedEncoder, or None (see the module's docstring)."""
    try:
        graph = _trace(model)
        if graph is None:
            return None
        encoder = TracedEncoder(model, graph)
        for batch in (list(_PROBES), list(_PROBES[:1]), list(_PROBES[1:2])):
            difference = _largest_difference(encoder(batch), eager_vectors(model, batch))
            if difference > _TOLERANCE:
                log.warning("traced model not used: it differs by %.2g on probe texts", difference)
                return None
        return encoder
    except Exception as error:  # tracing is an optimisation: the model works without it
        log.warning("traced model not used: %s", error)
        return None


def _trace(model: Any) -> Any:
    import torch
    from sentence_transformers.models import Normalize, Pooling, Transformer

    modules = list(model)
    if (
        len(modules) != 3
        or not isinstance(modules[0], Transformer)
        or not isinstance(modules[1], Pooling)
        or not isinstance(modules[2], Normalize)
        or modules[1].get_config_dict().get("pooling_mode") != "mean"
    ):
        shape = [type(m).__name__ for m in modules]
        log.info("traced model not used: modules %s are not transformer, mean, normalize", shape)
        return None
    features = model.preprocess(list(_PROBES))
    if not all(k in features for k in _INPUTS):
        log.info("traced model not used: inputs %s are not %s", sorted(features), _INPUTS)
        return None

    class MeanPooled(torch.nn.Module):
        def __init__(self, transformer: Any) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            tokens = self.transformer(
                input_ids=ids, attention_mask=mask, token_type_ids=types, return_dict=False
            )[0]
            weights = mask.unsqueeze(-1).to(tokens.dtype)
            mean = (tokens * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    with torch.inference_mode(), warnings.catch_warnings():
        # torch.jit.trace's deprecation notice and its notes on Python branches: the probe
        # check in trace_encoder decides whether the graph is used.
        warnings.simplefilter("ignore")
        trace: Any = torch.jit.trace  # untyped in torch's stubs
        return trace(
            MeanPooled(modules[0].auto_model).eval(),
            tuple(features[k] for k in _INPUTS),
            check_trace=False,
        )


def eager_vectors(model: Any, texts: list[str]) -> list[list[float]]:
    """What `encode` computes for texts that fit one batch, without its per-call set-up
    (switching every module to eval, sorting by length, batching): the model as is, the
    reference a traced graph must match. Only for models without a default prompt or a
    truncated dimension, which `encode` would apply; the model must be in eval mode."""
    import torch

    with torch.inference_mode():
        vectors = model(model.preprocess(texts))["sentence_embedding"]
        normalised: list[list[float]] = torch.nn.functional.normalize(vectors, p=2, dim=1).tolist()
    return normalised


def _largest_difference(a: list[list[float]], b: list[list[float]]) -> float:
    if len(a) != len(b):
        return float("inf")
    return max(
        (abs(x - y) for u, v in zip(a, b, strict=True) for x, y in zip(u, v, strict=True)),
        default=0.0,
    )
