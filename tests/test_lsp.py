"""The language server end to end, through a real LSP client over stdio (pytest-lsp).

Every edit the server offers is applied the way an editor applies it (UTF-16 positions, last edit
first) and compared with what the CLI writes for the same buffer.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Union

import pytest
import pytest_lsp
from lsprotocol import types

from rewriter.lsp.server import SETTLED
from rewriter.lsp import verify as lsp_verify
from click.testing import CliRunner
from pytest_lsp import ClientServerConfig, LanguageClient

from rewriter.cli import main
from rewriter.findings import Finding
from rewriter.lsp.protocol import diagnostic_message

from tests.harness.snippets import TRACED_IF

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "rewriter.cli"]
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.lsp]



def _capabilities(resolve: bool) -> types.ClientCapabilities:
    caps = pytest_lsp.client_capabilities("visual-studio-code")
    if not resolve:  # a client that cannot resolve a code action's edit later (older editors)
        caps.text_document.code_action.resolve_support = None
    return caps


def _client_with_versions() -> LanguageClient:
    """pytest-lsp's client, also keeping the version each diagnostics list was published for."""
    from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, default_converter, register_lsp_features

    def converter():
        # lsprotocol takes any code action with a `command` for a Command, also a CodeAction whose
        # `command` is a Command object ("Verify this fix"): tell them apart by the field's type
        out = default_converter()

        def action_or_command(obj, _):
            return out.structure(obj, types.Command if isinstance(obj.get("command"), str) else types.CodeAction)

        out.register_structure_hook(Union[types.Command, types.CodeAction], action_or_command)
        return out

    client = LanguageClient(converter_factory=converter)
    client.diagnostic_versions = {}
    client.settled = {}  # uri -> the version whose findings the server says are final
    client.verdicts = []  # the `phiml-rewrite/verdict` notifications of "verify this fix"

    def published(client: LanguageClient, params: types.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.diagnostic_versions[params.uri] = params.version

    def settled(client: LanguageClient, params):
        client.settled[params.uri] = params.version

    def verdict(client: LanguageClient, params):
        client.verdicts.append(params)

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: published,
                                   SETTLED: settled, lsp_verify.VERDICT: verdict})
    return client


SERVER = ClientServerConfig(server_command=[*CLI, "lsp"], server_env={"PYTHONPATH": str(ROOT)},
                            client_factory=_client_with_versions)


