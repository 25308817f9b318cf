"""The pieces of ``supertonic-lambda image`` that need no container engine: what is mounted, how a
container is run, what the build context holds, and the stand-in base's name."""

from __future__ import annotations

from pathlib import Path

from supertonic_harness.image.base import qualified
from supertonic_harness.image.commands import dockerfile_base
from supertonic_harness.image.context import allowed_paths, assemble_context
from supertonic_harness.image.engine import LAMBDA_ULIMITS, ContainerEngine, host_ca_bundle

REPO = Path(__file__).resolve().parents[1]


def test_the_hosts_own_ca_bundle_is_found_where_pip_is_told_of_it(tmp_path: Path) -> None:
    bundle = tmp_path / "proxy-ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    assert host_ca_bundle({"PIP_CERT": str(bundle)}) == bundle
    assert host_ca_bundle({"SSL_CERT_FILE": str(bundle)}) == bundle
    assert host_ca_bundle({"PIP_CERT": str(tmp_path / "absent.pem"), "REQUESTS_CA_BUNDLE": str(bundle)}) == bundle


def test_a_podman_build_mounts_what_it_is_given_read_only_and_docker_mounts_nothing(tmp_path: Path) -> None:
    bundle = tmp_path / "proxy-ca.pem"
    bundle.write_text("x")
    engine = ContainerEngine("/usr/bin/podman", runtime="runc", ca_bundle=bundle)
    volume = f"{bundle}:/usr/local/lib/python3.12/site-packages/pip/_vendor/certifi/cacert.pem:ro"
    command = engine.build_command(tmp_path / "context", REPO / "Dockerfile", "t:1", {"PREPARE_INT8": "1"}, [volume])
    assert command[command.index("-v") + 1] == volume
    assert command[command.index("--runtime") + 1] == "runc" and "--pull=never" in command
    assert command[-1] == str(tmp_path / "context") and "PREPARE_INT8=1" in command
    plain = ContainerEngine("/usr/bin/podman").build_command(tmp_path, REPO / "Dockerfile", "t:1", {})
    assert "-v" not in plain and "--runtime" not in plain
    # Without a bundle of the host's own, nothing is probed or mounted; docker takes no mounts at all.
    assert ContainerEngine("/usr/bin/podman").ca_volumes("base:1") == []
    assert ContainerEngine("/usr/bin/docker", ca_bundle=bundle).ca_volumes("base:1") == []


def test_a_container_runs_as_lambda_runs_one() -> None:
    command = ContainerEngine("/usr/bin/podman").run_command("t:1", cpus=1.158, memory_mb=2048, port=9100, env={"A": "b"})
    assert "--read-only" in command and "--read-only-tmpfs=false" in command  # only the /tmp below is writable
    assert command[command.index("--tmpfs") + 1].startswith("/tmp:rw,")
    user = command[command.index("--user") + 1]
    assert not user.startswith("0") and user != "10001:10001"  # a uid the image does not know, not its own
    assert [command[i + 1] for i, a in enumerate(command) if a == "--ulimit"] == list(LAMBDA_ULIMITS)
    assert command[command.index("--memory") + 1] == "2048m" and command[command.index("--memory-swap") + 1] == "2048m"
    assert command[command.index("--cpus") + 1] == "1.158" and "127.0.0.1:9100:8080" in command and "A=b" in command
    assert command[-1] == "t:1"


def test_the_context_holds_what_dockerignore_allows_and_the_chosen_model(tmp_path: Path) -> None:
    model = tmp_path / "model"
    (model / "onnx").mkdir(parents=True)
    (model / "onnx" / "tts.json").write_text("{}")
    (model / "prepared").mkdir()
    (model / "prepared" / "stale.onnx").write_text("host-prepared graphs never enter the context")
    (model / "prepared-int8").mkdir()
    (model / "voice_styles").mkdir()
    (model / "voice_styles" / "prepared_voice.json").write_text("{}")  # a voice, whatever its name
    context = assemble_context(model, tmp_path / "context")
    allowed = allowed_paths()
    assert "layer" in allowed and "handler/supertonic_function" in allowed and "tests" not in allowed
    assert sorted(p.name for p in context.iterdir()) == sorted({".dockerignore", "model"} | {a.split("/")[0] for a in allowed})
    assert (context / "model" / "onnx" / "tts.json").is_file() and not (context / "model" / "prepared").exists()
    assert not (context / "model" / "prepared-int8").exists() and (context / "model" / "voice_styles" / "prepared_voice.json").is_file()
    assert not list(context.rglob("__pycache__")) and (context / "docker" / "requirements.lock").is_file()


def test_the_stand_in_base_answers_to_the_name_the_dockerfile_uses() -> None:
    assert dockerfile_base() == "python:3.12-slim-bookworm"
    assert qualified("python:3.12-slim-bookworm") == "docker.io/library/python:3.12-slim-bookworm"
    assert qualified("amazon/aws-lambda-python:3.12") == "docker.io/amazon/aws-lambda-python:3.12"
    assert qualified("public.ecr.aws/lambda/python:3.12") == "public.ecr.aws/lambda/python:3.12"


def test_the_api_service_conf_keeps_the_systems_settings_and_adds_what_containers_here_need(tmp_path: Path) -> None:
    import tomllib

    from supertonic_harness.image.api import service_conf

    system = tmp_path / "system.conf"
    system.write_text('[containers]\ndefault_capabilities = ["CHOWN", "KILL"]\nvolumes = ["/a:/b"]\n[engine]\n[engine.runtimes]\n')
    bundle = tmp_path / "ca.pem"
    bundle.write_text("x")
    engine = ContainerEngine("/usr/bin/podman", runtime="runc", ca_bundle=bundle)
    ca = f"{bundle}:/usr/lib/python3/certifi/cacert.pem:ro"
    conf = tomllib.loads(service_conf(engine, tmp_path, [ca], (system,)).read_text())
    assert conf["containers"]["default_capabilities"] == ["CHOWN", "KILL"]  # CONTAINERS_CONF replaces the system's file
    assert conf["containers"]["default_ulimits"] == list(LAMBDA_ULIMITS)
    assert conf["containers"]["volumes"] == ["/a:/b", ca]
    assert conf["engine"]["runtime"] == "runc" and conf["engine"]["runtimes"] == {}
    plain = tomllib.loads(service_conf(ContainerEngine("/usr/bin/podman"), tmp_path, system_confs=(system,)).read_text())
    assert plain["containers"]["volumes"] == ["/a:/b"] and "runtime" not in plain["engine"]
