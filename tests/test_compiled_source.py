"""How the modules a wheel compiles (rewriter/_build.py) are written, for the compiled build's sake.

Compiled, a module reads its own globals at C speed, but `ast.Call` is an attribute of another
module, looked up through it on every use: millions of times in a run (docs/benchmarks.md, stop 71).
So these modules import the node classes they test for by name. Where a name of the module's own
(a local `Module` class) takes the node class's name, `ast.X` stays.
"""
from __future__ import annotations

import ast
import symtable
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE_CLASSES = {name for name, value in vars(ast).items()
                if isinstance(value, type) and issubclass(value, ast.AST) and name[0].isupper() and name != "AST"}


def _compiled_sources() -> list[Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return [ROOT / source for module in config["tool"]["setuptools"]["ext-modules"] for source in module["sources"]]


def _names_of(table: symtable.SymbolTable) -> set[str]:
    names = {symbol.get_name() for symbol in table.get_symbols()}
    for child in table.get_children():
        names |= _names_of(child)
    return names


def _qualified_node_classes(source: str, path: str) -> set[str]:
    """The node classes `source` reads as `ast.X` although no name of its own is `X`."""
    tree = ast.parse(source)
    read = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "ast" and node.attr in NODE_CLASSES}
    from_ast = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                and node.module == "ast" for alias in node.names}
    own = _names_of(symtable.symtable(source, path, "exec")) - from_ast
    return read - own


def test_compiled_modules_read_node_classes_as_their_own_globals():
    sources = _compiled_sources()
    assert len(sources) >= 10
    offenders = {str(path.relative_to(ROOT)): sorted(found) for path in sources
                 if (found := _qualified_node_classes(path.read_text(encoding="utf-8"), str(path)))}
    assert not offenders, f"import these node classes by name (`from ast import Call`): {offenders}"


def test_the_check_finds_a_qualified_node_class_and_spares_a_clash():
    assert _qualified_node_classes("import ast\n\ndef f(n):\n    return type(n) is ast.Call\n", "m.py") == {"Call"}
    clash = "import ast\n\nclass Module:\n    pass\n\ndef f(n):\n    return isinstance(n, ast.Module)\n"
    assert _qualified_node_classes(clash, "m.py") == set()
    assert _qualified_node_classes("from ast import Call\n\ndef f(n):\n    return type(n) is Call\n", "m.py") == set()
    both = "import ast\nfrom ast import Call\n\ndef f(n):\n    return type(n) is ast.Call\n"
    assert _qualified_node_classes(both, "m.py") == {"Call"}