async def start(lsp_client: LanguageClient, root: Path) -> None:
    """Initialise a session on `root` the way the tests want it: resolve support, no debounce."""
    params = types.InitializeParams(
        capabilities=_capabilities(resolve=True),
        root_uri=root.as_uri(),
        initialization_options={"debounceMs": 0, "idleMs": 0},
    )
    lsp_client.init_result = await lsp_client.initialize_session(params)
    lsp_client.root = root


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await start(lsp_client, tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", config=SERVER)
async def plain_client(lsp_client: LanguageClient, tmp_path_factory):
    """No resolve support, no document changes: edits come inline, as a `changes` map."""
    root = tmp_path_factory.mktemp("plain")
    caps = _capabilities(resolve=False)
    caps.workspace.workspace_edit.document_changes = False
    await lsp_client.initialize_session(types.InitializeParams(capabilities=caps, root_uri=root.as_uri()))
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


# -- helpers -------------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    import io

    return io.StringIO(text, newline="").readlines()


def _offset(text: str, position: types.Position) -> int:
    """An LSP position (UTF-16 code units) as an index into `text`."""
    lines = _lines(text)
    if position.line >= len(lines):
        return len(text)
    line, units, column = lines[position.line], 0, 0
    while column < len(line) and units < position.character:
        units += 2 if ord(line[column]) > 0xFFFF else 1
        column += 1
    return sum(len(x) for x in lines[: position.line]) + column


def apply_edits(text: str, edits) -> str:
    spans = [(_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    edit = action.edit
    if edit.document_changes:
        return [e for change in edit.document_changes if change.text_document.uri == uri for e in change.edits]
    return list(edit.changes[uri])


def cli(text: str, path: Path, *args: str) -> subprocess.CompletedProcess:
    """The CLI on `text` as `path`, run from its folder: in this process (the same code as the command,
    without an interpreter's start-up per call: these tests call it dozens of times)."""
    with contextlib.chdir(path.parent):
        result = CliRunner().invoke(main, ["--stdin-filename", str(path), *args], input=text.encode())
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout_bytes, result.stderr_bytes)


def cli_fixed(text: str, path: Path, *args: str) -> str:
    return cli(text, path, "--quiet", *args).stdout.decode()


async def open_document(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    await diagnostics_for(client, uri, 1)
    return uri


async def diagnostics_for(client: LanguageClient, uri: str, version: int, timeout: float = 60) -> list[types.Diagnostic]:
    """The diagnostics published for `version`, once they are exact (the server settles)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if client.settled.get(uri) == version and client.diagnostic_versions.get(uri) == version \
                and uri in client.diagnostics:
            return client.diagnostics[uri]  # the server said the exact analysis of `version` is shown
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {uri} version {version}")


async def published(client: LanguageClient, uri: str, condition, timeout: float = 60) -> None:
    """Wait until the diagnostics published for `uri` satisfy `condition`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if uri in client.diagnostics and condition(client.diagnostics[uri]):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{uri}: published {client.diagnostics.get(uri)}")


async def barrier(client: LanguageClient) -> None:
    """A positive barrier: a new document's diagnostics. The server lints documents in the order their
    changes arrive, each after the same debounce, so whatever an earlier message caused is published
    by the time this one is; asserting that nothing came needs this, not a pause."""
    barrier.count = getattr(barrier, "count", 0) + 1
    uri = await open_document(client, client.root / f"barrier_{barrier.count}.py", TRACED_IF)
    assert [d.code for d in client.diagnostics[uri]] == ["PML201"]


async def actions_for(client: LanguageClient, uri: str, diagnostic: types.Diagnostic, only=None):
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic], only=only),
    )
    return await client.text_document_code_action_async(params) or []


# -- tests ---------------------------------------------------------------------------------------


async def test_server_announces_incremental_sync_and_code_actions(client: LanguageClient):
    caps = client.init_result.capabilities
    assert client.init_result.server_info.name == "phiml-rewrite"
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.text_document_sync.save
    assert caps.code_action_provider.resolve_provider
    assert {"quickfix", "source.fixAll.phiml-rewrite"} <= {str(getattr(k, "value", k)) for k in caps.code_action_provider.code_action_kinds}


async def test_other_languages_are_left_alone(client: LanguageClient):
    uri = (client.root / "notes.md").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, TRACED_IF)))
    await barrier(client)
    assert uri not in client.diagnostics


async def test_diagnostics_are_the_cli_findings(client: LanguageClient):
    text = (ROOT / "examples" / "phiml_diffusion.py").read_text()
    path = client.root / "phiml_diffusion.py"
    uri = await open_document(client, path, text)
    got = sorted((d.code, d.range.start.line + 1, d.range.start.character) for d in client.diagnostics[uri])
    report = json.loads(cli(text, path, "--check", "--output-format", "json").stderr)
    want = sorted((f["code"], f["span"]["line"], f["span"]["column"]) for f in report["findings"])
    assert got == want and len(got) >= 10
    d = client.diagnostics[uri][0]
    assert d.source == "phiml-rewrite" and d.code_description.href.startswith("file://")
    page = Path(d.code_description.href.removeprefix("file://"))
    assert page.read_text().startswith(f"# {d.code} ")  # the `phiml-rewrite explain CODE` page
    severities = {d.code: d.severity for d in client.diagnostics[uri]}
    assert severities["PML201"] == types.DiagnosticSeverity.Error


