"""How ``gops`` starts (issue 49): the heavy optional imports happen where they are used,
``gops --help`` lists the commands without importing their modules, and the list it
shows is each command's own help."""

import os
import subprocess
import sys

import pytest

from exact.cli import COMMANDS, COMPILING, main

#: Modules no command needs to start: pygambit (the three-player trace) brings pandas and
#: scipy.stats; scipy.optimize and scipy.sparse are the imperfect-information LPs'; numba.cuda
#: is the ``cuda`` extra's.
HEAVY = ("pygambit", "pandas", "scipy.stats", "scipy.optimize", "scipy.sparse", "numba.cuda")


def loaded_after(code: str) -> set[str]:
    """The modules of HEAVY and of exact.cli that a fresh interpreter holds after ``code``."""
    probe = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


def test_import_exact_cli_imports_no_heavy_optional_module():
    modules = loaded_after("import exact.cli")
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_gops_help_imports_no_command_module():
    """``gops --help`` answers from COMMANDS: no command's module is imported."""
    code = (
        "import sys\nfrom exact.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    modules = loaded_after(code)
    commands = {m for m in modules if m.startswith("exact.cli.")}
    assert commands == {"exact.cli.base"}, sorted(commands)  # the group and its errors
    assert not modules & set(HEAVY)


def test_gops_help_imports_neither_numpy_nor_the_solver():
    """``gops --help`` needs click only: ``exact`` imports its solver on first use."""
    code = (
        "import sys\nfrom exact.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    modules = loaded_after(code)
    assert not {"numpy", "numba", "exact.dp", "exact.cli.common"} & modules


def test_gops_count_imports_neither_numpy_nor_the_solver():
    """``gops count N`` is closed forms (exact.game.counts): no numpy, no kernels."""
    code = (
        "import sys\nfrom exact.cli import main\n"
        "try:\n    main(['count', '13'])\nexcept SystemExit:\n    pass"
    )
    modules = loaded_after(code)
    assert "exact.cli.count" in modules
    assert not {"numpy", "numba", "exact.dp", "exact.cli.common"} & modules


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listed_help_is_the_commands_own(name):
    """COMMANDS keeps each command's first paragraph of help, as the command has it."""
    assert main.commands[name].get_short_help_str(10_000) == COMMANDS[name][1]
    assert main.commands[name].name == name


def test_every_command_is_listed_once():
    assert sorted(main.commands) == sorted(COMMANDS)
    assert len(main.commands) == len(COMMANDS)


KERNEL = """
import click, numba

@numba.njit(cache=True)
def twice(x):
    return 2 * x

@click.command()
@click.option("--quiet", is_flag=True)
def go(quiet):
    click.echo(twice(21) + twice(1.5))
"""


def run_go(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """``gops go ARGS``, a command added for the test whose kernel numba caches under
    ``tmp_path/cache``."""
    (tmp_path / "kern.py").write_text(KERNEL)
    code = (
        f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nimport kern\n"
        "from exact.cli import main\nmain.add_command(kern.go, 'go')\n"
        f"main(['go', *{list(args)!r}])"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )


def test_compiling_is_said_once_and_only_when_numba_compiles(tmp_path):
    """A cold cache: one line on stderr, though two kernels compile; then a warm cache
    (the kernels loaded, not compiled): nothing."""
    cold = run_go(tmp_path)
    assert cold.returncode == 0 and cold.stdout == "45.0\n", cold
    assert cold.stderr == COMPILING + "\n"
    warm = run_go(tmp_path)
    assert warm.returncode == 0 and warm.stdout == "45.0\n" and warm.stderr == "", warm


def test_quiet_compiles_without_a_word(tmp_path):
    quiet = run_go(tmp_path, "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet


def test_device_cuda_without_the_extra_names_its_install(monkeypatch):
    """--device cuda where numba-cuda (the ``cuda`` extra) is missing: the one-line error
    says how to install it, in a clone too (issue 49)."""
    from exact.dp import device
    from exact.dp.objective import objective_of
    from exact.errors import GopsInputError
    from exact.game.spec import GameSpec

    try:
        from exact.cuda import driver
    except ImportError:  # numba's CUDA target itself missing: the other branch says it too
        pass
    else:

        def no_gpu() -> None:
            raise GopsInputError("no CUDA GPU found: numba.cuda.is_available() is False")

        monkeypatch.setattr(driver, "SIMULATED", False)
        monkeypatch.setattr(driver, "require_gpu", no_gpu)
    monkeypatch.setattr(device, "cuda_extra_installed", lambda: False)
    with pytest.raises(GopsInputError, match=r"^no CUDA GPU found: .*pip install -e '\.\[cuda\]'"):
        device.Device.parse("cuda").wrap(objective_of(GameSpec.parse(4)))
