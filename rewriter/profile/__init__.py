"""`phiml-rewrite profile`: run a program, record who traces and why, feed the findings back.

`run` starts the program once per backend with the runtime's profiler installed (see
`rewriter.runtime.profiling`), `report` turns the records into verdicts and advice,
`display` prints them, `fix` hands the evidence to PML401.
"""
