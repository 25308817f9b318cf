"""vocoder.onnx: latent [B, 144, L] -> wav_tts [B, L*3072] (the AE decoder).

Un-scales and un-compresses the latent (144 x L -> 24 x 6L), de-normalises it, then a causal
ConvNeXt decoder at the AE frame rate (44100/512 Hz) and a head that emits 512 samples per frame.
"""

from __future__ import annotations

import numpy as np
import onnx

from .dims import (
    BASE_CHUNK_SIZE,
    CHUNK_COMPRESS,
    COMPRESSED_LATENT_DIM,
    LATENT_DIM,
    NORMALIZER_SCALE,
    VOCODER_DILATIONS,
    VOCODER_HEAD_KERNEL,
    VOCODER_KERNEL,
    VocoderDims,
)
from .graph import FLOAT, GraphBuilder
from .layers import conv, convnext_stack, pad, reshape, transpose

# Output gain of the last conv, chosen so a pipeline latent gives noise of RMS ~0.1 (a speaking
# level); Clip then keeps every sample in [-1, 1] like trained audio, whatever latent comes in.
OUTPUT_GAIN = 0.09


def build_vocoder(d: VocoderDims, rng: np.random.Generator | None) -> onnx.ModelProto:
    g = GraphBuilder("vocoder", "tts", rng)
    latent = g.input("latent", FLOAT, ["batch_size", COMPRESSED_LATENT_DIM, "latent_length"])

    with g.scope("ttl"):
        x = g.op("Div", latent, g.fixed("normalizer.scale", np.array(NORMALIZER_SCALE, np.float32)))
    # [B, 24*6, L] -> [B, 24, 6, L] -> [B, 24, L, 6] -> [B, 24, 6L]: frame l expands to 6 AE frames.
    x = reshape(g, transpose(g, reshape(g, x, [0, LATENT_DIM, CHUNK_COMPRESS, -1]), 0, 1, 3, 2), [0, LATENT_DIM, -1])
    with g.scope("ae", nodes=False):  # parameters tts.ae.decoder.*, nodes /decoder/... (int8 recipes of the real file)
        std = g.random("latent_std", [1, LATENT_DIM, 1], std=0.02, mean=NORMALIZER_SCALE)
        x = g.op("Add", g.op("Mul", x, std), g.random("latent_mean", [1, LATENT_DIM, 1], std=0.02))
        with g.scope("decoder"):
            reach = VOCODER_KERNEL - 1
            x = conv(g, pad(g, x, [0, 0, reach, 0, 0, 0], mode="edge"), "embed.net", LATENT_DIM, d.width, VOCODER_KERNEL)
            x = convnext_stack(g, x, None, d.width, d.hidden, VOCODER_KERNEL, VOCODER_DILATIONS, causal=True)
            x = g.op(
                "BatchNormalization",
                x,
                g.random("final_norm.weight", [d.width], std=0.02, mean=1.0),
                g.random("final_norm.bias", [d.width], std=0.02),
                g.random("final_norm.running_mean", [d.width], std=0.02),
                g.fixed("final_norm.running_var", np.abs(g.draw([d.width], std=0.1, mean=1.0))),
                epsilon=1e-5,
            )
            with g.scope("head"):
                reach = VOCODER_HEAD_KERNEL - 1
                x = conv(
                    g,
                    pad(g, x, [0, 0, reach, 0, 0, 0], mode="edge"),
                    "layer1.net",
                    d.width,
                    d.head_hidden,
                    VOCODER_HEAD_KERNEL,
                )
                x = g.op("PRelu", x, g.fixed("act.weight", np.full([1, 1], 0.25, np.float32)))
                x = conv(g, x, "layer2", d.head_hidden, BASE_CHUNK_SIZE, bias=False, gain=OUTPUT_GAIN)
    # [B, 512, 6L] -> [B, 6L, 512] -> [B, 6L*512]: each AE frame is 512 consecutive samples.
    wav = reshape(g, transpose(g, x, 0, 2, 1), [0, -1])
    wav = g.op("Clip", wav, g.scalar(-1.0), g.scalar(1.0))
    g.output(wav, "wav_tts", FLOAT, ["batch_size", "wav_length"])
    return g.build("Supertonic 3 vocoder stand-in (random weights); wav_length = latent_length * 3072")
