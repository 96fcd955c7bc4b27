"""The game engines. `GAMES`: each registered game's name -> "module:factory" (the factory takes
the game name and its variant flags); `kanjax.make` and `kanjax.games` read it."""

GAMES = {
    "gonin_kan": "kanjax.games.kan.engine:make_kan",
    "yonin_kan": "kanjax.games.kan.engine:make_kan",
    "gambari_kan": "kanjax.games.kan.engine:make_kan",
    "whist": "kanjax.games.whist.engine:make_whist",
    "da_bai_fen": "kanjax.games.da_bai_fen.engine:make_dbf",
    "conquian": "kanjax.games.conquian.engine:make_conquian",
    "konkan": "kanjax.games.konkan.engine:make_konkan",
}
