"""Random-generator states: seeded at start-up, captured before recorded calls, restored for replay.

Every verified process starts from the same seeds, so that runs of one program draw the same
numbers; and the recorder captures, with the inputs of a call, the state of every generator the call
could draw from, so that replay calls the rewritten function from exactly the state the original
call saw (whatever the program drew before it). The sources, each once its framework is imported:

    python      `random`'s global generator
    numpy       NumPy's global generator (`np.random.normal`; PhiML's numpy backend)
    torch       torch's default generator, and CUDA's once initialised (PhiML's torch backend)
    tensorflow  the global seed with the generator that derives each op's seed from it
                (`tf.random.normal`; PhiML's tensorflow backend) and `tf.random.get_global_generator()`
    phiml       the key PhiML's jax backend splits for every draw (`JaxBackend.rnd_key`)

Raw jax has no global generator: its keys are arguments, recorded with the inputs. A generator the
program creates unseeded (`np.random.default_rng()`, `torch.Generator().seed()`, `os.urandom`)
cannot be pinned: verify tells that apart by running the original twice (see `report`).
"""
from __future__ import annotations

import sys


def seed_python_and_numpy(seed: int) -> None:
    import random

    random.seed(seed)
    try:
        import numpy
    except ImportError:
        return
    numpy.random.seed(seed)


def seed_torch(torch, seed: int) -> None:
    torch.manual_seed(seed)


def seed_tensorflow(tf, seed: int) -> None:
    """Without a global seed every `tf.random.normal` is seeded by the OS: a program would not even
    agree with itself. The global generator is seeded when the program first asks for it."""
    tf.random.set_seed(seed)
    try:
        _seed_global_generator_when_created(seed)
    except (ImportError, AttributeError):  # another tensorflow's internals: its generator stays unseeded
        pass


def _seed_global_generator_when_created(seed: int) -> None:
    """`get_global_generator` creates the generator from OS entropy on first use; creating a seeded
    one now instead would start TensorFlow's runtime at import, before the program can configure its
    devices. So its creation, and only that (a generator the program makes itself stays as asked),
    is given the seed."""
    from tensorflow.python.ops import stateful_random_ops

    generator = stateful_random_ops.Generator
    if stateful_random_ops.global_generator is not None:
        stateful_random_ops.global_generator.reset_from_seed(seed)
        return
    unseeded = generator.from_non_deterministic_state.__func__
    creator = stateful_random_ops.get_global_generator.__code__

    def seeded_if_global(cls, alg=None):
        if sys._getframe(1).f_code is creator:
            return cls.from_seed(seed, alg=alg)
        return unseeded(cls, alg)

    generator.from_non_deterministic_state = classmethod(seeded_if_global)


# -- capture and restore ----------------------------------------------------------------------------

def _python():
    random = sys.modules.get("random")
    return random.getstate() if random is not None else None


def _set_python(state) -> None:
    import random

    random.setstate(state)


def _numpy():
    numpy = sys.modules.get("numpy")
    return numpy.random.get_state() if numpy is not None and hasattr(numpy, "random") else None


def _set_numpy(state) -> None:
    import numpy

    numpy.random.set_state(state)


def _torch():
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "get_rng_state"):
        return None
    cuda = [s.numpy() for s in torch.cuda.get_rng_state_all()] if torch.cuda.is_initialized() else None
    return {"cpu": torch.get_rng_state().numpy(), "cuda": cuda}


def _set_torch(state) -> None:
    import torch

    torch.set_rng_state(torch.from_numpy(state["cpu"]))
    if state["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([torch.from_numpy(s) for s in state["cuda"]])


def _tensorflow():
    tf = sys.modules.get("tensorflow")
    if tf is None or not hasattr(tf, "random"):  # not imported, or still importing
        return None
    from tensorflow.python.eager import context
    from tensorflow.python.ops import stateful_random_ops

    eager = context.context()
    ops = getattr(eager, "_rng", None)  # derives each op's seed from the global seed
    generator = stateful_random_ops.global_generator
    return {"seed": eager._seed, "ops": ops.getstate() if ops is not None else None,
            "generator": (generator.state.numpy(), generator.algorithm) if generator is not None else None}


def _set_tensorflow(state) -> None:
    import tensorflow as tf
    from tensorflow.python.eager import context

    # also empties the kernel cache: a random op's kernel, once created for a pair of seeds, would
    # otherwise continue its sequence when the restored state hands out the same op seed again
    context.set_global_seed(state["seed"])
    if state["ops"] is not None:
        context.context()._rng.setstate(state["ops"])
    if state["generator"] is not None:
        values, algorithm = state["generator"]
        generator = tf.random.get_global_generator()
        if generator.algorithm == algorithm:
            generator.reset(values)
        else:
            tf.random.set_global_generator(tf.random.Generator.from_state(values, algorithm))


def _phiml():
    backends = sys.modules.get("phiml.backend._backend")
    if backends is None:
        return None
    return {b.name: _key_data(b.rnd_key) for b in backends.BACKENDS if getattr(b, "rnd_key", None) is not None} or None


def _key_data(key):
    import jax
    import numpy

    if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
        return numpy.asarray(jax.random.key_data(key)), str(jax.random.key_impl(key))
    return numpy.asarray(key), None


def _set_phiml(state) -> None:
    import jax
    import jax.numpy as jnp
    from phiml.backend._backend import BACKENDS

    for backend in BACKENDS:
        if backend.name in state:
            data, impl = state[backend.name]
            backend.rnd_key = jax.random.wrap_key_data(data, impl=impl) if impl else jnp.asarray(data)


SOURCES = {"python": (_python, _set_python), "numpy": (_numpy, _set_numpy), "torch": (_torch, _set_torch),
           "tensorflow": (_tensorflow, _set_tensorflow), "phiml": (_phiml, _set_phiml)}


def capture() -> dict:
    """The state of every generator this process has: what `restore` needs to draw the same numbers.
    A source that cannot be read (a jax key leaked from a trace) is left out, never an error."""
    states = {}
    for name, (read, _) in SOURCES.items():
        try:
            state = read()
        except Exception:
            continue
        if state is not None:
            states[name] = state
    return states


def restore(states: dict) -> list[str]:
    """Set the generators to `states` (from `capture`); the names of those that could not be set."""
    failed = []
    for name, state in states.items():
        try:
            SOURCES[name][1](state)
        except Exception:
            failed.append(name)
    return failed
