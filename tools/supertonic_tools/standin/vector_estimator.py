"""vector_estimator.onnx: one Euler step of the flow, with classifier-free guidance inside.

The graph doubles the batch (Tile [2,1,1] of ``noisy_latent``: a conditional half and an
unconditional half that sees learned "no text" / "no style" tokens), runs the ConvNeXt backbone
with time, text (LARoPE) and style conditioning on both halves, and returns
``(noisy + (4 v_cond - 3 v_uncond) / total_step) * latent_mask``. So one call costs two passes of
the backbone, as in the real model.

Names are the real graph's where public code that reads or rewrites it spells them (so tools that
find their way by name work on the stand-in too); elsewhere the exporter's conventions:
- every node sits under ``/vector_estimator/`` and every parameter under ``vector_estimator.tts.ttl.``
  (extraction and folding scripts for the released file: ``/vector_estimator/vector_field/proj_out/
  Mul_output_0``, ``vector_estimator.tts.ttl.uncond_masker.text_special_token``);
- the wrapper's Tiles, in order: ``Tile`` broadcasts the conditional style key (an initializer named
  ``/vector_estimator/Expand_output_0``, the exporter's fold) to the batch, ``Tile_1`` doubles
  ``noisy_latent`` (the tensor superclonica's ``share_guidance_prefix`` starts from), ``Tile_3``
  ``latent_mask`` and ``Tile_4`` ``text_mask`` (a batch-1 extraction replaces exactly these);
  ``Tile_2`` doubles a tensor the sources do not explain (``Expand_5``): here the time;
- ``/vector_field/proj_in/net/Conv`` then ``/vector_field/proj_in/Mul`` (the mask), likewise
  ``proj_out`` (a conversion log of the real file names ``/vector_estimator/vector_field/proj_in/net/
  Conv``, int8 recipes keep ``.../proj_out/net/Conv`` in fp32); text attention under ``main_blocks.{3,9,15,21}/attn/`` with ``attn.theta``, style
  attention under ``main_blocks.{5,...}/attention/``, time shift ``main_blocks.{1,...}/linear/linear``.
"""

from __future__ import annotations

import math

import numpy as np
import onnx

from .dims import (
    CFG_COND_WEIGHT,
    CFG_UNCOND_WEIGHT,
    COMPRESSED_LATENT_DIM,
    MAX_POSITIONS,
    ROPE_BASE,
    ROPE_SCALE,
    STYLE_KEY_DIM,
    STYLE_TOKENS,
    STYLE_TTL_DIM,
    TEXT_EMB_DIM,
    TEXT_KERNEL,
    VE_CYCLES,
    VE_FIRST_STACK_DILATIONS,
    VE_LAST_STACK_DILATIONS,
    VE_LATE_STACK_DILATIONS,
    VE_MIDDLE_STACK_DILATIONS,
    EstimatorDims,
)
from .graph import FLOAT, GraphBuilder
from .layers import (
    TO_END,
    attend,
    concat_ints,
    conv,
    convnext_stack,
    dim,
    key_mask_bias,
    layer_norm_channels,
    linear,
    merge_heads,
    mish,
    reshape,
    split_heads,
    style_cross_attention,
    transpose,
    unsqueeze,
)

TIME_POSITION_SCALE = 1000.0  # t in [0, 1) is embedded as position 1000 t
VELOCITY_GAIN = 0.25  # proj_out scale: |v| ~ 0.25, so the steps move the latent by O(1), never blow it up


