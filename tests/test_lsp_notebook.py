"""The language server on notebooks, end to end: LSP 3.17 notebook documents through a real client.

The cells of a notebook are one module for the rules; diagnostics land on the cell they are in, at
the cell's own positions; quick fixes and fix-all edit the cells, and give what the CLI writes into
the `.ipynb` file.
"""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import pytest_lsp
from lsprotocol import types
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_lsp import _client_with_versions, apply_edits, start  # noqa: E402

CLI = [sys.executable, "-m", "rewriter.cli"]
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.lsp]
SERVER = ClientServerConfig(server_command=[*CLI, "lsp"], server_env={"PYTHONPATH": str(ROOT)},
                            client_factory=_client_with_versions)

IMPORTS = "%matplotlib inline\nimport jax\nimport jax.numpy as jnp"
STEP = "@jax.jit\ndef step(x):\n    if x.sum() > 0:\n        return x * 2\n    return -x"
STEP_FIXED = "@jax.jit\ndef step(x):\n    return jnp.where(x.sum() > 0, x * 2, -x)"
FEATURES = "@jax.jit\ndef features(v, flat):\n    if flat:\n        return v.reshape(-1)\n    return v[:, None]"
CALLS = "!echo calling\nx = jnp.arange(3.)\nfeatures(x, True)\nfeatures(x, False)"


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await start(lsp_client, tmp_path_factory.mktemp("notebooks"))
    yield
    await lsp_client.shutdown_session()


class Notebook:
    """A notebook open in the client: cell URIs as VS Code makes them, texts kept like an editor does."""

    def __init__(self, client: LanguageClient, name: str, cells: list[str | None]) -> None:
        self.client, self.path = client, client.root / name
        self.uri = self.path.as_uri()
        self.version = 1
        self.cells = [(f"vscode-notebook-cell:{self.path}#c{i}", text) for i, text in enumerate(cells)]  # None: markdown
        self.texts = {uri: text for uri, text in self.cells if text is not None}
        self.versions = {uri: 1 for uri in self.texts}

    def open(self) -> None:
        self.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(uri=self.uri, notebook_type="jupyter-notebook", version=1, cells=[
                types.NotebookCell(kind=types.NotebookCellKind.Markup if text is None else types.NotebookCellKind.Code,
                                   document=uri) for uri, text in self.cells]),
            cell_text_documents=[types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
                                 for uri, text in self.texts.items()]))

    def edit(self, uri: str, new_text: str) -> None:
        old = self.texts[uri]
        lines = old.split("\n")
        self.version += 1
        self.versions[uri] += 1
        self.texts[uri] = new_text
        change = types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(0, 0), types.Position(len(lines) - 1, len(lines[-1]))), text=new_text)
        self.client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=self.uri, version=self.version),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]), changes=[change])]))))

    def close(self) -> None:
        self.client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=self.uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=uri) for uri in self.texts]))

    def uri_of(self, index: int) -> str:
        return self.cells[index][0]

    def as_ipynb(self) -> Path:
        nb = new_notebook()
        nb.cells = [new_markdown_cell("notes") if text is None else new_code_cell(self.texts[uri]) for uri, text in self.cells]
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"c{i}"
        nbformat.write(nb, str(self.path))
        return self.path


async def diagnostics_of(client: LanguageClient, uri: str, version: int, timeout: float = 60) -> list[types.Diagnostic]:
    """The diagnostics published for the cell at `version` (waits for them)."""
    for _ in range(int(timeout / 0.05)):
        if client.diagnostic_versions.get(uri) == version and uri in client.diagnostics:
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {uri} at version {version}: {client.diagnostic_versions.get(uri)}")


def cli_cells(path: Path) -> list[str]:
    """The code cells as `phiml-rewrite --in-place` writes them into the .ipynb file."""
    subprocess.run([*CLI, "--no-cache", "--in-place", "--quiet", str(path)], capture_output=True, cwd=path.parent,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    data = json.loads(path.read_text())
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in data["cells"] if c["cell_type"] == "code"]


async def test_diagnostics_land_on_their_cells_at_cell_positions(client: LanguageClient):
    nb = Notebook(client, "a.ipynb", [None, IMPORTS, STEP, "print(step(jnp.ones(3)))"])
    nb.open()
    step = await diagnostics_of(client, nb.uri_of(2), 1)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in step] == [("PML201", 2, 7)]
    assert await diagnostics_of(client, nb.uri_of(1), 1) == []  # magics break nothing
    assert await diagnostics_of(client, nb.uri_of(3), 1) == []
    nb.close()