async def test_quick_fix_is_a_minimal_edit_and_equals_the_cli(client: LanguageClient):
    path = client.root / "clamp.py"
    uri = await open_document(client, path, TRACED_IF)
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    actions = await actions_for(client, uri, diagnostic)
    fixes = [a for a in actions if a.kind == types.CodeActionKind.QuickFix and "ignore" not in a.title]
    assert len(fixes) == 1 and fixes[0].is_preferred and "PML201" in fixes[0].title
    edits = edits_of(fixes[0], uri)
    # Minimal: the `if` statement's lines, never the whole document.
    assert all(e.range.start.line >= 5 for e in edits)
    fixed = apply_edits(TRACED_IF, edits)
    assert fixed == cli_fixed(TRACED_IF, path)
    assert "math.where" in fixed


async def test_each_quick_fix_of_a_file_is_the_cli_fix_of_that_finding_alone(client: LanguageClient):
    """Every golden case with fixes: a quick fix then the CLI gives what the CLI gives alone."""
    cases = [p for p in sorted((ROOT / "golden").glob("*/*.py")) if not p.name.endswith(".expected.py")
             and p.with_name(p.stem + ".expected.py").exists()][::7]
    assert len(cases) >= 12
    checked = single = 0
    for case in cases:
        text = case.read_text()
        path = client.root / f"{case.parent.name}_{case.name}"
        uri = await open_document(client, path, text)
        cli_result = cli_fixed(text, path, "--unsafe-fixes")
        fixes = []
        for diagnostic in client.diagnostics[uri]:
            actions = await actions_for(client, uri, diagnostic, only=[types.CodeActionKind.QuickFix])
            fixes += [(diagnostic, a) for a in actions if "ignore" not in a.title and a.edit is not None]
        for diagnostic, action in fixes:
            after_one = apply_edits(text, edits_of(action, uri))
            assert after_one != text
            then_cli = cli_fixed(after_one, path, "--unsafe-fixes")
            if len(fixes) == 1:  # the CLI's own fix: the CLI has nothing left to do but what it did next
                assert then_cli == cli_result, (case, diagnostic.code)
                single += after_one == cli_result
            else:  # hoisted definitions of two fixes may come in the other order
                assert sorted(then_cli.splitlines()) == sorted(cli_result.splitlines()), (case, diagnostic.code)
            checked += 1
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert checked >= 12 and single >= 3


async def test_unsafe_fixes_are_offered_and_labelled(client: LanguageClient):
    text = (ROOT / "golden" / "traced-if" / "where_number_broadcast.py").read_text()
    path = client.root / "where_number_broadcast.py"
    uri = await open_document(client, path, text)
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    assert diagnostic.data["fix"] == "unsafe"
    (fix,) = [a for a in await actions_for(client, uri, diagnostic) if "ignore" not in a.title and a.kind == "quickfix"]
    assert fix.title.endswith("[unsafe fix]") and not fix.is_preferred
    assert apply_edits(text, edits_of(fix, uri)) == cli_fixed(text, path, "--unsafe-fixes", "--select", "PML201")


async def test_fix_all_resolves_to_what_the_cli_writes(client: LanguageClient):
    text = (ROOT / "examples" / "phiml_diffusion.py").read_text()
    path = client.root / "fix_all.py"
    uri = await open_document(client, path, text)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]),
    )
    (action,) = await client.text_document_code_action_async(params)
    assert action.kind == "source.fixAll.phiml-rewrite" and action.edit is None  # computed when chosen
    resolved = await client.code_action_resolve_async(action)
    fixed = apply_edits(text, edits_of(resolved, uri))
    assert fixed == cli_fixed(text, path) and fixed != text
    assert len(edits_of(resolved, uri)) > 3  # one edit per place, not one replacing the document


async def test_fix_all_inline_for_clients_without_resolve(plain_client: LanguageClient):
    path = plain_client.root / "clamp.py"
    uri = await open_document(plain_client, path, TRACED_IF)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=["source"]),
    )
    (action,) = await plain_client.text_document_code_action_async(params)
    assert action.edit.changes and not action.edit.document_changes
    assert apply_edits(TRACED_IF, edits_of(action, uri)) == cli_fixed(TRACED_IF, path)


