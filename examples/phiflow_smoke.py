"""A small 2D smoke plume with PhiFlow (star import, NumPy backend by default).

Run:  python examples/phiflow_smoke.py

`from phi.flow import *` binds `jit_compile`, `math`, `batch`, ... - phiml-rewrite resolves them through
the star import. On NumPy `jit_compile` is a no-op, but the same code on `phi.jax.flow` / `phi.torch.flow`
re-traces every step. Anti-patterns are marked `# PML3xx`; code marked `# keep` must not change.
"""
import warnings

from phi.flow import *

warnings.filterwarnings("ignore", message="jit_compile.. not supported by numpy")  # expected on NumPy

DOMAIN = dict(x=32, y=32, bounds=Box(x=32, y=32))
INFLOW = Sphere(x=16, y=4, radius=3)
SOLVE = Solve('CG', 1e-4, 1e-4, rank_deficiency=0)


def buoyancy(smoke, velocity, strength):
    return resample(smoke * (0, strength), to=velocity)


def advect_smoke(smoke, velocity, dt):
    return advect.mac_cormack(smoke, velocity, dt) + dt * resample(INFLOW, to=smoke, soft=True)


def step(velocity, smoke, dt=1.0):
    smoke = advect_smoke(smoke, velocity, dt)
    velocity = advect.semi_lagrangian(velocity, velocity, dt) + dt * buoyancy(smoke, velocity, 0.1)
    velocity, _ = fluid.make_incompressible(velocity, (), SOLVE)
    return velocity, smoke


# keep: module-level jit of a module-level function - the right way.
fast_step = jit_compile(step)

# PML303: jit of an already jit-compiled function.
faster_step = jit_compile(fast_step)


def run(velocity, smoke, steps):
    for _ in range(steps):
        # PML302: a fresh JitFunction per iteration (re-traces every step on jax/torch/tf).
        velocity, smoke = jit_compile(step)(velocity, smoke)
    return velocity, smoke


def plume_height(smoke):
    # PML302: the wrapper is rebuilt on every call.
    mass = jit_compile(lambda s: math.sum(s.values, spatial))
    height = jit_compile(lambda s: math.sum(s.values * s.points['y'], spatial))
    return height(smoke) / mass(smoke)


# keep: a factory returning a jitted closure on purpose (one per buoyancy strength).
def make_stepper(strength):
    def custom_step(velocity, smoke):
        smoke = advect_smoke(smoke, velocity, 1.0)
        velocity = advect.semi_lagrangian(velocity, velocity, 1.0) + buoyancy(smoke, velocity, strength)
        return fluid.make_incompressible(velocity, (), SOLVE)[0], smoke

    return jit_compile(custom_step)


def main():
    smoke = CenteredGrid(0, ZERO_GRADIENT, **DOMAIN)
    velocity = StaggeredGrid(0, 0, **DOMAIN)
    velocity, smoke = run(velocity, smoke, steps=6)
    print(f"after 6 steps   : smoke mass {float(math.sum(smoke.values)):.4f}, height {float(plume_height(smoke)):.4f}")
    velocity, smoke = faster_step(velocity, smoke)
    print(f"after 7 steps   : max |v| {float(math.max(math.norm(velocity.at_centers().values, 'vector'))):.4f}")
    strong = make_stepper(0.3)
    v2, s2 = velocity, smoke
    for _ in range(2):
        v2, s2 = strong(v2, s2)
    print(f"2 strong steps  : height {float(plume_height(s2)):.4f}")


if __name__ == "__main__":
    main()
