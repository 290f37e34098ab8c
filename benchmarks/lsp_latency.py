"""Language-server latency on files of about 1,000 lines, through a real LSP client over stdio.

Measured per file:
- open: `didOpen` -> diagnostics (the exact analysis of the whole file, cold);
- change: `didChange` (one line typed at the top of a function body, or deleted again, after a
  pause) -> the first diagnostics for that version (the provisional analysis of the edited function);
- code action: `textDocument/codeAction` for one diagnostic (quick fix with its minimal edit, and
  the suppression action) once the analysis is settled;
- fix-all: `codeAction/resolve` of `source.fixAll.phiml-rewrite` (the CLI's whole fixpoint).

The reference run, in this process: libcst parsing the same file once (`parse`), so the figures also
read as multiples of the cheapest thing any libcst tool does with the file.
"""
from __future__ import annotations

import ast
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ._common import REPO, package_dir

DIAGNOSTICS_BUDGET_MS = 200
CODE_ACTION_BUDGET_MS = 100
EDITS_PER_FILE = 12  # functions edited per file (a line typed, then deleted: two changes each)
SETTLE_S = 2.5  # the pause after a change: longer than an exact analysis of the file


def _files(workdir: Path) -> list[tuple[str, Path]]:
    """Two real library files of the domain and a dense worst case (a hazard every 15 lines)."""
    out = []
    for label, package, rel in (("phiml/math/_optimize.py", "phiml", "math/_optimize.py"),
                                ("phi/field/_field_math.py", "phi", "field/_field_math.py")):
        try:
            source = package_dir(package) / rel
        except ModuleNotFoundError:
            continue
        target = workdir / source.name
        target.write_text(source.read_text())
        out.append((label, target))
    dense = workdir / "dense_diffusion.py"
    dense.write_text(_dense_module(REPO / "examples" / "phiml_diffusion.py", copies=7))
    out.append(("examples/phiml_diffusion.py definitions x7, renamed (dense)", dense))
    return out


def _dense_module(example: Path, copies: int) -> str:
    """The example's imports once, then its definitions `copies` times, each copy's top-level names
    suffixed (`diffuse_2`, ...): a 1,000-line module with a hazard every 15 lines and no duplicate names."""
    import libcst as cst

    module = cst.parse_module(example.read_text())
    imports = [s for s in module.body if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], (cst.Import, cst.ImportFrom))]
    definitions = [s for s in module.body if s not in imports and not isinstance(s, cst.If)  # not `if __name__ == ...`
                   and not (isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr))]  # nor the docstring
    names = {s.name.value for s in definitions if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    names |= {t.target.value for s in definitions if isinstance(s, cst.SimpleStatementLine)
              for a in s.body if isinstance(a, cst.Assign) for t in a.targets if isinstance(t.target, cst.Name)}

    class Suffix(cst.CSTTransformer):
        def __init__(self, k: int) -> None:
            super().__init__()
            self.k = k

        def leave_Name(self, original, updated):
            return updated.with_changes(value=f"{updated.value}_{self.k}") if updated.value in names else updated

    body = [s for k in range(1, copies + 1) for s in cst.Module(body=definitions).visit(Suffix(k)).body]
    return module.with_changes(body=[*imports, *body]).code


def _body_starts(text: str) -> list[tuple[int, str]]:
    """(0-based line, indentation) of the first body line of each top-level def and method."""
    tree, lines = ast.parse(text), text.splitlines()
    defs = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            defs += [s for s in stmt.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.append(stmt)
    out = []
    for node in defs:
        first = node.body[0]
        line = lines[first.lineno - 1]
        if first.lineno > node.lineno and not line[: first.col_offset].strip():
            out.append((first.lineno - 1, line[: first.col_offset]))
    step = max(1, len(out) // EDITS_PER_FILE)
    return out[::step][:EDITS_PER_FILE]


class _Client:
    """A pygls client that timestamps every publishDiagnostics by (uri, version)."""

    def __init__(self) -> None:
        from lsprotocol import types
        from pygls.lsp.client import BaseLanguageClient

        self.types = types
        self.client = BaseLanguageClient("phiml-rewrite-bench", "1")
        self.published: dict[tuple[str, int | None], list[tuple[float, list]]] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _published(params):
            self.published.setdefault((params.uri, params.version), []).append((time.perf_counter(), params.diagnostics))

    async def start(self, root: Path) -> None:
        types = self.types
        await self.client.start_io(sys.executable, "-m", "rewriter.cli", "lsp")
        caps = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                code_action=types.CodeActionClientCapabilities(
                    resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]))),
            workspace=types.WorkspaceClientCapabilities(workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)),
        )
        await self.client.initialize_async(types.InitializeParams(capabilities=caps, root_uri=root.as_uri()))
        self.client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def wait(self, uri: str, version: int, count: int = 1, timeout: float = 120) -> list[tuple[float, list]]:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            got = self.published.get((uri, version), [])
            if len(got) >= count:
                return got
            await asyncio.sleep(0.002)
        raise TimeoutError(f"no diagnostics #{count} for {uri} version {version}")

    async def settle(self, uri: str, version: int, quiet: float = 1.5) -> list:
        """The last diagnostics for `version`, once nothing more has come for `quiet` seconds."""
        await self.wait(uri, version)
        while True:
            n = len(self.published[(uri, version)])
            await asyncio.sleep(quiet)
            if len(self.published[(uri, version)]) == n:
                return self.published[(uri, version)][-1][1]


