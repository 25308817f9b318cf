"""No import circles between the project's own modules.

Every ``.py`` under the five package roots is parsed; each import (at module level, inside a
function, under ``if TYPE_CHECKING:``, relative or absolute) becomes an edge to the project module
it names, and ``from package import name`` where ``name`` is a submodule is an edge to that
submodule. A circle is a strongly connected component of more than one file, or a file importing
itself. Importing ``a.b`` is an edge to ``a.b`` only: the package ``a`` runs first, but counting that
would make every package that imports its own submodules a circle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = ("layer", "handler", "tools", "harness", "cli")


def module_files(roots: Iterable[Path]) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` below each root (the root is the import path)."""
    modules = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts and all(part.isidentifier() for part in parts):
                modules[".".join(parts)] = path
    return modules


def imported_modules(module: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The project modules that ``module`` (read from ``path``) imports anywhere in its text."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    named: list[str | None] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            named += (_deepest_known(alias.name, known) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(package, node.level, node.module)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                named.append(submodule if submodule in known else _deepest_known(base, known))
    return {name for name in named if name is not None}


def _absolute(package: str, level: int, name: str | None) -> str:
    if not level:
        return name or ""
    parts = package.split(".") if package else []
    base = parts[: len(parts) - level + 1]  # level 1 is the package itself, each further dot its parent
    return ".".join([*base, *([name] if name else [])])


def _deepest_known(name: str, known: Mapping[str, Path]) -> str | None:
    """The longest leading part of the dotted ``name`` that is a project module (None for other packages)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def import_graph(roots: Iterable[Path]) -> dict[str, set[str]]:
    known = module_files(roots)
    return {module: imported_modules(module, path, known) for module, path in known.items()}


def find_cycles(graph: Mapping[str, Iterable[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one node, and nodes with an edge to themselves
    (Tarjan's algorithm, iterative so deep chains do not hit the recursion limit)."""
    edges = {node: sorted(set(targets) & graph.keys()) for node, targets in graph.items()}
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, next_edge = work.pop()
            if next_edge == 0:
                index[node] = lowlink[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            for position in range(next_edge, len(edges[node])):
                target = edges[node][position]
                if target not in index:
                    work += [(node, position + 1), (target, 0)]
                    break
                if target in on_stack:
                    lowlink[node] = min(lowlink[node], index[target])
            else:
                if lowlink[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in edges[node]:
                        cycles.append(frozenset(component))
                if work:
                    parent = work[-1][0]
                    lowlink[parent] = min(lowlink[parent], lowlink[node])
    return cycles


def describe(cycles: Iterable[frozenset[str]]) -> str:
    return "\n".join("import circle: " + " <-> ".join(sorted(cycle)) for cycle in cycles)


def test_the_cycle_finder_finds_circles_and_self_imports_only() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": ["e"], "e": [], "f": ["f", "a"], "g": ["h"], "h": ["g"], "x": ["outside"]}
    assert sorted(map(sorted, find_cycles(graph))) == [["a", "b", "c"], ["f"], ["g", "h"]]
    assert find_cycles({"a": ["b"], "b": ["c"], "c": []}) == []


def test_a_long_chain_does_not_hit_the_recursion_limit() -> None:
    chain = {f"m{i}": [f"m{i + 1}"] for i in range(5000)}
    chain["m5000"] = ["m0"]
    assert find_cycles(chain) == [frozenset(chain)]


def test_every_kind_of_import_is_an_edge(tmp_path: Path) -> None:
    """A built package whose circles run through each kind of import the scan must see."""
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "from . import b\n",  # a submodule named in from-import
        "pkg/b.py": "def f():\n    from .sub.c import thing\n",  # inside a function, two levels down
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import x\nthing = 1\n",
        "pkg/d.py": "import pkg.e\n",  # absolute, dotted
        "pkg/e.py": "from pkg import d, nothing_here\n",
        "pkg/f.py": "from .f import y\ny = 1\n",  # a file importing itself
        "pkg/g.py": "import json\nfrom os import path\nfrom .sub import c\n",  # other packages, and no circle
    }
    for name, text in files.items():
        (tmp_path / "root" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "root" / name).write_text(text)
    graph = import_graph([tmp_path / "root"])
    assert graph["pkg.e"] == {"pkg.d", "pkg"}  # a name that is not a submodule is the package itself
    assert graph["pkg.g"] == {"pkg.sub.c"}
    assert sorted(map(sorted, find_cycles(graph))) == [["pkg.a", "pkg.b", "pkg.sub.c"], ["pkg.d", "pkg.e"], ["pkg.f"]]


def test_the_project_has_no_import_circles() -> None:
    cycles = find_cycles(import_graph(REPO / root for root in ROOTS))
    assert not cycles, describe(cycles)


def test_the_scan_sees_the_whole_project() -> None:
    modules = module_files(REPO / root for root in ROOTS)
    assert {"supertonic_engine", "supertonic_function", "supertonic_tools", "supertonic_harness", "supertonic_cli"} <= modules.keys()
    assert len(modules) == sum(1 for root in ROOTS for _ in (REPO / root).rglob("*.py"))
