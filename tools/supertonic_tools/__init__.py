"""Build and test tools around the engine, not shipped in the image: the stand-in model generator
(``standin``), the graph optimizer (``optimize``, run by the image build), the model hub fetcher
(``fetch``) and ``prepare-model``.

The runtime (``supertonic_engine``) never imports this package; these tools import the runtime.
They need the ``tools`` extra (onnx, huggingface-hub).
"""
