"""Bots that run on the host, each in a process of its own: Python objects and external
engines, asked one move at a time or, batched, for every game of a chunk waiting on them.

- `host_bot(spec)` builds the bot a config's `BotSpec` names: a `PythonBot` (`kind =
  "python"`, `target = "package.module:Class"`: a class with `act(observation,
  legal_actions)` or `act_batch(observations, legal_masks)`, served in a child process by
  `python -m tournaments.bots package.module:Class`, `serve`) or an `ExternalBot` (`kind =
  "external"`, `command = "..."`: an engine speaking one JSON object per line on
  stdin/stdout, batched with `batch = true`).
- A bot that raises, crashes, answers late (`time_limit` seconds per move or batch) or chooses
  an illegal action raises `BotFault`, which the tournament records as a forfeit; a process
  that breaks the protocol is killed and the next request starts a fresh one (every request
  carries the whole position).

The Python bot's interface, the JSON-lines wire protocol and the fault rules are in
docs/bot-protocol.md.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import itertools
import json
import logging
import os
import select
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tournaments.config import BotSpec

log = logging.getLogger(__name__)
STARTUP_LIMIT = 60.0  # seconds a Python bot's process has to import and build its bot
LOGGED_SKIPS = 3  # skipped lines logged a request (an engine may flood its stdout)


class BotFault(Exception):
    """A host bot failed a move: the reason is the message (crash, timeout, illegal)."""


Move = int | BotFault  # a game's action, or why its bot has none


class ExternalBot:
    """An engine process speaking the line protocol of docs/bot-protocol.md."""

    stderr = subprocess.DEVNULL  # an engine's stderr is ignored

    def __init__(self, spec: BotSpec) -> None:
        self.spec = spec
        self.proc: subprocess.Popen | None = None
        self.buffer = b""  # what the process wrote after its last line read
        self.ids = itertools.count(1)

    def _command(self) -> list[str]:
        return shlex.split(self.spec.command)

    def _env(self) -> dict[str, str] | None:
        """The process's environment (None: this process's)."""
        return None

    def _start(self) -> subprocess.Popen:
        """The running process, started afresh if there is none or it has exited."""
        if self.proc is not None and self.proc.poll() is not None:
            log.warning("bot %s: the engine exited (code %s) between moves; restarting it",
                        self.spec.name, self._stop())
        if self.proc is None:
            try:
                self.proc = subprocess.Popen(
                    self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=self.stderr, env=self._env(),
                    start_new_session=True)  # Ctrl-C stops the run only
            except OSError as err:
                raise BotFault(f"crash: cannot start {self.spec.command!r}: {err}") from err
            self.buffer = b""
        return self.proc

    @property
    def batched(self) -> bool:
        """Whether the bot answers batched requests."""
        return self.spec.batch

    def moves(self, game: str, players: np.ndarray, observations: np.ndarray,
              masks: np.ndarray, name: Callable[[int], str]) -> list[Move]:
        """The bot's move in each of n games where it is to move (`players` int[n], the
        movers' `observations` [n, obs], legal `masks` bool[n, num_actions], `name` of an
        action): one batched request if the bot takes them, else a request a game."""
        legal = [np.flatnonzero(m).tolist() for m in masks]
        try:
            if self.batched:
                return _checked(self._act_batch(game, players, observations, masks, legal,
                                                name), legal)
        except BotFault as fault:
            return [fault] * len(legal)
        out: list[Move] = []
        for p, obs, lg in zip(players, observations, legal, strict=True):
            try:
                out.append(self.act(game, int(p), obs, lg, [name(a) for a in lg]))
            except BotFault as fault:
                out.append(fault)
        return out

    def act(self, game: str, player: int, observation: np.ndarray, legal: list[int],
            names: list[str]) -> int:
        reply = self._ask({"type": "act", "game": game, "player": player,
                           "observation": observation.tolist(), "legal_actions": list(legal),
                           "action_names": names})
        return check_legal(reply.get("action"), legal)

    def _act_batch(self, game: str, players: np.ndarray, observations: np.ndarray,
                   masks: np.ndarray, legal: list[list[int]],
                   name: Callable[[int], str]) -> list:
        """The actions (unchecked) of one batched request."""
        reply = self._ask({"type": "act_batch", "game": game, "requests": [
            {"player": int(p), "observation": obs.tolist(), "legal_actions": lg,
             "action_names": [name(a) for a in lg]}
            for p, obs, lg in zip(players, observations, legal, strict=True)]})
        return reply.get("actions")

    def _ask(self, request: dict) -> dict:
        """The reply to `request`, sent with the next id (BotFault if none comes in time)."""
        proc = self._start()
        rid = next(self.ids)
        try:
            proc.stdin.write(json.dumps({**request, "id": rid}).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            self._stop()
            raise BotFault("crash: the engine closed its input") from None
        return self._reply(rid, self.spec.time_limit, "no move")

    def _reply(self, rid: int, limit: float, late: str) -> dict:
        """The first line that is a JSON object with id `rid`, read within `limit` seconds;
        other lines are skipped and logged. A process that exits or answers late is stopped
        (BotFault: crash, or timeout: `late` within the limit)."""
        deadline, skipped = time.monotonic() + limit, 0
        while True:
            try:
                line = self._line(deadline)
            except TimeoutError:
                self._stop()
                raise BotFault(f"timeout: {late} within {limit:g} s") from None
            if line is None:
                raise BotFault(f"crash: the engine exited (code {self._stop(grace=1.0)})")
            with contextlib.suppress(ValueError):
                reply = json.loads(line)
                if isinstance(reply, dict) and reply.get("id") == rid:
                    return reply
            skipped += 1
            if skipped <= LOGGED_SKIPS:
                log.warning("bot %s: skipped a line that is not the reply to request %d: "
                            "%.80r%s", self.spec.name, rid, line,
                            " (further ones not logged)" if skipped == LOGGED_SKIPS else "")

    def _line(self, deadline: float) -> str | None:
        """The process's next line on stdout (None at its end), read by `deadline` (else
        TimeoutError)."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise TimeoutError
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode(errors="replace")

    def _stop(self, grace: float = 0.0) -> int | None:
        """End the process (killed unless it exits within `grace` seconds); its exit code."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
        try:
            return proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.stdin.write(json.dumps({"type": "quit"}).encode() + b"\n")
                self.proc.stdin.flush()
        self._stop(grace=2.0)


class PythonBot(ExternalBot):
    """A Python object with `act(observation, legal_actions) -> action`, hosted in a child
    process (`serve`) that speaks the engine protocol, so that a stuck move can be killed."""

    stderr = None  # the bot's output (prints included) goes to this process's stderr

    def __init__(self, spec: BotSpec) -> None:
        super().__init__(spec)
        self.broken = ""  # why the bot cannot play (its process failed to start)
        self.has_batch = False  # its class has act_batch (its process says so when ready)

    @property
    def batched(self) -> bool:
        if self.proc is None:
            with contextlib.suppress(BotFault):  # a broken bot faults on its next request
                self._start()
        return self.has_batch

    def _command(self) -> list[str]:
        return [sys.executable, "-m", "tournaments.bots", self.spec.target]

    def _env(self) -> dict[str, str]:
        """This process's environment, with its `sys.path`: the bot process imports the
        modules this one does."""
        return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}

    def _start(self) -> subprocess.Popen:
        if self.broken:
            raise BotFault(self.broken)
        fresh = self.proc is None or self.proc.poll() is not None
        proc = super()._start()
        if fresh:  # wait for the bot to be built (not counted in the time limit)
            try:
                self.has_batch = bool(self._reply(0, STARTUP_LIMIT, "not ready").get("batch"))
            except BotFault as fault:
                self.broken = f"{fault} (starting {self.spec.target})"
                raise BotFault(self.broken) from None
        return proc

    def act(self, game: str, player: int, observation: np.ndarray, legal: list[int],
            names: list[str]) -> int:
        reply = self._ask({"type": "act", "observation": observation.tolist(),
                           "dtype": observation.dtype.str, "legal_actions": list(legal)})
        if "fault" in reply:
            raise BotFault(reply["fault"])
        return check_legal(reply.get("action"), legal)

    def _act_batch(self, game: str, players: np.ndarray, observations: np.ndarray,
                   masks: np.ndarray, legal: list[list[int]],
                   name: Callable[[int], str]) -> list:
        """The arrays travel as base64 bytes (JSON lists of a chunk's observations would
        cost more than many a bot's move)."""
        reply = self._ask({"type": "act_batch", "observations": _pack(observations),
                           "masks": _pack(masks)})
        if "fault" in reply:
            raise BotFault(reply["fault"])
        return reply.get("actions")


def _pack(a: np.ndarray) -> dict:
    return {"data": base64.b64encode(np.ascontiguousarray(a).tobytes()).decode(),
            "dtype": a.dtype.str, "shape": list(a.shape)}


def _unpack(d: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(d["data"]), d["dtype"]).reshape(d["shape"])


def _checked(actions, legal: Sequence[list[int]]) -> list[Move]:
    """Each game's action of a batched reply if legal there, else its BotFault; a reply that
    is not one action a game faults every game."""
    if not isinstance(actions, list | np.ndarray) or len(actions) != len(legal):
        raise BotFault(f"illegal: a batch of {len(legal)} games answered with "
                       f"{str(actions)[:40]}")
    out: list[Move] = []
    for a, lg in zip(actions, legal, strict=True):
        try:
            out.append(check_legal(a, lg))
        except BotFault as fault:
            out.append(fault)
    return out


def serve(target: str) -> None:
    """The process of a Python bot: builds `target` ("module:Class"), says it is ready (a
    reply with id 0), then answers each act request of stdin with the bot's action or the
    reason it has none (`fault`). The bot's prints go to stderr."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    module, _, name = target.partition(":")
    try:
        bot, broken = getattr(importlib.import_module(module), name)(), ""
    except Exception as err:  # noqa: BLE001 - a bot that cannot be built forfeits its moves
        bot, broken = None, f"crash: cannot build {target}: {err!r}"
    print(json.dumps({"id": 0, "ready": True, "batch": hasattr(bot, "act_batch")}), file=out)
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "quit":
            return
        move = _moves if request["type"] == "act_batch" else _move
        reply = {"fault": broken} if broken else move(bot, request)
        print(json.dumps({"id": request["id"], **reply}), file=out)


def _move(bot, request: dict) -> dict:
    """The reply of `bot` to an act request: its (legal) action, or the fault."""
    legal = request["legal_actions"]
    try:
        return {"action": check_legal(bot.act(
            np.asarray(request["observation"], request["dtype"]), list(legal)), legal)}
    except BotFault as fault:
        return {"fault": str(fault)}
    except Exception as err:  # noqa: BLE001 - a crashing bot forfeits
        return {"fault": f"crash: {err!r}"}


def _moves(bot, request: dict) -> dict:
    """The reply of `bot` to a batched request: its actions (checked by the caller), or the
    fault of the batch."""
    try:
        actions = np.asarray(bot.act_batch(_unpack(request["observations"]),
                                           _unpack(request["masks"])))
    except Exception as err:  # noqa: BLE001 - a crashing bot forfeits
        return {"fault": f"crash: {err!r}"}
    if actions.ndim != 1 or not np.issubdtype(actions.dtype, np.integer):
        return {"fault": f"illegal: act_batch returned {actions.dtype}{list(actions.shape)}, "
                         "not one integer action a game"}
    return {"actions": actions.tolist()}


def check_legal(action, legal: list[int]) -> int:
    """`action` as an int if it is one of `legal`, else BotFault."""
    if isinstance(action, bool) or not isinstance(action, int | np.integer) or (
            int(action) not in legal):
        raise BotFault(f"illegal: action {action!r} is not legal here")
    return int(action)


def host_bot(spec: BotSpec) -> PythonBot | ExternalBot:
    return PythonBot(spec) if spec.kind == "python" else ExternalBot(spec)


if __name__ == "__main__":
    serve(sys.argv[1])
