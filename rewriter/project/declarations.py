"""The dependencies a project declares, read from the files that declare them (never executed).

`requirements*.txt` (and `-r` includes), `pyproject.toml` (`[project]` dependencies and extras, PEP 735
groups, Poetry's table), `setup.py` (`install_requires`/`extras_require` literals, read with `ast`),
`setup.cfg`, conda environment files, and a notebook's own `%pip install` / `!pip install` lines. Each
declaration keeps where it was written (`requirements.txt:3`), for the messages that rest on it.
"""
from __future__ import annotations

import ast
import configparser
import json
import os
import shlex
import tomllib
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

Read = Callable[[str], bytes]  # a file's bytes (OSError as `open` raises it)

# (`packaging` is imported where a requirement is read: most files' folders declare none.)


@dataclass(frozen=True)
class Declaration:
    """One dependency a project declares, as written and where: evidence of a version target (targets.py)."""
    name: str  # the distribution, normalized (`phiflow`, `tensorflow-cpu`)
    spec: str  # its PEP 440 specifier set ("" : any version)
    where: str  # `requirements.txt:3`, relative to the folder the file was read from
    text: str  # the requirement as written there (`phiflow==2.1.4`)


def normalized(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _read_file(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def in_folder(folder: str, read: Read = _read_file) -> list[Declaration]:
    """The declarations of the dependency files in `folder` itself (not its subfolders); `read`: how
    each file they name is read (the files they include too)."""
    return [d for shown, path in declaring_files(folder) for d in _reader(shown)(path, shown, read)]


def declaring_files(folder: str) -> list[tuple[str, str]]:
    """(the name shown, the path) of each dependency file in `folder` itself, in the order `in_folder`
    reads them: `requirements/base.txt` among them."""
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return []
    out: list[tuple[str, str]] = []
    for entry in entries:
        lower = entry.lower()
        if lower == "requirements" or _reader(entry) is not None:  # (by name first: a stat for these only)
            path = os.path.join(folder, entry)
            if os.path.isfile(path):
                if lower != "requirements":
                    out.append((entry, path))
            elif lower == "requirements" and os.path.isdir(path):  # requirements/base.txt, requirements/dev.txt
                try:
                    names = sorted(os.listdir(path))
                except OSError:
                    continue
                out += [(f"{entry}/{f}", os.path.join(path, f)) for f in names if f.endswith(".txt")]
    return out


def _reader(shown: str):
    """The reader of the dependency file shown as `shown`; None for any other file."""
    lower = shown.lower()
    if "/" in lower or lower.startswith("requirements") and lower.endswith((".txt", ".in")):
        return _requirements
    if lower == "pyproject.toml":
        return _pyproject
    if lower == "setup.py":
        return _setup_py
    if lower == "setup.cfg":
        return _setup_cfg
    if lower.endswith((".yml", ".yaml")) and ("env" in lower or lower.startswith("conda")):
        return _conda
    return None


def in_notebook(path: str) -> list[Declaration]:
    """`%pip install phiflow==2.2.2` / `!pip install ...` in a notebook's code cells: what it runs with."""
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError:
        return []
    return in_notebook_source(source, os.path.basename(path))


def in_notebook_source(source: bytes, name: str) -> list[Declaration]:
    """`in_notebook` of the notebook named `name` that holds `source`."""
    try:
        data = json.loads(source or b"{}")
    except ValueError:
        return []
    cells = data.get("cells") if isinstance(data, dict) else None
    out: list[Declaration] = []
    for number, cell in enumerate(cells if isinstance(cells, list) else [], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        for line in text.splitlines():
            out += _pip_line(line, f"cell {number} of {name}")
    return out


def _pip_line(line: str, where: str) -> list[Declaration]:
    stripped = line.strip()
    if not stripped.startswith(("!", "%")):
        return []
    try:
        words = shlex.split(stripped.lstrip("!%"), comments=True)
    except ValueError:
        return []
    while words and words[0] in ("python", "python3", "-m", "sudo"):
        words = words[1:]
    if len(words) < 2 or words[0] not in ("pip", "pip3", "uv") or "install" not in words[1:3]:
        return []
    args = words[words.index("install") + 1:]
    return [d for arg in args if not arg.startswith("-") for d in _parsed(arg, where)]


def _parsed(text: str, where: str) -> list[Declaration]:
    text = text.strip()
    if not text or text.startswith(("-", "#", "git+", "http:", "https:", "file:", ".", "/")):
        return []
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return []
    if requirement.url:
        return []
    return [Declaration(normalized(requirement.name), str(requirement.specifier), where, text)]


def _requirements(path: str, shown: str, read: Read = _read_file, depth: int = 0) -> list[Declaration]:
    out: list[Declaration] = []
    for number, line in _lines(path, read):
        line = line.split(" #", 1)[0].strip()
        if line.startswith(("-r ", "--requirement ", "-c ", "--constraint ")) and depth < 4:
            included = line.split(None, 1)[1].strip()
            target = os.path.join(os.path.dirname(path), included)
            out += _requirements(target, os.path.join(os.path.dirname(shown), included).lstrip("/"), read, depth + 1)
            continue
        out += _parsed(line, f"{shown}:{number}")
    return out


def _lines(path: str, read: Read = _read_file) -> Iterator[tuple[int, str]]:
    try:
        lines = read(path).decode("utf-8", "replace").splitlines()
    except OSError:
        return
    joined, start = "", 0
    for number, line in enumerate(lines, start=1):
        if not joined:
            start = number
        if line.endswith("\\"):
            joined += line[:-1]
            continue
        yield start, joined + line
        joined = ""


def _pyproject(path: str, shown: str, read: Read = _read_file) -> list[Declaration]:
    try:
        data = tomllib.loads(read(path).decode())  # (what `tomllib.load` does)
    except (OSError, tomllib.TOMLDecodeError):
        return []
    texts: list[str] = []
    project = data.get("project", {})
    if isinstance(project, dict):
        texts += _strings(project.get("dependencies"))
        for group in (project.get("optional-dependencies") or {}).values() if isinstance(project.get("optional-dependencies"), dict) else ():
            texts += _strings(group)
    groups = data.get("dependency-groups")
    for group in groups.values() if isinstance(groups, dict) else ():
        texts += _strings(group)
    where = _place(path, shown, read)
    out = [d for text in texts for d in _parsed(text, where(text))]
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    tables = [poetry.get("dependencies")] + [g.get("dependencies") for g in (poetry.get("group") or {}).values()
                                             if isinstance(g, dict)] if isinstance(poetry, dict) else []
    for table in tables:
        for name, value in (table or {}).items() if isinstance(table, dict) else ():
            version = value.get("version") if isinstance(value, dict) else value
            spec = _poetry_spec(version) if isinstance(version, str) else None
            if spec is not None and name.lower() != "python":
                out.append(Declaration(normalized(name), spec, where(name), f"{name} = {version!r}"))
    return out


def _poetry_spec(version: str) -> str | None:
    """Poetry's `^2.1` / `~2.1` / `2.1.4` / `*` as a PEP 440 specifier set (None: not understood)."""
    version = version.strip()
    if version in ("", "*"):
        return ""
    if version[0] in "^~" and version[1:2] != "=":
        parts = version[1:].split(".")
        if not all(p.isdigit() for p in parts):
            return None
        numbers = [int(p) for p in parts]
        if version[0] == "^":
            bump = next((i for i, n in enumerate(numbers) if n), len(numbers) - 1)
        else:
            bump = min(1, len(numbers) - 1) if len(numbers) > 1 else 0
        upper = numbers[:bump] + [numbers[bump] + 1]
        return f">={version[1:]},<{'.'.join(map(str, upper))}"
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    spec = version if version[0] in "<>=!~" else f"=={version}"
    try:
        return str(SpecifierSet(spec))
    except InvalidSpecifier:
        return None


def _strings(value) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _place(path: str, shown: str, read: Read = _read_file):
    """`where(text)`: `pyproject.toml:12`, the first line of the file at `path` that holds `text` (the file
    itself if none does); its lines read once, when first asked."""
    lines: list[tuple[int, str]] = []

    def where(text: str) -> str:
        if not lines:
            lines.extend(_lines(path, read))
        return next((f"{shown}:{number}" for number, line in lines if text in line), shown)

    return where


def _setup_py(path: str, shown: str, read: Read = _read_file) -> list[Declaration]:
    """`install_requires=[...]` and `extras_require={...: [...]}` of a `setup(...)` call, where they are
    literals or names bound to literals at module level (the file is read, never run)."""
    try:
        tree = ast.parse(read(path))
    except (OSError, SyntaxError, ValueError):
        return []
    bound: dict[str, ast.AST] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            bound[statement.targets[0].id] = statement.value
    out: list[Declaration] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not (isinstance(node.func, ast.Name) and node.func.id == "setup"
                                                  or isinstance(node.func, ast.Attribute) and node.func.attr == "setup"):
            continue
        for keyword in node.keywords:
            if keyword.arg not in ("install_requires", "extras_require", "tests_require"):
                continue
            value = bound.get(keyword.value.id, keyword.value) if isinstance(keyword.value, ast.Name) else keyword.value
            for element in _requirement_literals(value, bound):
                out += _parsed(element.value, f"{shown}:{element.lineno}")
    return out


def _requirement_literals(value: ast.AST, bound: dict[str, ast.AST], depth: int = 0) -> Iterable[ast.Constant]:
    if depth > 3:
        return
    if isinstance(value, ast.Name) and value.id in bound:
        yield from _requirement_literals(bound[value.id], bound, depth + 1)
    elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        for element in value.elts:
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                yield element
    elif isinstance(value, ast.Dict):
        for element in value.values:
            yield from _requirement_literals(element, bound, depth + 1)
    elif isinstance(value, ast.BinOp):  # base + extra
        yield from _requirement_literals(value.left, bound, depth + 1)
        yield from _requirement_literals(value.right, bound, depth + 1)


def _setup_cfg(path: str, shown: str, read: Read = _read_file) -> list[Declaration]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        text = read(path).decode("utf-8")
    except OSError:
        return []  # (`ConfigParser.read` skips a file it cannot open)
    except UnicodeDecodeError:
        return []
    try:
        parser.read_string(text.replace("\r\n", "\n").replace("\r", "\n"), source=path)  # (as a text file reads)
    except configparser.Error:
        return []
    texts: list[str] = []
    if parser.has_option("options", "install_requires"):
        texts += parser.get("options", "install_requires").splitlines()
    if parser.has_section("options.extras_require"):
        for _, value in parser.items("options.extras_require"):
            texts += value.splitlines()
    where = _place(path, shown, read)
    return [d for text in texts if text.strip() for d in _parsed(text, where(text.strip()))]


def _conda(path: str, shown: str, read: Read = _read_file) -> list[Declaration]:
    """A conda environment file: `dependencies:` of `name=1.2` (conda's "1.2.*"), `name==1.2`, and its `pip:` list."""
    import yaml

    try:
        data = yaml.safe_load(read(path).decode("utf-8", "replace"))
    except (OSError, yaml.YAMLError):
        return []
    dependencies = data.get("dependencies") if isinstance(data, dict) else None
    out: list[Declaration] = []
    where = _place(path, shown, read)
    for item in dependencies if isinstance(dependencies, list) else ():
        if isinstance(item, dict):
            for text in _strings(item.get("pip")):
                out += _parsed(text, where(text))
        elif isinstance(item, str):
            out += _parsed(_conda_spec(item), where(item))
    return out


def _conda_spec(text: str) -> str:
    """conda's `jax=0.4.6` (0.4.6.*) and `jax=0.4.6=py39_0` (a build) as pip's `jax==0.4.6.*`."""
    text = text.split("::")[-1].strip()
    name, sep, rest = text.partition("=")
    if not sep or rest.startswith("="):
        return text.replace(" ", "")
    version = rest.split("=")[0].strip()
    return f"{name.strip()}=={version}" + ("" if version.endswith("*") else ".*")
