"""The engine stands alone: it imports nothing of Lambda, S3, jobs or the packages built around it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LAYER = REPO / "layer"
# Lambda's runtime and tools, S3's client, and every package that is built on the engine.
FOREIGN = ("boto3", "botocore", "awslambdaric", "aws_lambda_powertools", "supertonic_function", "supertonic_harness", "supertonic_tools")

_IMPORT_EVERY_MODULE = """
import importlib, json, pkgutil, sys
import supertonic_engine
names = [m.name for m in pkgutil.walk_packages(supertonic_engine.__path__, "supertonic_engine.")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"modules": names, "loaded": sorted(sys.modules)}))
"""


def test_importing_every_engine_module_loads_nothing_foreign() -> None:
    # A fresh interpreter with the engine alone on its path: what this test process imported does not count.
    run = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(LAYER)!r})\n{_IMPORT_EVERY_MODULE}"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(run.stdout)
    assert "supertonic_engine.synthesis" in report["modules"] and "supertonic_engine.text.ssml" in report["modules"]
    loaded = [name for name in report["loaded"] if name.split(".")[0] in FOREIGN]
    assert loaded == [], f"importing the engine loads {loaded}"


def test_no_engine_source_names_a_foreign_package() -> None:
    # Catches what the imports above cannot: an import inside a function that has not run yet.
    found = []
    for path in sorted(LAYER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found += [f"{path.relative_to(REPO)}:{node.lineno} imports {name}" for name in names if name.split(".")[0] in FOREIGN]
    assert found == []
