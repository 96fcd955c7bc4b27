"""`kanjax.exported`: traced programs kept on disk for the CLI's short commands."""

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
    files = list(folder.glob("*.jaxexp"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    again = exported.cached_jit(total, "test:total")(a_state(), 2.0)  # as another process
    assert files[0].stat().st_mtime_ns == stamp
    assert float(first["sum"]) == float(again["sum"]) == 6.0 and int(again["moved"]) == 5
    exported.cached_jit(total, "test:total")(a_state(5), 2.0)  # other shapes: another file
    assert len(list(folder.glob("*.jaxexp"))) == 2


def test_a_broken_file_is_traced_again(folder):
    exported.cached_jit(total, "test:total")(a_state(), 1.0)
    (path,) = folder.glob("*.jaxexp")
    path.write_bytes(b"not a program")
    assert float(exported.cached_jit(total, "test:total")(a_state(), 1.0)["sum"]) == 3.0


def test_unnamed_programs_and_no_folder_write_nothing(folder, tmp_path):
    assert float(exported.cached_jit(total, None)(a_state(), 1.0)["sum"]) == 3.0
    exported.use_folder(None)
    assert float(exported.cached_jit(total, "test:total")(a_state(), 1.0)["sum"]) == 3.0
    assert not list(tmp_path.glob("*.jaxexp"))
