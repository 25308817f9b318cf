"""text_encoder.onnx: text_ids, style_ttl, text_mask -> text_emb [B, 256, T].

Char embedding, 6 dilated ConvNeXt blocks, a 4-layer relative-position attention encoder with the
ConvNeXt output added back, ``proj_out`` to 256 channels, then the speech-prompted part: two
cross-attentions from the text to the 50 style tokens of ``style_ttl``, LayerNorm, mask.

The cross-attention keys are computed at run time, as in the real v3 graph: one learned key bank,
``tts.ttl.style_encoder.style_token_layer.style_key`` [1, 50, 256], Expanded and Tiled to the batch,
then each attention's ``tanh(W_key(.))`` (node ``/speech_prompted_text_encoder/attentionN/tanh/Tanh``).
Sources: ports of the released text_encoder.onnx read that initializer and ``attentionN.W_key.linear.bias``
and map ``onnx::MatMul_3681``/``_3685`` to ``attentionN.W_key.linear.weight``; a Q4 recipe pinned to the
release's digest expects 43 quantized MatMuls there: its 36 pointwise convs plus 7, which fits 8 attention
projections less the final ``attention2/out_fc`` it keeps in fp32, not 6. The older 163-character release
stored the keys folded instead (``/speech_prompted_text_encoder/attentionN/tanh/Tanh_output_0``).
"""

from __future__ import annotations

import numpy as np
import onnx

from .dims import (
    REL_WINDOW,
    STYLE_KEY_DIM,
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
    concat_ints,
    conv,
    convnext_stack,
    dim,
    layer_norm_last,
    linear,
    relative_attention_encoder,
    style_cross_attention,
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

    # tts.json gives the style token layer's style_key_dim as 256, the same as STYLE_KEY_DIM.
    with g.scope("style_encoder.style_token_layer", nodes=False):
        style_key = g.random("style_key", [1, STYLE_TOKENS, STYLE_KEY_DIM], std=1.0)
    key_shape = g.const([1, STYLE_TOKENS, STYLE_KEY_DIM])
    style_keys = g.op("Tile", g.op("Expand", style_key, key_shape), concat_ints(g, dim(g, style_ttl, 0), [1, 1]))

    with g.scope("speech_prompted_text_encoder"):
        prompt_btc = transpose(g, x, 0, 2, 1)
        h = prompt_btc
        for i in range(TE_PROMPT_LAYERS):
            # x1 = p + att1(p); x2 = p + att2(x1): both residuals go back to the prompt p.
            with g.scope(f"attention{i + 1}"):
                projected = linear(g, style_keys, "W_key", STYLE_KEY_DIM, d.prompt_units)
                with g.scope("tanh"):
                    keys = g.op("Tanh", projected)
                att = style_cross_attention(
                    g, h, keys, style_ttl, TEXT_EMB_DIM, STYLE_TTL_DIM, d.prompt_units, d.prompt_heads, TEXT_EMB_DIM
                )
            h = g.op("Add", prompt_btc, att)
        h = layer_norm_last(g, h, "norm.norm", TEXT_EMB_DIM)
        text_emb = g.op("Mul", transpose(g, h, 0, 2, 1), text_mask)

    g.output(text_emb, "text_emb", FLOAT, ["batch_size", TEXT_EMB_DIM, "text_length"])
    return g.build("Supertonic 3 text encoder stand-in (random weights)")
