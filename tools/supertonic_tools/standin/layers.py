"""Layers shared by the four graphs, written as the node chains the real export contains.

Tensors are channels-first ``[B, C, N]`` (as Conv1d sees them) unless a name ends in ``_btc``
(``[B, N, C]``, as Linear/MatMul sees them). Random weights use fan-in scaling, LayerNorm sits in
every block and residual branches are multiplied by a small ``gamma``, so activations keep a unit
scale through any depth and any input: the stand-in never produces NaN or Inf.
"""

from __future__ import annotations

import math

from .graph import GraphBuilder

LN_EPS = 1e-6
GAMMA = 1e-2  # ConvNeXt layer scale: keeps each residual branch ~1 % of the stream
NEG_INF = -1e4  # masked attention logits, as VITS' masked_fill writes them
TO_END = 2**62  # a Slice end past any length: "up to the last element"


# --- shape plumbing ---------------------------------------------------------------------------------


def dim(g: GraphBuilder, x: str, axis: int) -> str:
    """Length of ``x`` along ``axis`` as a 1-element int64 tensor."""
    return g.op("Shape", x, start=axis, end=axis + 1)


def transpose(g: GraphBuilder, x: str, *perm: int) -> str:
    return g.op("Transpose", x, perm=list(perm))


def reshape(g: GraphBuilder, x: str, shape: list[int] | str) -> str:
    return g.op("Reshape", x, shape if isinstance(shape, str) else g.const(shape))


def pad(g: GraphBuilder, x: str, pads: list[int] | str, mode: str = "constant") -> str:
    return g.op("Pad", x, pads if isinstance(pads, str) else g.const(pads), mode=mode)


def unsqueeze(g: GraphBuilder, x: str, *axes: int) -> str:
    return g.op("Unsqueeze", x, g.const(list(axes)))


def concat_ints(g: GraphBuilder, *parts: list[int] | str) -> str:
    """Concatenate constant int lists and 1-element shape tensors into one int64 vector."""
    return g.op("Concat", *(p if isinstance(p, str) else g.const(p) for p in parts), axis=0)


# --- basic layers -----------------------------------------------------------------------------------


