"""`kanjax tournament run --address` (issue 22 item 8): no cluster there fails within
seconds with exit code 2 and a message; a token of this machine switches Ray's token
authentication on (a `ray start` cluster requires it)."""

from __future__ import annotations

import os
import socket

import pytest

from kanjax.cli import main
from tournaments.cli import join_ray_cluster

CONFIG = """[tournament]
game = "gonin_kan"
deals = 1
output = "{out}"

[bots.random]
kind = "random"

[bots.heuristic]
kind = "heuristic"
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_cluster_at_the_address_fails_fast(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    config = tmp_path / "t.toml"
    config.write_text(CONFIG.format(out=tmp_path / "out"))
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(SystemExit) as exit_:
        main(["tournament", "run", str(config), "--address", address])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err
    assert f"no Ray cluster answers at {address}" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("mode, want", [(None, "token"), ("disabled", "disabled")])
def test_a_token_of_this_machine_switches_token_auth_on(monkeypatch, tmp_path, mode, want):
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "none"))
    monkeypatch.setenv("RAY_AUTH_TOKEN", "secret")
    monkeypatch.setenv("RAY_AUTH_MODE", mode or "")  # restored after the test
    if mode is None:
        monkeypatch.delenv("RAY_AUTH_MODE")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        join_ray_cluster(f"127.0.0.1:{server.getsockname()[1]}")
    assert os.environ["RAY_AUTH_MODE"] == want
