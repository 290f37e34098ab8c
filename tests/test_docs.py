"""The prose a newcomer reads first is true: its links lead somewhere, and the README's finding and
fix are what the tool prints for that example."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text, fence, found = page.read_text(encoding="utf-8"), False, set()
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            found.add(_slug(line.lstrip("#")))
    return found


def _links(page: Path) -> list[str]:
    text = re.sub(r"(?ms)^```.*?^```", "", page.read_text(encoding="utf-8"))  # code blocks hold no links
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_link_leads_somewhere(page: Path):
    for target in _links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"{page.relative_to(ROOT)}: {target} does not exist"
        if anchor and resolved.suffix == ".md":
            assert anchor in _anchors(resolved), f"{page.relative_to(ROOT)}: no heading for #{anchor} in {path or page.name}"


def test_the_readme_fits_a_screen_and_links_every_topic():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 60
    for topic in ("docs/usage.md", "docs/rules/README.md", "docs/verify.md", "docs/notebooks.md", "docs/editors.md",
                  "docs/configuration.md", "docs/project-analysis.md", "docs/output-formats.md", "CONTRIBUTING.md",
                  "docs/architecture.md"):
        assert f"]({topic})" in readme, topic


def _block(readme: str, language: str, after: str) -> list[str]:
    start = readme.index(f"```{language}\n", readme.index(after)) + len(language) + 4
    return readme[start:readme.index("```", start)].splitlines()


def test_the_readmes_finding_and_fix_are_what_the_tool_prints():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = _block(readme, "console", "## One finding")
    command = shown[0].removeprefix("$ ").split()
    assert command[0] == "phiml-rewrite"
    run = [sys.executable, "-m", "rewriter.cli", "--no-progress", *command[1:]]
    printed = subprocess.run(run, cwd=ROOT, capture_output=True, text=True).stdout.splitlines()
    for line in shown[1:]:
        assert line in printed, line
    diff = subprocess.run([*run, "--diff"], cwd=ROOT, capture_output=True, text=True).stdout.splitlines()
    for line in _block(readme, "diff", "## One finding"):
        assert line in diff, line


FIGURE = re.compile(r"\b\d+(?:[.,]\d+)? ?(?:ms|µs|CPU s|MB|kB|GB|G instructions)\b|\b\d+\.\d+ s\b|\b\d+(?:\.\d+)?%|\b\d+(?:\.\d+)?x (?:faster|cheaper|slower|less|more)\b")


def _prose(path: Path):
    """(line, text) of each comment and docstring of a module."""
    import ast
    import io
    import tokenize

    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc


def test_no_measured_figure_lives_in_a_docstring_or_comment():
    """Figures go stale: they belong in docs/benchmarks.md, dated (CONTRIBUTING.md, Standards)."""
    found = [f"{path.relative_to(ROOT)}:{line}: {match.group(0)}"
             for folder in ("rewriter", "codemods") for path in sorted((ROOT / folder).rglob("*.py"))
             for line, text in _prose(path) for match in FIGURE.finditer(text)]
    assert not found, "\n".join(found)


def _is_dataclass_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Name) and target.id == "dataclass" or \
        isinstance(target, ast.Attribute) and target.attr == "dataclass"


def test_every_dataclass_says_why_it_exists():
    """A record's docstring says what it is for (CONTRIBUTING.md, Standards). It also spares a run the
    signature `dataclass` writes as the docstring of a class without one, at every start-up
    (docs/benchmarks.md, "stop 74")."""
    found = [f"{path.relative_to(ROOT)}:{node.lineno}: {node.name}"
             for folder in ("rewriter", "codemods") for path in sorted((ROOT / folder).rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_bytes()))
             if isinstance(node, ast.ClassDef) and any(map(_is_dataclass_decorator, node.decorator_list))
             and ast.get_docstring(node) is None]
    assert not found, "\n".join(found)
