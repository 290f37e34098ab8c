"""`phiml-rewrite verify PATH` without a program: synthesized inputs for every changed function.

`store` keeps the calls `verify --run`/`--pytest` recorded (`recorded` converts them after a run),
`values` describes an argument from source (literals, array constructors), `callsites` and
`annotations` read those descriptions from the calls and signatures, `plan` turns them into the
signatures to draw from (or the reason there are none), `strategies` draws inputs with Hypothesis,
`worker` compares the original (eager) with the rewrite (jitted) in a process per backend, `run`
starts the workers, `report` and `display` judge and draw, `command` ties it together for the CLI.
"""
