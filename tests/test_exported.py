"""`kanjax.exported`: compiled programs kept on disk for the CLI's short commands."""

import os

import jax.numpy as jnp
import numpy as np
import pytest

from kanjax import exported


def total(state: dict, scale):
    return {"sum": jnp.sum(state["rewards"]) * scale, "moved": state["step_count"] + 1}


def a_state(n: int = 3) -> dict:
    return {"rewards": np.arange(n, dtype=np.float32), "step_count": np.int32(4)}


@pytest.fixture
def folder(tmp_path):
    exported.use_folder(tmp_path)
    yield tmp_path
    exported.use_folder(None)


def test_a_program_is_written_once_and_read_back(folder):
    first = exported.cached_jit(total, "test:total")(a_state(), 2.0)
    files = list(folder.glob("*.jaxexe"))
    assert len(files) == 1
    traced: list[str] = []
    with exported.on_trace(traced.append):
        again = exported.cached_jit(total, "test:total")(a_state(), 2.0)  # as another process
    assert traced == [] and list(folder.glob("*.jaxexe")) == files
    assert float(first["sum"]) == float(again["sum"]) == 6.0 and int(again["moved"]) == 5
    exported.cached_jit(total, "test:total")(a_state(5), 2.0)  # other shapes: another file
    assert len(list(folder.glob("*.jaxexe"))) == 2


def test_a_broken_file_is_traced_again(folder):
    exported.cached_jit(total, "test:total")(a_state(), 1.0)
    (path,) = folder.glob("*.jaxexe")
    path.write_bytes(b"not a program")
    assert float(exported.cached_jit(total, "test:total")(a_state(), 1.0)["sum"]) == 3.0


def test_unnamed_programs_and_no_folder_write_nothing(folder, tmp_path):
    assert float(exported.cached_jit(total, None)(a_state(), 1.0)["sum"]) == 3.0
    exported.use_folder(None)
    assert float(exported.cached_jit(total, "test:total")(a_state(), 1.0)["sum"]) == 3.0
    assert not list(tmp_path.glob("*.jaxexe"))


def test_the_folder_keeps_the_most_recently_used_within_its_size(folder):
    for n in (3, 4, 5):
        exported.cached_jit(total, "test:total")(a_state(n), 1.0)
        for path in folder.glob("*.jaxexe"):  # older files: older times
            os.utime(path, (path.stat().st_mtime - 10, path.stat().st_mtime - 10))
    (folder / "stale.jaxexp").write_bytes(b"a traced program of an older kanjax")
    sizes = sorted(p.stat().st_size for p in folder.glob("*.jaxexe"))
    newest = max(folder.glob("*.jaxexe"), key=lambda p: p.stat().st_mtime)
    exported._prune(folder, max_bytes=sizes[-1])
    assert list(folder.glob("*.jaxexe")) == [newest]
    assert not list(folder.glob("*.jaxexp"))


def test_a_program_is_compiled_past_jax_persistent_cache(folder):
    """An executable that jax read from its persistent cache serialises without some kernels
    on the CPU ("Function ... not found" in a later process): kept programs never come
    from there."""
    import jax

    asked: list[str] = []

    def listen(event: str, **_kwargs) -> None:
        if event == "/jax/compilation_cache/compile_requests_use_cache":
            asked.append(event)

    jax.monitoring.register_event_listener(listen)
    try:
        exported.cached_jit(total, "test:total")(a_state(7), 1.0)
        assert asked == []
        jax.jit(lambda x: x * 3 + 1)(np.arange(5.0))  # jax's cache is in use again after
        assert asked
    finally:
        jax.monitoring.unregister_event_listener(listen)
