"""The container engine that builds and runs the image: docker with a daemon, else podman.

Podman (with buildah inside ``podman build``) needs no daemon, which is why it is the fallback.
What a host may need beyond the plain commands is found on the host, never assumed:

* an HTTPS-intercepting proxy: when the host's pip is told to trust a CA bundle of its own
  (``PIP_CERT``, ``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE`` or pip's ``cert`` setting), that bundle
  is bind-mounted, read-only, over the CA file the base's own pip trusts (its vendored certifi's),
  into the build's RUN steps: a file the base already has, so no mount point is left in a layer
  (podman only: ``docker build`` takes no mounts, and a docker host behind such a proxy needs the
  CA in the daemon's build environment);
* a host on cgroup v1 or hybrid cgroups, where crun (podman's usual runtime) refuses to start a
  container: runc is asked for by name when it is installed;
* ulimits: a container runs with Lambda's own (1,024 file descriptors, 1,024 processes/threads:
  https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html), which also keeps
  podman from asking for more than a sandboxed host's hard limits allow.
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess  # runs the container engine with arguments built here  # nosec B404
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Lambda's quotas (gettingstarted-limits.html): file descriptors and processes/threads.
LAMBDA_ULIMITS = ("nofile=1024:1024", "nproc=1024:1024")
# Where the base's pip looks for the CAs it trusts (pip vendors certifi and reads its bundle).
PIP_CA_PROBE = "import pip._vendor.certifi as c; print(c.where())"


class EngineNotFound(RuntimeError):
    """Neither a docker daemon nor podman is here."""


def _answers(command: Sequence[str], timeout_s: float = 20.0) -> bool:
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout_s, check=False)  # fixed probe commands  # nosec B603
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def host_ca_bundle(env: Mapping[str, str] | None = None) -> Path | None:
    """The CA bundle the host's pip is told to trust, None when it uses its own defaults."""
    env = os.environ if env is None else env
    for name in ("PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
        if env.get(name) and Path(env[name]).is_file():
            return Path(env[name])
    for config in (Path("/etc/pip.conf"), Path("/etc/xdg/pip/pip.conf"), Path.home() / ".config/pip/pip.conf"):
        parser = configparser.ConfigParser()
        try:
            parser.read(config)
        except configparser.Error:
            continue
        cert = parser.get("global", "cert", fallback=None)
        if cert and Path(cert).is_file():
            return Path(cert)
    return None


def cgroup_v2_unified() -> bool:
    """True on a pure cgroup v2 host; False on v1 or hybrid, where crun refuses to start containers."""
    return Path("/sys/fs/cgroup/cgroup.controllers").is_file()


@dataclass(frozen=True)
class ContainerEngine:
    program: str  # docker or podman
    runtime: str | None = None  # an OCI runtime asked for by name (podman only)
    ca_bundle: Path | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return Path(self.program).name

    def _runtime_flags(self) -> list[str]:
        return ["--runtime", self.runtime] if self.runtime else []

    def ca_volumes(self, base: str) -> list[str]:
        """``host:container:ro`` volumes that make the base's pip trust the host's CA bundle; none
        where the host names no bundle of its own, or for docker (see the module's docstring)."""
        if self.ca_bundle is None or self.name == "docker":
            return []
        probe = self.run_command(base, entrypoint="python3", args=["-c", PIP_CA_PROBE])
        done = subprocess.run(probe, capture_output=True, text=True, timeout=120, check=False)  # the engine with arguments built here  # nosec B603
        target = done.stdout.strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else ""
        if not target.startswith("/"):
            raise EngineNotFound(f"cannot find the CA file pip trusts in {base}: {(done.stderr or done.stdout).strip()[-500:]}")
        return [f"{self.ca_bundle}:{target}:ro"]

    def build_command(
        self, context: Path, dockerfile: Path, tag: str, build_args: Mapping[str, str], volumes: Sequence[str] = ()
    ) -> list[str]:
        command = [self.program, "build", "-f", str(dockerfile), "-t", tag]
        if self.name == "docker":
            # BuildKit's attestations make an OCI index that Lambda refuses (the Dockerfile says why).
            command += ["--provenance=false"]
        else:
            command += ["--pull=never", *self._runtime_flags()]
            for volume in volumes:
                command += ["-v", volume]
        for key, value in build_args.items():
            command += ["--build-arg", f"{key}={value}"]
        return command + [str(context)]

    def run_command(
        self,
        tag: str,
        *,
        name: str | None = None,
        port: int | None = None,
        cpus: float | None = None,
        memory_mb: int | None = None,
        tmp_mb: int = 512,
        user: str = "23456:23456",
        env: Mapping[str, str] | None = None,
        entrypoint: str | None = None,
        network: str | None = None,
        detach: bool = False,
        remove: bool = True,
        args: Sequence[str] = (),
    ) -> list[str]:
        """A run as Lambda runs the image: a read-only root, only /tmp writable, a non-root uid the
        image does not know, Lambda's ulimits, and the memory and CPU given."""
        command = [self.program, "run", *(["--rm"] if remove else []), *self._runtime_flags(), "--read-only"]
        if self.name == "podman":
            command += ["--read-only-tmpfs=false"]  # podman would also make /run and /var/tmp writable
        tmp = f"/tmp:rw,size={tmp_mb}m,mode=1777"  # the container's own /tmp, a tmpfs, as on Lambda  # nosec B108
        command += ["--tmpfs", tmp, "--user", user]
        for ulimit in LAMBDA_ULIMITS:
            command += ["--ulimit", ulimit]
        if memory_mb is not None:
            command += ["--memory", f"{memory_mb}m", "--memory-swap", f"{memory_mb}m"]
        if cpus is not None:
            command += ["--cpus", f"{cpus:g}"]
        if name:
            command += ["--name", name]
        if port is not None:
            command += ["-p", f"127.0.0.1:{port}:8080"]
        if network is not None:
            command += ["--network", network]
        for key, value in (env or {}).items():
            command += ["-e", f"{key}={value}"]
        if entrypoint is not None:
            command += ["--entrypoint", entrypoint]
        if detach:
            command += ["-d"]
        return command + [tag, *args]

    def image_exists(self, tag: str) -> bool:
        probe = [self.program, "image", "inspect", tag]
        return _answers(probe)

    def layer_sizes(self, tag: str) -> list[tuple[str, int]]:
        """(instruction, bytes) per layer, oldest first, as the engine's ``history`` reports them."""
        done = subprocess.run(  # the engine with arguments built here  # nosec B603
            [self.program, "history", "--no-trunc", "--format", "json", tag], capture_output=True, text=True, check=True
        )
        text = done.stdout.strip()
        # podman prints one JSON array; docker one JSON object per line.
        rows = json.loads(text) if text.startswith("[") else [json.loads(line) for line in text.splitlines() if line]
        sized = []
        for row in reversed(rows):
            size = row.get("size", row.get("Size"))
            created_by = str(row.get("CreatedBy", row.get("created_by", "")))
            if isinstance(size, int):
                sized.append((created_by, size))
        return sized


def find_engine(env: Mapping[str, str] | None = None) -> ContainerEngine:
    """docker where its daemon answers, else podman with what this host needs."""
    docker = shutil.which("docker")
    if docker and _answers([docker, "info"]):
        return ContainerEngine(docker)
    podman = shutil.which("podman")
    if podman is None:
        why = "docker answers but no daemon runs" if docker else "neither docker nor podman is installed"
        raise EngineNotFound(
            f"no container engine to build with: {why}; install podman (Debian: apt-get install podman buildah runc) or start Docker"
        )
    notes = []
    runtime = None
    if not cgroup_v2_unified() and shutil.which("runc"):
        runtime = "runc"
        notes.append("cgroup v1/hybrid host: running containers with runc (crun refuses such hosts)")
    ca = host_ca_bundle(env)
    if ca is not None:
        notes.append(f"the host's pip trusts {ca}: mounted read-only into the build's RUN steps, never into a layer")
    return ContainerEngine(podman, runtime=runtime, ca_bundle=ca, notes=tuple(notes))
