"""exact.cli.progress: a count toward a known total on a terminal (a bar with the total, the
rate and the time left) and in a log (a line per report but the last); the steps of a
computation without a count; nothing under --quiet."""

import re

from exact.cli.progress import CountProgress, message_lines


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_count_on_a_terminal_is_a_bar_with_its_total(capsys):
    count = CountProgress("best responses", "first-round bids", after=0.0)
    count.terminal = True  # stderr read as a terminal when the count was made
    for done in range(1, 8):
        count(done, 10)
    assert (count.bar.n, count.bar.total) == (7, 10)  # tqdm draws its rate and ETA from them
    count.close()
    drawn = capsys.readouterr().err
    assert re.search(r"best responses:\s+\d+%.*/10 .*first-round bids/s", drawn), drawn
    assert "gops: " not in drawn  # no log line on a terminal


def test_a_count_in_a_log_is_a_line_per_report_after_the_delay(capsys):
    clock = Clock()
    count = CountProgress("best responses", "first-round bids", after=2.0, clock=clock)
    count(1, 4)  # within the first 2 seconds: nothing
    clock.now += 2.0
    count(2, 4)
    count(3, 4)
    count(4, 4)  # the last: the result follows, no line
    assert capsys.readouterr().err.splitlines() == [
        "gops: best responses: 2 of 4 first-round bids done",
        "gops: best responses: 3 of 4 first-round bids done",
    ]


def test_quiet_says_nothing(capsys):
    for terminal in (False, True):
        count = CountProgress("best responses", "first-round bids", enabled=False, after=0.0)
        count.terminal = terminal
        count(1, 2)
        count.close()
        message_lines(False)("solving the imp_info game")
    assert capsys.readouterr().err == ""


def test_the_steps_of_a_computation_are_a_line_each(capsys):
    step = message_lines(True)
    step("solving the imp_info game")
    step("solving the p0-sees-bids game")
    assert capsys.readouterr().err == (
        "gops: solving the imp_info game\ngops: solving the p0-sees-bids game\n"
    )
