"""GPU workers (issue 28 item 3): how many GPU and CPU workers a cluster gets and what each
asks Ray for, how many chunks a device plays as one batch, and the same config on a machine
without a GPU: it plays on CPU workers and says so once. (No GPU here: the requests are
checked against a stand-in for Ray, the fallback for real.)"""

from __future__ import annotations

import dataclasses
import sys
import types

import pyarrow.dataset as ds
import pytest

from tournaments.config import ConfigError, parse_config
from tournaments.plan import PlannedGame
from tournaments.runner import (
    DEVICE_CHUNK,
    RayExecutor,
    chunk_units,
    plan_workers,
    run_tournament,
)

CONFIG = """\
[tournament]
game = "gambari_kan"
deals = 2
chunk_size = 3
output = "{out}"
{extra}

[flags]
n_rounds = 1

[bots.random]
kind = "random"

[bots.other]
kind = "random"
"""


@pytest.mark.parametrize("resources,per_worker,actors,want", [
    ({"CPU": 16, "GPU": 2}, 1, None, (2, 14)),  # a GPU worker a GPU, the other CPUs
    ({"CPU": 16, "GPU": 2}, 0.5, None, (4, 12)),  # two workers share a GPU
    ({"CPU": 16, "GPU": 2}, 1, 0, (2, 0)),  # --actors 0: GPU workers only
    ({"CPU": 16, "GPU": 2}, 0, None, (0, 16)),  # no GPU asked for
    ({"CPU": 2, "GPU": 8}, 1, None, (2, 0)),  # each GPU worker drives from a CPU
    ({"CPU": 2}, 1, None, (0, 2)),  # no GPU in the cluster: CPU workers
    ({"CPU": 2}, 1, 0, (0, 1)),  # ... at least one
])
def test_gpu_and_cpu_workers_share_a_cluster(resources, per_worker, actors, want):
    gpu, cpu, note = plan_workers(resources, per_worker, actors)
    assert (gpu, cpu) == want
    assert bool(note) == (per_worker > 0 and "GPU" not in resources)


def test_a_device_plays_whole_chunks_a_batch():
    cfg = parse_config(CONFIG.format(out="x", extra=""))
    assert chunk_units(cfg, "cpu") == 1
    assert chunk_units(cfg, "gpu") == DEVICE_CHUNK["gpu"] // 3
    assert chunk_units(dataclasses.replace(cfg, gpu_chunk_size=10), "gpu") == 3
    assert chunk_units(dataclasses.replace(cfg, gpu_chunk_size=2), "gpu") == 1


class Ref:
    """A finished result of a stand-in actor's method."""

    def __init__(self, value) -> None:
        self.value = value


class FakeRay:
    """Ray as `RayExecutor` uses it: a cluster of `resources` whose GPU workers find a device
    of `platform`; an actor's methods run at once (their refs are `Ref`s). `asked`: what each
    actor asked for."""

    exceptions = types.SimpleNamespace(RayActorError=RuntimeError, WorkerCrashedError=OSError)

    def __init__(self, resources: dict, platform: str) -> None:
        self.resources, self.platform, self.asked = resources, platform, []

    def is_initialized(self) -> bool:
        return True

    def available_resources(self) -> dict:
        return self.resources

    def remote(self, num_cpus: int):
        return lambda cls: types.SimpleNamespace(options=lambda **kw: types.SimpleNamespace(
            remote=lambda cfg, gpu: self.actor(cfg, gpu, num_cpus=num_cpus, **kw)))

    def actor(self, cfg, gpu: bool, **asked):
        self.asked.append((gpu, asked))
        platform = self.platform if gpu else "cpu"
        batches = []
        return types.SimpleNamespace(
            batches=batches,
            device=types.SimpleNamespace(
                remote=lambda: Ref((platform, chunk_units(cfg, platform)))),
            play=types.SimpleNamespace(remote=lambda work: batches.append(work) or Ref(
                [(chunk, {"games": games}) for chunk, games in work])))

    def get(self, refs):
        return [r.value for r in refs] if isinstance(refs, list) else refs.value

    def wait(self, refs, num_returns):
        return refs[:1], refs[1:]


def test_gpu_workers_ask_ray_for_gpus_and_take_bigger_batches(monkeypatch, capsys):
    fake = FakeRay({"CPU": 3, "GPU": 1}, "gpu")
    monkeypatch.setitem(sys.modules, "ray", fake)
    cfg = parse_config(CONFIG.format(out="x", extra="gpus_per_worker = 1\ngpu_chunk_size = 6"))
    executor = RayExecutor(cfg, actors=None)
    assert fake.asked == [(True, {"num_cpus": 1, "num_gpus": 1.0})] + [
        (False, {"num_cpus": 1, "num_gpus": 0})] * 2
    assert executor.units == [2, 1, 1] and capsys.readouterr().err == ""
    work = [(i, [PlannedGame(i, 0, 0, i, (0, 1, 0))]) for i in range(12)]
    assert sorted(c for c, _ in executor.run(work)) == list(range(12))
    gpu_worker = executor.actors[0]
    assert all(len(batch) == 2 for batch in gpu_worker.batches)  # two chunks a batch
    assert all(len(batch) == 1 for a in executor.actors[1:] for batch in a.batches)


def test_gpu_workers_without_a_gpu_in_jax_say_so(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", FakeRay({"CPU": 2, "GPU": 1}, "cpu"))
    cfg = parse_config(CONFIG.format(out="x", extra="gpus_per_worker = 1"))
    assert RayExecutor(cfg, actors=None).units == [1, 1]
    assert capsys.readouterr().err.count("GPU workers found no GPU in JAX") == 1


def test_a_gpu_config_plays_on_the_cpu_saying_so_once(tmp_path, capsys):
    cfg = parse_config(CONFIG.format(out=tmp_path / "out", extra="gpus_per_worker = 1"))
    assert run_tournament(cfg, local=True, progress=False).finished
    err = capsys.readouterr().err
    assert err.count("note: gpus_per_worker = 1, but JAX sees no GPU here") == 1
    assert ds.dataset(tmp_path / "out" / "games").count_rows() == 12


@pytest.mark.slow
def test_a_gpu_config_plays_on_cpu_ray_workers_saying_so_once(tmp_path, capsys):
    cfg = parse_config(CONFIG.format(out=tmp_path / "out", extra="gpus_per_worker = 0.5"))
    assert run_tournament(cfg, actors=2, progress=False).finished
    err = capsys.readouterr().err
    assert err.count("note: gpus_per_worker = 0.5, but the Ray cluster has no GPU: the run "
                     "plays on 2 CPU workers") == 1
    assert ds.dataset(tmp_path / "out" / "games").count_rows() == 12


def test_gpu_keys_are_checked_and_left_out_of_the_hash():
    base = parse_config(CONFIG.format(out="x", extra=""))
    gpu = parse_config(CONFIG.format(out="x", extra="gpus_per_worker = 2\ngpu_chunk_size = 64"))
    assert (gpu.gpus_per_worker, gpu.gpu_chunk_size) == (2.0, 64)
    assert gpu.config_hash() == base.config_hash()
    for extra, key in (("gpus_per_worker = -1", "gpus_per_worker"),
                       ('gpus_per_worker = "all"', "gpus_per_worker"),
                       ("gpu_chunk_size = -5", "gpu_chunk_size")):
        with pytest.raises(ConfigError, match=rf"\[tournament\] {key}: must be"):
            parse_config(CONFIG.format(out="x", extra=extra))
