"""A turn's rerolls written out for one set of dice: every keep's row a constant.

The lane-vector turn (:func:`.duel.duel_throws`, built on :func:`.blocks.keep_pair`
and :func:`.blocks.best_of_roll`) finds each keep's children and sub-keeps in
index tables. Every vector load then costs a scalar load of its row number and
the arithmetic of its address, and each keep's list ends in a branch: on a core
that loads one lane vector a cycle, the tables take load slots of their own.

With the dice known when a kernel compiles, every row number is a constant of the
machine code: the rerolls and the first throw become one run of straight-line
code (yazy's 462 keeps: about 7,000 vector loads at constant offsets, nothing
else loaded). The arithmetic is the loops', operation for operation and in the
same order, so every value is theirs to the last bit; yazy's duel is a fifth
faster.

A set of dice is a :class:`DiceShape`. Its Numba type carries the dice, faces
and rerolls, so the code is written when a kernel is compiled for that shape,
and Numba caches it with the kernel. Each shape is a compile of its own (a few
seconds for yazy's dice), and the code grows with the keeps, so :func:`dice_shape`
gives a shape only to the dice of
:data:`~dicelab.dice.WRITTEN_OUT_KEEPS`; other dice keep the loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.extending import (
    NativeValue,
    intrinsic,
    models,
    register_model,
    typeof_impl,
    unbox,
)

from dicelab.dice import dice_space, turn_written_out
from dicelab.engine.kernels.lanes import lanes_of


@dataclass(frozen=True)
class DiceShape:
    """The dice of a turn, as the type of a kernel's argument: ``dice`` dice of
    ``faces`` faces, thrown ``rerolls + 1`` times a turn."""

    dice: int
    faces: int
    rerolls: int


def dice_shape(D) -> DiceShape | None:
    """The shape of the dice arrays ``D`` (:class:`~dicelab.engine.kernels.DiceArrays`),
    or None where its turn keeps the loops
    (:func:`~dicelab.dice.turn_written_out`)."""
    if not turn_written_out(int(D.dice), int(D.faces)):
        return None
    return DiceShape(int(D.dice), int(D.faces), int(D.rerolls))


class DiceShapeType(types.Type):
    """Numba's type of a :class:`DiceShape`: the shape itself, no data."""

    def __init__(self, dice: int, faces: int, rerolls: int) -> None:
        self.shape = DiceShape(dice, faces, rerolls)
        super().__init__(name=f"DiceShape({dice}d{faces}, {rerolls} rerolls)")


@typeof_impl.register(DiceShape)
def _typeof_shape(val, c):
    return DiceShapeType(val.dice, val.faces, val.rerolls)


register_model(DiceShapeType)(models.OpaqueModel)


@unbox(DiceShapeType)
def _unbox_shape(typ, obj, c):
    return NativeValue(cgutils.get_null_value(c.context.get_value_type(typ)))


def _sub_keeps(sub_rows: np.ndarray, k: int) -> list[int]:
    """Keep ``k``'s distinct sub-keeps, in the table's order (it ends at ``k``)."""
    out = []
    for s in sub_rows[k]:
        if s == k:
            break
        out.append(int(s))
    return out


class _PairRows:
    """Loads and stores of rows ``(k, j)`` of two blocks paired row by row (``A[k, j]``
    of a C-ordered array of shape ``(keeps, 2, lanes)``), at constant offsets."""

    def __init__(self, builder, data, vt, align: int) -> None:
        self.builder = builder
        self.base = builder.bitcast(data, vt.as_pointer())
        self.align = align

    def _ptr(self, k: int, j: int):
        return self.builder.gep(self.base, [ir.Constant(ir.IntType(64), 2 * k + j)], inbounds=True)

    def load(self, k: int, j: int):
        return self.builder.load(self._ptr(k, j), align=self.align)

    def store(self, k: int, j: int, value) -> None:
        self.builder.store(value, self._ptr(k, j), align=self.align)


def _vmax(builder, x, y):
    """:func:`.lanes.vmax`: the x86 maximum's own order, ``x > y ? x : y``."""
    return builder.select(builder.fcmp_ordered(">", x, y), x, y)


