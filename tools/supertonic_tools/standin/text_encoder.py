"""text_encoder.onnx: text_ids, style_ttl, text_mask -> text_emb [B, 256, T].

Char embedding, 6 dilated ConvNeXt blocks, a 4-layer relative-position attention encoder with the
ConvNeXt output added back, ``proj_out`` to 256 channels, then the speech-prompted part: two
cross-attentions from the text to the 50 style tokens of ``style_ttl``, LayerNorm, mask.
"""

from __future__ import annotations

import numpy as np
import onnx

from .dims import (
    REL_WINDOW,
    STYLE_TOKENS,
    STYLE_TTL_DIM,
    TE_ATTN_LAYERS,
    TE_CONVNEXT_DILATIONS,
    TE_PROMPT_LAYERS,
    TEXT_EMB_DIM,
    TEXT_KERNEL,
    VOCAB_SIZE,
    TextEncoderDims,
)
from .graph import FLOAT, INT64, GraphBuilder
from .layers import (
    conv,
    convnext_stack,
    layer_norm_last,
    relative_attention_encoder,
    style_cross_attention,
    style_key_tokens,
    transpose,
)


def build_text_encoder(d: TextEncoderDims, rng: np.random.Generator | None) -> onnx.ModelProto:
    g = GraphBuilder("text_encoder", "tts.ttl", rng)
    text_ids = g.input("text_ids", INT64, ["batch_size", "text_length"])
    style_ttl = g.input("style_ttl", FLOAT, ["batch_size", STYLE_TOKENS, STYLE_TTL_DIM])
    text_mask = g.input("text_mask", FLOAT, ["batch_size", 1, "text_length"])

    with g.scope("text_encoder"):
        table = g.random("text_embedder.char_embedder.weight", [VOCAB_SIZE, d.width], std=1.0)
        x = g.op("Mul", transpose(g, g.op("Gather", table, text_ids, axis=0), 0, 2, 1), text_mask)
        with g.scope("convnext"):  # convnext.convnext.N, as the real parameters
            x = convnext_stack(g, x, text_mask, d.width, d.hidden, TEXT_KERNEL, TE_CONVNEXT_DILATIONS)
        with g.scope("attn_encoder"):
            attended = relative_attention_encoder(g, x, text_mask, d.width, d.heads, d.ffn, TE_ATTN_LAYERS, REL_WINDOW)
        x = g.op("Add", attended, x)
        x = g.op("Mul", conv(g, x, "proj_out.net", d.width, TEXT_EMB_DIM, bias=False), text_mask)

    with g.scope("speech_prompted_text_encoder"):
        prompt_btc = transpose(g, x, 0, 2, 1)
        h = prompt_btc
        for i in range(TE_PROMPT_LAYERS):
            # x1 = p + att1(p); x2 = p + att2(x1): both residuals go back to the prompt p.
            with g.scope(f"attention{i + 1}"):
                keys = style_key_tokens(g, "style_key", STYLE_TOKENS, d.prompt_units)
                att = style_cross_attention(
                    g, h, keys, style_ttl, TEXT_EMB_DIM, STYLE_TTL_DIM, d.prompt_units, d.prompt_heads, TEXT_EMB_DIM
                )
            h = g.op("Add", prompt_btc, att)
        h = layer_norm_last(g, h, "norm.norm", TEXT_EMB_DIM)
        text_emb = g.op("Mul", transpose(g, h, 0, 2, 1), text_mask)

    g.output(text_emb, "text_emb", FLOAT, ["batch_size", TEXT_EMB_DIM, "text_length"])
    return g.build("Supertonic 3 text encoder stand-in (random weights)")
