"""The machine code of the max kernels: vector max instructions, no masked stores.

The block kernels (lane vectors, :mod:`dicelab.engine.kernels.lanes`) are checked the same
way, and for the absence of scalar maxima and sums.

A per-lane ``a if a > b else b`` written straight back to memory compiles to a
compare and a masked store (slow on AMD cores); the kernels take their maxima in
registers and store a row once. This checks the generated x86 code says so.
"""

import platform
import re

import numpy as np
import pytest
from numba import njit

from dicelab.engine import kernels
from dicelab.engine.kernels import blocks, turn

pytestmark = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64"), reason="checks x86 instructions"
)


def instructions(func, *args) -> set[str]:
    """Mnemonics of a fresh (uncached) compile of ``func`` for these arguments."""
    fresh = njit(fastmath=kernels.FAST)(func.py_func)
    fresh(*args)
    asm = "\n".join(fresh.inspect_asm().values())
    return set(re.findall(r"^\s+([a-z][a-z0-9]*)\b", asm, re.M))


@pytest.mark.parametrize(("dtype", "vmax"), [(np.float64, "maxpd"), (np.float32, "maxps")])
@pytest.mark.parametrize("func", [turn.max_into, turn.max_of])
def test_max_kernels_use_vector_max_and_plain_stores(func, dtype, vmax):
    rows = [np.zeros(64, dtype) for _ in range(4)]
    ops = instructions(func, *rows, 64)
    assert any(op.endswith(vmax) for op in ops), sorted(ops)
    assert not any("maskmov" in op for op in ops), sorted(ops)


def lane_vector_instructions(func, *args) -> set[str]:
    """Mnemonics of a fresh compile of a kernel built on lane vectors."""
    fresh = njit(func.py_func)
    fresh(*args)
    asm = "\n".join(fresh.inspect_asm().values())
    return set(re.findall(r"^\s+([a-z][a-z0-9]*)\b", asm, re.M))


def registers_used(func, *args) -> set[str]:
    """The vector registers (xmm, ymm, zmm) a fresh compile of ``func`` names."""
    fresh = njit(func.py_func)
    fresh(*args)
    asm = "\n".join(fresh.inspect_asm().values())
    return set(re.findall(r"%([xyz]mm)\d+", asm))


@pytest.mark.parametrize(("dtype", "suffix"), [(np.float64, "pd"), (np.float32, "ps")])
def test_block_kernels_compile_to_whole_vector_operations(dtype, suffix):
    """The block kernels take a keep's maximum and mean with packed instructions
    only: no scalar max or add on a lane, no masked store (on AVX2 a ``vmaskmov``,
    which AMD cores run slowly), on whatever CPU the kernels are compiled for."""
    from dicelab.engine.kernels import lanes
    from dicelab.rules import load_rules
    from dicelab.rules.compiled import compile_rules

    space = compile_rules(load_rules("yahtzee")).space
    A = np.zeros((space.add.shape[0], lanes.lanes_of(np.dtype(dtype).itemsize)), dtype)
    best = lane_vector_instructions(blocks.best_block, A, space.sub_rows)
    keep = lane_vector_instructions(
        blocks.keep_block, A, space.add, space.size_start, space.dice, space.faces
    )
    vex = lanes.target_vector_bytes() >= 32  # AVX2 or AVX-512: three-operand forms, FMA
    assert f"{'v' if vex else ''}max{suffix}" in best, sorted(best)
    assert f"{'v' if vex else ''}add{suffix}" in keep, sorted(keep)
    if vex:  # SSE alone has no fused multiply-add
        assert any(op.startswith("vfmadd") for op in keep), sorted(keep)
    for ops in (best, keep):
        assert not any("maskmov" in op for op in ops), sorted(ops)
        scalar = {"vmaxss", "vmaxsd", "vaddss", "vaddsd", "maxss", "maxsd", "addss", "addsd"}
        assert not scalar & ops, sorted(scalar & ops)


