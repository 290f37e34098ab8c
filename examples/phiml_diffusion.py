"""Heat diffusion in a batch of 1D rods, written with PhiML.

Run:  python examples/phiml_diffusion.py [jax|torch|tensorflow|numpy]   (default: jax)

Anti-patterns phiml-rewrite should fix are marked `# PMLxxx`; code marked `# keep` must not change.
"""
import sys

from phiml import math
from phiml.math import batch, spatial


def diffuse(u, dt):
    """One explicit Euler step of du/dt = laplace(u), rod ends held at zero."""
    return u + dt * math.laplace(u, padding=0)


def total_heat(u):
    return math.sum(u, spatial)


# PML303: `fast_diffuse` is already jit-compiled; compiling it again only adds a wrapper.
fast_diffuse = math.jit_compile(diffuse)
fast_diffuse_twice = math.jit_compile(fast_diffuse)


def simulate(u, dt, steps):
    for _ in range(steps):
        # PML302: a new JitFunction every iteration -> PhiML re-traces every single step.
        u = math.jit_compile(diffuse)(u, dt)
    return u


def heat_report(u):
    # PML302: the wrapper is rebuilt on every call of heat_report (one trace per call).
    heat = math.jit_compile(total_heat)
    return heat(u)


@math.jit_compile
def two_steps(u, dt):
    # PML303: jit inside an already jit-compiled body does nothing but trace twice.
    u = math.jit_compile(diffuse)(u, dt)
    return diffuse(u, dt)


def simulate_batch(u, dt, steps):
    for _ in range(steps):
        # PML304 (unsafe fix): Python loop over the batch, one jit call per rod.
        # `diffuse` is vectorised over batch dims, so call it on the whole batch instead.
        u = math.map(fast_diffuse, u, dt, dims=batch)
    return u


def implicit_step(u, dt):
    """Backward Euler: solve (1 - dt * laplace) u_new = u."""
    # PML101: the operator is a new function on every call -> its matrix is traced on every call.
    # `dt` is captured: the lifted operator takes it as an argument, passed through solve_linear.
    operator = math.jit_compile_linear(lambda v: v - dt * math.laplace(v, padding=0))
    return math.solve_linear(operator, u, math.Solve('CG', 1e-5, 1e-5, x0=u))


def smooth(u, passes):
    # PML102: a jit-compiled def nested in the function -> traced again on every call of smooth.
    @math.jit_compile
    def blur(v):
        return 0.25 * math.shift(v, (-1,), padding=0)[0] + 0.5 * v + 0.25 * math.shift(v, (1,), padding=0)[0]

    for _ in range(passes):
        u = blur(u)
    return u


@math.jit_compile
def limited_step(u, dt):
    # PML201: a Python `if` on a traced value - raises on jax and tensorflow, and on torch silently
    # keeps the branch of the first call for every later call.
    if (u > 0.8).any:
        u = u * 0.9
    return diffuse(u, dt)


@math.jit_compile
def relax(u, dt, sweeps: int):
    # PML204: `sweeps` is a Python int, but jit_compile traces int arguments: the loop needs it static.
    for _ in range(sweeps):
        u = diffuse(u, dt)
    return u


@math.jit_compile(auxiliary_args="t")
def heated_step(u, dt, t):
    """A step with a heat source that decays in time."""
    return diffuse(u, dt) + dt * math.exp(-t) * 0.1


def simulate_heated(u, dt, steps):
    t = 0.0
    for _ in range(steps):
        # PML401: the auxiliary `t` is new on every step -> one trace per step, and PhiML keeps them all.
        u = heated_step(u, dt, t)
        t += dt
    return u


# keep: a factory that returns a jit-compiled closure on purpose (one per conductivity).
def make_stepper(alpha):
    def step(u, dt):
        return u + alpha * dt * math.laplace(u, padding=0)

    return math.jit_compile(step)


# keep: static control flow - `steps` is an auxiliary (Python int) argument, one trace per value.
@math.jit_compile(auxiliary_args="steps")
def run_fixed(u, dt, steps: int):
    for _ in range(steps):
        u = diffuse(u, dt)
    if steps > 2:  # a Python int, not a traced value
        u = math.clip(u, 0, 1)
    return u


def conductivity_sweep(u, dt):
    results = []
    for alpha in (0.5, 1.0, 2.0):
        # keep: the jitted lambda captures the loop variable `alpha`; it cannot leave the loop.
        step = math.jit_compile(lambda v, h: v + alpha * h * math.laplace(v, padding=0))
        results.append(float(step(u, dt).max))
    return results


def main(backend="jax"):
    math.use(backend)
    math.seed(0)
    x = math.linspace(0, 1, spatial(x=64))
    rods = math.stack([math.exp(-((x - c) / 0.05) ** 2) for c in (0.3, 0.5, 0.7)], batch(rod=3))
    dt = 0.2

    u_single = simulate(rods.rod[0], dt, steps=12)
    u_batch = simulate_batch(rods, dt, steps=12)
    u_twice = fast_diffuse_twice(rods, dt)
    u_two = two_steps(rods, dt)
    u_fixed = run_fixed(rods, dt, steps=3)
    heats = [float(heat_report(u_batch.rod[i])) for i in range(3)]
    stepped = make_stepper(0.5)(rods, dt)
    implicit = rods
    for _ in range(3):
        implicit = implicit_step(implicit, dt)
    smoothed = [smooth(rods.rod[i], 2) for i in range(3)]
    limited = [limited_step(rods, dt), limited_step(rods * 0.5, dt)]
    relaxed = [relax(rods, dt, 2), relax(rods, dt, 3)]
    heated = simulate_heated(rods, dt, steps=12)

    print(f"backend            : {backend}")
    print(f"max single rod     : {float(u_single.max):.6f}")
    print(f"max per rod (batch): {[round(v, 6) for v in math.max(u_batch, spatial).numpy('rod').tolist()]}")
    print(f"heat per rod       : {[round(h, 4) for h in heats]}")
    print(f"one/two steps max  : {float(u_twice.max):.6f} {float(u_two.max):.6f}")
    print(f"3 fixed steps max  : {float(u_fixed.max):.6f}")
    print(f"stepper(0.5) max   : {float(stepped.max):.6f}")
    print(f"sweep max          : {[round(v, 6) for v in conductivity_sweep(rods, dt)]}")
    print(f"implicit max       : {float(implicit.max):.6f}")
    print(f"smoothed max       : {[round(float(v.max), 6) for v in smoothed]}")
    print(f"limited max        : {[round(float(v.max), 6) for v in limited]}")
    print(f"relaxed max        : {[round(float(v.max), 6) for v in relaxed]}")
    print(f"heated max         : {float(heated.max):.6f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "jax")
