# syntax=docker/dockerfile:1
# Supertonic 3 text-to-speech as a Lambda container image (x86_64).
#
#   ./dev supertonic-lambda fetch-model --out model      # or: make-model --size full --out model
#   docker build --provenance=false -t supertonic-tts .
#   docker run --rm -p 9000:8080 supertonic-tts           # the entry script starts the emulator
#   ./dev supertonic-lambda image build                  # docker or podman; a stand-in base where no registry answers
#
# --provenance=false: BuildKit's attestations turn the image into an OCI index, which Lambda
# rejects ("image manifest ... media type is not supported").
#
# Layers go from least to most often changed: dependencies -> model (its small files; the stock
# graphs only where they are not prepared) -> prepared graphs -> layer/ -> handler/. A handler/ edit rebuilds only the
# last layer; a layer/ or tools/ edit also prepares the graphs again (a minute or two for the real model).
# The image holds the runtime engine (layer/) and the handler only: the build tools (tools/: the
# optimizer, stand-in generator, fetcher) and onnx are used in the `prepared` stage and stay there.
# Lambda runs the image on a read-only filesystem with only /tmp writable, as a non-root user:
# bytecode is compiled at build time, every file is world-readable, HOME and TMPDIR point at /tmp.

ARG PYTHON_IMAGE=python:3.12-slim-bookworm

# The emulator for runs outside Lambda: the binary aws-sam-cli's wheel carries (the package index is
# reachable wherever pip is; GitHub, where its releases are, may not be). The wheel is pinned by the
# index's own digest and the binary by its own, so neither can change under the same tag.
FROM ${PYTHON_IMAGE} AS emulator
# aws-sam-cli 1.170.0 vendors RIE v1.37, the release ./dev extracts for the harness.
ARG SAM_CLI_VERSION=1.170.0
# sha256 of aws_sam_cli-1.170.0-py3-none-any.whl as https://pypi.org/simple/aws-sam-cli/ lists it.
ARG SAM_CLI_WHEEL_SHA256=24ebaf5ecba38dc1758089968cb89ab61e124b84e92a344fc7a2771a47f4d0bf
# sha256 of samcli/local/rapid/aws-lambda-rie-x86_64 inside that wheel (measured on the extracted file).
ARG RIE_SHA256=6b1e686e62ab2baf5759c412c4864276ef2a88b094fca53ec070637ccba9b9a5
RUN printf 'aws-sam-cli==%s --hash=sha256:%s\n' "$SAM_CLI_VERSION" "$SAM_CLI_WHEEL_SHA256" > /tmp/sam.txt \
    && pip download --quiet --no-deps --only-binary=:all: --require-hashes --requirement /tmp/sam.txt --dest /tmp/wheel \
    && python -c "import glob, zipfile; \
open('/aws-lambda-rie', 'wb').write(zipfile.ZipFile(glob.glob('/tmp/wheel/*.whl')[0]).read('samcli/local/rapid/aws-lambda-rie-x86_64'))" \
    && echo "$RIE_SHA256  /aws-lambda-rie" | sha256sum -c - \
    && chmod 755 /aws-lambda-rie

# The model directory in the official layout (onnx/*.onnx, onnx/tts.json, onnx/unicode_indexer.json,
# voice_styles/*.json), made world-readable here so the final COPY carries the right modes. Graphs
# prepared on the build host are dropped: they are made again below by the image's own runtime.
FROM ${PYTHON_IMAGE} AS model
COPY model/ /opt/model/
RUN test -f /opt/model/onnx/tts.json || { \
        echo "model/ has no onnx/tts.json: run './dev supertonic-lambda fetch-model --out model' first" >&2; exit 1; } \
    && rm -rf /opt/model/prepared /opt/model/prepared-* \
    && chmod -R a+rX /opt/model

# What the image runs on. The graph preparation below builds on this same stage, so the prepared
# graphs are made by the exact ONNX Runtime that loads them (their manifest names its version).
# Debian bookworm has glibc 2.36; onnxruntime >= 1.17 ships manylinux_2_28 wheels only.
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOME=/tmp \
    TMPDIR=/tmp \
    LAMBDA_TASK_ROOT=/var/task \
    PYTHONPATH=/opt/python:/var/task \
    SUPERTONIC_MODEL_DIR=/opt/model \
    SUPERTONIC_CACHE_DIR=/tmp/supertonic-cache

# The emulator for runs outside Lambda, and the script that picks it or the real Runtime API.
COPY --from=emulator /aws-lambda-rie /usr/local/bin/aws-lambda-rie
COPY --chmod=755 docker/entry.sh /usr/local/bin/supertonic-entry
RUN useradd --system --uid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin supertonic
# The standard library's bytecode: the python images delete every .pyc (their Dockerfile's
# `find /usr/local ... -name '*.pyc' ... -exec rm -rf`), and with PYTHONDONTWRITEBYTECODE=1 on a
# read-only filesystem each cold start would compile every standard module it imports from source
# again (README, "Cold start: the first audio"). Before the dependencies: their edits do not redo it.
RUN python -m compileall -q --invalidation-mode unchecked-hash "$(python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"

