"""exact.three.induction.play_statistics against a hand derivation (2 cards) and a brute
force that follows every history of equilibrium play with actual cards, merging nothing.

Hand derivation (the 2-card start of tests/test_three.py's docstring): each seat bids 2 on
the first upcard u with probability q = u/(u+w) (split), 1/2 (third) or
sqrt(u)/(sqrt(u)+sqrt(w)) (discard), w = 3 - u, and its 1 on w after that.  With S the
seats bidding 2 first, the high bid is tied in round 1 unless |S| = 1, in round 2 (the
seats outside S bid 2 then) unless |S| = 2, and all three bids are alike in either round
when S is empty or everyone:

    P(tie for high) = 1 - 3q(1-q)^2 (round 1), 1 - 3q^2(1-q) (round 2)
    P(three alike)  = q^3 + (1-q)^3 (both rounds)

each averaged over u = 1, 2; the round-1 entropy is the mean of H(q) over u, round 2's 0.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import pytest

import exact.three as three
from exact.three.induction import play_statistics
from test_three_tables import score  # the round's points, written out apart from exact.game.ties

#: Float agreement of two sums of the same terms taken in different orders (the brute
#: force below against the merged walk), or with a hand-derived irrational value.
SUMMATION = 1e-12
RULES = ("split", "third", "discard")


@pytest.fixture(scope="module")
def solved():
    cache: dict = {}

    def get(n, rule, objective="points"):
        if (n, rule, objective) not in cache:
            cache[n, rule, objective] = three.solve(n, rule, objective)
        return cache[n, rule, objective]

    return get


def _q(rule: str, u: int, w: int) -> float:
    if rule == "split":
        return u / (u + w)
    if rule == "third":
        return 0.5
    return math.sqrt(u) / (math.sqrt(u) + math.sqrt(w))


def _h(q: float) -> float:
    return -q * math.log2(q) - (1 - q) * math.log2(1 - q)


@pytest.mark.parametrize("rule", RULES)
def test_two_cards_as_derived_by_hand(solved, rule):
    qs = [_q(rule, u, 3 - u) for u in (1, 2)]
    st = play_statistics(solved(2, rule))
    expected = {
        "entropy": (sum(_h(q) for q in qs) / 2, 0.0),
        "tie": (
            sum(1 - 3 * q * (1 - q) ** 2 for q in qs) / 2,
            sum(1 - 3 * q * q * (1 - q) for q in qs) / 2,
        ),
        "three": (sum(q**3 + (1 - q) ** 3 for q in qs) / 2,) * 2,
    }
    got = {"entropy": st.entropy_bits, "tie": st.tie_for_high, "three": st.three_way_tie}
    for name, values in expected.items():
        assert got[name] == pytest.approx(values, abs=SUMMATION), name


def test_two_cards_split_in_fractions(solved):
    """q = 1/3 and 2/3: ties for high 5/9 and 7/9 in round 1 (2/3 on average), three
    alike 1/3 whatever u."""
    st = play_statistics(solved(2, "split"))
    assert st.tie_for_high == pytest.approx((2 / 3, 2 / 3), abs=SUMMATION)
    assert st.three_way_tie == pytest.approx((1 / 3, 1 / 3), abs=SUMMATION)
    assert st.entropy_bits[0] == pytest.approx(math.log2(3) - 2 / 3, abs=SUMMATION)


def brute_statistics(sol, rule: str) -> tuple[list, list, list]:
    """Every history of play under the solution's mixes (random order: each prize left
    equally likely), depth first with actual cards and the points so far, nothing merged:
    each stage weighs its mixes' mean entropy, each bid profile its ties, by the
    probability of the history that reaches it."""
    n = sol.game.n
    ent, tie, alike = [0.0] * n, [0.0] * n, [0.0] * n

    def down(r: int, hands: tuple, prizes: tuple, points: tuple, p: float) -> None:
        for u in prizes:
            pu = p / len(prizes)
            mixes = sol.mixes(hands, prizes, points, u)
            ent[r] += pu * sum(-sum(x * math.log2(x) for x in m if x > 0) for m in mixes) / 3
            rest = tuple(c for c in prizes if c != u)
            for a in product(*(range(len(h)) for h in hands)):
                q = pu * mixes[0][a[0]] * mixes[1][a[1]] * mixes[2][a[2]]
                if q == 0:
                    continue
                bids = tuple(hands[i][a[i]] for i in range(3))
                high = bids.count(max(bids))
                tie[r] += q * (high > 1)
                alike[r] += q * (high == 3)
                if rest:
                    kids = tuple(tuple(c for c in hands[i] if c != bids[i]) for i in range(3))
                    won = score(u, bids, rule)
                    down(r + 1, kids, rest, tuple(x + y for x, y in zip(points, won)), q)

    full = tuple(range(1, n + 1))
    down(0, (full,) * 3, full, (Fraction(0),) * 3, 1.0)
    return ent, tie, alike


#: N = 3 and 4 under every rule; ``top`` at 4 cards too, where positions of one canonical
#: form are reached with points that differ (a merge that forgot the points fails there).
GAMES = [(n, r, "points") for n in (3, 4) for r in RULES]
GAMES += [(3, r, "top") for r in RULES] + [(4, "third", "top")]


@pytest.mark.parametrize(("n", "rule", "objective"), GAMES)
def test_the_walk_is_every_history_summed(solved, n, rule, objective):
    """The walk merges positions by canonical form; the brute force merges nothing."""
    sol = solved(n, rule, objective)
    st = play_statistics(sol)
    ent, tie, alike = brute_statistics(sol, rule)
    assert st.entropy_bits == pytest.approx(ent, abs=SUMMATION)
    assert st.tie_for_high == pytest.approx(tie, abs=SUMMATION)
    assert st.three_way_tie == pytest.approx(alike, abs=SUMMATION)
    assert st.entropy_bits[-1] == 0.0  # the last round's bids are forced
    assert min(st.tie_for_high) > 0.0  # and the brute force's sums are not all empty
