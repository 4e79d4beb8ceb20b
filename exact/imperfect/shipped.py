"""The equilibria of imperfect-information Goofspiel shipped with the project, in
``exact/imperfect/equilibria/``: ground truth for research, read in seconds.

Each equilibrium is a policy file (:mod:`exact.imperfect.policy_file`'s format: exact
``"p/q"`` strings for an exact equilibrium, float64 numbers on the grid 2^-52 for an
epsilon-equilibrium, each exactly the probability it denotes) compressed with xz, and
listed in ``index.json`` with its game, the SHA-256 of the compressed file, how it was
computed, the command that regenerates it, and what was proven of it when it was made.

Nothing is taken on the index's word but which file to read (:func:`load_shipped`):

1. the file's SHA-256 must be the index's (the file is the one shipped);
2. it is decompressed (at most :data:`~exact.imperfect.policy_file.MAX_FILE_BYTES`) and
   read as any policy file is, every state and probability checked;
3. its NashConv is proven again in this run (Lanctot et al. 2017; the best responses of
   :mod:`exact.imperfect.nashconv`): exactly in rationals up to
   :data:`~exact.imperfect.certified.RATIONAL_MAX_N` cards, else in float64 with the
   proven error bound; an exact equilibrium must re-prove to NashConv 0 exactly, and its
   value is then player 0's best-response value.

The folder is written by ``benchmarks/ship_equilibria.py`` (:func:`ship`).
"""

from __future__ import annotations

import hashlib
import json
import lzma
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from exact.atomic import atomic_file
from exact.errors import GopsInputError
from exact.game.objectives import FLOAT, RATIONAL
from exact.imperfect.certified import FULL_POLICY_MAX_ROWS, Method, default_method, round_up
from exact.imperfect.game import ImperfectGame
from exact.imperfect.nashconv import NashConv, nash_conv
from exact.imperfect.policy import Policy
from exact.imperfect.policy_file import MAX_FILE_BYTES, parse_json, policy_from_json
from exact.imperfect.tables import layout

__all__ = ["FOLDER", "FORMAT", "Shipped", "index", "load_shipped", "ship", "shipped_entry"]

#: Where the shipped equilibria are.
FOLDER = Path(__file__).with_name("equilibria")
#: Files up to this size are compressed with xz's extreme preset (-9e); larger ones (the
#: 7-card policies, about 130 MB) with -9, several times faster for a few per cent more.
EXTREME_MAX_BYTES = 16 * 2**20
#: The index's ``format``.
FORMAT = "gops imperfect equilibria 1"


def file_name(game: ImperfectGame) -> str:
    """The file of ``game``'s equilibrium: ``goofspiel-imp-N-ORDER-OBJECTIVE.json.xz``."""
    return f"goofspiel-imp-{game.n}-{game.order.name}-{game.objective.name}.json.xz"


#: Every index entry's keys and their types.
ENTRY_KEYS = {"n": int, "order": str, "objective": str, "file": str, "sha256": str,
              "method": str, "command": str}  # fmt: skip


def index(folder: Path = FOLDER) -> list[dict]:
    """The entries of the folder's ``index.json`` (an empty list where there is none); a
    one-line GopsInputError for an index that is not one."""
    path = folder / "index.json"
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GopsInputError(f"cannot read {path} ({exc})") from None
    entries = data.get("equilibria") if isinstance(data, dict) else None
    if not isinstance(entries, list) or data.get("format") != FORMAT:
        raise GopsInputError(f"{path} is not an index of shipped equilibria ({FORMAT!r})")
    for entry in entries:
        if not isinstance(entry, dict) or any(
            not isinstance(entry.get(key), kind) for key, kind in ENTRY_KEYS.items()
        ):
            raise GopsInputError(f"{path} has an entry without {', '.join(ENTRY_KEYS)}")
        if "/" in entry["file"] or entry["file"].startswith("."):
            raise GopsInputError(f"{path} names a file outside its folder: {entry['file']!r}")
    return entries


def shipped_entry(game: ImperfectGame, folder: Path = FOLDER) -> dict | None:
    """The index entry of ``game``'s shipped equilibrium, or None."""
    wanted = (game.n, game.order.name, game.objective.name)
    for entry in index(folder):
        if (entry["n"], entry["order"], entry["objective"]) == wanted:
            return entry
    return None