# 1. Dependencies, exactly as docker/requirements.lock pins them, every file checked against its
#    hash (`supertonic-lambda image lock` writes the lock from pyproject.toml). pip compiles their
#    bytecode as it installs.
COPY docker/requirements.lock /opt/requirements.lock
RUN pip install --no-deps --require-hashes --requirement /opt/requirements.lock

# Prepared graphs (pointwise convolutions as MatMul, one guidance half where both agree, optimized,
# weights stored once and page-aligned): cold start skips the optimizer, reads each weight once, and
# the weights stay in page cache. Each graph is checked against its source (max abs diff <= 1e-4) or the build stops; build
# with --build-arg PREPARE_GRAPHS=0 to ship the stock graphs only. This stage reruns when the model,
# layer/ or tools/ changes, not when handler/ does.
# int8 (opt-in, SUPERTONIC_PRECISION=int8 selects it): --build-arg PREPARE_INT8=1 also writes the
# text encoder and vector estimator with int8 MatMuls. INT8_ISA=avx2 (7-bit weights) is right for
# any x86-64 host: Lambda does not say which CPUs it runs, and 8-bit weights (INT8_ISA=vnni)
# saturate on CPUs without VNNI, where the engine refuses them.
# The image holds one copy of each graph: the prepared set without the stock graphs it was made
# from (its manifest records their sizes and SHA-256, which `verify-model` traces to the release's),
# or with PREPARE_GRAPHS=0 the stock graphs alone. Shipping both stored and pulled ~400 MB twice.
# An int8 image also keeps the whole fp32 set: SUPERTONIC_PRECISION can then switch back to fp32 at
# deploy time without a rebuild, and an int8 cold start never reads the fp32 encoder and estimator
# (Lambda fetches only the chunks a container reads), so they cost image size only (README, Benchmark).
FROM runtime AS prepared
ARG PREPARE_GRAPHS=1
ARG PREPARE_INT8=0
ARG INT8_ISA=avx2
COPY docker/build-tools.lock /opt/build-tools.lock
RUN pip install --no-deps --require-hashes --requirement /opt/build-tools.lock
COPY --from=model /opt/model /opt/model
COPY layer/ /opt/python/
COPY tools/supertonic_tools/ /opt/build-tools/supertonic_tools/
ENV PYTHONPATH=/opt/python:/opt/build-tools
RUN if [ "$PREPARE_GRAPHS" = 1 ]; then \
        python -m supertonic_tools.optimize /opt/model --out /opt/prepared || { \
            echo "preparing the graphs failed (above); --build-arg PREPARE_GRAPHS=0 ships the stock graphs only" >&2; exit 1; }; \
    fi \
    && if [ "$PREPARE_INT8" = 1 ]; then \
        python -m supertonic_tools.optimize /opt/model --out /opt/prepared-int8 --precision int8 --isa "$INT8_ISA" || { \
            echo "preparing the int8 graphs failed (above); build without --build-arg PREPARE_INT8=1 for fp32 only" >&2; exit 1; }; \
    fi \
    && mkdir -p /opt/prepared /opt/prepared-int8 && chmod -R a+rX /opt/prepared /opt/prepared-int8 \
    && cp -a /opt/model /opt/shipped-model \
    && if [ "$PREPARE_GRAPHS" = 1 ]; then rm /opt/shipped-model/onnx/*.onnx; fi

FROM runtime

# 2. The model's small files (and its stock graphs only with PREPARE_GRAPHS=0), and the prepared
#    graphs where the engine looks for them (MODEL_DIR/prepared, empty with PREPARE_GRAPHS=0, and
#    MODEL_DIR/prepared-int8, empty unless PREPARE_INT8=1).
COPY --from=prepared /opt/shipped-model /opt/model
COPY --from=prepared /opt/prepared /opt/model/prepared
COPY --from=prepared /opt/prepared-int8 /opt/model/prepared-int8

# 3. The engine, where a zip deployment's layer would put it (/opt/python).
COPY layer/ /opt/python/
RUN python -m compileall -q --invalidation-mode unchecked-hash /opt/python && chmod -R a+rX /opt/python

# 4. The Lambda edge, in Lambda's task root.
COPY handler/supertonic_function/ /var/task/supertonic_function/
RUN python -m compileall -q --invalidation-mode unchecked-hash /var/task && chmod -R a+rX /var/task

USER 10001
WORKDIR /var/task
ENTRYPOINT ["/usr/local/bin/supertonic-entry"]
CMD ["supertonic_function.app.lambda_handler"]
