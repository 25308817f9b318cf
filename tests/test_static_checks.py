"""Static security checks: checkov on the deployment, bandit on the packages, pip-audit on the
dependencies the function runs with.

Each tool runs once over everything it checks (together about 15 s of CPU, most of it checkov
importing itself). What a tool is told to skip is listed with its reason, one line each, in
.checkov.yaml, in pyproject.toml's [tool.bandit] and in the ``# nosec`` comments; the last test
holds every skip to that.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PACKAGES = ("layer", "handler", "tools", "harness", "cli")
CHECKOV = Path(os.environ.get("SUPERTONIC_CHECKOV") or REPO / ".tools" / "checkov" / "bin" / "checkov")
# A release with long-published advisories: if pip-audit reports none for it, it did not get
# vulnerability data, whatever its exit status says (it passes a package it could not look up).
PROBE = Requirement("jinja2==2.10")


def _run(argv: list[str | Path], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=REPO, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.mark.slow  # checkov's imports alone take ~7 s of CPU
def test_checkov_passes_on_the_template_and_the_dockerfile() -> None:
    if not CHECKOV.is_file():
        pytest.fail(f"checkov is not at {CHECKOV}: ./dev installs it (pyproject.toml's [iac-scan] list)", pytrace=False)
    # The configuration names the files, the frameworks, the skips, and no download from Prisma Cloud;
    # the variable stops it asking PyPI whether a newer checkov exists.
    result = _run([CHECKOV, "--config-file", ".checkov.yaml", "--output", "json"], env={**os.environ, "CKV_SKIP_PACKAGE_UPDATE_CHECK": "1"})
    reports = json.loads(result.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    assert {r["check_type"] for r in reports} == {"cloudformation", "dockerfile"}, result.stderr[-2000:]
    assert all(r["summary"]["parsing_errors"] == 0 and r["summary"]["passed"] > 0 for r in reports)
    failed = [f"{c['check_id']} {c['resource']}: {c['check_name']}" for r in reports for c in r["results"]["failed_checks"]]
    assert failed == [] and result.returncode == 0


def test_bandit_finds_nothing_in_the_packages() -> None:
    result = _run([BIN / "bandit", "--configfile", "pyproject.toml", "--recursive", *PACKAGES, "--format", "json", "--quiet"])
    report = json.loads(result.stdout)
    issues = [f"{i['filename']}:{i['line_number']} {i['test_id']} {i['issue_text']}" for i in report["results"]]
    assert issues == [] and report["errors"] == []
    assert report["metrics"]["_totals"]["loc"] > 5000  # the packages were read, not an empty tree


def runtime_requirements() -> dict[str, str]:
    """Name -> installed version of every package the function needs at run time: the project's
    dependencies without extras, and theirs, as this environment (the one the tests pass in) pins them."""
    pending = [(Requirement(line), "") for line in metadata.requires("supertonic-lambda") or []]
    pinned: dict[str, str] = {}
    expanded: set[tuple[str, str]] = set()
    while pending:
        requirement, extra = pending.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(requirement.name)
        distribution = metadata.distribution(requirement.name)
        pinned[name] = distribution.version
        for wanted in {"", *requirement.extras} - {e for n, e in expanded if n == name}:
            expanded.add((name, wanted))
            pending += [(Requirement(line), wanted) for line in distribution.requires or []]
    return pinned


def _audit(requirements: Path, service: str) -> tuple[dict[str, Any] | None, str]:
    result = _run(
        [
            BIN / "pip-audit",
            "--requirement",
            requirements,
            "--no-deps",
            "--disable-pip",
            "--format",
            "json",
            "--vulnerability-service",
            service,
            "--progress-spinner",
            "off",
            "--timeout",
            "20",
        ]
    )
    try:
        return json.loads(result.stdout), ""
    except json.JSONDecodeError:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        return None, lines[-1] if lines else f"exit status {result.returncode} and no output"


def test_runtime_dependencies_have_no_known_vulnerabilities(tmp_path: Path) -> None:
    pinned = runtime_requirements()
    assert {"boto3", "onnxruntime", "numpy"} <= set(pinned) and canonicalize_name(PROBE.name) not in pinned
    requirements = tmp_path / "runtime.txt"
    requirements.write_text("".join(f"{name}=={version}\n" for name, version in sorted(pinned.items())) + f"{PROBE}\n")
    unreached = []
    for service in ("pypi", "osv"):  # PyPI's JSON API first: the registry CI reaches
        report, failure = _audit(requirements, service)
        if report is None:
            unreached.append(f"{service}: {failure}")
            continue
        audited = {canonicalize_name(d["name"]): d for d in report["dependencies"]}
        probe = audited.pop(canonicalize_name(PROBE.name))
        if not probe.get("vulns"):
            # pip-audit's words for a 404 from PyPI's per-release JSON API (/pypi/NAME/VERSION/json).
            why = probe.get("skip_reason") or f"no advisory reported for {PROBE}, which has some"
            unreached.append(f"{service}: {why}" + (" (its JSON API answered 404)" if "not found on PyPI" in why else ""))
            continue
        unaudited = [f"{name}: {d['skip_reason']}" for name, d in audited.items() if "skip_reason" in d]
        vulnerable = [
            f"{name} {d['version']}: {v['id']} (fixed in {', '.join(v['fix_versions']) or 'no release yet'})"
            for name, d in audited.items()
            for v in d.get("vulns", [])
        ]
        assert set(audited) == set(pinned)
        assert unaudited == [], "these runtime dependencies were not audited"
        assert vulnerable == [], "known vulnerabilities: upgrade to a fixed release (the lower bound in pyproject.toml)"
        return
    pytest.skip(
        "pip-audit could not reach a vulnerability database, so nothing was audited ("
        + "; ".join(unreached)
        + "); it runs for real wherever PyPI's JSON API or OSV answers"
    )


def test_every_skip_says_why() -> None:
    checkov = (REPO / ".checkov.yaml").read_text()
    skipped = yaml.safe_load(checkov)["skip-check"]
    reasons = dict(re.findall(r"^\s*- (CKV_\w+)\s+#\s*(.+)$", checkov, re.MULTILINE))
    assert skipped and all(len(reasons.get(check, "")) > 20 for check in skipped), skipped

    pyproject = (REPO / "pyproject.toml").read_text()
    skips = tomllib.loads(pyproject)["tool"]["bandit"]["skips"]
    reasons = dict(re.findall(r'^\s*"(B\d+)",\s*#\s*(.+)$', pyproject, re.MULTILINE))
    assert skips and all(len(reasons.get(test, "")) > 20 for test in skips), skips

    # An inline '# nosec' names the one test it silences, after the reason on the same line.
    for path in (p for package in PACKAGES for p in (REPO / package).rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "nosec" in line:
                assert re.search(r"#\s*\S.{10,}\s+# nosec B\d+$", line), f"{path.relative_to(REPO)}:{number}: {line.strip()}"