async def test_rules_see_the_def_in_one_cell_and_the_calls_in_another(client: LanguageClient):
    nb = Notebook(client, "b.ipynb", [IMPORTS, FEATURES, CALLS])
    nb.open()
    found = await diagnostics_of(client, nb.uri_of(1), 1)
    assert [d.code for d in found] == ["PML204"]  # the Python bool comes from the calls of cell 3
    nb.close()


async def test_a_quick_fix_edits_the_cell_as_the_cli_writes_it(client: LanguageClient):
    nb = Notebook(client, "c.ipynb", [None, IMPORTS, STEP, "print(step(jnp.ones(3)))"])
    nb.open()
    uri = nb.uri_of(2)
    [diagnostic] = await diagnostics_of(client, uri, 1)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    fix = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix and a.is_preferred)
    [change] = fix.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == 1
    fixed = apply_edits(nb.texts[uri], change.edits)
    assert fixed == STEP_FIXED
    assert cli_cells(nb.as_ipynb())[1] == fixed
    nb.edit(uri, fixed)  # the editor applies it: the cell's diagnostics go away
    assert await diagnostics_of(client, uri, 2) == []
    nb.close()


async def test_suppressing_a_finding_in_a_cell(client: LanguageClient):
    nb = Notebook(client, "d.ipynb", [IMPORTS, STEP])
    nb.open()
    uri = nb.uri_of(1)
    [diagnostic] = await diagnostics_of(client, uri, 1)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    ignore = next(a for a in actions if a.title.startswith("Ignore PML201"))
    suppressed = apply_edits(nb.texts[uri], ignore.edit.document_changes[0].edits)
    assert "if x.sum() > 0:  # phiml-rewrite: ignore[PML201]" in suppressed
    nb.edit(uri, suppressed)
    assert await diagnostics_of(client, uri, 2) == []
    nb.close()


async def test_fix_all_edits_every_cell_the_cli_changes(client: LanguageClient):
    smooth = "def smooth(x):\n    return 0.5 * (x + jnp.roll(x, 1))"
    loop = "x = jnp.ones(4)\n!echo smoothing\nfor _ in range(3):\n    x = jax.jit(smooth)(x)"
    nb = Notebook(client, "e.ipynb", [IMPORTS, STEP, smooth, loop])
    nb.open()
    await diagnostics_of(client, nb.uri_of(3), 1)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=nb.uri_of(1)), range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])))
    [fix_all] = actions
    resolved = await client.code_action_resolve_async(fix_all)
    texts = dict(nb.texts)
    for change in resolved.edit.document_changes:
        texts[change.text_document.uri] = apply_edits(texts[change.text_document.uri], change.edits)
    assert len(resolved.edit.document_changes) == 2  # the step and the loop; the other cells are not edited
    assert [texts[uri] for uri, text in nb.cells if text is not None] == cli_cells(nb.as_ipynb())
    nb.close()


async def test_closing_a_notebook_clears_its_cells(client: LanguageClient):
    nb = Notebook(client, "f.ipynb", [IMPORTS, STEP])
    nb.open()
    assert await diagnostics_of(client, nb.uri_of(1), 1)
    nb.close()
    for _ in range(200):
        if list(client.diagnostics.get(nb.uri_of(1), [1])) == []:
            break
        await asyncio.sleep(0.05)
    assert list(client.diagnostics.get(nb.uri_of(1), [1])) == []


async def test_a_configuration_changed_before_a_save_applies_to_the_same_cells(client: LanguageClient):
    project = client.root / "configured"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.phiml-rewrite]\nignore = ["PML201"]\n')
    nb = Notebook(client, "configured/nb.ipynb", [IMPORTS, STEP])
    nb.open()
    assert await diagnostics_of(client, nb.uri_of(1), 1) == []
    (project / "pyproject.toml").write_text("[tool.phiml-rewrite]\n")
    client.notebook_document_did_save(types.DidSaveNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=nb.uri)))
    for _ in range(1200):
        if [d.code for d in client.diagnostics.get(nb.uri_of(1), [])] == ["PML201"]:
            break
        await asyncio.sleep(0.05)
    assert [d.code for d in client.diagnostics[nb.uri_of(1)]] == ["PML201"]
    nb.close()
