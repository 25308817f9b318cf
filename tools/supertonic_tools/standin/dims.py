"""Dimensions of the stand-in graphs: the fixed I/O contract and the two internal sizes.

Everything the host code can see (style shapes, latent channels, samples per frame) and the
topology (layers, dilations, kernels) come from the real release's ``tts.json`` (vendored in
``release/``), so the stand-in follows that file. Only internal widths change between sizes:
``full`` reads the real widths from the same file, so parameters, bytes and FLOPs match the
published graphs; ``tiny`` keeps every layer and operator but makes them narrow, so tests build
and run it in moments (its widths are recorded in each graph's stand-in mark).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from supertonic_engine.errors import InvalidParameter

from .release import RELEASE_DIR

# The real release's config; every value below that names a key is read from it.
TTS_CONFIG: dict[str, Any] = json.loads((RELEASE_DIR / "onnx" / "tts.json").read_text(encoding="utf-8"))
_TTL, _AE, _DP = TTS_CONFIG["ttl"], TTS_CONFIG["ae"], TTS_CONFIG["dp"]
_TE, _VF = _TTL["text_encoder"], _TTL["vector_field"]
_SENTENCE = _DP["sentence_encoder"]

# --- the public contract (same for every size) -----------------------------------------------------
# Rows of the character tables. Not in tts.json, and the real unicode_indexer.json only uses ids
# 0..8320: the graphs hold one row more, 8322 (MLX and ggml ports, ExecuTorch metadata
# get_text_vocabulary_size; the DP table [8322, 64] is 532,608 of the published parameters).
VOCAB_SIZE = 8322
TEXT_EMB_DIM = _TE["proj_out"]["odim"]  # text_encoder output channels (256)
STYLE_TOKENS = _TTL["style_encoder"]["style_token_layer"]["n_style"]  # style_ttl [B, 50, 256]
STYLE_TTL_DIM = _TTL["style_encoder"]["style_token_layer"]["style_value_dim"]
STYLE_KEY_DIM = _TTL["uncond_masker"]["style_key_dim"]  # the estimator's style key tokens [1, 50, 256]
STYLE_DP_SHAPE = (_DP["style_encoder"]["style_token_layer"]["n_style"], _DP["style_encoder"]["style_token_layer"]["style_value_dim"])
LATENT_DIM = _TTL["latent_dim"]  # AE latent channels (24)
CHUNK_COMPRESS = _TTL["chunk_compress_factor"]  # AE frames folded into one TTL frame (6)
COMPRESSED_LATENT_DIM = LATENT_DIM * CHUNK_COMPRESS  # 144
BASE_CHUNK_SIZE = _AE["base_chunk_size"]  # samples per AE frame (512)
SAMPLES_PER_LATENT_FRAME = BASE_CHUNK_SIZE * CHUNK_COMPRESS  # 3072
SAMPLE_RATE = _AE["sample_rate"]
MAX_POSITIONS = 1000  # rows of the estimator's RoPE position table (MLX port: increments (1,1000,1)): T, L <= 1000

# --- topology (same for every size) ---------------------------------------------------------------
REL_WINDOW = 4  # relative-position window of the DP/TE self-attention (emb_rel_k/v [1, 9, d] in the ports); not in tts.json
DP_CONVNEXT_DILATIONS = tuple(_SENTENCE["convnext"]["dilation_lst"])
DP_ATTN_LAYERS = _SENTENCE["attn_encoder"]["n_layers"]
TE_CONVNEXT_DILATIONS = tuple(_TE["convnext"]["dilation_lst"])
TE_ATTN_LAYERS = _TE["attn_encoder"]["n_layers"]
TE_PROMPT_LAYERS = 2  # speech_prompted_text_encoder attention1 and attention2 (node scopes of the real graph); not in tts.json
VE_CYCLES = _VF["main_blocks"]["n_blocks"]
VE_FIRST_STACK_DILATIONS = tuple(_VF["main_blocks"]["convnext_0"]["dilation_lst"])
VE_MIDDLE_STACK_DILATIONS = tuple(_VF["main_blocks"]["convnext_1"]["dilation_lst"])
VE_LATE_STACK_DILATIONS = tuple(_VF["main_blocks"]["convnext_2"]["dilation_lst"])
VE_LAST_STACK_DILATIONS = tuple(_VF["last_convnext"]["dilation_lst"])
VOCODER_DILATIONS = tuple(_AE["decoder"]["dilation_lst"])
TEXT_KERNEL = _TE["convnext"]["ksz"]  # depthwise kernel in DP, TE and VE (5)
VOCODER_KERNEL = _AE["decoder"]["ksz"]  # 7, and the embed conv's ksz_init
VOCODER_HEAD_KERNEL = _AE["decoder"]["head"]["ksz"]
CFG_COND_WEIGHT = 4.0  # v = 4 v_cond - 3 v_uncond, baked into the real estimator (/Constant_3, /Constant_4); not in tts.json
CFG_UNCOND_WEIGHT = 3.0
NORMALIZER_SCALE = _TTL["normalizer"]["scale"]  # the vocoder divides the latent by it
ROPE_BASE = _VF["main_blocks"]["text_cond_layer"]["rotary_base"]
ROPE_SCALE = _VF["main_blocks"]["text_cond_layer"]["rotary_scale"]


@dataclass(frozen=True)
class DurationDims:
    width: int  # char embedding and ConvNeXt channels (64)
    hidden: int  # ConvNeXt intermediate (256)
    heads: int  # self-attention heads (2)
    ffn: int  # attention-encoder feed-forward width (256)
    head_hidden: int  # predictor MLP width (128)


@dataclass(frozen=True)
class TextEncoderDims:
    width: int  # char embedding, ConvNeXt and self-attention channels (256)
    hidden: int  # ConvNeXt intermediate (1024)
    heads: int  # self-attention heads (4)
    ffn: int  # feed-forward width (1024)
    prompt_units: int  # style cross-attention width (256)
    prompt_heads: int  # (2)


@dataclass(frozen=True)
class EstimatorDims:
    width: int  # backbone channels (512)
    hidden: int  # ConvNeXt intermediate (2048)
    text_units: int  # text attention width (512)
    text_heads: int  # (8)
    style_units: int  # style attention width (256)
    style_heads: int  # (2)
    time_dim: int  # sinusoidal time embedding (64)
    time_hidden: int  # time MLP width (256)


@dataclass(frozen=True)
class VocoderDims:
    width: int  # ConvNeXt channels (512)
    hidden: int  # ConvNeXt intermediate (2048)
    head_hidden: int  # head conv width (2048)


@dataclass(frozen=True)
class StandinDims:
    duration: DurationDims
    text: TextEncoderDims
    estimator: EstimatorDims
    vocoder: VocoderDims


SIZES: dict[str, StandinDims] = {
    "full": StandinDims(
        duration=DurationDims(
            width=_SENTENCE["char_emb_dim"],
            hidden=_SENTENCE["convnext"]["intermediate_dim"],
            heads=_SENTENCE["attn_encoder"]["n_heads"],
            ffn=_SENTENCE["attn_encoder"]["filter_channels"],
            head_hidden=_DP["predictor"]["hdim"],
        ),
        text=TextEncoderDims(
            width=_TE["text_embedder"]["char_emb_dim"],
            hidden=_TE["convnext"]["intermediate_dim"],
            heads=_TE["attn_encoder"]["n_heads"],
            ffn=_TE["attn_encoder"]["filter_channels"],
            prompt_units=_TTL["speech_prompted_text_encoder"]["n_units"],
            prompt_heads=_TTL["speech_prompted_text_encoder"]["n_heads"],
        ),
        estimator=EstimatorDims(
            width=_VF["proj_in"]["odim"],
            hidden=_VF["main_blocks"]["convnext_0"]["intermediate_dim"],
            text_units=_VF["main_blocks"]["text_cond_layer"]["n_units"],
            text_heads=_VF["main_blocks"]["text_cond_layer"]["n_heads"],
            style_units=_VF["main_blocks"]["style_cond_layer"]["style_dim"],
            style_heads=2,  # 2 heads x 128 (MLX and ggml ports); style_cond_layer has no n_heads
            time_dim=_VF["time_encoder"]["time_dim"],
            time_hidden=_VF["time_encoder"]["hdim"],
        ),
        vocoder=VocoderDims(
            width=_AE["decoder"]["hdim"],
            hidden=_AE["decoder"]["intermediate_dim"],
            head_hidden=_AE["decoder"]["head"]["hdim"],
        ),
    ),
    "tiny": StandinDims(
        duration=DurationDims(width=16, hidden=32, heads=2, ffn=32, head_hidden=16),
        text=TextEncoderDims(width=16, hidden=32, heads=4, ffn=32, prompt_units=16, prompt_heads=2),
        estimator=EstimatorDims(
            width=32,
            hidden=64,
            text_units=32,
            text_heads=8,
            style_units=16,
            style_heads=2,
            time_dim=16,
            time_hidden=16,
        ),
        vocoder=VocoderDims(width=32, hidden=64, head_hidden=64),
    ),
}


def dims_for(size: str) -> StandinDims:
    try:
        return SIZES[size]
    except KeyError:
        raise InvalidParameter(f"unknown stand-in size {size!r}; use one of: {', '.join(SIZES)}", field="size") from None
