"""The machine code of the max kernels: vector max instructions, no masked stores.

A per-lane ``a if a > b else b`` written straight back to memory compiles to a
compare and a masked store (slow on AMD cores); the kernels take their maxima in
registers and store a row once. This checks the generated x86 code says so.
"""

import platform
import re

import numpy as np
import pytest
from numba import njit

from dicelab.solve import kernels

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
@pytest.mark.parametrize("func", [kernels.max_into, kernels.max_of])
def test_max_kernels_use_vector_max_and_plain_stores(func, dtype, vmax):
    rows = [np.zeros(64, dtype) for _ in range(4)]
    ops = instructions(func, *rows, 64)
    assert any(op.endswith(vmax) for op in ops), sorted(ops)
    assert not any("maskmov" in op for op in ops), sorted(ops)