@dataclass(frozen=True)
class Shipped:
    """A shipped equilibrium read and re-proved in this run (module docstring):
    ``proof`` is its NashConv computed now; ``text`` the policy file, decompressed."""

    game: ImperfectGame
    entry: dict
    path: Path
    policy: Policy
    proof: NashConv
    text: bytes
    seconds: float

    @property
    def exact(self) -> bool:
        """An exact equilibrium: NashConv exactly 0, proven in this run."""
        return self.proof.arithmetic.exact and self.proof.value == 0

    @property
    def epsilon(self) -> Fraction | float:
        """A proven upper bound on the NashConv (module docstring, step 3)."""
        if self.proof.arithmetic.exact:
            return self.proof.value
        return round_up(Fraction(self.proof.value) + Fraction(self.proof.error_bound))

    def to_json(self) -> dict:
        def number(v):
            return str(v) if isinstance(v, Fraction) else v

        answer = {
            "n": self.game.n,
            "order": self.game.order.name,
            "objective": self.game.objective.name,
            "exact": self.exact,
            "source": "shipped",
            "file": str(self.path),
            "sha256": self.entry["sha256"],
            "method": self.entry["method"],
            "regenerate": self.entry["command"],
            "reproved": {
                "nash_conv": number(self.proof.value),
                "arithmetic": self.proof.arithmetic.name,
                "error_bound": self.proof.error_bound,
                "epsilon": number(self.epsilon),
                "epsilon_float": round_up(self.epsilon),
                "best_response_values": [number(v) for v in self.proof.best_responses],
                "units": self.proof.units,
            },
            "seconds": round(self.seconds, 3),
            "openspiel_game": self.game.openspiel_parameters(),
        }
        if self.exact:
            value = self.proof.best_responses[0]
            answer.update(value=str(value), value_float=float(value))
        return answer


def _reached_only(game: ImperfectGame) -> bool:
    """Whether ``game``'s policy files hold only the decisions each player reaches (the
    rest bid uniformly): beyond :data:`~exact.imperfect.certified.FULL_POLICY_MAX_ROWS`."""
    return layout(game).rows > FULL_POLICY_MAX_ROWS


def load_shipped(game: ImperfectGame, folder: Path = FOLDER) -> Shipped:
    """``game``'s shipped equilibrium, checked and re-proved (module docstring); a
    one-line GopsInputError where there is none or its file is not the one shipped."""
    start = time.perf_counter()
    entry = shipped_entry(game, folder)
    if entry is None:
        raise GopsInputError(f"no equilibrium of this game is shipped ({file_name(game)})")
    path = folder / entry["file"]
    try:
        packed = path.read_bytes()
    except OSError as exc:
        raise GopsInputError(f"cannot read the shipped {path}: {exc.strerror}") from None
    digest = hashlib.sha256(packed).hexdigest()
    if digest != entry["sha256"]:
        raise GopsInputError(
            f"the shipped {path} has SHA-256 {digest[:16]}..., not the index's "
            f"{entry['sha256'][:16]}...: it is not the file shipped"
        )
    decompressor = lzma.LZMADecompressor()
    try:
        text = decompressor.decompress(packed, max_length=MAX_FILE_BYTES + 1)
    except lzma.LZMAError as exc:
        raise GopsInputError(f"the shipped {path} is not xz data ({exc})") from None
    if len(text) > MAX_FILE_BYTES or not decompressor.eof:
        raise GopsInputError(f"the shipped {path} decompresses to more than {MAX_FILE_BYTES:,}")
    policy = policy_from_json(
        game, parse_json(text, str(path)), _reached_only(game), name=str(path)
    )
    arithmetic = RATIONAL if default_method(game) is Method.RATIONAL else FLOAT
    proof = nash_conv(game, policy, arithmetic)
    return Shipped(game, entry, path, policy, proof, text, time.perf_counter() - start)


def ship(
    game: ImperfectGame,
    policy_json: dict,
    method: str,
    command: str,
    seconds: dict,
    folder: Path = FOLDER,
    extra: dict | None = None,
) -> dict:
    """Write ``policy_json`` as ``game``'s shipped equilibrium (xz, atomically), prove its
    NashConv, and record it in the index (replacing the game's old entry, with ``extra``
    facts of how it was computed); its entry."""
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(policy_json, indent=0, sort_keys=True).encode("utf-8") + b"\n"
    extreme = lzma.PRESET_EXTREME if len(text) <= EXTREME_MAX_BYTES else 0
    packed = lzma.compress(text, preset=9 | extreme)
    name = file_name(game)
    with atomic_file(folder / name, "wb") as fh:
        fh.write(packed)
    policy = policy_from_json(game, json.loads(text), _reached_only(game), name=name)
    arithmetic = RATIONAL if default_method(game) is Method.RATIONAL else FLOAT
    proof = nash_conv(game, policy, arithmetic)
    epsilon = (
        proof.value
        if arithmetic.exact
        else round_up(Fraction(proof.value) + Fraction(proof.error_bound))
    )
    entry = {
        "n": game.n,
        "order": game.order.name,
        "objective": game.objective.name,
        "file": name,
        "sha256": hashlib.sha256(packed).hexdigest(),
        "bytes": len(packed),
        "method": method,
        "exact": arithmetic.exact and proof.value == 0,
        "nash_conv": str(epsilon) if isinstance(epsilon, Fraction) else epsilon,
        "nash_conv_float": round_up(epsilon),
        "proof": "exact rational NashConv"
        if arithmetic.exact
        else "float64 NashConv plus its proven error bound",
        "command": command,
        "seconds": {k: round(v, 2) for k, v in seconds.items()},
        **(extra or {}),
    }
    entries = [e for e in index(folder) if e["file"] != name] + [entry]
    entries.sort(key=lambda e: (e["order"], e["objective"], e["n"]))
    with atomic_file(folder / "index.json", "w") as fh:
        json.dump({"format": FORMAT, "equilibria": entries}, fh, indent=1)
        fh.write("\n")
    return entry
