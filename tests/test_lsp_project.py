"""The language server and the project index, end to end: a change in one open file updates the
diagnostics of the open files whose project facts it changes (issue 19, the editor).

`limiter` in physics.py has an `if` on its argument: traced, and so PML201, only because train.py
calls it from a jitted function. The index sees the buffers as the editor has them, not the disk.
"""
from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from rewriter.config import Config
from rewriter.lsp.project import Projects

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_lsp import _client_with_versions, diagnostics_for, open_document, published, start  # noqa: E402
from test_lsp_notebook import Notebook  # noqa: E402

CLI = [sys.executable, "-m", "rewriter.cli"]
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.lsp]
SERVER = ClientServerConfig(server_command=[*CLI, "lsp"], server_env={"PYTHONPATH": str(ROOT)},
                            client_factory=_client_with_versions)

PHYSICS = """from phiml import math


def limiter(v, strength):
    if (v > 0).all:
        return v * strength
    return v
"""
TRAIN = """from phiml import math
from physics import limiter


@math.jit_compile
def step(u):
    return limiter(u * 0.5, 3.)
"""
TRAIN_WITHOUT_CALL = TRAIN.replace("return limiter(u * 0.5, 3.)", "return u * 0.5")
# A second pair, in the same project: a positive barrier that needs the index.
HELPERS = "from phiml import math\n\n\ndef clip(v):\n    if (v < 1).all:\n        return v\n    return -v\n"
RUN = "from phiml import math\nfrom helpers import clip\n\n\n@math.jit_compile\ndef run(u):\n    return clip(u)\n"


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await start(lsp_client, tmp_path_factory.mktemp("projects"))
    yield
    await lsp_client.shutdown_session()


def project(client: LanguageClient, name: str, files: dict[str, str]) -> Path:
    folder = client.root / name
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[project]\nname = \"demo\"\n")
    for filename, text in files.items():
        (folder / filename).write_text(text)
    return folder


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    """The whole buffer replaced (a full-text change event)."""
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def traced_ifs(diagnostics) -> list[int]:
    """The 1-based lines of the PML201 diagnostics."""
    return [d.range.start.line + 1 for d in diagnostics if d.code == "PML201"]


async def test_an_edit_in_one_file_updates_the_diagnostics_of_the_file_it_calls(client: LanguageClient):
    folder = project(client, "edited", {"physics.py": PHYSICS, "train.py": TRAIN})
    physics = await open_document(client, folder / "physics.py", PHYSICS)
    await published(client, physics, lambda ds: traced_ifs(ds) == [5])
    (pml201,) = [d for d in client.diagnostics[physics] if d.code == "PML201"]
    # where the trace comes from: a related location in train.py, at `def step` (0-based line 5)
    assert any(r.location.uri.endswith("/edited/train.py") and r.location.range.start.line == 5
               for r in pml201.related_information), [(r.location.uri, r.location.range.start.line) for r in pml201.related_information]
    train = await open_document(client, folder / "train.py", TRAIN)

    change(client, train, 2, TRAIN_WITHOUT_CALL)  # the buffer, not the file on disk
    await diagnostics_for(client, train, 2)
    await published(client, physics, lambda ds: traced_ifs(ds) == [])
    assert client.diagnostic_versions[physics] == 1  # physics.py itself did not change

    change(client, train, 3, TRAIN)
    await published(client, physics, lambda ds: traced_ifs(ds) == [5])


async def test_an_unsaved_call_counts_and_closing_the_buffer_restores_the_file_on_disk(client: LanguageClient):
    folder = project(client, "unsaved", {"physics.py": PHYSICS, "train.py": TRAIN_WITHOUT_CALL})
    physics = await open_document(client, folder / "physics.py", PHYSICS)
    assert traced_ifs(client.diagnostics[physics]) == []
    train = await open_document(client, folder / "train.py", TRAIN_WITHOUT_CALL)
    change(client, train, 2, TRAIN)
    await published(client, physics, lambda ds: traced_ifs(ds) == [5])

    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(train)))
    await published(client, physics, lambda ds: traced_ifs(ds) == [])