def conv(
    g: GraphBuilder,
    x: str,
    name: str,
    c_in: int,
    c_out: int,
    kernel: int = 1,
    *,
    dilation: int = 1,
    groups: int = 1,
    bias: bool = True,
    gain: float = 1.0,
) -> str:
    """Conv1d with fan-in scaled weights ``[c_out, c_in/groups, kernel]``; ``x`` already padded."""
    fan_in = c_in // groups * kernel
    with g.scope(name):  # node /proj_in/net/Conv for parameters proj_in.net.weight, as exported
        w = g.random("weight", [c_out, c_in // groups, kernel], std=gain / math.sqrt(fan_in))
        inputs = [x, w] + ([g.random("bias", [c_out], std=0.02)] if bias else [])
        return g.op("Conv", *inputs, kernel_shape=[kernel], dilations=[dilation], group=groups, pads=[0, 0], strides=[1])


def linear(g: GraphBuilder, x_btc: str, name: str, d_in: int, d_out: int, *, bias: bool = True, gain: float = 1.0) -> str:
    """torch.nn.Linear as exported: MatMul with a weight stored [in, out], then Add of the bias.

    The real model wraps each Linear in a module of its own, so it sits one level down:
    ``W_query.linear.bias``, node ``.../W_query/linear/MatMul`` (names read by public ports)."""
    with g.scope(name), g.scope("linear"):
        y = g.op("MatMul", x_btc, g.random("weight", [d_in, d_out], std=gain / math.sqrt(d_in)))
        return g.op("Add", y, g.random("bias", [d_out], std=0.02)) if bias else y


def layer_norm_last(g: GraphBuilder, x_btc: str, name: str, channels: int) -> str:
    scale = g.random(f"{name}.weight", [channels], std=0.02, mean=1.0)
    shift = g.random(f"{name}.bias", [channels], std=0.02)
    return g.op("LayerNormalization", x_btc, scale, shift, axis=-1, epsilon=LN_EPS)


def layer_norm_channels(g: GraphBuilder, x: str, name: str, channels: int) -> str:
    """LayerNorm over C of a ``[B, C, N]`` tensor: Transpose, LayerNormalization, Transpose back."""
    return transpose(g, layer_norm_last(g, transpose(g, x, 0, 2, 1), name, channels), 0, 2, 1)


def gelu(g: GraphBuilder, x: str) -> str:
    """Exact GELU as torch exports it before opset 20: x * 0.5 * (1 + erf(x / sqrt 2))."""
    erf = g.op("Erf", g.op("Div", x, g.scalar(math.sqrt(2.0))))
    return g.op("Mul", g.op("Mul", x, g.op("Add", erf, g.scalar(1.0))), g.scalar(0.5))


def mish(g: GraphBuilder, x: str) -> str:
    return g.op("Mul", x, g.op("Tanh", g.op("Softplus", x)))


# --- ConvNeXt ------------------------------------------------------------------------------------------


def convnext_block(
    g: GraphBuilder,
    x: str,
    mask: str | None,
    channels: int,
    hidden: int,
    kernel: int,
    dilation: int,
    *,
    causal: bool = False,
) -> str:
    """One ConvNeXt-1D block: edge-padded depthwise conv, LayerNorm, C->H->C pointwise convs.

    Pointwise layers stay ``Conv`` k=1 (not MatMul): ONNX Runtime's CPU Conv threads differently
    from MatMul, and these layers are most of the model's time.
    """
    reach = dilation * (kernel - 1)
    left, right = (reach, 0) if causal else (reach // 2, reach - reach // 2)
    y = g.op("Mul", x, mask) if mask else x
    y = pad(g, y, [0, 0, left, 0, 0, right], mode="edge")
    y = conv(g, y, "dwconv", channels, channels, kernel, dilation=dilation, groups=channels)
    if mask:
        y = g.op("Mul", y, mask)
    y = layer_norm_channels(g, y, "norm.norm", channels)  # norm.norm.weight, as the real parameters
    y = gelu(g, conv(g, y, "pwconv1", channels, hidden))
    y = conv(g, y, "pwconv2", hidden, channels)
    y = g.op("Mul", y, g.random("gamma", [1, channels, 1], std=GAMMA / 10, mean=GAMMA))
    y = g.op("Add", x, y)
    return g.op("Mul", y, mask) if mask else y


def convnext_stack(
    g: GraphBuilder,
    x: str,
    mask: str | None,
    channels: int,
    hidden: int,
    kernel: int,
    dilations: tuple[int, ...],
    *,
    causal: bool = False,
) -> str:
    for i, dilation in enumerate(dilations):
        with g.scope(f"convnext.{i}"):
            x = convnext_block(g, x, mask, channels, hidden, kernel, dilation, causal=causal)
    return x


# --- attention -------------------------------------------------------------------------------------------


def split_heads(g: GraphBuilder, x_btc: str, heads: int, head_dim: int) -> str:
    """[B, N, heads*d] -> [B, heads, N, d]."""
    return transpose(g, reshape(g, x_btc, [0, 0, heads, head_dim]), 0, 2, 1, 3)


def merge_heads(g: GraphBuilder, x: str) -> str:
    """[B, heads, N, d] -> [B, N, heads*d]."""
    return reshape(g, transpose(g, x, 0, 2, 1, 3), [0, 0, -1])


def attend(g: GraphBuilder, q: str, k_t: str, v: str, scale: float, key_bias: str | None = None) -> str:
    """softmax(q k^T * scale + key_bias) v over the last axis, heads batched."""
    logits = g.op("Mul", g.op("MatMul", q, k_t), g.scalar(scale))
    if key_bias is not None:
        logits = g.op("Add", logits, key_bias)
    return g.op("MatMul", g.op("Softmax", logits, axis=-1), v)


def key_mask_bias(g: GraphBuilder, mask: str) -> str:
    """[B, 1, N] 0/1 mask -> [B, 1, 1, N] additive bias (0 or -1e4) for masked keys."""
    return unsqueeze(g, g.op("Mul", g.op("Sub", g.scalar(1.0), mask), g.scalar(NEG_INF)), 1)


def _relative_embeddings(g: GraphBuilder, table: str, length: str, window: int) -> str:
    """Rows of a [1, 2w+1, d] relative table for offsets -(n-1)..(n-1): [1, 2n-1, d].

    Padding by n on both sides always covers the window, so the wanted rows start at w+1 and
    rows outside the window are zeros, as in VITS' ``_get_relative_embeddings``.
    """
    padded = pad(g, table, concat_ints(g, [0], length, [0, 0], length, [0]))
    end = g.op("Add", g.op("Mul", length, g.const([2])), g.const([window]))
    return g.op("Slice", padded, g.const([window + 1]), end, g.const([1]))


def _relative_to_absolute(g: GraphBuilder, x: str, length: str) -> str:
    """[b, h, n, 2n-1] logits by relative offset -> [b, h, n, n] by key position (VITS)."""
    x = reshape(g, pad(g, x, [0, 0, 0, 0, 0, 0, 0, 1]), [0, 0, -1])
    x = pad(g, x, concat_ints(g, [0, 0, 0, 0, 0], g.op("Sub", length, g.const([1]))))
    x = reshape(g, x, concat_ints(g, [0, 0], g.op("Add", length, g.const([1])), [-1]))
    start = g.op("Sub", length, g.const([1]))
    return g.op("Slice", x, concat_ints(g, [0], start), concat_ints(g, length, [TO_END]), g.const([2, 3]))


def _absolute_to_relative(g: GraphBuilder, x: str, length: str) -> str:
    """[b, h, n, n] weights by key position -> [b, h, n, 2n-1] by relative offset (VITS)."""
    x = pad(g, x, concat_ints(g, [0, 0, 0, 0, 0, 0, 0], g.op("Sub", length, g.const([1]))))
    x = reshape(g, x, [0, 0, -1])
    x = pad(g, x, concat_ints(g, [0, 0], length, [0, 0, 0]))
    x = reshape(g, x, concat_ints(g, [0, 0], length, [-1]))
    return g.op("Slice", x, g.const([1]), g.const([TO_END]), g.const([3]))


def relative_self_attention(g: GraphBuilder, x: str, mask: str, channels: int, heads: int, window: int) -> str:
    """VITS multi-head self-attention with a relative-position window, on ``[B, C, N]``."""
    head_dim = channels // heads
    length = dim(g, x, 2)

    def project(name: str) -> str:  # Conv k=1 -> [B, heads, N, d]
        y = conv(g, x, name, channels, channels)
        return transpose(g, reshape(g, y, [0, heads, head_dim, -1]), 0, 1, 3, 2)

    q = g.op("Mul", project("conv_q"), g.scalar(1.0 / math.sqrt(head_dim)))
    k, v = project("conv_k"), project("conv_v")
    rel_k = _relative_embeddings(g, g.random("emb_rel_k", [1, 2 * window + 1, head_dim], std=head_dim**-0.5), length, window)
    rel_v = _relative_embeddings(g, g.random("emb_rel_v", [1, 2 * window + 1, head_dim], std=head_dim**-0.5), length, window)

    scores = g.op("MatMul", q, transpose(g, k, 0, 1, 3, 2))
    rel_logits = g.op("MatMul", q, transpose(g, rel_k, 0, 2, 1))
    scores = g.op("Add", scores, _relative_to_absolute(g, rel_logits, length))
    pair_mask = g.op("Mul", unsqueeze(g, mask, 2), unsqueeze(g, mask, 3))  # [B, 1, N, N]
    scores = g.op("Where", g.op("Equal", pair_mask, g.scalar(0.0)), g.scalar(NEG_INF), scores)
    weights = g.op("Softmax", scores, axis=-1)
    out = g.op("MatMul", weights, v)
    out = g.op("Add", out, g.op("MatMul", _absolute_to_relative(g, weights, length), rel_v))
    out = reshape(g, transpose(g, out, 0, 1, 3, 2), [0, channels, -1])
    return conv(g, out, "conv_o", channels, channels)


def relative_attention_encoder(g: GraphBuilder, x: str, mask: str, channels: int, heads: int, ffn: int, layers: int, window: int) -> str:
    """VITS ``attentions.Encoder``: post-LN self-attention and Conv k=1 ReLU FFN, masked."""
    x = g.op("Mul", x, mask)
    for i in range(layers):
        with g.scope(f"attn_layers.{i}"):
            y = relative_self_attention(g, x, mask, channels, heads, window)
        x = layer_norm_channels(g, g.op("Add", x, y), f"norm_layers_1.{i}", channels)
        with g.scope(f"ffn_layers.{i}"):
            y = g.op("Relu", conv(g, g.op("Mul", x, mask), "conv_1", channels, ffn))
            y = g.op("Mul", conv(g, g.op("Mul", y, mask), "conv_2", ffn, channels), mask)
        x = layer_norm_channels(g, g.op("Add", x, y), f"norm_layers_2.{i}", channels)
    return g.op("Mul", x, mask)


def style_cross_attention(
    g: GraphBuilder,
    x_btc: str,
    keys: str,
    values_btc: str,
    d_query: int,
    d_value: int,
    units: int,
    heads: int,
    d_out: int,
) -> str:
    """Attention of every position to the 50 style tokens (no key mask: all tokens are valid).

    ``keys`` is ``[B, 50, units]`` already through tanh: each caller projects its learned key
    tokens with its own ``W_key`` at run time, as the real graphs do.
    """
    head_dim = units // heads
    q = split_heads(g, linear(g, x_btc, "W_query", d_query, units, bias=False), heads, head_dim)
    k_t = g.op("Transpose", reshape(g, keys, [0, 0, heads, head_dim]), perm=[0, 2, 3, 1])
    v = split_heads(g, linear(g, values_btc, "W_value", d_value, units, bias=False), heads, head_dim)
    out = merge_heads(g, attend(g, q, k_t, v, scale=1.0 / 16.0))  # 1/sqrt(256) in the real model
    return linear(g, out, "out_fc", units, d_out)
