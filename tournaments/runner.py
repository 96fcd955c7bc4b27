"""`kanjax tournament run`: the games of a config, chunk by chunk, resumable.

The driver plans every game (`tournaments.plan`), reads which game ids the output folder
stores already, and hands the others, in chunks of `chunk_size`, to executors: long-lived Ray
actors (a local Ray by default, or a cluster) or, with `local=True`, the same `ChunkPlayer` in
this process. Each actor compiles once; the driver keeps a few chunks in flight per actor
(`ray.wait` back-pressure) and stores every finished chunk atomically as soon as it arrives,
so Ctrl-C or a crashed worker loses no finished game and the same command resumes, with any
chunk size; a config with more `deals` extends the folder. A chunk whose actor died is
retried on a fresh actor. For the `ab` format a sequential test (SPRT) on complete duplicate
groups stops the run when it decides.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import logging
import platform
import signal
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator

import pyarrow as pa
from tqdm import tqdm

from tournaments.config import TournamentConfig
from tournaments.plan import PlannedGame, chunked, plan_games
from tournaments.schema import tables
from tournaments.stats import sprt
from tournaments.storage import Store, StoreError

IN_FLIGHT_PER_ACTOR = 2
CHUNK_RETRIES = 2


class ChunkFailed(RuntimeError):
    """A chunk failed on every try: the run stops, keeping the chunks stored."""


@dataclasses.dataclass
class RunResult:
    planned: int  # games of the config's plan
    games: int  # of those, stored now
    stored_before: int  # stored when this run started
    chunks_total: int  # work units of this run (the games not stored before)
    chunks_run: int
    seconds: float
    stopped_by_sprt: dict | None = None
    interrupted: bool = False
    failure: str = ""  # a chunk that kept failing stopped the run

    @property
    def finished(self) -> bool:
        """Every planned game stored, or the `ab` test decided."""
        return self.games == self.planned or self.stopped_by_sprt is not None


class Progress:
    """The run's progress on stderr. Until every worker has returned a chunk, a line says
    what is being done (starting Ray, compiling and playing the first chunks), its clock
    ticking on a terminal; then a tqdm bar of games stored of all, whose games/s and ETA
    count from that moment: a worker's first chunk includes its compile, and a rate over
    that time made the first ETA several times too high (tqdm averages it in for many
    updates)."""

    def __init__(self, total: int, done: int, file=None) -> None:
        self.total, self.file = total, file or sys.stderr
        self.warmup = 0
        self.bar = self._bar(done, bar_format="{desc}: {n}/{total} games stored [{elapsed}]",
                             leave=False)
        self.ticking = threading.Event()
        if self.file.isatty():  # a log file gets no line a second
            threading.Thread(target=self._tick, args=(self.bar,), daemon=True).start()

    def _bar(self, done: int, **kwargs) -> tqdm:
        return tqdm(total=self.total, initial=done, unit="game", smoothing=0.1,
                    dynamic_ncols=True, file=self.file, **kwargs)

    def _tick(self, bar: tqdm) -> None:
        while not self.ticking.wait(1.0):
            bar.refresh()

    def phase(self, what: str, warmup: int = 0) -> None:
        """Say what is being done; the bar starts after `warmup` chunks."""
        self.bar.set_description_str(what)
        self.warmup = warmup

    def update(self, games: int) -> None:
        self.bar.update(games)
        if self.warmup:
            self.warmup -= 1
            if not self.warmup:
                self.ticking.set()
                self.bar.close()
                self.bar = self._bar(self.bar.n)

    def close(self) -> None:
        self.ticking.set()
        self.bar.close()


def _manifest(cfg: TournamentConfig, env, games: list[PlannedGame]) -> dict:
    import jax

    import kanjax

    sizes = Counter(g.group for g in games)
    return {
        "config": cfg.to_dict(),
        "identity": cfg.identity(),
        "planned": {"games": len(games), "groups": len(sizes),
                    "games_per_group": max(sizes.values(), default=0)},
        "engine_version": env.version,
        "roles": list(env.role_names),
        "deal_columns": [list(c) for c in env.deal_columns],
        "versions": {"kanjax": _version("kanjax"), "jax": jax.__version__,
                     "bots": {b.name: f"{b.kind}/{b.version}" for b in cfg.bots},
                     "python": platform.python_version()},
        "games": kanjax.games(),
        "started": _now(),
        "host": platform.node(),
    }


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class _GroupScores:
    """Per duplicate group, each bot's summed score and seat count (for the `ab` SPRT)."""

    def __init__(self, games_per_group: dict[int, int]) -> None:
        self.expected = games_per_group
        self.seen: Counter[int] = Counter()
        self.sums: dict[int, dict[str, list[float]]] = defaultdict(
            lambda: defaultdict(lambda: [0.0, 0]))

    def add(self, seats: list[dict], games: list[dict]) -> list[int]:
        """Add a chunk's rows; returns the groups it completed."""
        for row in seats:
            acc = self.sums[row["group"]][row["bot"]]
            acc[0] += row["score"]
            acc[1] += 1
        done = []
        for row in games:
            self.seen[row["group"]] += 1
            if self.seen[row["group"]] == self.expected[row["group"]]:
                done.append(row["group"])
        return done

    def diff(self, group: int, a: str, b: str) -> float:
        (sa, na), (sb, nb) = self.sums[group][a], self.sums[group][b]
        return sa / na - sb / nb