async def test_a_helper_nobody_jits_has_no_traced_if(client: LanguageClient):
    folder = project(client, "alone", {"physics.py": PHYSICS, "train.py": TRAIN_WITHOUT_CALL,
                                       "helpers.py": HELPERS, "run.py": RUN})
    physics = await open_document(client, folder / "physics.py", PHYSICS)
    helpers = await open_document(client, folder / "helpers.py", HELPERS)
    # The index is there (and physics.py was analysed with it first, were it built late).
    await published(client, helpers, lambda ds: traced_ifs(ds) == [5])
    assert traced_ifs(client.diagnostics[physics]) == []


async def test_a_notebook_cell_that_jits_a_helper_of_the_project(client: LanguageClient):
    folder = project(client, "notebook", {"physics.py": PHYSICS})
    notebook = Notebook(client, "notebook/analysis.ipynb",
                        ["from phiml import math\nfrom physics import limiter", None,
                         "@math.jit_compile\ndef step(u):\n    return limiter(u, 2.)"])
    notebook.open()
    physics = await open_document(client, folder / "physics.py", PHYSICS)
    await published(client, physics, lambda ds: traced_ifs(ds) == [5])

    step_cell = notebook.cells[2][0]
    notebook.edit(step_cell, "@math.jit_compile\ndef step(u):\n    return u")
    await published(client, physics, lambda ds: traced_ifs(ds) == [])


# -- the index alone (rewriter/lsp/project.py) ---------------------------------------------------


class Recorded:
    def __init__(self) -> None:
        self.changed: list[set[str]] = []
        self.built: list[str] = []
        self.projects = Projects(changed=lambda paths, edited: self.changed.append(paths), built=self.built.append)

    async def facts(self, folder: Path, name: str, text: str | None):
        path = str(folder / name)
        found = await self.projects.facts(Config(root=str(folder)), path, None if text is None else text.encode(),
                                          lambda: {})
        await asyncio.sleep(0)  # what the index thread handed the loop
        return found


def _on_disk(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    for filename, text in files.items():
        (tmp_path / filename).write_text(text)
    return tmp_path


async def test_a_buffer_that_does_not_parse_keeps_its_last_summary(tmp_path):
    folder = _on_disk(tmp_path, {"physics.py": PHYSICS, "train.py": TRAIN})
    index = Recorded()
    assert [t.function for t in (await index.facts(folder, "physics.py", PHYSICS)).traces] == ["limiter"]
    assert await index.facts(folder, "train.py", TRAIN.replace("def step(u):", "def step(u")) is None
    assert await index.facts(folder, "train.py", TRAIN + "\n# a comment\n") is None  # the same summary
    assert index.changed == []
    assert (await index.facts(folder, "physics.py", PHYSICS)).traces
    await index.facts(folder, "train.py", TRAIN_WITHOUT_CALL)
    assert index.changed == [{os.path.realpath(folder / "physics.py")}]
    assert await index.facts(folder, "physics.py", PHYSICS) is None


async def test_analyses_go_on_without_an_index_that_is_late(tmp_path):
    folder = _on_disk(tmp_path, {"physics.py": PHYSICS, "train.py": TRAIN})
    index = Recorded()
    index.projects.wait = 0
    assert await index.facts(folder, "physics.py", PHYSICS) is None  # not built yet: analysed alone
    building = index.projects._projects[os.path.realpath(folder)].built
    await asyncio.wait_for(asyncio.shield(building), 600)  # a barrier, however loaded the machine is
    await asyncio.sleep(0)  # the done-callback runs on the loop
    assert index.built == [os.path.realpath(folder)]  # the server analyses its documents again
    assert (await index.facts(folder, "physics.py", PHYSICS)).traces
