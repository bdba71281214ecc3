"""Lane vectors: one row of a turn's scratch as a single SIMD value in the kernels.

The turn kernels of :mod:`dicelab.engine.kernels` read and write rows of the same
scratch array (a keep's row from the rows of its sub-keeps). The compiler cannot
tell that those rows never overlap, so plain loops over a row compile to scalar
code or to runtime overlap checks and masked stores. A :class:`LaneVector` is a
whole row held in registers: a fixed number of lanes (64 bytes: 16 single or 8
double precision values, one AVX-512 register, two AVX2 ones or four NEON ones; see
:data:`VECTOR_BYTES`), loaded, combined and stored as one value. Scratch arrays
whose rows are 64 bytes wide stay in the first-level cache.

The operations are Numba intrinsics (callable from ``@njit`` code only):
:func:`width`, :func:`load`, :func:`load_double`, :func:`load_at`, :func:`store`, :func:`store_at`,
:func:`store_lanes_at`, :func:`vmax`, :func:`vadd`, :func:`vsub`, :func:`vmul`,
:func:`vfma`, :func:`splat`, :func:`widen`, :func:`vreverse`, :func:`vfollow`,
:func:`vchoose`.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.extending import intrinsic, models, register_model

#: LLVM's names of x86 processors with AVX-512 registers (64 bytes), and with AVX2
#: ones (32 bytes), for a compile target named by ``NUMBA_CPU_NAME``.
AVX512_CPUS = frozenset([
    "knl", "knm", "skylake-avx512", "skx", "cascadelake", "cooperlake", "cannonlake",
    "icelake-client", "icelake-server", "rocketlake", "tigerlake", "sapphirerapids",
    "emeraldrapids", "graniterapids", "graniterapids-d", "diamondrapids", "znver4",
    "znver5", "x86-64-v4",
])  # fmt: skip
AVX2_CPUS = frozenset([
    "haswell", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake", "arrowlake",
    "arrowlake-s", "lunarlake", "pantherlake", "gracemont", "sierraforest", "grandridge",
    "clearwaterforest", "znver1", "znver2", "znver3", "bdver4", "x86-64-v3",
])  # fmt: skip


def target_vector_bytes(cpu: str | None = None, features: str | None = None,
                        machine: str | None = None) -> int:  # fmt: skip
    """Bytes in the widest vector register of the CPU the kernels are compiled for:
    64 with AVX-512, 32 with AVX2, 16 otherwise (SSE, ARM's NEON).

    Numba compiles for the host unless ``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES``
    name another CPU, and keys its cache of compiled kernels on that CPU's name and
    features. A name alone keeps the host's features (so ``NUMBA_CPU_NAME=znver3`` on
    an AVX-512 host still compiles AVX-512): the features decide, and the name only
    where the features are given empty (the name's own). The benchmarks report it
    beside their figures, and the tests of the machine code expect the registers it
    gives. The arguments stand in for the configuration (tests).
    """
    import platform

    from numba.core import config

    machine = machine or platform.machine().lower()
    if machine not in ("x86_64", "amd64", "i386", "i686"):
        return 16
    if cpu is None and features is None:
        cpu, features = config.CPU_NAME, config.CPU_FEATURES
        if features is None:  # Numba's own rule: the host's features, whatever the name
            import llvmlite.binding as ll

            features = ll.get_host_cpu_features().flatten()
    flags = set((features or "").split(","))
    name = (cpu or "").lower()
    if "+avx512f" in flags or (name in AVX512_CPUS and "-avx512f" not in flags):
        return 64
    if "+avx2" in flags or (name in AVX2_CPUS | AVX512_CPUS and "-avx2" not in flags):
        return 32
    return 16


#: Bytes in one lane vector, whatever the CPU: one AVX-512 register, two AVX2 ones,
#: four of SSE or NEON. Rows as wide as one register are slower where registers are
#: narrower (one thread, medians of 7, the same machine compiling for each CPU:
#: Yahtzee 0.17 s in 64-byte rows against 0.22 s in 32-byte ones for AVX2, Yatzy 0.43
#: against 0.59; 0.49 against 0.55 s for SSE2's 16-byte rows): a wide row is several
#: independent operations a step, which the core overlaps. The kernels are compiled
#: for the host's own registers (:func:`target_vector_bytes`), with these rows.
VECTOR_BYTES = 64


def lanes_of(itemsize: int) -> int:
    """Lanes of a row of ``itemsize``-byte values (16 single, 8 double)."""
    return VECTOR_BYTES // itemsize


def aligned_zeros(shape: tuple[int, ...], dtype) -> np.ndarray:
    """``np.zeros`` starting on a lane-vector boundary: each 64-byte row then sits
    in one cache line (NumPy aligns large arrays to 16 bytes only, and a row across
    two lines costs a fifth of a solve)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.zeros(n * dtype.itemsize + VECTOR_BYTES, np.uint8)
    skip = -raw.ctypes.data % VECTOR_BYTES
    return raw[skip : skip + n * dtype.itemsize].view(dtype).reshape(shape)


class LaneVector(types.Type):
    """A row of ``width`` values of ``dtype`` held as one SIMD value."""

    def __init__(self, dtype: types.Float, width: int) -> None:
        self.dtype = dtype
        self.width = width
        super().__init__(name=f"LaneVector({dtype}, {width})")


@register_model(LaneVector)
class LaneVectorModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        be_type = ir.VectorType(dmm.lookup(fe_type.dtype).get_value_type(), fe_type.width)
        super().__init__(dmm, fe_type, be_type)


def _vector_of(arrty) -> LaneVector:
    return LaneVector(arrty.dtype, lanes_of(arrty.dtype.bitwidth // 8))


def _row_pointer(context, builder, arrty, arr, idx_types, idx):
    """Pointer to ``arr[idx..., 0]``: the first lane of a row."""
    ary = context.make_array(arrty)(context, builder, arr)
    inds = [context.cast(builder, v, t, types.intp) for v, t in zip(idx, idx_types, strict=True)]
    inds += [ir.Constant(ir.IntType(64), 0)] * (arrty.ndim - len(inds))
    return cgutils.get_item_pointer2(
        context,
        builder,
        data=ary.data,
        shape=cgutils.unpack_tuple(builder, ary.shape),
        strides=cgutils.unpack_tuple(builder, ary.strides),
        layout=arrty.layout,
        inds=inds,
    )


def _check_array(arr, n_index: int) -> None:
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Float):
        raise TypeError("lane vectors load from and store to arrays of floats")
    if arr.layout != "C" or arr.ndim not in (n_index, n_index + 1):
        raise TypeError(f"lane vectors need a C-contiguous array of {n_index + 1} dimensions")


def _check_vector(arr, vec) -> None:
    if not isinstance(vec, LaneVector) or vec.dtype != arr.dtype:
        raise TypeError(f"{vec} does not fit rows of {arr}")


def _load(context, builder, sig, args, vt):
    n = len(args)
    ptr = _row_pointer(context, builder, sig.args[0], args[0], sig.args[1:n], args[1:n])
    llvt = context.get_value_type(vt)
    return builder.load(builder.bitcast(ptr, llvt.as_pointer()), align=vt.dtype.bitwidth // 8)


def _freeze(builder, value):
    """``value`` behind LLVM's ``freeze``: a whole row stored as computed. A maximum
    stored over the row it read (``store(a > b ? a : b, &a)``) is otherwise folded
    into a masked store of ``b``, which AVX2 makes a slow ``vmaskmov`` (AVX-512's
    masked moves are cheap, so only AVX2 machines showed it)."""
    inst = ir.instructions.Instruction(builder.block, value.type, "freeze", [value])
    builder._insert(inst)
    return inst


def _store(context, builder, sig, args, n_index, lo=None, hi=None):
    ptr = _row_pointer(
        context, builder, sig.args[0], args[0], sig.args[1 : 1 + n_index], args[1 : 1 + n_index]
    )
    vec = args[1 + n_index]
    vt = sig.args[1 + n_index]
    vptr = builder.bitcast(ptr, vec.type.as_pointer())
    align = vt.dtype.bitwidth // 8
    if lo is not None:
        old = builder.load(vptr, align=align)
        i64 = ir.IntType(64)
        idx = ir.Constant(ir.VectorType(i64, vt.width), list(range(vt.width)))

        def bound(k):
            return _splat_value(
                builder, context.cast(builder, args[k], sig.args[k], types.int64), vt.width
            )

        inside = builder.and_(
            builder.icmp_signed(">=", idx, bound(lo)), builder.icmp_signed("<", idx, bound(hi))
        )
        vec = builder.select(inside, vec, old)
    else:
        vec = _freeze(builder, vec)
    builder.store(vec, vptr, align=align)
    return context.get_dummy_value()


@intrinsic
def width(typingctx, arr):
    """Lanes of a lane vector of ``arr``'s values, as a constant of the compiled code
    (so dividing by it is a shift, not a division)."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Float):
        raise TypeError("lane vectors hold floats")
    n = lanes_of(arr.dtype.bitwidth // 8)
    return types.intp(arr), lambda context, builder, sig, args: context.get_constant(types.intp, n)


@intrinsic
def load(typingctx, arr, i):
    """The lane vector at ``arr[i, :lanes]`` (``arr[i : i + lanes]`` for 1-d)."""
    _check_array(arr, 1)
    vt = _vector_of(arr)
    return vt(arr, i), lambda context, builder, sig, args: _load(context, builder, sig, args, vt)


@intrinsic
def load_double(typingctx, arr, i):
    """The 8 values at ``arr[i : i + 8]`` of a 1-d array of floats as a lane vector
    of double precision: a table kept in single precision read into a turn that
    works in double (the same lanes as :func:`load` of a double row)."""
    _check_array(arr, 1)
    if arr.ndim != 1:
        raise TypeError("load_double reads a 1-d array")
    vt = LaneVector(types.float64, lanes_of(8))

    def codegen(context, builder, sig, args):
        ptr = _row_pointer(context, builder, sig.args[0], args[0], sig.args[1:2], args[1:2])
        src = ir.VectorType(context.get_value_type(arr.dtype), vt.width)
        x = builder.load(builder.bitcast(ptr, src.as_pointer()), align=arr.dtype.bitwidth // 8)
        if arr.dtype == types.float64:
            return x
        return builder.fpext(x, context.get_value_type(vt))

    return vt(arr, i), codegen


@intrinsic
def load_at(typingctx, arr, i, j):
    """The lane vector at ``arr[i, j, :lanes]`` of a 3-d array."""
    _check_array(arr, 2)
    vt = _vector_of(arr)
    return vt(arr, i, j), lambda context, builder, sig, args: _load(context, builder, sig, args, vt)


@intrinsic
def store(typingctx, arr, i, vec):
    """Write ``vec`` to ``arr[i, :lanes]`` (``arr[i : i + lanes]`` for 1-d)."""
    _check_array(arr, 1)
    _check_vector(arr, vec)
    return types.none(arr, i, vec), lambda c, b, sig, args: _store(c, b, sig, args, 1)


@intrinsic
def store_at(typingctx, arr, i, j, vec):
    """Write ``vec`` to ``arr[i, j, :lanes]`` of a 3-d array."""
    _check_array(arr, 2)
    _check_vector(arr, vec)
    return types.none(arr, i, j, vec), lambda c, b, sig, args: _store(c, b, sig, args, 2)


@intrinsic
def store_lanes_at(typingctx, arr, i, j, vec, lo, hi):
    """Write lanes ``lo <= lane < hi`` of ``vec`` to ``arr[i, j]`` of a 3-d array;
    the other lanes keep their values."""
    _check_array(arr, 2)
    _check_vector(arr, vec)
    sig = types.none(arr, i, j, vec, lo, hi)
    return sig, lambda c, b, sig, args: _store(c, b, sig, args, 2, 4, 5)


def _splat_value(builder, value, width):
    vt = ir.VectorType(value.type, width)
    i32 = ir.IntType(32)
    one = builder.insert_element(ir.Constant(vt, ir.Undefined), value, ir.Constant(i32, 0))
    mask = ir.Constant(ir.VectorType(i32, width), [0] * width)
    return builder.shuffle_vector(one, ir.Constant(vt, ir.Undefined), mask)


@intrinsic
def splat(typingctx, vt_of, x):
    """A lane vector shaped like ``vt_of`` (any such vector) with ``x`` in every lane."""
    if not isinstance(vt_of, LaneVector):
        raise TypeError("splat: the first argument is a lane vector that gives the shape")

    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[1], sig.args[1], vt_of.dtype)
        return _splat_value(builder, value, vt_of.width)

    return vt_of(vt_of, x), codegen


def _binary(name: str, op: str):
    def typer(typingctx, a, b):
        if not isinstance(a, LaneVector) or a != b:
            raise TypeError(f"{name}: two lane vectors of one type")

        def codegen(context, builder, sig, args):
            x, y = args
            if op == "max":
                # the x86 max instruction's own order: ``x > y ? x : y``
                return builder.select(builder.fcmp_ordered(">", x, y), x, y)
            return getattr(builder, op)(x, y)

        return a(a, b), codegen

    typer.__name__ = name
    typer.__doc__ = {
        "max": "Lane-wise maximum.",
        "fadd": "Lane-wise sum.",
        "fsub": "Lane-wise difference.",
        "fmul": "Lane-wise product.",
    }[op]
    return intrinsic(typer)


vmax = _binary("vmax", "max")
vadd = _binary("vadd", "fadd")
vsub = _binary("vsub", "fsub")
vmul = _binary("vmul", "fmul")


@intrinsic
def vfma(typingctx, a, b, c):
    """``a * b + c`` lane by lane, rounded once (a fused multiply-add)."""
    if not isinstance(a, LaneVector) or not a == b == c:
        raise TypeError("vfma: three lane vectors of one type")

    def codegen(context, builder, sig, args):
        llvt = args[0].type
        fn = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(llvt, [llvt] * 3),
            f"llvm.fma.v{a.width}f{a.dtype.bitwidth}",
        )
        return builder.call(fn, args)

    return a(a, b, c), codegen


@intrinsic
def vfollow(typingctx, m, v, x, g, even):
    """Lane by lane, the better of two (chance, lead) pairs: ``(x, g)`` where ``x > m
    + even``, or ``x >= m - even`` and ``g > v``; else ``(m, v)``. Returns both."""
    if not isinstance(m, LaneVector) or not m == v == x == g:
        raise TypeError("vfollow: four lane vectors of one type")
    pair = types.UniTuple(m, 2)

    def codegen(context, builder, sig, args):
        a, b, c, d, e = args
        eps = _splat_value(builder, context.cast(builder, e, sig.args[4], m.dtype), m.width)
        up = builder.fcmp_ordered(">", c, builder.fadd(a, eps))
        near = builder.fcmp_ordered(">=", c, builder.fsub(a, eps))
        more = builder.fcmp_ordered(">", d, b)
        t = builder.or_(up, builder.and_(near, more))
        chosen = [builder.select(t, c, a), builder.select(t, d, b)]
        return context.make_tuple(builder, pair, chosen)

    return pair(m, v, x, g, even), codegen


@intrinsic
def vchoose(typingctx, m, x, a, b):
    """Lane by lane, ``b`` where ``x > m`` and ``a`` elsewhere: what a choice carries
    along when it takes ``x`` only where it beats ``m`` (the first of equal ones
    stays, as :func:`vmax` keeps ``m``)."""
    if not isinstance(m, LaneVector) or not m == x == a == b:
        raise TypeError("vchoose: four lane vectors of one type")

    def codegen(context, builder, sig, args):
        c, y, p, q = args
        return builder.select(builder.fcmp_ordered(">", y, c), q, p)

    return m(m, x, a, b), codegen


@intrinsic
def vreverse(typingctx, a):
    """The lanes of ``a`` in reverse order: a row read backwards (one permute, where a
    loop over descending indices compiles to gathers and scatters)."""
    if not isinstance(a, LaneVector):
        raise TypeError("vreverse: a lane vector")

    def codegen(context, builder, sig, args):
        i32 = ir.IntType(32)
        mask = ir.Constant(ir.VectorType(i32, a.width), list(range(a.width - 1, -1, -1)))
        return builder.shuffle_vector(args[0], ir.Constant(args[0].type, ir.Undefined), mask)

    return a(a), codegen


@intrinsic
def widen(typingctx, a):
    """A single-precision lane vector as double precision (the same lanes)."""
    if not isinstance(a, LaneVector):
        raise TypeError("widen: a lane vector")
    out = LaneVector(types.float64, a.width)

    def codegen(context, builder, sig, args):
        if a.dtype == types.float64:
            return args[0]
        return builder.fpext(args[0], context.get_value_type(out))

    return out(a), codegen
