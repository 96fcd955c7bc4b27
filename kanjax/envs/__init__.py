"""The game engines. `GAMES`: each registered game's name -> "module:factory" (the factory takes
the game name and its variant flags); `kanjax.make` and `kanjax.games` read it."""

GAMES = {
    "gonin_kan": "kanjax.envs.kan:make_kan",
    "yonin_kan": "kanjax.envs.kan:make_kan",
    "gambari_kan": "kanjax.envs.kan:make_kan",
    "whist": "kanjax.envs.whist:make_whist",
    "da_bai_fen": "kanjax.envs.da_bai_fen:make_dbf",
    "conquian": "kanjax.envs.conquian:make_conquian",
    "konkan": "kanjax.envs.konkan:make_konkan",
}
