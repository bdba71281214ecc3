"""The duel's picture: the first player's chance against their lead."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dicelab.engine.objectives.duel import DuelTable


def plot_leads(table: DuelTable, path: Path, open_counts: Sequence[int] = (1, 2, 3, 5)) -> Path:
    """The first player's chance at a turn start against their lead, for sheets where
    the last ``k`` boxes of the scorecard are open on both sides (A to move)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    g = table.game
    s = table.space
    n = g.n_categories
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for k in open_counts:
        if not 1 <= k <= n:
            continue
        mask = g.full_mask ^ (((1 << k) - 1) << (n - k))
        i = s.player(mask, 0, 0)
        if i < 0:
            continue
        node = s.node(i, i)
        row = s.rows(node)
        leads = np.arange(-int(row.xhi) - 3, -int(row.xlo) + 4)
        chance = 1.0 - table.waiting_values(np.full(leads.size, node), -leads)
        keep = ~np.isnan(chance)
        leads, chance = leads[keep], chance[keep]
        names = ", ".join(c.label for c in g.rules.categories[n - k :])
        ax.plot(
            leads,
            chance,
            marker="." if leads.size < 60 else None,
            label=f"{k} open: {names}" if k <= 3 else f"{k} open",
        )
    ax.set_xlabel("first player's lead (points), both sheets alike")
    ax.set_ylabel("chance to win (+ half a tie), A to move")
    ax.set_title(f"{g.rules.name} duel: the value of a lead")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
