"""Tournament configs: TOML files checked in full before any work starts.

`load_config(path)` (or `parse_config(text, path)`) returns a `TournamentConfig`: the
`[tournament]` table (game, format, deals, seed, chunk size, output, Ray address, and the
optional `forfeit_score`, `seatings`, `gpus_per_worker`, `gpu_chunk_size`), the game's
`[flags]`, one `BotSpec` per `[bots.NAME]` table (kinds random, heuristic, pimc, jax, python,
external) and the `[ab]` or `[gauntlet]` table its format needs. `configs/quickstart.toml` is a
complete example; every key is described in docs/tournament-config.md.

A bad config raises `ConfigError` naming the file, the line and the key, before anything is
written (a bot kind that cannot play the game, or more bots than a duplicate table seats).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import math
import re
import shlex
import shutil
import tomllib
from pathlib import Path
from typing import Any

import kanjax
from kanjax.bots import has_heuristic
from tournaments.policies import policy_problem

FORMATS = ("duplicate", "round_robin", "gauntlet", "ab")
SEATINGS = ("all", "distinct", "rotations")  # `tournaments.plan.seatings`
BOT_KINDS = {
    "random": (),
    "heuristic": (),
    "pimc": (),  # solvers.pimc: sampled layouts solved by the batched double-dummy search
    "jax": ("target",),  # "module:make_policy", a jittable policy (tournaments.policies)
    "python": ("target",),  # "module:Class", an object with act(observation, legal_actions)
    "external": ("command",),  # an engine process speaking the line protocol
}
PIMC_KEYS = {"samples": 16, "budget": 5_000, "max_cards": 6}  # pimc settings, defaults
BOT_KEYS = {"kind", "version", "target", "command", "time_limit", "params", "batch",
            *PIMC_KEYS}
TOURNAMENT_KEYS = {"game", "format", "deals", "seed", "chunk_size", "output", "ray_address",
                   "forfeit_score", "seatings", "gpus_per_worker", "gpu_chunk_size"}
SECTIONS = {"tournament", "flags", "bots", "ab", "gauntlet"}
AB_KEYS = {"candidate", "baseline", "mu0", "mu1", "alpha", "beta"}
FORFEIT_RULE = 2  # how a forfeit is scored (`tournaments.play.ChunkPlayer`): 2, below the
# game's worst score since issue 44; in the config hash, so no folder mixes two rules
RUN_ONLY = ("output", "ray_address", "chunk_size", "deals", "gpus_per_worker",
            "gpu_chunk_size")  # not in the config hash


class ConfigError(ValueError):
    """A bad tournament config; the message names the file, line and key."""


@dataclasses.dataclass(frozen=True)
class BotSpec:
    name: str
    kind: str
    version: str = "1"
    target: str = ""
    command: str = ""
    time_limit: float = 10.0  # seconds per move (or batch) for Python and external bots
    params: str = ""  # jax: the absolute path of the policy's parameters (.npz), if any
    batch: bool = False  # external: the engine answers batched requests
    samples: int = PIMC_KEYS["samples"]  # pimc: hidden-hand layouts a decision
    budget: int = PIMC_KEYS["budget"]  # pimc: search nodes a problem
    max_cards: int = PIMC_KEYS["max_cards"]  # pimc: searches with at most this many cards


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    game: str
    flags: dict[str, Any]
    bots: tuple[BotSpec, ...]
    format: str = "duplicate"
    deals: int = 64
    seed: int = 0
    chunk_size: int = 32
    output: str = "results"
    ray_address: str = ""
    ab: dict[str, Any] = dataclasses.field(default_factory=dict)
    champion: str = ""
    forfeit_score: float | None = None  # None: the game's `TournamentViews.worst_score` - 1
    seatings: str = "all"  # SEATINGS: which seatings a duplicate group plays
    gpus_per_worker: float = 0.0  # GPUs a GPU worker asks Ray for (0: CPU workers only)
    gpu_chunk_size: int = 0  # games a GPU worker plays at once (0: DEVICE_CHUNK's)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def engine_version(self) -> str:
        """The game engine's `version` (`kanjax.api.Env.version`)."""
        return kanjax.make(self.game, **self.flags).version

    def identity(self) -> dict[str, Any]:
        """Everything that decides a game's result, the engine version included; not
        `RUN_ONLY` (where, how and how many deals: a run may change those and resume)."""
        d = self.to_dict()
        for k in RUN_ONLY:
            d.pop(k)
        if d["seatings"] == "rotations":  # the default: the hashes of configs made before it
            d.pop("seatings")
        bots = d.pop("bots")
        d["bot_order"] = [b["name"] for b in bots]  # bot indices seat the planned games
        for b in bots:  # keys added later count only when set (older hashes stay)
            if b["params"]:  # the checkpoint's content, wherever it lies
                b["params"] = hashlib.sha256(Path(b["params"]).read_bytes()).hexdigest()[:16]
            for key in ("params", "batch"):
                if not b[key]:
                    b.pop(key)
        d["bots"] = {b.pop("name"): b for b in bots}
        d["engine_version"] = self.engine_version()
        d["forfeit_rule"] = FORFEIT_RULE
        return d

    def config_hash(self) -> str:
        """A short hash of `identity`: a results folder holds the games of one identity (so
        never of two engine versions); raising `deals` extends it."""
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()
                              ).hexdigest()[:16]


