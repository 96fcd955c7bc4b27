"""Bots that run on the host, one move at a time: Python objects and external engines.

Python bot (`kind = "python"`, `target = "package.module:Class"`): `Class()` is built once
per worker; `act(observation, legal_actions) -> action` gets the observation (a numpy array
laid out, typed and bounded as the game's `env.observation_spec()` says) and the legal action
ids, and returns one of them.

External engine (`kind = "external"`, `command = "path/to/engine --flag"`): a process that
reads one JSON object per line on stdin and answers each `act` with one JSON line on stdout:

    -> {"type": "act", "game": "gonin_kan", "player": 3, "observation": [...],
        "legal_actions": [12, 25, 52], "action_names": ["play AC", "play AD", "play JK"]}
    <- {"action": 25}

and receives `{"type": "quit"}` when the worker closes (then stdin ends). Anything it writes
on stderr is ignored.

A bot that raises, crashes, answers late (`time_limit` seconds per move) or chooses an
illegal action raises `BotFault`; the tournament records a forfeit for it and goes on (an
external engine is restarted for its next move).
"""

from __future__ import annotations

import concurrent.futures
import importlib
import json
import shlex
import subprocess
import threading

import numpy as np

from tournaments.config import BotSpec


class BotFault(Exception):
    """A host bot failed a move: the reason is the message (crash, timeout, illegal)."""


class PythonBot:
    """A Python object with `act(observation, legal_actions) -> action`, under a time limit."""

    def __init__(self, spec: BotSpec) -> None:
        module, _, name = spec.target.partition(":")
        self.spec, self.bot, self.broken = spec, None, ""
        try:
            self.bot = getattr(importlib.import_module(module), name)()
        except Exception as err:  # noqa: BLE001 - a bot that cannot be built forfeits
            self.broken = f"crash: cannot build {spec.target}: {err!r}"
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)

    def act(self, game: str, player: int, observation: np.ndarray, legal: list[int],
            names: list[str]) -> int:
        if self.broken:
            raise BotFault(self.broken)
        future = self.pool.submit(self.bot.act, observation, list(legal))
        try:
            action = future.result(timeout=self.spec.time_limit)
        except concurrent.futures.TimeoutError:
            # the stuck call keeps its thread; later moves get a fresh one
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
            raise BotFault(f"timeout: no move within {self.spec.time_limit:g} s") from None
        except Exception as err:  # noqa: BLE001 - a crashing bot forfeits
            raise BotFault(f"crash: {err!r}") from err
        return check_legal(action, legal)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


class ExternalBot:
    """An engine process speaking the line protocol of the module docstring."""

    def __init__(self, spec: BotSpec) -> None:
        self.spec = spec
        self.proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            try:
                self.proc = subprocess.Popen(
                    shlex.split(self.spec.command), stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
            except OSError as err:
                raise BotFault(f"crash: cannot start {self.spec.command!r}: {err}") from err
        return self.proc

    def act(self, game: str, player: int, observation: np.ndarray, legal: list[int],
            names: list[str]) -> int:
        proc = self._start()
        request = {"type": "act", "game": game, "player": player,
                   "observation": observation.tolist(), "legal_actions": list(legal),
                   "action_names": names}
        answer: list[str] = []
        reader = threading.Thread(target=lambda: answer.append(proc.stdout.readline()),
                                  daemon=True)
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._kill()
            raise BotFault("crash: the engine closed its input") from None
        reader.start()
        reader.join(self.spec.time_limit)
        if reader.is_alive():
            self._kill()
            raise BotFault(f"timeout: no move within {self.spec.time_limit:g} s")
        line = answer[0] if answer else ""
        if not line:
            self._kill()
            raise BotFault(f"crash: the engine exited (code {proc.poll()})")
        try:
            action = json.loads(line)["action"]
        except (ValueError, KeyError, TypeError):
            raise BotFault(f"illegal: unreadable answer {line.strip()[:80]!r}") from None
        return check_legal(action, legal)

    def _kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"type": "quit"}) + "\n")
                self.proc.stdin.close()
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()


def check_legal(action, legal: list[int]) -> int:
    """`action` as an int if it is one of `legal`, else BotFault."""
    if isinstance(action, bool) or not isinstance(action, int | np.integer) or (
            int(action) not in legal):
        raise BotFault(f"illegal: action {action!r} is not legal here")
    return int(action)


def host_bot(spec: BotSpec) -> PythonBot | ExternalBot:
    return PythonBot(spec) if spec.kind == "python" else ExternalBot(spec)
