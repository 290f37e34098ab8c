"""`phiml-rewrite verify PATH` without a program: synthesized inputs for every changed function.

`store` keeps the calls `verify --run`/`--pytest` recorded (`recorded` converts them after a run),
`values` describes an argument from source (literals; `constructors`, `operators` and `shapes`
follow array constructors and what is computed from them), `flow` follows names through a scope,
`callsites` and `annotations` read those descriptions from the calls (and their callers) and
signatures, `plan` turns them into the signatures to draw from (or the reason there are none),
`testcases` runs changed tests as written, `abstract` and `branches` prove branch merges with
`jax.eval_shape`, `strategies` draws inputs with Hypothesis,
`worker` compares the original (eager) with the rewrite (jitted) in a process per backend, `run`
starts the workers, `report` and `display` judge and draw, `command` ties it together for the CLI.
"""
