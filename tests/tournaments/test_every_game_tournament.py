"""Every registered game through the tournament layer (issue 23): a tiny `--local`
tournament of users' engines (issue 28): a `jax` bot (a tiny network and its checkpoint,
inside the batch) and a batched Python bot (a stub engine playing random legal moves, asked
once a step for all its games); one deal seed, the small flags its test folder declares,
chunks of 4 games. Its report under the game's role names, and a stored game out as a record
(`kanjax tournament game`) that `kanjax replay` re-runs step by step, and as its HTML view
(`--html`); the report as a page (`report --html`) opened in headless Chromium with its link
to a game's view. A new game is covered the moment it registers."""

from __future__ import annotations

import contextlib
import io
import json

import pyarrow.dataset as ds
import pytest

import kanjax
from kanjax.cli import main
from tests.harness.golden import game_cases
from tests.tournaments.user_policies import NET, tiny_net
from tests.view.browser import browser_or_none, console_errors
from tournaments.config import parse_config
from tournaments.plan import seatings
from tournaments.play import ChunkPlayer
from tournaments.report import report as tournament_report
from tournaments.runner import run_tournament

CONFIG = """\
[tournament]
game = "{game}"
format = "duplicate"
deals = 1
seed = 3
chunk_size = 4
output = "{out}"

[flags]
{flags}

[bots.engine]
kind = "python"
target = "tests.tournaments.sample_bots:BatchRandom"

[bots.net]
kind = "jax"
target = "{net}"
params = "{params}"
"""


def kanjax_cli(*argv: str) -> str:
    """What `kanjax ARGV...` prints (run in this process: compiled functions are shared)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(list(argv))
    return out.getvalue()


@pytest.mark.parametrize("game", kanjax.games())
def test_every_game_plays_a_tournament_reports_and_replays(game, tmp_path, request):
    flags = game_cases(game).SMALL_FLAGS
    env = kanjax.make(game, **flags)
    out = tmp_path / "out"
    config = tmp_path / "t.toml"
    config.write_text(CONFIG.format(game=game, out=out, net=NET, params=tiny_net(tmp_path, game),
                                    flags="\n".join(f"{k} = {json.dumps(v)}"
                                                     for k, v in flags.items())))
    n_games = len(seatings((0, 1), env.num_players))

    printed = kanjax_cli("tournament", "run", str(config), "--local", "--report")
    assert f"{n_games} games stored" in printed and ": done" in printed
    assert all(role in printed for role in env.role_names)
    report = json.loads((out / "report.json").read_text())
    assert report["games"] == n_games and report["roles"] == list(env.role_names)
    assert all(set(b["win_share_by_role"]) == set(env.role_names) for b in report["bots"])

    games = ds.dataset(out / "games").to_table().to_pylist()
    assert all(g["forfeit"] == -1 and not g["truncated"] for g in games)
    deals = ds.dataset(out / "deals").to_table()
    assert deals.num_rows >= n_games
    assert [n for n, _ in env.deal_columns] == deals.column_names[6:]  # the game's own
    seats = ds.dataset(out / "seats").to_table().to_pylist()
    assert len(seats) == n_games * env.num_players
    assert all(len(s["deals_by_role"]) == len(env.role_names) for s in seats)

    record = tmp_path / "game.json"
    assert "kanjax replay" in kanjax_cli("tournament", "game", str(out), "1", "--out",
                                         str(record))
    assert "OK" in kanjax_cli("replay", str(record))
    page = tmp_path / "game.html"  # the same game as the HTML view (issue 29)
    assert "open it in a browser" in kanjax_cli("tournament", "game", str(out), "1", "--html",
                                                "-o", str(page))
    steps = len(json.loads(record.read_text())["actions"]) + 1
    assert page.read_text().count('<li data-step="') == steps
    # the report as a page, in a browser, and its link to a game's view (issue 29)
    kanjax_cli("tournament", "report", str(out), "--html", "--views", "2")
    assert (out / "views" / "1.html").is_file()
    browser = browser_or_none(request)
    if browser is None:
        return
    from selenium.webdriver.common.by import By

    browser.get((out / "report.html").as_uri())
    assert console_errors(browser) == [] and env.role_names[0] in browser.page_source
    browser.find_element(By.CSS_SELECTOR, 'a[href="views/1.html"]').click()
    assert "<svg" in browser.find_element(By.ID, "table").get_attribute("innerHTML")
    assert console_errors(browser) == []


BUILTIN = """\
[tournament]
game = "{game}"
deals = 1
seed = 5
chunk_size = {chunk}
output = "{out}"