def build_vector_estimator(d: EstimatorDims, rng: np.random.Generator | None) -> onnx.ModelProto:
    g = GraphBuilder("vector_estimator", "vector_estimator.tts.ttl", rng, node_root="vector_estimator")
    noisy = g.input("noisy_latent", FLOAT, ["batch_size", COMPRESSED_LATENT_DIM, "latent_length"])
    text_emb = g.input("text_emb", FLOAT, ["batch_size", TEXT_EMB_DIM, "text_length"])
    style_ttl = g.input("style_ttl", FLOAT, ["batch_size", STYLE_TOKENS, STYLE_TTL_DIM])
    text_mask = g.input("text_mask", FLOAT, ["batch_size", 1, "text_length"])
    latent_mask = g.input("latent_mask", FLOAT, ["batch_size", 1, "latent_length"])
    current_step = g.input("current_step", FLOAT, ["batch_size"])
    total_step = g.input("total_step", FLOAT, ["batch_size"])

    # --- classifier-free guidance: [cond; uncond] along the batch, in the real wrapper's order -----
    halves = g.const([2, 1, 1])
    batch = dim(g, style_ttl, 0)
    key_shape = concat_ints(g, batch, [STYLE_TOKENS, STYLE_KEY_DIM])
    # The conditional style key is a learned constant the export folded (/vector_estimator/Expand_output_0).
    cond_keys = g.op("Tile", g.folded("Expand", g.draw([1, STYLE_TOKENS, STYLE_KEY_DIM])), concat_ints(g, batch, [1, 1]))
    x = g.op("Tile", noisy, halves)
    t = reshape(g, g.op("Tile", unsqueeze(g, g.op("Div", current_step, total_step), 1, 2), halves), [-1])
    lmask = g.op("Tile", latent_mask, halves)
    tmask = g.op("Tile", text_mask, halves)
    no_text = g.op("Expand", g.random("uncond_masker.text_special_token", [1, TEXT_EMB_DIM, 1], std=1.0), g.op("Shape", text_emb))
    text_btc = transpose(g, g.op("Concat", text_emb, no_text, axis=0), 0, 2, 1)
    no_style_key = g.op("Expand", g.random("uncond_masker.style_key_special_token", [1, STYLE_TOKENS, STYLE_KEY_DIM], std=1.0), key_shape)
    style_keys = g.op("Concat", cond_keys, no_style_key, axis=0)
    no_style = g.op(
        "Expand", g.random("uncond_masker.style_value_special_token", [1, STYLE_TOKENS, STYLE_TTL_DIM], std=1.0), g.op("Shape", style_ttl)
    )
    style_values = g.op("Concat", style_ttl, no_style, axis=0)

    with g.scope("vector_field"):
        with g.scope("time_encoder"):
            t_emb = _time_encoder(g, t, d)
        text_bias = key_mask_bias(g, tmask)
        rope: _LaRope | None = None

        with g.scope("proj_in"):
            x = g.op("Mul", conv(g, x, "net", COMPRESSED_LATENT_DIM, d.width, bias=False), lmask)
        for cycle in range(VE_CYCLES):
            first = 6 * cycle
            with g.scope(f"main_blocks.{first}"):
                x = convnext_stack(g, x, lmask, d.width, d.hidden, TEXT_KERNEL, VE_FIRST_STACK_DILATIONS)
            with g.scope(f"main_blocks.{first + 1}"):
                x = g.op("Add", x, unsqueeze(g, linear(g, t_emb, "linear", d.time_dim, d.width), 2))
            with g.scope(f"main_blocks.{first + 2}"):
                x = convnext_stack(g, x, lmask, d.width, d.hidden, TEXT_KERNEL, VE_MIDDLE_STACK_DILATIONS)
            with g.scope(f"main_blocks.{first + 3}"):
                if rope is None:  # the positions are the same for every text block: computed once
                    with g.scope("attn"):
                        rope = _LaRope(g, lmask, tmask, d.text_units // d.text_heads)
                x = _text_attention(g, x, text_btc, lmask, text_bias, rope, d)
            with g.scope(f"main_blocks.{first + 4}"):
                x = convnext_stack(g, x, lmask, d.width, d.hidden, TEXT_KERNEL, VE_LATE_STACK_DILATIONS)
            with g.scope(f"main_blocks.{first + 5}"):
                x = _style_attention(g, x, style_values, style_keys, lmask, d)
        with g.scope("last_convnext"):
            x = convnext_stack(g, x, lmask, d.width, d.hidden, TEXT_KERNEL, VE_LAST_STACK_DILATIONS)
        with g.scope("proj_out"):
            velocity = g.op("Mul", conv(g, x, "net", d.width, COMPRESSED_LATENT_DIM, bias=False, gain=VELOCITY_GAIN), lmask)

    v_cond, v_uncond = g.op_multi("Split", velocity, outputs=2, axis=0, num_outputs=2)
    guided = g.op("Sub", g.op("Mul", v_cond, g.scalar(CFG_COND_WEIGHT)), g.op("Mul", v_uncond, g.scalar(CFG_UNCOND_WEIGHT)))
    step = g.op("Div", guided, unsqueeze(g, total_step, 1, 2))
    denoised = g.op("Mul", g.op("Add", noisy, step), latent_mask)
    g.output(denoised, "denoised_latent", FLOAT, ["batch_size", COMPRESSED_LATENT_DIM, "latent_length"])
    return g.build("Supertonic 3 vector estimator stand-in (random weights)")


def _time_encoder(g: GraphBuilder, t: str, d: EstimatorDims) -> str:
    """t = current/total in [0, 1) -> sinusoidal embedding of 1000 t -> MLP with Mish -> [2B, time_dim]."""
    half = d.time_dim // 2
    freqs = np.exp(-math.log(10000.0) * np.arange(half, dtype=np.float64) / (half - 1)).astype(np.float32)
    angles = g.op("Mul", unsqueeze(g, g.op("Mul", t, g.scalar(TIME_POSITION_SCALE)), 1), g.fixed("freqs", freqs[None, :]))
    emb = g.op("Concat", g.op("Sin", angles), g.op("Cos", angles), axis=1)
    h = mish(g, linear(g, emb, "mlp.0", d.time_dim, d.time_hidden))
    return linear(g, h, "mlp.2", d.time_hidden, d.time_dim)


class _LaRope:
    """Length-normalised rotary positions (LARoPE): angle = (position / length) * theta_i.

    Normalising by each sequence's own length lets latent frames and characters meet at the
    same angle when they are at the same relative place in the utterance.
    """

    def __init__(self, g: GraphBuilder, latent_mask: str, text_mask: str, head_dim: int) -> None:
        self.half = head_dim // 2
        theta = ROPE_SCALE * ROPE_BASE ** (-np.arange(self.half, dtype=np.float64) / self.half)
        self._theta = g.fixed("theta", theta.astype(np.float32).reshape(1, 1, self.half))
        self._positions = g.fixed("increments", np.arange(MAX_POSITIONS, dtype=np.float32).reshape(1, MAX_POSITIONS, 1))
        self.latent = self._angles(g, latent_mask)
        self.text = self._angles(g, text_mask)

    def _angles(self, g: GraphBuilder, mask: str) -> tuple[str, str]:
        positions = g.op("Slice", self._positions, g.const([0]), dim(g, mask, 2), g.const([1]))  # [1, N, 1]
        length = g.op("ReduceSum", mask, g.const([1, 2]), keepdims=1)  # [2B, 1, 1]
        angle = unsqueeze(g, g.op("Mul", g.op("Div", positions, length), self._theta), 1)  # [2B, 1, N, half]
        return g.op("Cos", angle), g.op("Sin", angle)

    def rotate(self, g: GraphBuilder, x: str, angles: tuple[str, str]) -> str:
        """Rotate-half RoPE on [2B, heads, N, 2*half]."""
        cos, sin = angles
        x1 = g.op("Slice", x, g.const([0]), g.const([self.half]), g.const([3]))
        x2 = g.op("Slice", x, g.const([self.half]), g.const([TO_END]), g.const([3]))
        first = g.op("Sub", g.op("Mul", x1, cos), g.op("Mul", x2, sin))
        second = g.op("Add", g.op("Mul", x2, cos), g.op("Mul", x1, sin))
        return g.op("Concat", first, second, axis=3)


def _text_attention(g: GraphBuilder, x: str, text_btc: str, lmask: str, text_bias: str, rope: _LaRope, d: EstimatorDims) -> str:
    """Latent frames attend to characters: RoPE'd Q and K, logits x 1/16, residual, LayerNorm."""
    head_dim = d.text_units // d.text_heads
    with g.scope("attn"):
        q = split_heads(g, linear(g, transpose(g, x, 0, 2, 1), "W_query", d.width, d.text_units, bias=False), d.text_heads, head_dim)
        k = split_heads(g, linear(g, text_btc, "W_key", TEXT_EMB_DIM, d.text_units, bias=False), d.text_heads, head_dim)
        v = split_heads(g, linear(g, text_btc, "W_value", TEXT_EMB_DIM, d.text_units, bias=False), d.text_heads, head_dim)
        q, k = rope.rotate(g, q, rope.latent), rope.rotate(g, k, rope.text)
        # 1/16 = 1/sqrt(256), not 1/sqrt(head_dim): the real model scales this way.
        out = merge_heads(g, attend(g, q, transpose(g, k, 0, 1, 3, 2), v, 1.0 / 16.0, text_bias))
        out = g.op("Mul", transpose(g, linear(g, out, "out_fc", d.text_units, d.width), 0, 2, 1), lmask)
    return layer_norm_channels(g, g.op("Add", x, out), "norm.norm", d.width)


def _style_attention(g: GraphBuilder, x: str, style_values: str, style_keys: str, lmask: str, d: EstimatorDims) -> str:
    """Latent frames attend to the 50 style tokens: the learned key for the conditional half, the
    "no style" key for the unconditional one, each through this block's tanh(W_key); residual, LayerNorm."""
    with g.scope("attention"):
        keys = g.op("Tanh", linear(g, style_keys, "W_key", STYLE_KEY_DIM, d.style_units))
        x_btc = transpose(g, x, 0, 2, 1)
        units, heads = d.style_units, d.style_heads
        out = style_cross_attention(g, x_btc, keys, style_values, d.width, STYLE_TTL_DIM, units, heads, d.width)
        out = g.op("Mul", transpose(g, out, 0, 2, 1), lmask)
    return layer_norm_channels(g, g.op("Add", x, out), "norm.norm", d.width)
