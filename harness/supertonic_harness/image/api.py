"""Podman's Docker-compatible API, set up so that ``sam build`` and ``sam local`` work through it.

SAM CLI talks to a Docker daemon; ``podman system service`` answers in its place (``DOCKER_HOST``).
Containers made through that API get no per-call flags, so what ``engine`` passes on the command
line goes into the service's own containers.conf instead: Lambda's ulimits (which a host's hard
limits may require), runc on cgroup v1/hybrid hosts, and, where the host's pip trusts a CA bundle
of its own, that bundle over the file the base's pip trusts, read-only (podman mounts a service's
volumes into a build's RUN steps, and into every container it runs: the function's too, where
the bundle is read by nothing). ``CONTAINERS_CONF`` replaces the system's files rather
than adding to them, so the file written starts from the system's own settings.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .engine import LAMBDA_ULIMITS, ContainerEngine

SYSTEM_CONFS = (Path("/usr/share/containers/containers.conf"), Path("/etc/containers/containers.conf"))


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to containers.conf")


def to_toml(data: Mapping[str, Any], prefix: str = "") -> str:
    """containers.conf's subset of TOML: tables of strings, numbers, booleans and lists of them."""
    plain = [f"{key} = {_toml_value(value)}" for key, value in data.items() if not isinstance(value, Mapping)]
    text = "\n".join(plain) + ("\n" if plain else "")
    for key, value in data.items():
        if isinstance(value, Mapping):
            name = f"{prefix}{key}"
            text += f"\n[{name}]\n" + to_toml(value, prefix=f"{name}.")
    return text


def service_conf(
    engine: ContainerEngine, directory: Path, ca_volumes: Sequence[str] = (), system_confs: tuple[Path, ...] = SYSTEM_CONFS
) -> Path:
    """Write the service's containers.conf into ``directory``, with ``ca_volumes`` (``ContainerEngine.ca_volumes``)."""
    data: dict[str, Any] = {}
    for path in system_confs:
        if path.is_file():
            for table, values in tomllib.loads(path.read_text(encoding="utf-8")).items():
                if isinstance(values, dict):
                    data.setdefault(table, {}).update(values)
                else:
                    data[table] = values
    containers = data.setdefault("containers", {})
    containers["default_ulimits"] = list(LAMBDA_ULIMITS)
    if ca_volumes:
        targets = {volume.split(":")[1] for volume in ca_volumes}
        kept = [v for v in containers.get("volumes", []) if v.split(":")[1:2] and v.split(":")[1] not in targets]
        containers["volumes"] = kept + list(ca_volumes)
    if engine.runtime:
        data.setdefault("engine", {})["runtime"] = engine.runtime
    conf = directory / "containers.conf"
    conf.write_text(to_toml(data), encoding="utf-8")
    return conf


def service_command(engine: ContainerEngine, socket: Path) -> list[str]:
    return [engine.program, "system", "service", "--time=0", f"unix://{socket}"]


def service_environment(conf: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    return dict(os.environ if base is None else base) | {"CONTAINERS_CONF": str(conf)}