async def test_suppression_action_silences_the_finding(client: LanguageClient):
    path = client.root / "suppress.py"
    uri = await open_document(client, path, TRACED_IF)
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    (ignore,) = [a for a in await actions_for(client, uri, diagnostic) if "ignore" in a.title]
    text = apply_edits(TRACED_IF, edits_of(ignore, uri))
    assert "    if x.mean > 1:  # phiml-rewrite: ignore[PML201]\n" in text
    await change(client, uri, 2, text)
    assert not [d for d in await diagnostics_for(client, uri, 2) if d.code == "PML201"]
    assert cli(text, path, "--check").returncode == 0


async def change(client: LanguageClient, uri: str, version: int, text: str, edits=None) -> None:
    changes = edits or [types.TextDocumentContentChangeWholeDocument(text=text)]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(uri=uri, version=version), changes)
    )


async def test_typing_updates_diagnostics_and_a_syntax_error_keeps_the_last_ones(client: LanguageClient):
    path = client.root / "typing.py"
    clean = TRACED_IF.replace("if x.mean > 1:\n        x = x * 2\n", "x = x * 2\n")
    uri = await open_document(client, path, clean)
    assert list(client.diagnostics[uri]) == []
    # An incremental change, as editors send while typing: the hazard appears inside the function.
    await change(client, uri, 2, "", [types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(5, 4), types.Position(5, 4)), text="if x.mean > 1:\n        ")])
    assert [d.code for d in await diagnostics_for(client, uri, 2)] == ["PML201"]
    broken = TRACED_IF.replace("return x", "return (x")
    await change(client, uri, 3, broken)
    await barrier(client)
    assert [d.code for d in client.diagnostics[uri]] == ["PML201"]  # still shown, no flicker
    assert client.diagnostic_versions[uri] == 2  # nothing published for the broken version
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    for _ in range(100):
        if list(client.diagnostics.get(uri, [None])) == []:
            break
        await asyncio.sleep(0.05)
    assert list(client.diagnostics[uri]) == []


async def test_edits_inside_a_function_give_the_exact_findings(client: LanguageClient):
    """The provisional path (the edited function alone) agrees with the exact analysis it precedes."""
    text = (ROOT / "examples" / "phiml_diffusion.py").read_text()
    path = client.root / "edit_inside.py"
    uri = await open_document(client, path, text)
    line = text.splitlines().index("def simulate_heated(u, dt, steps):") + 1  # its first body line
    await change(client, uri, 2, "", [types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(line, 0), types.Position(line, 0)), text="    u = u * 1\n")])
    got = sorted((d.code, d.range.start.line, d.message) for d in await diagnostics_for(client, uri, 2))
    new_text = "\n".join([*text.splitlines()[:line], "    u = u * 1", *text.splitlines()[line:]]) + "\n"
    report = json.loads(cli(new_text, path, "--check", "--output-format", "json").stderr)
    expected = [Finding.from_dict(f, str(path)) for f in report["findings"]]
    assert got == sorted((f.code, f.span.line - 1, diagnostic_message(f)) for f in expected)


async def test_configuration_of_the_files_project_applies(client: LanguageClient):
    project = client.root / "configured"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.phiml-rewrite]\nignore = ["PML201"]\n')
    uri = await open_document(client, project / "pkg" / "mod.py", TRACED_IF)
    assert list(client.diagnostics[uri]) == []
    (project / "pyproject.toml").write_text('[tool.phiml-rewrite]\n')
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    await published(client, uri, lambda found: [d.code for d in found] == ["PML201"])
    (project / "pyproject.toml").write_text('[tool.phiml-rewrite]\nextend-exclude = ["pkg/"]\n')
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    await published(client, uri, lambda found: list(found) == [])  # excluded: nothing, as `--force-exclude` would say


