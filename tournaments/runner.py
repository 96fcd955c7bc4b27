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

GPU workers (`gpus_per_worker` > 0): as many actors as the cluster's GPUs allow ask Ray for
that many GPUs each, pin JAX to the device Ray gives them and play several chunks as one
batch (`chunk_units`), beside CPU actors that never touch a GPU; a cluster without GPUs plays
the same config on CPU actors, and the run says so once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import itertools
import logging
import os
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
DEVICE_CHUNK = {"gpu": 4096, "tpu": 4096}  # games a batch by device platform (cpu: chunk_size)
Work = list[tuple[int, list[PlannedGame]]]  # chunks (first game id, games) played together


def chunk_units(cfg: TournamentConfig, platform: str) -> int:
    """How many chunks a worker on a device of `platform` plays as one batch: one on a CPU;
    on an accelerator `gpu_chunk_size` games (default `DEVICE_CHUNK`'s), in whole chunks."""
    if platform == "cpu":
        return 1
    return max(1, (cfg.gpu_chunk_size or DEVICE_CHUNK.get(platform, 0)) // cfg.chunk_size)


def plan_workers(resources: dict[str, float], gpus_per_worker: float,
                 actors: int | None) -> tuple[int, int, str]:
    """(GPU workers, CPU workers, a note to say or "") for a Ray cluster's `resources`: as
    many GPU workers as its GPUs allow at `gpus_per_worker` each (each drives its device from
    a CPU), and `actors` CPU workers (default: one a CPU left; at least one when there is no
    GPU worker). The note says that GPUs were asked for and the cluster has none."""
    cpus, gpus = int(resources.get("CPU", 1)), resources.get("GPU", 0.0)
    gpu = min(int(gpus / gpus_per_worker + 1e-9), cpus) if gpus_per_worker > 0 else 0
    cpu = max(cpus - gpu if actors is None else actors, 0 if gpu else 1)
    note = ""
    if gpus_per_worker > 0 and not gpu:
        note = (f"gpus_per_worker = {gpus_per_worker:g}, but the Ray cluster has no GPU: the "
                f"run plays on {cpu} CPU worker{'s' * (cpu != 1)}")
    return gpu, cpu, note


def pin_device(gpu: bool):
    """Pin this worker process's JAX to its device, before it computes anything: a GPU
    worker to the first GPU Ray gave it (Ray sets CUDA_VISIBLE_DEVICES; memory allocated as
    needed, so workers can share a GPU), a CPU worker to the CPU (it never touches a GPU).
    Returns the device."""
    import os

    import jax

    if gpu:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    else:
        jax.config.update("jax_platforms", "cpu")
    device = jax.devices()[0]
    jax.config.update("jax_default_device", device)
    return device


def note(message: str) -> None:
    """Say something about the run once, on stderr."""
    print(f"note: {message}", file=sys.stderr, flush=True)


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

    def add(self, seats: pa.Table, games: pa.Table) -> list[int]:
        """Add a chunk's `seats` and `games` tables; returns the groups it completed."""
        for group, bot, score in zip(*(seats.column(c).to_pylist()
                                       for c in ("group", "bot", "score")), strict=True):
            acc = self.sums[group][bot]
            acc[0] += score
            acc[1] += 1
        done = []
        for group in games.column("group").to_pylist():
            self.seen[group] += 1
            if self.seen[group] == self.expected[group]:
                done.append(group)
        return done

    def diff(self, group: int, a: str, b: str) -> float:
        (sa, na), (sb, nb) = self.sums[group][a], self.sums[group][b]
        return sa / na - sb / nb


QUIT_STATUS = 130  # the exit status of a second Ctrl-C while Ray starts or stops (128 + SIGINT)


class _Sigint:
    """Ctrl-C (SIGINT) during a run. The first sets `stop`: the run stops after the chunk in
    hand (while the workers start, once they have). A second one interrupts at once:
    KeyboardInterrupt while chunks play; while the workers start or stop (`guarded`), where an
    exception raised inside Ray leaves it half-built (a Ray traceback, once a segmentation
    fault), a line on stderr and exit status 130, the output folder as it was (chunks are
    stored whole or not at all). A flag, not KeyboardInterrupt, for the first: an exception
    raised in the middle of library code (a finalizer, a callback) can be swallowed there.
    Outside the main thread (no signal handler can be set) nothing changes."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.doing: str | None = None  # what `guarded` is doing
        self.previous = None

    def __enter__(self) -> _Sigint:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)

    @contextlib.contextmanager
    def guarded(self, doing: str) -> Iterator[None]:
        """A block that Ctrl-C must not break into (`doing`: "starting Ray", ...)."""
        self.doing = doing
        try:
            yield
        finally:
            self.doing = None

    def _on_sigint(self, signum, frame) -> None:
        if not self.stop.is_set():
            self.stop.set()
            if self.doing:
                note(f"Ctrl-C: the run stops after {self.doing} (Ctrl-C again: quit now)")
            return
        if self.doing is None:
            raise KeyboardInterrupt
        print(f"\nkanjax tournament: stopped while {self.doing}; the stored games are "
              "intact: run the same command to resume", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(QUIT_STATUS)  # no exception inside Ray; its processes die with this one


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
    starting = "starting Ray" if use_ray else "starting"
    if shown:
        shown.phase(starting)
    with _Sigint() as sigint:
        try:
            if executor is None:
                with sigint.guarded(starting):
                    executor = RayExecutor(cfg, actors) if use_ray else LocalExecutor(cfg)
            if shown and chunks and not sigint.stop.is_set():
                shown.phase("compiling, playing the first chunks",
                            min(len(chunks), getattr(executor, "workers", 1)))
            for first, rows in executor.run((c[0].game_id, c) for c in chunks
                                            if not (verdict and verdict["verdict"] != "continue")
                                            and not sigint.stop.is_set()):
                store.write_chunk(first, rows)
                run += 1
                stored_games += len(rows["games"])
                if shown:
                    shown.update(len(rows["games"]))
                if cfg.format == "ab":
                    verdict = _update_sprt(cfg, groups, rows, verdict)
                    if verdict["verdict"] != "continue":
                        break
            interrupted = sigint.stop.is_set()
        except KeyboardInterrupt:
            interrupted = True
        except ChunkFailed as err:
            failure = str(err)
        finally:
            if executor is not None:
                with sigint.guarded("stopping the workers"):
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

    games = ds.dataset(store.root / "games").to_table(columns=["group"])
    seats = ds.dataset(store.root / "seats").to_table(columns=["group", "bot", "score"])
    return _update_sprt(cfg, groups, {"seats": seats, "games": games}, None)


class LocalExecutor:
    """Plays chunks in this process, one after another (tests, small runs), on JAX's default
    device (on a GPU, `chunk_units` chunks a batch)."""

    def __init__(self, cfg: TournamentConfig) -> None:
        import jax

        from tournaments.play import ChunkPlayer

        platform = jax.devices()[0].platform
        if cfg.gpus_per_worker and platform == "cpu":
            note(f"gpus_per_worker = {cfg.gpus_per_worker:g}, but JAX sees no GPU here: the "
                 "run plays on the CPU")
        self.units = chunk_units(cfg, platform)
        self.player = ChunkPlayer(cfg, self.units)
        self.workers = 1

    def run(self, work: Iterator[tuple[int, list[PlannedGame]]]):
        work = iter(work)
        while batch := list(itertools.islice(work, self.units)):
            yield from self.player.play(batch)

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
            # games registered outside the package (`KANJAX_GAMES`, `kanjax.register`): a
            # local Ray's workers inherit the variable, a cluster's get it with the job
            games = os.environ.get("KANJAX_GAMES")
            runtime_env = {"env_vars": {"KANJAX_GAMES": games}} if games and address else None
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     ignore_reinit_error=True, logging_level=logging.WARNING,
                     runtime_env=runtime_env)
        self.cfg = cfg
        gpu, cpu, said = plan_workers(ray.available_resources(), cfg.gpus_per_worker, actors)
        if said:
            note(said)
        self.gpu = [True] * gpu + [False] * cpu  # by actor index
        self.n_actors = self.workers = gpu + cpu
        self.actor_cls = ray.remote(num_cpus=1)(_ChunkActor)
        self.actors = [self._new_actor(i) for i in range(self.n_actors)]
        devices = ray.get([a.device.remote() for a in self.actors])
        self.units = [units for _, units in devices]  # chunks a batch, by actor index
        if any(g and platform == "cpu" for g, (platform, _) in zip(self.gpu, devices, strict=True)):
            note("GPU workers found no GPU in JAX (pip install 'kanjax[gpu]'): they play on "
                 "the CPU")

    def _new_actor(self, i: int):
        """A new actor for index `i` (a GPU worker there asks for `gpus_per_worker` GPUs)."""
        gpus = self.cfg.gpus_per_worker if self.gpu[i] else 0
        return self.actor_cls.options(num_gpus=gpus).remote(self.cfg, self.gpu[i])

    def actor_pids(self) -> list[int]:
        return self.ray.get([a.pid.remote() for a in self.actors])

    def run(self, work: Iterator[tuple[int, list[PlannedGame]]]):
        ray = self.ray
        pending: dict = {}  # object ref -> (actor index, actor, work, tries)
        load = [0] * self.n_actors
        work = iter(work)
        exhausted = False

        def submit(i: int, batch: Work, tries: int) -> None:
            actor = self.actors[i]
            pending[actor.play.remote(batch)] = (i, actor, batch, tries)
            load[i] += 1

        while True:
            while not exhausted and min(load) < IN_FLIGHT_PER_ACTOR:
                i = load.index(min(load))
                batch = list(itertools.islice(work, self.units[i]))
                if not batch:
                    exhausted = True
                    break
                submit(i, batch, 0)
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=1)
            ref = ready[0]
            i, actor, batch, tries = pending.pop(ref)
            load[i] -= 1
            try:
                rows = ray.get(ref)
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as err:
                if tries >= CHUNK_RETRIES:
                    raise ChunkFailed(f"the chunk from game {batch[0][0]} failed {tries + 1} "
                                      f"times: {err}") from err
                # the actor died: replace it (once, though several of its chunks fail) and
                # retry on its replacement; a second replacement would wait forever for a
                # CPU the first one holds
                if self.actors[i] is actor:
                    self.actors[i] = self._new_actor(i)
                submit(i, batch, tries + 1)
                continue
            yield from rows

    def close(self) -> None:
        closing = [a.close.remote() for a in self.actors]  # stop external engines
        self.ray.wait(closing, num_returns=len(closing), timeout=5)
        for actor in self.actors:
            self.ray.kill(actor)
        if self.started_ray:
            self.ray.shutdown()


class _ChunkActor:
    """A Ray actor holding one compiled `ChunkPlayer` on its device (`pin_device`)."""

    def __init__(self, cfg: TournamentConfig, gpu: bool = False) -> None:
        import os

        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
        from tournaments.play import ChunkPlayer

        self.platform = pin_device(gpu).platform
        self.units = chunk_units(cfg, self.platform)
        self.player = ChunkPlayer(cfg, self.units)

    def device(self) -> tuple[str, int]:
        """(its device's platform, chunks it plays as one batch)."""
        return self.platform, self.units

    def pid(self) -> int:
        import os

        return os.getpid()

    def play(self, work: Work) -> list[tuple[int, dict[str, pa.Table]]]:
        return self.player.play(work)

    def close(self) -> None:
        self.player.close()
