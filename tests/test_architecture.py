"""The import rules of ARCHITECTURE.md, read from the source (every import, lazy ones too)."""

import ast
import pkgutil
from pathlib import Path

import pytest

from exact.cli.families import FAMILIES

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, as absolute dotted names."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def files(folder: str):
    return sorted((ROOT / folder).rglob("*.py"))


def test_the_checker_imports_nothing_of_the_solver():
    for path in files("certificates"):
        bad = {m for m in imported_modules(path) if m == "exact" or m.startswith("exact.")}
        assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", files("exact/kernels"), ids=lambda p: p.name)
def test_kernels_know_nothing_of_the_cli_files_or_progress(path):
    allowed = (
        "exact.kernels",
        "exact.game.encoding",
        "exact.game.orders",
        "exact.game.rules",
        "exact.errors",
        "exact.limits",
    )
    for module in imported_modules(path):
        if module.startswith("exact"):
            assert module.startswith(allowed), f"{path.name} imports {module}"
        assert module.split(".")[0] not in {"click", "tqdm"}, f"{path.name} imports {module}"


#: The modules of exact/cli that command modules share (and the ``python -m`` entry point);
#: every other module there is a command module, found by walking the package, so that a
#: new command is covered without being named here.
SHARED = {"base", "common", "families", "limits", "progress", "render", "__main__"}
COMMANDS = sorted(
    m.name for m in pkgutil.iter_modules([str(ROOT / "exact" / "cli")]) if m.name not in SHARED
)


def test_the_command_modules_are_found_and_registered():
    assert {"audit", "fixed_bids", "solve", "verify"} <= set(COMMANDS)
    init = ROOT / "exact" / "cli" / "__init__.py"
    registered = imported_modules(init)
    # the commands imported when used: _attribute("module", "command") in exact/cli/__init__
    registered |= {
        f"exact.cli.{node.args[0].value}"
        for node in ast.walk(ast.parse(init.read_text()))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "_attribute"
        and isinstance(node.args[0], ast.Constant)
    }
    # the game families' command modules: registered once, in exact/cli/families.py
    registered |= {f"exact.cli.{family.module}" for family in FAMILIES}
    missing = {c for c in COMMANDS if f"exact.cli.{c}" not in registered}
    assert not missing, f"exact/cli/__init__.py does not import {missing}"