async def test_positions_are_utf16(client: LanguageClient):
    """Columns count UTF-16 code units (an emoji is two), as LSP clients do by default."""
    text = TRACED_IF.replace("if x.mean > 1:", "if x.mean > len('🙂🙂'):")
    path = client.root / "emoji.py"
    uri = await open_document(client, path, text)
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    condition_end = "    if x.mean > len('🙂🙂')"
    assert diagnostic.range.end.character == len(condition_end.encode("utf-16-le")) // 2 == len(condition_end) + 2
    actions = await actions_for(client, uri, diagnostic)
    (ignore,) = [a for a in actions if a.title.startswith("Ignore")]
    assert edits_of(ignore, uri)[0].range.start.character == len(condition_end) + 3  # after the colon
    (fix,) = [a for a in actions if a.kind == types.CodeActionKind.QuickFix and not a.title.startswith("Ignore")]
    assert apply_edits(text, edits_of(fix, uri)) == cli_fixed(text, path, "--unsafe-fixes")


# -- verify this fix -----------------------------------------------------------------------------

RIGHT_MERGE = """import jax
import jax.numpy as jnp


@jax.jit
def clipped(x):
    if jnp.abs(x).max() > 1.0:
        y = jnp.clip(x, -1.0, 1.0)
    else:
        y = x
    return y


def main():
    return clipped(jnp.array([0.5, 2.0]))
"""
WRONG_MERGE = ROOT / "golden" / "verify-synthesis" / "where_int_dtype" / "original.py"  # falsified: dtype


def _verify_action(actions) -> types.CodeAction:
    (action,) = [a for a in actions if a.command is not None and a.command.command == lsp_verify.COMMAND]
    return action


async def verdict_for(client: LanguageClient, uri: str, timeout: float = 60):
    """Wait for the server's `phiml-rewrite/verdict` notification about `uri` (a positive condition)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        found = [v for v in client.verdicts if v.uri == uri]
        if found:
            client.verdicts = [v for v in client.verdicts if v.uri != uri]
            return found[-1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no verdict for {uri}")


async def verify(client: LanguageClient, action: types.CodeAction):
    """Execute the action's command as an editor does, and wait for the verdict the server announces."""
    command = action.command
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(command.command, command.arguments))
    verdict = await verdict_for(client, command.arguments[0]["uri"])
    assert result["status"] == verdict.status and result["message"] == verdict.message
    return verdict


@pytest.mark.backends
async def test_verify_this_fix_is_offered_on_an_unsafe_fix(client: LanguageClient):
    assert lsp_verify.COMMAND in client.init_result.capabilities.execute_command_provider.commands
    path = client.root / "where_int_dtype.py"
    uri = await open_document(client, path, WRONG_MERGE.read_text())
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    assert diagnostic.data["fix"] == "unsafe"
    action = _verify_action(await actions_for(client, uri, diagnostic))
    assert action.title == "Verify this fix (phiml-rewrite)" and action.edit is None
    assert action.kind == lsp_verify.KIND and list(action.diagnostics) == [diagnostic]
    # a client asking for the verification alone gets it, and nothing else
    only = await actions_for(client, uri, diagnostic, only=[lsp_verify.KIND])
    assert [a.title for a in only] == [action.title]


@pytest.mark.backends
async def test_verify_this_fix_verifies_a_right_merge(client: LanguageClient):
    path = client.root / "clipped.py"
    uri = await open_document(client, path, RIGHT_MERGE)
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    verdict = await verify(client, _verify_action(await actions_for(client, uri, diagnostic)))
    assert verdict.status == "verified" and verdict.function == "clipped"
    assert verdict.message.startswith("verified on jax (") and verdict.complete
    assert any("`clipped`: fix verified on jax" in m.message for m in client.messages)
    (progress,) = [values for values in client.progress_reports.values()
                   if values and getattr(values[0], "title", "") == "Verifying the fix of `clipped`"]
    assert progress[0].kind == "begin" and progress[-1].kind == "end" and progress[-1].message == verdict.message
    await published(client, uri, lambda found: any("\nfix verified on jax (" in d.message for d in found))
    assert not path.exists()  # the buffer was verified, the file was never written