def _emit_duel_turn(builder, rows: _PairRows, out_ptr, vt, dtype, shape: DiceShape) -> None:
    """The code of :func:`duel_turn` for ``shape`` on lane vectors ``vt`` of ``dtype``:
    :func:`.duel.duel_throws` with every loop unrolled and every row number a constant."""
    space = dice_space(shape.dice, shape.faces)
    add, sub_rows = space.add, space.sub_rows
    roll0 = int(space.size_start[shape.dice])
    inv = dtype.type(1.0 / shape.faces)
    lo = dtype.type(1.0 / shape.faces - np.float64(inv))

    def splat(x):
        return ir.Constant(vt, [float(x)] * vt.count)

    fma = cgutils.get_or_insert_function(
        builder.module,
        ir.FunctionType(vt, [vt] * 3),
        f"llvm.fma.v{vt.count}f{dtype.itemsize * 8}",
    )

    def keeps() -> None:  # .blocks.keep_pair: each keep the mean over one more die
        for k in range(roll0 - 1, -1, -1):
            children = [int(c) for c in add[k]]
            for j in range(2):
                x = rows.load(children[0], j)
                for c in children[1:]:
                    x = builder.fadd(x, rows.load(c, j))
                mean = builder.call(fma, [x, splat(inv), builder.fmul(x, splat(lo))])
                rows.store(k, j, mean)

    def best(limit: int) -> None:  # .duel.best_rows: each keep's best sub-keep
        for k in range(limit):
            subs = _sub_keeps(sub_rows, k)
            if not subs:
                continue
            for j in range(2):
                m = _vmax(builder, rows.load(k, j), rows.load(subs[0], j))
                for s in subs[1:]:
                    m = _vmax(builder, m, rows.load(s, j))
                rows.store(k, j, m)

    for step in range(shape.rerolls):
        keeps()
        best(roll0 if step == shape.rerolls - 1 else sub_rows.shape[0])
    for j in range(2):  # the first throw: each roll's best keep, multiplied, then added
        acc = splat(0.0)
        for r, p in enumerate(space.roll_prob):
            k = roll0 + r
            m = rows.load(k, j)
            for s in _sub_keeps(sub_rows, k) if shape.rerolls > 0 else ():
                m = _vmax(builder, m, rows.load(s, j))
            acc = builder.fadd(acc, builder.fmul(m, splat(dtype.type(p))))
        ptr = builder.gep(out_ptr, [ir.Constant(ir.IntType(64), j)], inbounds=True)
        builder.store(acc, ptr, align=rows.align)


@intrinsic
def duel_turn(typingctx, shape, B, out):
    """:func:`.duel.duel_throws` for the dice ``shape`` (a :class:`DiceShape`),
    written out: the rerolls of two blocks paired row by row (``B``, shape
    ``(keeps, 2, lanes)``, C order), then each block's first-throw mean into
    ``out[j]`` (shape ``(2, lanes)``)."""
    if not isinstance(shape, DiceShapeType):
        raise TypeError("duel_turn: the first argument is a DiceShape")
    for arr, ndim in ((B, 3), (out, 2)):
        if not (isinstance(arr, types.Array) and arr.ndim == ndim and arr.layout == "C"):
            raise TypeError(f"duel_turn: a C-ordered array of {ndim} dimensions")
        if not isinstance(arr.dtype, types.Float) or arr.dtype != B.dtype:
            raise TypeError("duel_turn: arrays of one float type")

    def codegen(context, builder, sig, args):
        dtype = np.dtype(str(B.dtype))
        vt = ir.VectorType(context.get_value_type(B.dtype), lanes_of(dtype.itemsize))
        a = context.make_array(sig.args[1])(context, builder, args[1])
        o = context.make_array(sig.args[2])(context, builder, args[2])
        rows = _PairRows(builder, a.data, vt, dtype.itemsize)
        out_ptr = builder.bitcast(o.data, vt.as_pointer())
        _emit_duel_turn(builder, rows, out_ptr, vt, dtype, shape.shape)
        return context.get_dummy_value()

    return types.none(shape, B, out), codegen
