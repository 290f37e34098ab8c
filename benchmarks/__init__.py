"""Benchmarks of phiml-rewrite: run all with `python -m benchmarks` (or `make bench`).

  throughput  phiml-rewrite --check, cold and warm, vs libcst's no-op codemod and Fixit over a dense
              corpus (phiml, phi, equinox, diffrax, examples/, golden/) and the whole one (plus jax):
              CPU-time ratios measured in the same run, against the targets of issue 21.
  real_code   --in-place --unsafe-fixes over copies of jax, phiml and phi: no crash, everything parses,
              untouched files byte-identical, second run a no-op; findings per code, changed files.
  jit_order   runtime effect of the PML301-PML304 rewrites on small programs (original vs CLI output vs
              hand-written rewrite), as speedup ratios measured in one process.

Each module has `run(...) -> dict` (JSON-serialisable, with an `ok` flag), `report(dict) -> str` and a
`main()`; `python -m benchmarks NAME ...` runs a selection and writes bench-out/results.json.
"""