[flags]
{flags}

[bots.heuristic]
kind = "heuristic"

[bots.random]
kind = "random"
"""


@pytest.mark.parametrize("game", kanjax.games())
def test_every_game_builtin_bots_in_the_all_jax_loop(game, tmp_path):
    """The game's own heuristic and random bots (`kanjax.bots`, `Bots.random_bot`): jittable
    policies, so a chunk is one jitted loop with no host step; every seating of one deal seed
    stored in one chunk, none forfeited or truncated, the report under the game's roles."""
    flags = game_cases(game).SMALL_FLAGS
    env = kanjax.make(game, **flags)
    n_games = len(seatings((0, 1), env.num_players))
    out = tmp_path / "out"
    cfg = parse_config(BUILTIN.format(game=game, out=out, chunk=n_games,
                                      flags="\n".join(f"{k} = {json.dumps(v)}"
                                                      for k, v in flags.items())))
    player = ChunkPlayer(cfg)
    assert not player.host and not player.pimc  # the all-JAX loop
    result = run_tournament(cfg, local=True, progress=False)
    games = ds.dataset(out / "games").to_table().to_pylist()
    assert result.games == len(games) == n_games and result.chunks_total == 1
    assert all(g["forfeit"] == -1 and not g["truncated"] for g in games)
    assert {tuple(sorted(set(g["bots"]))) for g in games} == {("heuristic", "random")}
    report = tournament_report(out)
    assert report["games"] == n_games and report["roles"] == list(env.role_names)


ILLEGAL = """\
[tournament]
game = "{game}"
deals = 3
seed = 7
chunk_size = {chunk}
output = "{out}"
seatings = "distinct"

[flags]
{flags}

[bots.broken]
kind = "jax"
target = "tests.tournaments.user_policies:make_illegal"

[bots.random]
kind = "random"
"""


@pytest.mark.parametrize("game", kanjax.games())
def test_issue_44_an_always_illegal_bot_rates_strictly_below_random(game, tmp_path):
    """A forfeit always loses, in every game and reward mode: the offender scores below the
    game's worst, the others keep theirs, so the broken bot's Elo interval and its pairwise
    difference with random lie below zero (whist and Konkan's wins scored it 0 before: a
    tie with random, or above a legal bot)."""
    flags = game_cases(game).SMALL_FLAGS
    env = kanjax.make(game, **flags)
    out = tmp_path / "out"
    cfg = parse_config(ILLEGAL.format(game=game, out=out, chunk=2 * len(env.role_names) or 2,
                                      flags="\n".join(f"{k} = {json.dumps(v)}"
                                                      for k, v in flags.items())))
    run_tournament(cfg, local=True, progress=False)
    games = ds.dataset(out / "games").to_table().to_pylist()
    assert games and all(g["bots"][g["forfeit"]] == "broken" for g in games)
    assert all(g["scores"][g["forfeit"]] == env.worst_score - 1 < min(
        s for p, s in enumerate(g["scores"]) if p != g["forfeit"]) for g in games)
    result = tournament_report(out)
    r = result["ratings"]
    broken = r["bots"].index("broken")
    assert r["hi"][broken] < 0 < r["lo"][1 - broken]
    (pair,) = result["pairwise"]
    assert (pair["a"], pair["b"]) == ("broken", "random") and pair["diff"] < 0
    assert pair["hi"] is None or pair["hi"] < 0  # None: every group lost by the same