def test_block_kernels_use_the_widest_registers_of_the_target():
    """A 64-byte row is one register with AVX-512, two with AVX2, four with SSE: the
    compiled kernel works in the widest registers the CPU compiled for has."""
    from dicelab.engine.kernels import lanes
    from dicelab.rules import load_rules
    from dicelab.rules.compiled import compile_rules

    space = compile_rules(load_rules("yahtzee")).space
    A = np.zeros((space.add.shape[0], lanes.lanes_of(8)), np.float64)
    used = registers_used(blocks.best_block, A, space.sub_rows)
    widest = {64: "zmm", 32: "ymm", 16: "xmm"}[lanes.target_vector_bytes()]
    assert widest in used, sorted(used)
    assert max(used) == widest, sorted(used)  # xmm < ymm < zmm: nothing wider


def test_target_vector_bytes_reads_the_cpu_compiled_for():
    """The register width from the CPU Numba compiles for: its features, or the
    name given by ``NUMBA_CPU_NAME``; ARM's NEON registers are 16 bytes."""
    from dicelab.engine.kernels.lanes import target_vector_bytes as width

    assert width("znver4", "", "x86_64") == 64
    assert width("haswell", "", "x86_64") == 32
    assert width("znver3", "", "x86_64") == 32
    assert width("x86-64", "", "x86_64") == 16
    assert width("generic", "+avx2,+fma", "x86_64") == 32
    assert width("skylake-avx512", "-avx512f", "x86_64") == 32
    assert width(None, "+sse2,+avx,+avx2,+avx512f", "x86_64") == 64
    assert width(None, "+neon", "aarch64") == 16


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_final_throw_maxima_divide_by_no_runtime_number(dtype):
    """Lanes a block and blocks a pair are constants or shifts in the candidate
    maxima: an integer division there, once per roll and block, had cost a third
    of the final throw of a table over points."""
    from dicelab.engine.kernels import lanes

    L = lanes.lanes_of(np.dtype(dtype).itemsize)
    A = np.zeros((2, 2 * 300, L), dtype)
    cand = np.zeros((20, 4, L), dtype)
    picks = np.arange(5, dtype=np.int64)
    ops = lane_vector_instructions(blocks.max_rows, A, 2, cand, picks, 5, 7, 0, 4 * L)
    assert not {op for op in ops if "div" in op}, sorted(ops)


def test_hot_kernels_compile_without_reference_counts():
    """Every kernel of the expected-score and points turns, and the placement rules
    they call once a roll, is compiled with ``NO_REFS``: there a bundle's array read
    in a loop, or passed to a call, costs no atomic operations. A kernel that
    allocates cannot compile that way, so an allocation added later fails here
    rather than slowing the turn."""
    from numba.core.registry import CPUDispatcher

    from dicelab.engine.kernels import points

    planners = {"plan_layer"}  # once a layer, outside the turn: they allocate their plan
    found = []
    for module in (blocks, points):
        for name, obj in vars(module).items():
            if name in planners:
                continue
            if isinstance(obj, CPUDispatcher) and obj.__module__ == module.__name__:
                found.append(name)
                assert obj.targetoptions.get("_nrt") is False, f"{module.__name__}.{name}"
    for rule in (turn.placements, turn.box_rule, turn.box_points, turn.next_flag):
        assert rule.targetoptions.get("_nrt") is False, rule.__name__
    assert {"solve_blocks", "final_segment", "keep_pair", "solve_points_blocks"} <= set(found)


def test_no_refs_kernel_reads_bundles_without_reference_counts():
    """What ``NO_REFS`` is for: a loop that reads a bundle's arrays compiles to no
    reference-count calls, where the default compile makes some."""
    from dicelab.rules import load_rules
    from dicelab.rules.compiled import compile_rules

    R = kernels.rule_arrays(compile_rules(load_rules("yahtzee")), solving=True)

    def reads(R, n):
        s = 0
        for i in range(n):
            if R.upper[i % 13]:
                s += R.score[i % 13, i % 252]
            else:
                s += R.values[i % 13, 0]
        return s

    asm = {}
    for label, options in (("plain", {}), ("no refs", kernels.NO_REFS)):
        fresh = njit(**options)(reads)
        assert fresh(R, 100) == reads(R, 100)
        asm[label] = "\n".join(fresh.inspect_asm().values())
    assert "NRT_incref" in asm["plain"]
    assert "NRT_incref" not in asm["no refs"] and "NRT_decref" not in asm["no refs"]