class _Where:
    """Finds the line of a key in the TOML text, for error messages."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.lines = path, text.splitlines()

    def line(self, section: str, key: str | None = None) -> int | None:
        header = re.compile(r"^\s*\[\s*" + re.escape(section) + r"\s*\]")
        inside = False
        for i, line in enumerate(self.lines, 1):
            if re.match(r"^\s*\[", line):
                inside = bool(header.match(line))
                if inside and key is None:
                    return i
                continue
            if inside and key is not None and re.match(
                    r"^\s*" + re.escape(key) + r"\s*=", line):
                return i
        return None

    def error(self, msg: str, section: str, key: str | None = None) -> ConfigError:
        line = self.line(section, key)
        at = f"{self.path}:{line}" if line else self.path
        where = f"[{section}]" + (f" {key}" if key else "")
        return ConfigError(f"{at}: {where}: {msg}")


def _positive_int(where: _Where, section: str, key: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise where.error(f"must be a positive integer, got {value!r}", section, key)
    return value


def parse_config(text: str, path: str = "<config>") -> TournamentConfig:
    """A checked `TournamentConfig` from TOML text; `ConfigError` names what is wrong."""
    where = _Where(path, text)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    for section in raw:
        if section not in SECTIONS:
            raise where.error(f"unknown section; sections: {', '.join(sorted(SECTIONS))}",
                              section)
    t = raw.get("tournament")
    if not isinstance(t, dict):
        raise ConfigError(f"{path}: missing [tournament] section")
    for key in t:
        if key not in TOURNAMENT_KEYS:
            raise where.error(f"unknown key; keys: {', '.join(sorted(TOURNAMENT_KEYS))}",
                              "tournament", key)
    game = t.get("game")
    if game not in kanjax.games():
        raise where.error(f"unknown game {game!r}; games: {', '.join(kanjax.games())}",
                          "tournament", "game")
    flags = dict(raw.get("flags", {}))
    try:
        env = kanjax.make(game, **flags)
    except (ValueError, TypeError) as err:
        bad = next((k for k in flags if f"'{k}'" in str(err) or f"{k}=" in str(err)), None)
        raise where.error(str(err), "flags", bad) from None
    fmt = t.get("format", "duplicate")
    if fmt not in FORMATS:
        raise where.error(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}",
                          "tournament", "format")
    seatings = t.get("seatings", "all")
    if seatings not in SEATINGS:
        raise where.error(f"unknown seatings {seatings!r}; one of: {', '.join(SEATINGS)}",
                          "tournament", "seatings")
    deals = _positive_int(where, "tournament", "deals", t.get("deals", 64))
    chunk = _positive_int(where, "tournament", "chunk_size", t.get("chunk_size", 32))
    seed = t.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise where.error(f"must be an integer >= 0, got {seed!r}", "tournament", "seed")
    bots = _parse_bots(where, raw.get("bots", {}))
    for b in bots:
        problem = _kind_problem(b.kind, env)
        if problem:
            raise where.error(problem, f"bots.{b.name}", "kind")
        if b.kind == "jax":
            problem, key = policy_problem(b.target, b.params, env)
            if problem:
                raise where.error(problem, f"bots.{b.name}", key)
    names = [b.name for b in bots]
    if fmt == "duplicate" and len(bots) > env.num_players:
        raise where.error(
            f"{len(bots)} bots cannot share a {env.num_players}-player table: format "
            "\"duplicate\" seats every bot in each game; use fewer bots, or format "
            "\"round_robin\" or \"gauntlet\"", f"bots.{names[env.num_players]}")
    ab = dict(raw.get("ab", {}))
    if fmt == "ab":
        ab = _parse_ab(where, ab, names)
    elif ab:
        raise where.error("only for format = \"ab\"", "ab")
    champion = raw.get("gauntlet", {}).get("champion", "")
    if fmt == "gauntlet" and champion not in names:
        raise where.error(f"champion must be one of the bots {names}", "gauntlet", "champion")
    if fmt == "ab" and len(bots) != 2:
        raise where.error("format \"ab\" plays exactly two bots (candidate, baseline)",
                          "tournament", "format")
    output = t.get("output", "results")
    if not isinstance(output, str) or not output:
        raise where.error("must be a folder name", "tournament", "output")
    address = t.get("ray_address", "")
    if not isinstance(address, str):
        raise where.error("must be a string (\"\" for a local Ray)", "tournament", "ray_address")
    gpus = t.get("gpus_per_worker", 0)
    if not isinstance(gpus, int | float) or isinstance(gpus, bool) or not 0 <= gpus < 1e6:
        raise where.error(f"must be a number >= 0, got {gpus!r}", "tournament",
                          "gpus_per_worker")
    gpu_chunk = t.get("gpu_chunk_size", 0)
    if gpu_chunk:
        _positive_int(where, "tournament", "gpu_chunk_size", gpu_chunk)
    forfeit = t.get("forfeit_score")
    if forfeit is not None and (not isinstance(forfeit, int | float) or isinstance(forfeit, bool)
                                or not math.isfinite(forfeit)):
        raise where.error(f"must be a number, got {forfeit!r}", "tournament", "forfeit_score")
    if forfeit is not None and forfeit >= env.worst_score:
        raise where.error(f"must be below {game}'s worst match score {env.worst_score:g} (a "
                          f"forfeit always loses), got {forfeit!r}", "tournament",
                          "forfeit_score")
    return TournamentConfig(game=game, flags=flags, bots=bots, format=fmt, deals=deals,
                            seed=seed, chunk_size=chunk, output=output, ray_address=address,
                            ab=ab, champion=champion,
                            forfeit_score=None if forfeit is None else float(forfeit),
                            seatings=seatings, gpus_per_worker=float(gpus),
                            gpu_chunk_size=gpu_chunk)


def _parse_bots(where: _Where, raw: dict) -> tuple[BotSpec, ...]:
    if len(raw) < 2:
        raise where.error("a tournament needs at least two bots ([bots.NAME] sections)", "bots")
    bots = []
    for name, spec in raw.items():
        section = f"bots.{name}"
        if not isinstance(spec, dict):
            raise where.error("must be a table with kind = ...", section)
        for key in spec:
            if key not in BOT_KEYS:
                raise where.error(f"unknown key; keys: {', '.join(sorted(BOT_KEYS))}",
                                  section, key)
        kind = spec.get("kind")
        if kind not in BOT_KINDS:
            raise where.error(f"unknown bot kind {kind!r}; kinds: {', '.join(BOT_KINDS)}",
                              section, "kind")
        for key in BOT_KINDS[kind]:
            if not isinstance(spec.get(key), str) or not spec[key]:
                raise where.error(f"bot kind {kind!r} needs {key} = \"...\"", section, key)
        problem = _host_bot_problem(kind, spec)
        if problem:
            raise where.error(problem, section, "target" if kind == "python" else "command")
        limit = spec.get("time_limit", 10.0)
        if not isinstance(limit, int | float) or isinstance(limit, bool) or limit <= 0:
            raise where.error(f"must be a positive number of seconds, got {limit!r}",
                              section, "time_limit")
        for key in PIMC_KEYS.keys() & spec.keys():
            if kind != "pimc":
                raise where.error(f"only pimc bots take {key}", section, key)
            _positive_int(where, section, key, spec[key])
        for key, kinds, want in (("params", ("jax",), str), ("batch", ("external",), bool)):
            if key in spec and kind not in kinds:
                raise where.error(f"only {' and '.join(kinds)} bots take {key}", section, key)
            if not isinstance(spec.get(key, want()), want):
                raise where.error(f"must be {'a path' if want is str else 'true or false'}, "
                                  f"got {spec[key]!r}", section, key)
        params = spec.get("params", "")
        bots.append(BotSpec(name=name, kind=kind, version=str(spec.get("version", "1")),
                            target=spec.get("target", ""), command=spec.get("command", ""),
                            time_limit=float(limit),
                            params=str(Path(params).resolve()) if params else "",
                            batch=spec.get("batch", False),
                            **{k: spec.get(k, d) for k, d in PIMC_KEYS.items()}))
    return tuple(bots)


def _kind_problem(kind: str, env: kanjax.Env) -> str:
    """Why a bot of `kind` cannot play `env`'s game ("" if it can): each kind says which
    games it plays."""
    if kind == "heuristic" and not has_heuristic(env):
        return f"{env.name} has no heuristic bot"
    if kind == "pimc":
        from solvers import pimc

        return pimc.unsupported(env)
    return ""


def _host_bot_problem(kind: str, spec: dict) -> str:
    """Why a Python bot's class or an engine's program cannot be found ("" if it can)."""
    if kind == "python":
        module, colon, name = spec["target"].partition(":")
        if not colon or not module or not name:
            return f"want target = \"package.module:Class\", got {spec['target']!r}"
        try:
            obj = getattr(importlib.import_module(module), name, None)
        except Exception as err:  # noqa: BLE001 - any import failure is a config error
            return f"cannot import {module!r}: {err!r}"
        if obj is None or not (hasattr(obj, "act") or hasattr(obj, "act_batch")):
            return (f"{spec['target']!r} is not a class with an act(observation, legal) or "
                    "act_batch(observations, legal_masks) method")
    if kind == "external":
        words = shlex.split(spec["command"])
        if not words or shutil.which(words[0]) is None:
            return f"program not found: {spec['command']!r}"
    return ""


def _parse_ab(where: _Where, ab: dict, names: list[str]) -> dict:
    for key in ab:
        if key not in AB_KEYS:
            raise where.error(f"unknown key; keys: {', '.join(sorted(AB_KEYS))}", "ab", key)
    for key in ("candidate", "baseline"):
        if ab.get(key) not in names:
            raise where.error(f"must name one of the bots {names}", "ab", key)
    out = {"candidate": ab["candidate"], "baseline": ab["baseline"]}
    for key, default in (("mu0", 0.0), ("mu1", 1.0), ("alpha", 0.05), ("beta", 0.05)):
        value = ab.get(key, default)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise where.error(f"must be a number, got {value!r}", "ab", key)
        out[key] = float(value)
    for key in ("alpha", "beta"):
        if not 0 < out[key] < 0.5:
            raise where.error(f"must be in (0, 0.5), got {out[key]}", "ab", key)
    if out["mu1"] <= out["mu0"]:
        raise where.error("mu1 must be greater than mu0", "ab", "mu1")
    return out


def load_config(path: str | Path) -> TournamentConfig:
    """Read and check a TOML config file."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as err:
        raise ConfigError(f"{p}: cannot read the config: {err.strerror}") from None
    return parse_config(text, str(p))
