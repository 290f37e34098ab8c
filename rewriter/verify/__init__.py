"""Run original and rewritten code on every backend and compare with the original's eager result.

`rewriter/runtime/` runs inside the verified process (backend, eager mode, recording, trace counts,
replay); `workspace` mirrors the project, `session` runs the backend x version x eager/jit matrix, `report`
turns records into verdicts, `display` draws them, `command` ties it together for the CLI; `child`,
`run` and `golden` are the golden-case harness on the same runtime; `values` compares results.
"""
