"""Dimensions of the stand-in graphs: the fixed I/O contract and the two internal sizes.

Everything the host code can see (vocabulary, style shapes, latent channels, samples per frame)
is the same for every size. Only internal widths change: ``full`` has the real Supertonic 3
widths, so parameters, bytes and FLOPs match the published files; ``tiny`` keeps every layer
and operator but makes them narrow, so tests build and run it in moments.
"""

from __future__ import annotations

from dataclasses import dataclass

from supertonic_engine.errors import InvalidParameter

# --- the public contract (same for every size) -----------------------------------------------------
VOCAB_SIZE = 8322  # token ids 0..8321 (unicode_indexer.json values)
TEXT_EMB_DIM = 256  # text_encoder output channels
STYLE_TOKENS = 50  # style_ttl [B, 50, 256]
STYLE_TTL_DIM = 256
STYLE_DP_SHAPE = (8, 16)  # style_dp [B, 8, 16]
LATENT_DIM = 24  # AE latent channels
CHUNK_COMPRESS = 6  # AE frames folded into one TTL frame
COMPRESSED_LATENT_DIM = LATENT_DIM * CHUNK_COMPRESS  # 144
BASE_CHUNK_SIZE = 512  # samples per AE frame
SAMPLES_PER_LATENT_FRAME = BASE_CHUNK_SIZE * CHUNK_COMPRESS  # 3072
SAMPLE_RATE = 44100
MAX_POSITIONS = 1000  # rows of the estimator's RoPE position table: T and L must stay <= 1000

# --- topology (same for every size) ---------------------------------------------------------------
REL_WINDOW = 4  # relative-position window of the DP/TE self-attention (emb_rel_k/v have 2w+1 rows)
DP_CONVNEXT_DILATIONS = (1,) * 6
DP_ATTN_LAYERS = 2
TE_CONVNEXT_DILATIONS = (1, 1, 2, 2, 4, 4)
TE_ATTN_LAYERS = 4
TE_PROMPT_LAYERS = 2
VE_CYCLES = 4
VE_FIRST_STACK_DILATIONS = (1, 2, 4, 8)
VE_LAST_STACK_DILATIONS = (1, 1, 1, 1)
VOCODER_DILATIONS = (1, 2, 4, 1, 2, 4, 1, 1, 1, 1)
TEXT_KERNEL = 5  # depthwise kernel in DP, TE and VE
VOCODER_KERNEL = 7
VOCODER_HEAD_KERNEL = 3
CFG_COND_WEIGHT = 4.0  # v = 4 v_cond - 3 v_uncond, baked into the estimator like the real one
CFG_UNCOND_WEIGHT = 3.0
NORMALIZER_SCALE = 0.25  # ttl.normalizer.scale: the vocoder divides the latent by it


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
        duration=DurationDims(width=64, hidden=256, heads=2, ffn=256, head_hidden=128),
        text=TextEncoderDims(width=256, hidden=1024, heads=4, ffn=1024, prompt_units=256, prompt_heads=2),
        estimator=EstimatorDims(
            width=512,
            hidden=2048,
            text_units=512,
            text_heads=8,
            style_units=256,
            style_heads=2,
            time_dim=64,
            time_hidden=256,
        ),
        vocoder=VocoderDims(width=512, hidden=2048, head_hidden=2048),
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
