"""onnx/tts.json: the published Supertonic 3 configuration plus the stand-in marker.

Hosts read only ``ae.sample_rate``, ``ae.base_chunk_size``, ``ttl.chunk_compress_factor`` and
``ttl.latent_dim``; the rest is the structure of the published file (v1.7.3), kept so code that
inspects the config sees what it would see with the real model. The marker records what this
directory really holds, including the internal widths of its size.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict
from typing import Any

from supertonic_engine.standin_marker import GENERATOR_VERSION, NOTE, STANDIN_KEY

from .dims import (
    BASE_CHUNK_SIZE,
    CHUNK_COMPRESS,
    LATENT_DIM,
    NORMALIZER_SCALE,
    SAMPLE_RATE,
    TE_CONVNEXT_DILATIONS,
    VOCODER_DILATIONS,
    StandinDims,
)


def _convnext(idim: int, intermediate: int, dilations: list[int], ksz: int = 5) -> dict[str, Any]:
    return {
        "idim": idim,
        "ksz": ksz,
        "intermediate_dim": intermediate,
        "num_layers": len(dilations),
        "dilation_lst": dilations,
    }


def published_config() -> dict[str, Any]:
    """The fields of the real v3 ``tts.json`` (training-only paths are not published: left empty)."""
    return {
        "tts_version": "v1.7.3",
        "split": "opensource-multilingual",
        "ttl_ckpt_path": "",
        "dp_ckpt_path": "",
        "ae_ckpt_path": "",
        "ttl_train": "",
        "dp_train": "",
        "ae_train": "",
        "ttl": {
            "latent_dim": LATENT_DIM,
            "chunk_compress_factor": CHUNK_COMPRESS,
            "batch_expander": {"n_batch_expand": 6},
            "normalizer": {"scale": NORMALIZER_SCALE},
            "text_encoder": {
                "char_dict_path": "",
                "text_embedder": {"char_dict_path": "", "char_emb_dim": 256},
                "convnext": _convnext(256, 1024, list(TE_CONVNEXT_DILATIONS)),
                "attn_encoder": {
                    "hidden_channels": 256,
                    "filter_channels": 1024,
                    "n_heads": 4,
                    "n_layers": 4,
                    "p_dropout": 0.1,
                },
                "proj_out": {"idim": 256, "odim": 256},
            },
            "flow_matching": {"sig_min": 1e-08},
            "style_encoder": {
                "proj_in": {"ldim": LATENT_DIM, "chunk_compress_factor": CHUNK_COMPRESS, "odim": 256},
                "convnext": _convnext(256, 1024, [1] * 6),
                "style_token_layer": {
                    "input_dim": 256,
                    "n_style": 50,
                    "style_key_dim": 256,
                    "style_value_dim": 256,
                    "prototype_dim": 256,
                    "n_units": 256,
                    "n_heads": 2,
                },
            },
            "speech_prompted_text_encoder": {"text_dim": 256, "style_dim": 256, "n_units": 256, "n_heads": 2},
            "uncond_masker": {
                "prob_both_uncond": 0.04,
                "prob_text_uncond": 0.01,
                "std": 0.1,
                "text_dim": 256,
                "n_style": 50,
                "style_key_dim": 256,
                "style_value_dim": 256,
            },
            "vector_field": {
                "proj_in": {"ldim": LATENT_DIM, "chunk_compress_factor": CHUNK_COMPRESS, "odim": 512},
                "time_encoder": {"time_dim": 64, "hdim": 256},
                "main_blocks": {
                    "n_blocks": 4,
                    "time_cond_layer": {"idim": 512, "time_dim": 64},
                    "style_cond_layer": {"idim": 512, "style_dim": 256},
                    "text_cond_layer": {
                        "idim": 512,
                        "text_dim": 256,
                        "n_heads": 8,
                        "use_residual": True,
                        "rotary_base": 10000,
                        "rotary_scale": 10,
                    },
                    "convnext_0": _convnext(512, 2048, [1, 2, 4, 8]),
                    "convnext_1": _convnext(512, 2048, [1]),
                    "convnext_2": _convnext(512, 2048, [1]),
                },
                "last_convnext": _convnext(512, 2048, [1, 1, 1, 1]),
                "proj_out": {"idim": 512, "chunk_compress_factor": CHUNK_COMPRESS, "ldim": LATENT_DIM},
            },
        },
        "ae": {
            "sample_rate": SAMPLE_RATE,
            "n_delay": 0,
            "base_chunk_size": BASE_CHUNK_SIZE,
            "chunk_compress_factor": 1,
            "ldim": LATENT_DIM,
            "encoder": {
                "spec_processor": {
                    "n_fft": 2048,
                    "win_length": 2048,
                    "hop_length": BASE_CHUNK_SIZE,
                    "n_mels": 228,
                    "sample_rate": SAMPLE_RATE,
                    "eps": 1e-05,
                    "norm_mean": 0.0,
                    "norm_std": 1.0,
                },
                "ksz_init": 7,
                "ksz": 7,
                "num_layers": 10,
                "dilation_lst": [1] * 10,
                "intermediate_dim": 2048,
                "idim": 1253,
                "hdim": 512,
                "odim": LATENT_DIM,
            },
            "decoder": {
                "ksz_init": 7,
                "ksz": 7,
                "num_layers": 10,
                "dilation_lst": list(VOCODER_DILATIONS),
                "intermediate_dim": 2048,
                "idim": LATENT_DIM,
                "hdim": 512,
                "head": {"idim": 512, "hdim": 2048, "odim": BASE_CHUNK_SIZE, "ksz": 3},
            },
        },
        "dp": {
            "latent_dim": LATENT_DIM,
            "chunk_compress_factor": CHUNK_COMPRESS,
            "normalizer": {"scale": 1.0},
            "sentence_encoder": {
                "char_emb_dim": 64,
                "convnext": _convnext(64, 256, [1] * 6),
                "attn_encoder": {
                    "hidden_channels": 64,
                    "filter_channels": 256,
                    "n_heads": 2,
                    "n_layers": 2,
                    "p_dropout": 0.1,
                },
                "proj_out": {"idim": 64, "odim": 64},
            },
            "style_encoder": {
                "proj_in": {"ldim": LATENT_DIM, "chunk_compress_factor": CHUNK_COMPRESS, "odim": 64},
                "convnext": _convnext(64, 256, [1] * 4),
                "style_token_layer": {
                    "input_dim": 64,
                    "n_style": 8,
                    "style_key_dim": 0,
                    "style_value_dim": 16,
                    "prototype_dim": 64,
                    "n_units": 64,
                    "n_heads": 2,
                },
            },
            "predictor": {"sentence_dim": 64, "n_style": 8, "style_dim": 16, "hdim": 128, "n_layer": 2},
        },
    }


def standin_config(size: str, seed: int, dims: StandinDims) -> dict[str, Any]:
    """The published config with the marker that makes the engine report ``model: stand-in``."""
    config = published_config()
    config[STANDIN_KEY] = {
        "size": size,
        "seed": seed,
        "generator_version": GENERATOR_VERSION,
        "note": NOTE,
        "unicode_version": unicodedata.unidata_version,  # the indexer's coverage follows it
        "dims": asdict(dims),
    }
    return config
