"""Supertonic 3 text-to-speech engine: model assets, ONNX Runtime sessions, text, synthesis, audio."""
