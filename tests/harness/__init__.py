"""What the tests are built on, apart from the tests: the golden-case harness (`golden_cases`,
`golden_checks`, `golden_batches`, `snapshots`, `notebook_kernel`), the real-code checks
(`real_code*`, `corpus_check`, `import_probe`) and shared snippets. Entry points run as modules:
`python -m tests.harness.snapshots --accept`, `python -m tests.harness.real_code --accept`,
`python -m tests.harness.corpus_check`."""
