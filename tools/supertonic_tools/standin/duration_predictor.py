"""duration_predictor.onnx: text_ids, style_dp, text_mask -> duration [B] in seconds.

Body as in the real graph: char embedding, sentence token, 6 ConvNeXt blocks, a 2-layer
relative-position attention encoder, ``proj_out`` of the sentence token, then an MLP on
[sentence, style]. A random head cannot know how long speech takes, so the seconds come from the
text length the mask gives (the English rate of a real voice), and the random head only moves
them by a bounded few per cent: hosts then see realistic, deterministic latent lengths.
"""

from __future__ import annotations

import numpy as np
import onnx

from .dims import (
    DP_ATTN_LAYERS,
    DP_CONVNEXT_DILATIONS,
    REL_WINDOW,
    STYLE_DP_SHAPE,
    TEXT_KERNEL,
    VOCAB_SIZE,
    DurationDims,
)
from .graph import FLOAT, INT64, GraphBuilder
from .layers import concat_ints, conv, convnext_stack, dim, relative_attention_encoder, reshape, transpose

# seconds = SPEED * (BASE + PER_LETTER * letters): the SDK divides by its default speed 1.05, so
# hosts get 0.9 s + 84 ms per letter, a real English voice's pace. The 9 characters of the
# "<xx>...</xx>" language tags are in the mask but are not spoken.
DEFAULT_SPEED = 1.05
BASE_SECONDS = 0.9
SECONDS_PER_LETTER = 0.084
LANGUAGE_TAG_CHARS = 9
# The learned head scales the result by exp(+-MAX_LOG_SCALE): at most about +-10 %.
MAX_LOG_SCALE = 0.1


def build_duration_predictor(d: DurationDims, rng: np.random.Generator | None) -> onnx.ModelProto:
    g = GraphBuilder("duration_predictor", "tts.dp", rng)
    text_ids = g.input("text_ids", INT64, ["batch_size", "text_length"])
    style_dp = g.input("style_dp", FLOAT, ["batch_size", *STYLE_DP_SHAPE])
    text_mask = g.input("text_mask", FLOAT, ["batch_size", 1, "text_length"])
    batch = dim(g, text_ids, 0)

    with g.scope("sentence_encoder"):
        table = g.random("text_embedder.char_embedder.weight", [VOCAB_SIZE, d.width], std=1.0)
        x = g.op("Mul", transpose(g, g.op("Gather", table, text_ids, axis=0), 0, 2, 1), text_mask)
        # A learned sentence token in front of the text; its output summarises the utterance.
        token = g.op("Expand", g.random("sentence_token", [1, d.width, 1], std=1.0), concat_ints(g, batch, [d.width, 1]))
        x = g.op("Concat", token, x, axis=2)
        ones = g.op("Expand", g.const([[[1.0]]], np.float32), concat_ints(g, batch, [1, 1]))
        mask = g.op("Concat", ones, text_mask, axis=2)
        with g.scope("convnext"):  # convnext.convnext.N, as the real parameters
            x = convnext_stack(g, x, mask, d.width, d.hidden, TEXT_KERNEL, DP_CONVNEXT_DILATIONS)
        with g.scope("attn_encoder"):
            attended = relative_attention_encoder(g, x, mask, d.width, d.heads, d.ffn, DP_ATTN_LAYERS, REL_WINDOW)
        x = g.op("Add", attended, x)
        first = g.op("Slice", x, g.const([0]), g.const([1]), g.const([2]))
        sentence = reshape(g, conv(g, first, "proj_out.net", d.width, d.width, bias=False), [0, -1])

    with g.scope("predictor"):
        features = g.op("Concat", sentence, reshape(g, style_dp, [0, -1]), axis=1)
        n_in = d.width + STYLE_DP_SHAPE[0] * STYLE_DP_SHAPE[1]
        h = _gemm(g, features, "layers.0", n_in, d.head_hidden)
        h = g.op("PRelu", h, g.fixed("activation.weight", np.full([1], 0.25, np.float32)))
        h = _gemm(g, h, "layers.1", d.head_hidden, 1)
        log_scale = g.op("Mul", g.op("Tanh", reshape(g, h, [-1])), g.scalar(MAX_LOG_SCALE))

    letters = g.op("ReduceSum", text_mask, g.const([1, 2]), keepdims=0)
    letters = g.op("Relu", g.op("Sub", letters, g.scalar(float(LANGUAGE_TAG_CHARS))))
    seconds = g.op(
        "Add",
        g.op("Mul", letters, g.scalar(DEFAULT_SPEED * SECONDS_PER_LETTER)),
        g.scalar(DEFAULT_SPEED * BASE_SECONDS),
    )
    duration = g.op("Mul", seconds, g.op("Exp", log_scale))
    g.output(duration, "duration", FLOAT, ["batch_size"])
    return g.build("Supertonic 3 duration predictor stand-in (random weights)")


def _gemm(g: GraphBuilder, x: str, name: str, d_in: int, d_out: int) -> str:
    """A Linear on [B, d] exported as Gemm with the weight stored [out, in] (transB=1)."""
    w = g.random(f"{name}.weight", [d_out, d_in], std=d_in**-0.5)
    return g.op("Gemm", x, w, g.random(f"{name}.bias", [d_out], std=0.02), transB=1)