@contextlib.contextmanager
def _stop_on_sigint() -> Iterator[threading.Event]:
    """An event set by the first Ctrl-C (SIGINT), so the run stops after the chunk in hand; a
    second Ctrl-C interrupts at once. A flag, not KeyboardInterrupt: an exception raised in
    the middle of library code (a finalizer, a callback) can be swallowed there."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def on_sigint(signum, frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def run_tournament(cfg: TournamentConfig, local: bool = False, actors: int | None = None,
                   progress: bool = True, executor=None) -> RunResult:
    """Play (or resume, or extend) the tournament of `cfg`: the planned games the output
    folder does not store yet; returns what was done. Every check of the folder comes before
    anything is written; `executor` (default: a `RayExecutor`, or a `LocalExecutor` with
    `local`) is built after them."""
    import kanjax

    env = kanjax.make(cfg.game, **cfg.flags)
    schemas = tables(env.deal_columns)
    games = plan_games(cfg, env.num_players)
    store = Store(cfg.output, cfg.config_hash(), schemas)
    manifest = _manifest(cfg, env, games)
    stored = store.check(manifest)
    if stored and max(stored) >= len(games):  # game ids are plan positions
        raise StoreError(f"output folder {cfg.output} stores games beyond the {len(games)} "
                         f"of deals = {cfg.deals}: a tournament can grow, not shrink; raise "
                         "deals, or choose another --output")
    todo = [g for g in games if g.game_id not in stored]
    chunks = chunked(todo, cfg.chunk_size)
    store.prepare(manifest)
    groups = _GroupScores(Counter(g.group for g in games))
    verdict = _resume_sprt(cfg, store, groups) if cfg.format == "ab" and stored else None
    t0 = time.perf_counter()
    run, stored_games, interrupted, failure = 0, len(stored), False, ""
    shown = Progress(len(games), stored_games) if progress else None
    use_ray = not (local or executor or not chunks)  # no Ray to start for no work
    if shown:
        shown.phase("starting Ray" if use_ray else "starting")
    try:
        if executor is None:
            executor = RayExecutor(cfg, actors) if use_ray else LocalExecutor(cfg)
        if shown and chunks:
            shown.phase("compiling, playing the first chunks",
                        min(len(chunks), getattr(executor, "workers", 1)))
        with _stop_on_sigint() as stop:
            for first, rows in executor.run((c[0].game_id, c) for c in chunks
                                            if not (verdict and verdict["verdict"] != "continue")
                                            and not stop.is_set()):
                store.write_chunk(first, {k: pa.Table.from_pylist(v, schema=schemas[k])
                                          for k, v in rows.items()})
                run += 1
                stored_games += len(rows["games"])
                if shown:
                    shown.update(len(rows["games"]))
                if cfg.format == "ab":
                    verdict = _update_sprt(cfg, groups, rows, verdict)
                    if verdict["verdict"] != "continue":
                        break
            interrupted = stop.is_set()
    except KeyboardInterrupt:
        interrupted = True
    except ChunkFailed as err:
        failure = str(err)
    finally:
        if executor is not None:
            executor.close()
        if shown:
            shown.close()
    seconds = time.perf_counter() - t0
    store.update_manifest(ended=_now(), interrupted=interrupted, failure=failure,
                          sprt=verdict if cfg.format == "ab" else None)
    decided = verdict if verdict and verdict["verdict"] != "continue" else None
    return RunResult(len(games), stored_games, len(stored), len(chunks), run, seconds, decided,
                     interrupted, failure)


def _update_sprt(cfg: TournamentConfig, groups: _GroupScores, rows: dict,
                 state: dict | None) -> dict:
    ab = cfg.ab
    complete = groups.add(rows["seats"], rows["games"])
    diffs = [groups.diff(g, ab["candidate"], ab["baseline"]) for g in complete]
    return sprt(diffs, ab["mu0"], ab["mu1"], ab["alpha"], ab["beta"], state=state)


def _resume_sprt(cfg: TournamentConfig, store: Store, groups: _GroupScores) -> dict | None:
    """The SPRT state of the games already stored (a resumed `ab` run)."""
    import pyarrow.dataset as ds

    games = ds.dataset(store.root / "games").to_table(columns=["game_id", "group"])
    seats = ds.dataset(store.root / "seats").to_table()
    return _update_sprt(cfg, groups, {"seats": seats.to_pylist(), "games": games.to_pylist()},
                        None)


class LocalExecutor:
    """Plays chunks in this process, one after another (tests, small runs)."""

    def __init__(self, cfg: TournamentConfig) -> None:
        from tournaments.play import ChunkPlayer

        self.player = ChunkPlayer(cfg)
        self.workers = 1

    def run(self, work: Iterator[tuple[int, list[PlannedGame]]]):
        for chunk, games in work:
            yield chunk, self.player.play(chunk, games)

    def close(self) -> None:
        self.player.close()


class RayExecutor:
    """Plays chunks in long-lived Ray actors with back-pressure and retries."""

    def __init__(self, cfg: TournamentConfig, actors: int | None) -> None:
        import ray

        self.ray = ray
        self.started_ray = not ray.is_initialized()
        if self.started_ray:
            address = cfg.ray_address or None
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     ignore_reinit_error=True, logging_level=logging.WARNING)
        self.cfg = cfg
        cpus = int(ray.available_resources().get("CPU", 1))
        self.n_actors = self.workers = max(1, actors if actors else cpus)
        self.actor_cls = ray.remote(num_cpus=1)(_ChunkActor)
        self.actors = [self._new_actor() for _ in range(self.n_actors)]

    def _new_actor(self):
        return self.actor_cls.remote(self.cfg)

    def actor_pids(self) -> list[int]:
        return self.ray.get([a.pid.remote() for a in self.actors])

    def run(self, work: Iterator[tuple[int, list[PlannedGame]]]):
        ray = self.ray
        pending: dict = {}  # object ref -> (actor index, actor, chunk, games, tries)
        load = [0] * self.n_actors
        work = iter(work)
        exhausted = False

        def submit(i: int, chunk: int, games: list[PlannedGame], tries: int) -> None:
            actor = self.actors[i]
            pending[actor.play.remote(chunk, games)] = (i, actor, chunk, games, tries)
            load[i] += 1

        while True:
            while not exhausted and min(load) < IN_FLIGHT_PER_ACTOR:
                nxt = next(work, None)
                if nxt is None:
                    exhausted = True
                    break
                submit(load.index(min(load)), *nxt, 0)
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=1)
            ref = ready[0]
            i, actor, chunk, games, tries = pending.pop(ref)
            load[i] -= 1
            try:
                rows = ray.get(ref)
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as err:
                if tries >= CHUNK_RETRIES:
                    raise ChunkFailed(f"the chunk from game {chunk} failed {tries + 1} times: "
                                      f"{err}") from err
                # the actor died: replace it (once, though several of its chunks fail) and
                # retry on its replacement; a second replacement would wait forever for a
                # CPU the first one holds
                if self.actors[i] is actor:
                    self.actors[i] = self._new_actor()
                submit(i, chunk, games, tries + 1)
                continue
            yield chunk, rows

    def close(self) -> None:
        closing = [a.close.remote() for a in self.actors]  # stop external engines
        self.ray.wait(closing, num_returns=len(closing), timeout=5)
        for actor in self.actors:
            self.ray.kill(actor)
        if self.started_ray:
            self.ray.shutdown()


class _ChunkActor:
    """A Ray actor holding one compiled `ChunkPlayer`."""

    def __init__(self, cfg: TournamentConfig) -> None:
        import os

        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
        from tournaments.play import ChunkPlayer

        self.player = ChunkPlayer(cfg)

    def pid(self) -> int:
        import os

        return os.getpid()

    def play(self, chunk: int, games: list[PlannedGame]) -> dict[str, list[dict]]:
        return self.player.play(chunk, games)

    def close(self) -> None:
        self.player.close()