def test_no_command_reads_argv_or_changes_another():
    """One shape for every game family (exact/cli/families.py): click parses every command
    line; no module of exact/cli reads sys.argv, nor sets a command's parameters,
    callback or class (a command is reached, never changed or copied)."""
    for path in (ROOT / "exact" / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "argv":
                raise AssertionError(f"cli/{path.name} reads sys.argv (line {node.lineno})")
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr in {
                    "params",
                    "callback",
                    "__dict__",
                }:
                    where = f"cli/{path.name}, line {node.lineno}"
                    raise AssertionError(f"{where} sets .{target.attr}")


@pytest.mark.parametrize("name", COMMANDS)
def test_no_command_module_imports_another(name):
    others = {f"exact.cli.{c}" for c in COMMANDS if c != name}
    got = imported_modules(ROOT / "exact" / "cli" / f"{name}.py")
    assert not got & others, f"cli/{name}.py imports {got & others}"


def test_only_the_library_is_imported_below_the_cli():
    """Nothing outside exact/cli imports the command line."""
    for path in files("exact"):
        if "cli" in path.relative_to(ROOT / "exact").parts:
            continue
        bad = {m for m in imported_modules(path) if m.startswith("exact.cli")}
        assert not bad, f"{path} imports {bad}"


def test_the_game_rules_import_only_errors_and_limits():
    for path in files("exact/game"):
        for module in imported_modules(path):
            if module.startswith("exact"):
                assert module.startswith(("exact.game", "exact.errors", "exact.limits")), (
                    f"{path.name}: {module}"
                )


def declared_arrows() -> dict[str, set[str]]:
    """ARCHITECTURE.md's ```arrows block: {package: the packages it imports}."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    block = text.split("```arrows\n", 1)[1].split("```", 1)[0]
    arrows = {}
    for line in block.splitlines():
        source, _, targets = line.partition("->")
        arrows[source.strip()] = {t.strip() for t in targets.split(",") if t.strip()}
    return arrows


def package_of(module: str) -> str | None:
    """The package of ``exact`` a module belongs to (a top-level module is its own)."""
    parts = module.split(".")
    if parts[0] != "exact" or len(parts) == 1:
        return None
    return parts[1]


def actual_arrows() -> dict[str, set[str]]:
    """The packages of ``exact`` that each package imports, read from the code."""
    arrows: dict[str, set[str]] = {}
    for path in files("exact"):
        rel = path.relative_to(ROOT / "exact").with_suffix("").parts
        source = rel[0]
        if source == "__init__":
            continue  # the public names: said in prose
        targets = arrows.setdefault(source, set())
        for module in imported_modules(path):
            target = package_of(module)
            if target is not None and target != source and target != "__init__":
                targets.add(target)
    return arrows


def test_the_arrows_of_architecture_md_are_the_imports():
    """ARCHITECTURE.md's arrows are exactly the imports between packages: no import it
    does not show, and no arrow that the code does not draw."""
    declared, actual = declared_arrows(), actual_arrows()
    assert set(declared) == set(actual), "packages: " + str(set(declared) ^ set(actual))
    for package in sorted(actual):
        assert actual[package] == declared[package], (
            f"{package}: imported but not shown {sorted(actual[package] - declared[package])}, "
            f"shown but not imported {sorted(declared[package] - actual[package])}"
        )


def test_the_packages_import_each_other_without_a_cycle():
    """The packages form layers (the order of ARCHITECTURE.md's arrows): every package
    imports only packages listed below it there."""
    order = list(declared_arrows())
    for package, targets in actual_arrows().items():
        for target in targets:
            assert order.index(target) > order.index(package), f"{package} -> {target} runs up"


def module_imports(folder: str) -> dict[str, set[str]]:
    """{module: the modules of ``folder`` it imports} (dotted names, lazy imports too;
    a package is its __init__)."""
    names = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
        for p in files(folder)
    }
    return {name: imported_modules(path) & set(names) - {name} for name, path in names.items()}


def import_circle(graph: dict[str, set[str]]) -> list[str]:
    """A circle of imports in ``graph`` (module, ..., the same module), or [] where none:
    depth first, a module met again while it is still on the path closes a circle."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str]:
        if module in path:
            return path[path.index(module) :] + [module]
        if module in done:
            return []
        path.append(module)
        for target in sorted(graph[module]):
            if circle := visit(target):
                return circle
        path.pop()
        done.add(module)
        return []

    for module in sorted(graph):
        if circle := visit(module):
            return circle
    return []


def test_import_circle_finds_a_circle_and_nothing_else():
    assert import_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert import_circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


@pytest.mark.parametrize("folder", ["exact", "certificates"])
def test_the_modules_import_each_other_without_a_circle(folder):
    """Within the packages too the imports form layers, lazy ones included: a shared piece
    lives in the module of its concept (exact.imperfect.float_lp, HiGHS's float solve;
    exact.imperfect.equilibrium, what the exact solvers return), never reached back up
    through an import inside a function (issue 49)."""
    graph = module_imports(folder)
    assert sum(map(len, graph.values())) > 20  # the imports are read
    assert import_circle(graph) == []


#: The names of the three-player game's parts (exact.game.ties, exact.game.orders, the
#: objectives): below the parsers they are objects, and no code compares a name.
THREE_NAMES = {
    "split", "third", "discard", "points", "top", "random", "ascending", "descending",
}  # fmt: skip


def name_comparisons(path: Path, names: set[str] = THREE_NAMES) -> list[str]:
    """Every comparison (==, !=, in, not in) of something with one of ``names``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        for side in [node.left, *node.comparators]:
            values = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
            for v in values:
                if isinstance(v, ast.Constant) and v.value in names:
                    found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


@pytest.mark.parametrize(
    "path", [*files("exact/three"), ROOT / "exact/play/three.py"], ids=lambda p: p.name
)
def test_three_players_compare_no_names_below_the_parsers(path):
    """ThreeGame.parse turns the tie rule, objective and prize order into the objects of
    exact.game once; three/ and play/three.py then ask those objects (issue 49)."""
    assert name_comparisons(path) == []


#: Modules below the parsers of the imperfect-information game, the hidden-bids game and
#: the web page's answers, where a name was once compared (issue 49).
NAMED_ONCE = [
    *(ROOT / "exact/imperfect" / f for f in (
        "game.py", "nashconv.py", "certified.py", "shipped.py", "exact_lp.py",
        "exact_tables.py", "value_of_information.py", "tables.py",
    )),
    ROOT / "exact/play/hidden.py",
    ROOT / "exact/web/explore.py",
    ROOT / "exact/web/solutions.py",
]  # fmt: skip


@pytest.mark.parametrize("path", NAMED_ONCE, ids=lambda p: p.name)
def test_the_imperfect_game_and_the_page_compare_no_names(path):
    """Their orders, objectives, arithmetics and certification methods are objects
    (PrizeOrder, GameObjective, GameArithmetic, certified.Method), compared by identity."""
    names = THREE_NAMES | {"win", "rational", "float", "bound"}
    assert name_comparisons(path, names) == []


def test_no_library_module_changes_the_process_limits():
    """A library call never sets a resource or recursion limit of its process (gops serve
    runs many requests in one): the one cap, pygambit's trace's, is set inside the child
    process that runs it (exact/three/gambit.py, _capped_trace through _memory_cap)."""
    calls = {}
    for path in files("exact"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("setrlimit", "setrecursionlimit"):
                calls.setdefault(path.relative_to(ROOT).as_posix(), []).append(node.attr)
    assert calls == {"exact/three/gambit.py": ["setrlimit", "setrlimit"]}


#: The names of the devices (exact.dp.device.NAMES) and of the backends a store records.
DEVICE_NAMES = {"cpu", "cuda", "cuda+cpu", "cuda-simulator"}


def compared_constants(path: Path, names: set) -> list[str]:
    """Every comparison (==, !=, in, not in) of something with one of ``names``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        for side in [node.left, *node.comparators]:
            values = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
            found += [
                f"{path.name}:{node.lineno} {ast.unparse(node)}"
                for v in values
                if isinstance(v, ast.Constant) and v.value in names
            ]
    return found


@pytest.mark.parametrize(
    "path",
    [
        ROOT / f"exact/{p}.py"
        for p in ("dp/store", "dp/verify", "dp/solve", "cli/solve", "cli/common")
    ]
    + files("exact/cuda"),
    ids=lambda p: p.name,
)
def test_no_device_name_is_compared_below_the_boundary(path):
    """--device and exact.solve's device are parsed once into a Device (exact.dp.device),
    which says what differs (wrap, record, bit_exact); a level's recorded writer is asked
    through recorded_bit_exact (issue 49)."""
    assert compared_constants(path, DEVICE_NAMES) == []


#: The kernel bodies that the GPU compiles from the CPU's source (exact.kernels.target):
#: their modules, and the names of the bodies, which exact/cuda must not define again.
BODY_MODULES = ("tableau", "combine", "points", "win", "bounds")


def kernel_bodies() -> set[str]:
    """The names in the BODIES tuples of the kernel modules that the GPU compiles."""
    names = set()
    for module in BODY_MODULES:
        tree = ast.parse((ROOT / f"exact/kernels/{module}.py").read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "BODIES":
                names |= {e.id for e in node.value.elts if isinstance(e, ast.Name)}
    return names


def test_the_gpu_compiles_the_cpus_kernel_bodies_and_restates_none():
    """One source for each kernel body (issue 49): exact/cuda imports the body modules,
    defines no function of a body's name, and defines no tolerance of the simplex; the
    level layout of an objective is exact.dp.objective's (no has_lead in exact/cuda)."""
    bodies = kernel_bodies()
    assert {"simplex", "pivot", "saddle", "fold", "finish", "_solve_item", "polished"} <= bodies
    imported, defined = set(), set()
    for path in files("exact/cuda"):
        imported |= imported_modules(path)
        tree = ast.parse(path.read_text())
        defined |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert "has_lead" not in path.read_text(), f"{path.name} reads an objective's layout"
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            names = {getattr(t, "id", "") for t in targets}
            assert not names & {"EPS_RC", "EPS_PIV", "EPS_TIE", "PIV_REL", "MAX_PIVOTS", "KMAX"}
    assert {f"exact.kernels.{m}" for m in BODY_MODULES} <= imported
    assert not defined & bodies, sorted(defined & bodies)


#: Modules below the parsers of --variant and of the page's ``variant`` query (issue 49).
VARIANT_TAKERS = [
    ROOT / f"exact/{p}.py"
    for p in (
        "play/bots", "play/engine", "play/tournament", "cli/common", "cli/limits", "cli/bots",
        "web/game_json", "web/play", "web/query",
    )
]  # fmt: skip


@pytest.mark.parametrize("path", VARIANT_TAKERS, ids=lambda p: p.name)
def test_no_variant_name_is_compared_below_the_parsers(path):
    """The variant is parsed once into a Variant (exact.game.variants.get_variant) and asked
    ``is STANDARD``, players or drop_last, never compared by its name."""
    from exact.game.variants import VARIANTS

    assert name_comparisons(path, set(VARIANTS)) == []


#: The parsers of --variant, --players and the query's variant and order, and the modules
#: they hand the parsed object to (a Variant, a PrizeOrder, the chosen game family): each
#: compared a name once, or handed one on (issue 49).
PARSED_ONCE = [
    ROOT / f"exact/{p}.py"
    for p in (
        "cli/families", "cli/play", "cli/bots", "cli/common", "cli/variants", "web/app",
        "web/solutions", "web/query", "web/play", "dp/variant_solver", "play/three",
        "play/tournament", "play/bots", "play/hidden", "analysis/evaluate",
    )
]  # fmt: skip


def compared_names(path: Path) -> list[str]:
    """Every comparison (==, !=, in, not in) of an attribute ``name`` or ``variant``, or
    with a collection of names (``SOLVABLE_VARIANTS``, ``VARIANTS``, ``ORDERS``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        if not any(isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops):
            continue
        for side in [node.left, *node.comparators]:
            attribute = isinstance(side, ast.Attribute) and side.attr in ("name", "variant")
            collection = getattr(side, "id", "").endswith(("VARIANTS", "ORDERS"))
            if attribute or collection:
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", PARSED_ONCE, ids=lambda p: p.name)
def test_the_variant_and_order_are_parsed_once_and_asked_by_identity(path):
    """A variant flag's value is looked up once (exact.game.variants.VARIANTS, the
    families' own table, gops play's table with declarations) and an order is a
    PrizeOrder; below, ``is STANDARD``, ``is RANDOM``, ``key.rules is variant``: no name,
    flag value or collection of names is compared."""
    from exact.game.orders import ORDERS
    from exact.game.variants import VARIANTS

    names = THREE_NAMES | set(VARIANTS) | set(ORDERS) | {"declarations"}
    assert name_comparisons(path, names) + compared_names(path) == []


#: The functions and classes that take a parsed Variant, PrizeOrder, objective or
#: ImperfectGame (the Python API's edge takes a name too: solve_variant, evaluate_three,
#: three_solution, check_setup, Game).
TYPED_TAKERS = {
    "check_variant_options", "solve_variant", "presolve_variant", "variant", "make_three_bot",
    "computer_players", "equilibrium_source", "has_saved", "three_solution", "evaluate_three",
    "HiddenGame", "Game", "check_setup",
}  # fmt: skip


def handed_names(path: Path) -> list[str]:
    """Every call of one of TYPED_TAKERS with an argument ``X.name``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        callee = getattr(node.func, "id", getattr(node.func, "attr", ""))
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if callee in TYPED_TAKERS and any(
            isinstance(a, ast.Attribute) and a.attr == "name" for a in arguments
        ):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", PARSED_ONCE, ids=lambda p: p.name)
def test_the_parsed_objects_are_handed_on_not_their_names(path):
    """Where a module holds the Variant, the PrizeOrder or the objective, it hands the
    object on, not its name to be parsed again (at 16fe159: tournament.py, bots.py,
    query.py, play.py of the web and of the CLI)."""
    assert handed_names(path) == []


def name_lookups(path: Path, names: set[str]) -> list[str]:
    """Every subscript by an attribute ``name`` or by one of ``names``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Subscript):
            continue
        key = node.slice
        if (isinstance(key, ast.Attribute) and key.attr == "name") or (
            isinstance(key, ast.Constant) and key.value in names
        ):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


@pytest.mark.parametrize(
    "path",
    [
        ROOT / f"exact/imperfect/{p}.py"
        for p in ("exact_lp", "lp_tables", "tables", "restricted", "certified", "double_oracle")
    ],
    ids=lambda p: p.name,
)
def test_the_imperfect_tables_are_keyed_by_the_prize_order(path):
    """DENSE_MAX_N, RATIONAL_MAX_N, START_MAX_N and the kernels' order codes
    (tables.KERNEL_ORDER) are keyed by the PrizeOrder; a layout says ``shuffled`` (at
    16fe159: ORDER_CODES["random"], DENSE_MAX_N[game.order.name], the other two
    likewise)."""
    from exact.game.orders import ORDERS

    assert name_lookups(path, set(ORDERS)) == []