@pytest.mark.backends
async def test_verify_this_fix_falsifies_a_wrong_merge_until_the_text_changes(client: LanguageClient):
    text = WRONG_MERGE.read_text()
    path = client.root / "halve.py"
    uri = await open_document(client, path, text)
    # Unsaved edits count: the buffer, not the file, is verified (the file does not even exist).
    edited = text.replace("def main():", "def other():\n    return None\n\n\ndef main():")
    await change(client, uri, 2, edited)
    (diagnostic,) = [d for d in await diagnostics_for(client, uri, 2) if d.code == "PML201"]
    verdict = await verify(client, _verify_action(await actions_for(client, uri, diagnostic)))
    assert verdict.status == "falsified" and verdict.function == "halve_positive"
    assert verdict.message.startswith("falsified on jax: x=int32[") and "dtype int32 != float32" in verdict.message
    await published(client, uri, lambda found: any("\nfix falsified on jax: x=int32[" in d.message for d in found))
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    (fix,) = [a for a in await actions_for(client, uri, diagnostic) if a.kind == types.CodeActionKind.QuickFix
              and a.edit is not None and "ignore" not in a.title]
    assert fix.title.endswith("[unsafe fix, falsified on jax]")
    await change(client, uri, 3, edited + "\n")
    diagnostics = await diagnostics_for(client, uri, 3)
    assert [d for d in diagnostics if d.code == "PML201"] and not any("\nfix " in d.message for d in diagnostics)


@pytest.mark.backends
async def test_one_verification_per_document_and_the_server_answers_meanwhile(client: LanguageClient):
    path = client.root / "busy.py"
    uri = await open_document(client, path, RIGHT_MERGE)
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    command = _verify_action(await actions_for(client, uri, diagnostic)).command
    params = types.ExecuteCommandParams(command.command, command.arguments)
    first = asyncio.wrap_future(client.workspace_execute_command(params))  # sent now, answered later
    second = await client.workspace_execute_command_async(params)
    assert second["status"] == "busy"
    await barrier(client)  # another document is analysed while the first verification runs
    assert (await first)["status"] == "verified"
    stale = {**command.arguments[0], "version": 99}
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(command.command, [stale]))
    assert answer["status"] == "stale"


@pytest.mark.backends
@pytest.mark.parametrize("how", ["close the document", "cancel the progress"])
async def test_a_verification_can_be_cancelled(client: LanguageClient, how: str):
    name = "closed_soon" if how == "close the document" else "cancelled_soon"
    path = client.root / f"{name}.py"
    uri = await open_document(client, path, RIGHT_MERGE.replace("clipped", name))
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == "PML201"]
    command = _verify_action(await actions_for(client, uri, diagnostic)).command
    answer = asyncio.wrap_future(client.workspace_execute_command(
        types.ExecuteCommandParams(command.command, command.arguments)))
    title = f"Verifying the fix of `{name}`"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not (tokens := [token for token, values in client.progress_reports.items()
                          if values and getattr(values[0], "title", "") == title]):
        assert loop.time() < deadline, "the verification never began"
        await asyncio.sleep(0.05)
    assert client.progress_reports[tokens[0]][0].cancellable
    if how == "close the document":
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    else:  # the cancel button of the editor's progress notification
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(tokens[0]))
    result = await answer
    assert result["status"] == "cancelled" and f"`{name}`" in result["message"]
    assert client.progress_reports[tokens[0]][-1].kind == "end"

def _gone(pid: int) -> bool:
    """The process ended (a zombie nobody has reaped yet counts: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
async def test_cancelling_a_verification_kills_its_workers_too():
    """The verifying process starts worker processes: a cancel ends them all, not only the first."""
    code = ("import subprocess, sys, time\n"
            "worker = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "print(worker.pid, flush=True)\n"
            "time.sleep(60)\n")
    run = lsp_verify.Run()
    run.process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                                   start_new_session=True)
    worker = int(run.process.stdout.readline())
    run.cancel()
    assert run.process.wait(timeout=10) < 0 and run.cancelled
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while not _gone(worker):
        assert loop.time() < deadline, "the worker outlived the cancel"
        await asyncio.sleep(0.05)
