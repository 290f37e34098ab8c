"""Must not change, even with unsafe fixes: the test logs what compiles (`jax.log_compiles`): a jit built in
the test compiles on its first call; hoisted to module level, it compiles once for every test and the log
shows it where the first test ran. Reported with what the test reads; the same hoist in a test that reads
only values is applied with unsafe fixes (test_collector_names.py)."""
import jax

GOLDEN = {
    "findings": ["PML302:19"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
    "messages": {
        "PML302:19": "not fixed: this test inspects the structure the fix changes: the compiles (`log_compiles`)",
    },
}


def test_compiles_logged():
    f = jax.jit(lambda x: x ** 3)
    with jax.log_compiles():
        assert f(2.0) == 8.0
    return f(3.0)


def golden_run():
    return [test_compiles_logged()]
