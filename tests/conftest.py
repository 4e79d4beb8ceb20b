"""Shared fixtures: solved games are cached per session (each N is solved once)."""

import pytest

import exact


@pytest.fixture(scope="session")
def solved():
    """solved(n) -> the float Solution of n-card GOPS (points objective), cached."""
    cache = {}

    def get(n):
        if n not in cache:
            cache[n] = exact.solve(n)
        return cache[n]

    return get


@pytest.fixture(scope="session")
def solved_exact():
    """solved_exact(n) -> the rational Solution of n-card GOPS, cached."""
    cache = {}

    def get(n):
        if n not in cache:
            cache[n] = exact.solve(n, arithmetic="rational")
        return cache[n]

    return get