async def _measure_file(bench: _Client, path: Path) -> dict:
    types = bench.types
    client = bench.client
    text = path.read_text()
    uri = path.as_uri()
    t0 = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    opened = (await bench.wait(uri, 1))[0][0] - t0
    diagnostics = await bench.settle(uri, 1)

    first_ms = []
    version = 1
    for line, indent in _body_starts(text):
        typed = types.TextDocumentContentChangePartial(  # a line typed at the top of the body
            range=types.Range(types.Position(line, 0), types.Position(line, 0)), text=f"{indent}_probe = 1\n")
        undone = types.TextDocumentContentChangePartial(  # and deleted again: the original file
            range=types.Range(types.Position(line, 0), types.Position(line + 1, 0)), text="")
        for change in (typed, undone):
            version += 1
            t0 = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
            first_ms.append(((await bench.wait(uri, version))[0][0] - t0) * 1e3)
            # After a pause: the exact analysis that follows has finished (it publishes only if it differs).
            diagnostics = await bench.settle(uri, version, quiet=SETTLE_S)

    action_ms, fixes = [], 0
    for diagnostic in list(diagnostics)[:12]:
        params = types.CodeActionParams(types.TextDocumentIdentifier(uri), diagnostic.range,
                                        types.CodeActionContext(diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix]))
        t0 = time.perf_counter()
        actions = await client.text_document_code_action_async(params)
        action_ms.append((time.perf_counter() - t0) * 1e3)
        fixes += sum(1 for a in actions or [] if not a.title.startswith("Ignore"))
    fix_all_ms = None
    if diagnostics:
        params = types.CodeActionParams(types.TextDocumentIdentifier(uri), types.Range(types.Position(0, 0), types.Position(0, 0)),
                                        types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]))
        actions = await client.text_document_code_action_async(params)
        if actions:
            t0 = time.perf_counter()
            await client.code_action_resolve_async(actions[0])
            fix_all_ms = (time.perf_counter() - t0) * 1e3
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    return {
        "lines": len(text.splitlines()),
        "findings": len(diagnostics),
        "open_ms": round(opened * 1e3),
        "change_ms": _summary(first_ms),
        "code_action_ms": _summary(action_ms),
        "quick_fixes_offered": fixes,
        "fix_all_resolve_ms": None if fix_all_ms is None else round(fix_all_ms),
    }


def _summary(values: list[float]) -> dict | None:
    if not values:
        return None
    ordered = sorted(values)
    return {"n": len(ordered), "median": round(statistics.median(ordered)), "p90": round(ordered[int(0.9 * (len(ordered) - 1))]),
            "max": round(ordered[-1])}


def _reference_parse_ms(path: Path) -> float:
    import libcst as cst

    source = path.read_bytes()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        cst.parse_module(source)
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


async def _run_all() -> dict:
    out = {}
    with tempfile.TemporaryDirectory(prefix="phiml-lsp-bench-") as tmp:
        root = Path(tmp)
        bench = _Client()
        await bench.start(root)
        try:
            for label, path in _files(root):
                result = await _measure_file(bench, path)
                result["libcst_parse_ms"] = round(_reference_parse_ms(path), 1)
                out[label] = result
        finally:
            await bench.stop()
    return out


def run(repeats: int = 1) -> dict:
    files = asyncio.run(_run_all())
    ok = bool(files)
    for result in files.values():
        if result["change_ms"] and result["change_ms"]["median"] > DIAGNOSTICS_BUDGET_MS:
            ok = False
        if result["code_action_ms"] and result["code_action_ms"]["median"] > CODE_ACTION_BUDGET_MS:
            ok = False
    return {"ok": ok, "files": files, "budgets_ms": {"diagnostics": DIAGNOSTICS_BUDGET_MS, "code_action": CODE_ACTION_BUDGET_MS}}


def report(res: dict) -> str:
    rows = [f"budgets (median): diagnostics after a change < {DIAGNOSTICS_BUDGET_MS} ms, code action < {CODE_ACTION_BUDGET_MS} ms"]
    for label, r in res["files"].items():
        parse = r["libcst_parse_ms"]

        def fmt(s, parse=parse):
            if not s:
                return "-"
            return f"median {s['median']} ms ({s['median'] / parse:.1f}x parse), p90 {s['p90']}, max {s['max']} (n={s['n']})"

        rows += [
            f"{label}: {r['lines']} lines, {r['findings']} findings; reference libcst parse {parse} ms",
            f"  open -> diagnostics (exact, cold)     {r['open_ms']} ms ({r['open_ms'] / parse:.1f}x parse)",
            f"  change -> diagnostics                 {fmt(r['change_ms'])}",
            f"  code action (quick fix + ignore)      {fmt(r['code_action_ms'])}; {r['quick_fixes_offered']} quick fixes",
            f"  fix-all resolve (whole fixpoint)      {r['fix_all_resolve_ms']} ms",
        ]
    return "\n".join(rows)
