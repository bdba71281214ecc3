"""Rows of a table over points laid out with whole-array NumPy operations: an
independent layout (no loop over states) to hold
:func:`dicelab.engine.objectives.points.stored_rows` to, state by state."""

import numpy as np

from dicelab.engine.objectives.points import layers


def array_layout(lo, hi, bounds, live=None):
    """``(lo, hi, off, block, layer_start)`` as
    :func:`~dicelab.engine.objectives.points.stored_rows` gives them."""
    game = bounds.game
    lo = np.broadcast_to(lo, bounds.reachable.shape)
    hi = np.broadcast_to(hi, bounds.reachable.shape)
    lo = np.where(bounds.reachable, lo, 1).astype(np.int64)
    hi = np.where(bounds.reachable, hi, 0).astype(np.int64)
    owner = np.broadcast_to(np.arange(lo.shape[2]), lo.shape)
    lost = bounds.bonus_lost[:, None, :] & (bounds.reachable if live is None else live)
    if lost.any():
        big = np.iinfo(np.int64).max
        union_lo = np.where(lost, lo, big).min(axis=2, keepdims=True)
        union_hi = np.where(lost, hi, -big).max(axis=2, keepdims=True)
        owner = np.where(lost, np.argmax(lost, axis=2)[..., None], owner)
        lo, hi = np.where(lost, union_lo, lo), np.where(lost, union_hi, hi)
    shared = owner != np.arange(lo.shape[2])
    lengths = np.where(shared, 0, np.maximum(hi - lo + 1, 0))
    off = np.full(lo.shape, -1, dtype=np.int64)
    block = np.zeros((lo.shape[0], lo.shape[1] + 1), dtype=np.int64)
    layer_start = [0]
    pos = 0
    for layer in layers(game.n_categories):
        sub = lengths[layer].reshape(len(layer), -1)
        flat = np.cumsum(sub.ravel())
        starts = pos + np.concatenate([[0], flat[:-1]]).reshape(sub.shape)
        off[layer] = starts.reshape((len(layer),) + lo.shape[1:])
        per_flag = lengths[layer].sum(axis=2)
        block[layer, 0] = starts[:, 0]
        block[layer, 1:] = starts[:, :1] + np.cumsum(per_flag, axis=1)
        pos += int(sub.sum())
        layer_start.append(pos)
    off = np.take_along_axis(off, owner, axis=2)
    off[~bounds.reachable] = -1
    return lo, hi, off, block, np.array(layer_start, dtype=np.int64)
