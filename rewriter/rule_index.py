"""Every rule's code, name, fix safety, severity and summary (registry.Rule): for selecting and
listing rules without importing them.

Generated from the rules in codemods/ by `python -m rewriter.registry`; tests/test_rules.py checks it.
"""

RULES = (
    ('PML101', 'temporary-function', 'safe', 'warning', 'a lambda or nested def passed to a solver or jit function is lifted to module level'),
    ('PML102', 'nested-jit-definition', 'safe', 'warning', 'a jit-compiled def nested in a function re-traces on every call: it is lifted to module level'),
    ('PML201', 'traced-if', 'safe/unsafe', 'error', 'a Python `if` on a traced value fails or silently bakes in one branch under jit: select with where/cond'),
    ('PML202', 'traced-for', 'safe/unsafe', 'error', 'a `for` loop over a traced trip count fails or silently keeps one count under jit: use fori_loop / a masked loop'),
    ('PML203', 'traced-while', 'safe/unsafe', 'error', 'a `while` on a traced condition fails or silently repeats one count under jit: use while_loop / a masked loop'),
    ('PML204', 'static-count-argument', 'safe/unsafe', 'error', 'a parameter used as a count, flag or size is traced by jit: declare it static (auxiliary_args / static_argnames)'),
    ('PML205', 'auxiliary-args-mismatch', 'safe/unsafe', 'error', 'an `auxiliary_args` name that is not a parameter is silently ignored: fix the spelling'),
    ('PML206', 'unrolled-loop', 'safe/unsafe', 'warning', 'a long or data-length Python loop inside jit unrolls into the trace: jax.lax.scan'),
    ('PML301', 'vmap-of-jit', 'safe', 'warning', 'jit should be the outermost transform: `vmap(jit(f))` becomes `jit(vmap(f))`'),
    ('PML302', 'jit-in-loop', 'safe', 'warning', 'a jit wrapper built inside a loop or on every call is hoisted so its traces are reused'),
    ('PML303', 'redundant-jit', 'safe', 'info', 'jit of an already-jitted function, or jit inside a jitted body, is removed'),
    ('PML304', 'map-of-jit', 'unsafe', 'warning', '`math.map` of a jitted function over batch dims: call it on the batched tensor instead'),
    ('PML401', 'retracing', 'safe', 'warning', 'a jit function called in a loop with a key that changes every iteration: re-traced every call'),
    ('PML501', 'side-effect-in-jit', 'display', 'warning', "a jit-compiled function stores a value outside itself, writes into its caller's container, or prints a traced value: once per trace, or lost"),
    ('PML502', 'nested-custom-gradient', 'safe/unsafe', 'warning', 'a custom-gradient forward calls another custom-gradient function: call its `.f` (fails under jit on torch)'),
    ('PML503', 'network-in-jit', 'display', 'warning', 'a PhiML network called or trained inside a jit-compiled function: stale weights on jax'),
    ('PML504', 'gradient-in-jit', 'display', 'warning', '`math.gradient` inside a jit-compiled function, or jit of a gradient function: fails on tensorflow'),
    ('PML505', 'solve-tape-in-jit', 'display', 'warning', '`math.SolveTape` inside or around a jit-compiled function: it records tracers, or nothing'),
    ('PML506', 'static-self', 'display', 'warning', 'a method jitted with `self` static, on a class whose attributes change: the trace keeps the old values'),
    ('PML507', 'cond-under-vmap', 'display', 'info', '`lax.cond` in a vmapped function: with a batched predicate both branches run for every element'),
    ('PML601', 'functional-gradient', 'safe', 'error', '`math.functional_gradient` (PhiFlow 2) is `math.gradient`; `wrt` by position becomes parameter names'),
    ('PML602', 'phi-math-alias', 'safe/unsafe', 'error', 'a PhiFlow 2 `phi.math` name missing from `phiml.math` (`divide_no_nan`, `isfinite`, ...) is renamed to the PhiML function'),
    ('PML603', 'jax-tree-api', 'safe', 'error', '`jax.tree_map` and the other removed top-level pytree functions become `jax.tree.map` etc.'),
    ('PML604', 'jax-removed-api', 'safe/unsafe', 'error', 'a removed jax alias (`jnp.product`, `jnp.NINF`, `random.KeyArray`, `lax.tie_in`, ...) becomes what it was'),
    ('PML605', 'removed-keyword', 'safe', 'error', 'a keyword that PhiFlow 2 accepted (`Solve(relative_tolerance=)`, `solve_linear(f_args=)`) is passed the installed way'),
)
