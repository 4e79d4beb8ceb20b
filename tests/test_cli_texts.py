"""What a newcomer reads (issue 49): numbers printed as the rest of the command line
prints them."""

from types import SimpleNamespace

from exact.cli.three import print_summary


def test_the_three_player_summary_separates_thousands(capsys):
    """The N = 5 summary's counts (2,247 canonical positions, 5,831 logit stages) with the
    thousands separator of every other count gops prints."""
    game = SimpleNamespace(n=2, value_words="expected points", describe=lambda: "a game")
    out = {
        "seat_values": [1.0, 1.0, 1.0],
        "nashconv": {"bound": 1e-12, "certified": True},
        "canonical_positions": 2247,
        "stage_games": {"dominance": 404, "forced": 20, "logit": 5831},
        "first_move": {1: {"1": 0.5, "2": 0.5}},
    }
    print_summary(SimpleNamespace(game=game), out)
    text = capsys.readouterr().out
    assert "canonical positions 2,247, stage games dominance 404, forced 20, logit 5,831" in text
