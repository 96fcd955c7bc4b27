"""kanjax.core.cards: card tokens, hands and deal strings, on the games' decks (KAN-1/3/49, the
whist deck) and on the decks of the games to come as their rules files' encoding notes give
them (DBF-1, KON-1, CQ-1)."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kanjax
from kanjax.core.cards import (
    RANK_CHARS,
    CardError,
    Deal,
    Deck,
    deal_header,
    deck,
    format_deal,
    parse_deal,
    suited_tokens,
)
from kanjax.games.kan import spec as kan_spec

KAN_DECKS = ["gonin_kan", "yonin_kan", "yonin_kan_5c", "gambari_kan"]
OTHER_DECKS = {
    # DBF §encoding: 13*s + r, S H D C, 2..A; BJ = 52, RJ = 53.
    "da_bai_fen": Deck("da_bai_fen", tuple(suited_tokens("SHDC", RANK_CHARS) + ["BJ", "RJ"])),
    # KON-1 / encoding: type 13*s + r, S H D C, A 2..K; JK = 52; two copies of each.
    "konkan": Deck("konkan", tuple(suited_tokens("SHDC", "A23456789TJQK") + ["JK"]), copies=2),
    # CQ-1 / encoding: 10*s + r, S H D C, A 2 3 4 5 6 7 J Q K.
    "conquian": Deck("conquian", tuple(suited_tokens("SHDC", "A234567JQK"))),
}
DECKS = kan_spec.DECKS | {"whist": deck("whist")} | OTHER_DECKS


def by_suit(d: Deck) -> dict[str, str]:
    """Suit char -> its ranks in the deck (in RANK order of the token list), plus 'jokers'."""
    out: dict[str, str] = {"S": "", "H": "", "D": "", "C": "", "jokers": ""}
    for i in d.ids:
        tok = d.token(i)
        if tok[1] in "SHDC":
            out[tok[1]] += tok[0]
        else:
            out["jokers"] += tok + " "
    out["jokers"] = out["jokers"].strip()
    return out


def kan_id(tok: str) -> int:
    """kan.md §15: c = 13*suit + (rank - 2), suit C=0 D=1 H=2 S=3, rank 2..14; JK = 52."""
    if tok == "JK":
        return 52
    return 13 * "CDHS".index(tok[1]) + "23456789TJQKA".index(tok[0])


# ---- Kan decks ----------------------------------------------------------------------------
def test_KAN_1_gonin_deck():
    d = deck("gonin_kan")
    assert d.size == 50 and len(d.ids) == 50 and d.copies == 1
    s = by_suit(d)
    assert s["S"] == "23456789TJQKA"
    assert s["H"] == s["D"] == s["C"] == "3456789TJQKA"
    assert s["jokers"] == "JK"
    assert "2S" in d.tokens
    for tok in ("2C", "2D", "2H"):
        assert tok not in d.tokens
    # §15 mask: all 53 ids minus {0, 13, 26}.
    assert set(d.ids) == set(range(53)) - {0, 13, 26}


def test_KAN_1_KAN_49_yonin_deck_default_removes_5S():
    d = deck("yonin_kan")
    assert d is deck("yonin_kan", yonin_removed_five="S") is DECKS["yonin_kan"]
    assert d.size == 40
    s = by_suit(d)
    assert s["C"] == s["D"] == s["H"] == "56789TJQKA"
    assert s["S"] == "6789TJQKA"
    assert s["jokers"] == "JK"
    assert set(d.ids) == {c for c in range(52) if c % 13 >= 3} - {42} | {52}


def test_KAN_1_KAN_49_yonin_deck_5C_variant():
    d = deck("yonin_kan", yonin_removed_five="C")
    assert d is DECKS["yonin_kan_5c"]
    assert d.size == 40
    s = by_suit(d)
    assert s["S"] == s["D"] == s["H"] == "56789TJQKA"
    assert s["C"] == "6789TJQKA"
    assert set(d.ids) == {c for c in range(52) if c % 13 >= 3} - {3} | {52}


@pytest.mark.parametrize("bad", ["H", "D", "s", "", "5S"])
def test_KAN_49_yonin_removed_five_must_be_S_or_C(bad):
    with pytest.raises(ValueError, match="yonin_removed_five"):
        deck("yonin_kan", yonin_removed_five=bad)
    with pytest.raises(CardError, match="yonin_removed_five"):
        kan_spec.deck("yonin_kan", yonin_removed_five=bad)


def test_KAN_1_gambari_deck():
    d = deck("gambari_kan")
    assert d.size == 30
    s = by_suit(d)
    assert s["C"] == s["D"] == s["H"] == "89TJQKA"
    assert s["S"] == "789TJQKA"
    assert s["jokers"] == "JK"
    for tok in ("7C", "7D", "7H"):
        assert tok not in d.tokens
    assert set(d.ids) == {c for c in range(52) if c % 13 >= 6} | {44, 52}


@pytest.mark.parametrize("name", KAN_DECKS)
def test_KAN_3_sixteen_point_cards(name):
    d = deck(name) if name != "yonin_kan_5c" else DECKS[name]
    points = [i for i in d.ids if d.token(i)[0] in "AKQJ" and d.token(i) != "JK"]
    assert len(points) == 16
    # §15: is_point(c) = c < 52 and c mod 13 >= 9.
    assert points == [c for c in d.ids if c < 52 and c % 13 >= 9]
    assert "JK" in d.tokens


@pytest.mark.parametrize("name", KAN_DECKS)
def test_KAN_15_card_ids(name):
    d = DECKS[name]
    assert d.num_ids == 53
    for i in d.ids:
        assert kan_id(d.token(i)) == i
    assert d.card("JK") == 52
    assert d.card("AS") == 51 and d.card("9C") == 7 and d.card("TH") == 34


# ---- other games --------------------------------------------------------------------------
def test_DBF_1_deck_and_ids():
    d = DECKS["da_bai_fen"]
    assert d.size == 54 and d.num_ids == 54 and d.copies == 1
    s = by_suit(d)
    assert s["S"] == s["H"] == s["D"] == s["C"] == "23456789TJQKA"
    assert s["jokers"] == "BJ RJ"
    # da_bai_fen.md §7: 13*s + r, S=0 H=1 D=2 C=3, 2 -> 0 ... A -> 12; BJ = 52, RJ = 53.
    for i in range(52):
        tok = d.token(i)
        assert i == 13 * "SHDC".index(tok[1]) + "23456789TJQKA".index(tok[0])
    assert d.card("BJ") == 52 and d.card("RJ") == 53
    assert d.card("2S") == 0 and d.card("AC") == 51


def test_KON_1_deck_and_types():
    d = DECKS["konkan"]
    assert d.copies == 2 and len(d.ids) == 53 and d.num_ids == 53 and d.size == 106
    s = by_suit(d)
    assert all(sorted(s[x]) == sorted("A23456789TJQK") for x in "SHDC")
    assert s["jokers"] == "JK"
    # konkan.md §9: t = 13*s + r, S=0 H=1 D=2 C=3, A=0, 2=1, ..., K=12; JK = 52.
    for t in range(52):
        tok = d.token(t)
        assert t == 13 * "SHDC".index(tok[1]) + "A23456789TJQK".index(tok[0])
    assert d.card("JK") == 52 and d.card("AS") == 0 and d.card("KC") == 51


def test_CQ_1_deck_and_ids():
    d = DECKS["conquian"]
    assert d.size == 40 and d.num_ids == 40
    s = by_suit(d)
    assert all(s[x] == "A234567JQK" for x in "SHDC")
    assert s["jokers"] == ""
    for tok in ("8S", "9H", "TD", "JK"):
        assert tok not in d.tokens
    # conquian.md §7: 10*s + r, S=0 H=1 D=2 C=3, r = CQ-2 position (A=0 ... 7=6, J=7, Q=8, K=9).
    for i in range(40):
        tok = d.token(i)
        assert i == 10 * "SHDC".index(tok[1]) + "A234567JQK".index(tok[0])
    assert d.card("JS") == 7 and d.card("KC") == 39


def test_whist_deck_and_ids():
    d = deck("whist")
    assert d.size == 52 and d.num_ids == 52
    for i in range(52):
        tok = d.token(i)
        assert i == 13 * "SHDC".index(tok[1]) + "23456789TJQKA".index(tok[0])


def test_unknown_game_has_no_deck():
    with pytest.raises(CardError, match="'nope'"):
        deck("nope")


@pytest.mark.parametrize("game", kanjax.games())
def test_every_game_declares_its_deck(game):
    env = kanjax.make(game)
    assert deck(game) is env.card_deck and env.card_deck.size > 0


# ---- tokens -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(DECKS))
def test_token_round_trip(name):
    d = DECKS[name]
    tokens = [d.token(i) for i in d.ids]
    assert len(set(tokens)) == len(tokens)
    for i in d.ids:
        assert d.card(d.token(i)) == i
        assert re.fullmatch(r"[2-9TJQKA][SHDC]|JK|BJ|RJ", d.token(i))
    for tok in tokens:
        assert d.token(d.card(tok)) == tok


@pytest.mark.parametrize("name", sorted(DECKS))
def test_bad_card_ids_raise(name):
    d = DECKS[name]
    bad = [-1, d.num_ids] + [i for i, t in enumerate(d.tokens) if t is None]
    for i in bad:
        with pytest.raises(CardError, match=f"bad card id {i}"):
            d.token(i)


@pytest.mark.parametrize(
    "name, hand, bad, pos",
    [
        ("gonin_kan", "AS KS 2C", "2C", 6),
        ("gonin_kan", "as", "as", 0),
        ("gonin_kan", "  AS\t10S", "10S", 5),
        ("gonin_kan", "AS  KS\nQSS", "QSS", 7),
        ("gonin_kan", "AS BJ", "BJ", 3),
        ("yonin_kan", "AS 5S", "5S", 3),
        ("yonin_kan_5c", "5S 5C", "5C", 3),
        ("gambari_kan", "8S 7S 7C", "7C", 6),
        ("da_bai_fen", "RJ JK", "JK", 3),
        ("konkan", "AS 1S", "1S", 3),
        ("conquian", "JS 8S", "8S", 3),
        ("whist", "AS JK", "JK", 3),
        ("whist", "A S", "A", 0),
    ],
)
def test_malformed_hand_names_token_and_position(name, hand, bad, pos):
    d = DECKS[name]
    assert hand[pos:].startswith(bad)
    with pytest.raises(CardError) as err:
        d.parse_hand(hand)
    assert isinstance(err.value, ValueError)
    msg = str(err.value)
    assert repr(bad) in msg and f"character {pos}" in msg
    with pytest.raises(CardError, match=f"character {pos + 40}"):
        d.parse_hand(hand, offset=40)


@pytest.mark.parametrize(
    "name, hand, pos",
    [("gonin_kan", "AS KS AS", 6), ("whist", "2C 2C", 3), ("konkan", "JK AS JK 3H JK", 12)],
)
def test_hand_holding_a_card_too_often_raises(name, hand, pos):
    with pytest.raises(CardError, match=f"character {pos}"):
        DECKS[name].parse_hand(hand)


def test_konkan_hand_may_hold_two_copies():
    d = DECKS["konkan"]
    assert d.parse_hand("JK AS JK AS") == (52, 0, 52, 0)


def test_hand_round_trip_and_sort():
    d = deck("gonin_kan")
    h = d.parse_hand("3C JK AS TH 2S KS")
    assert h == (1, 52, 51, 34, 39, 50)
    assert d.format_hand(h) == "3C JK AS TH 2S KS"
    assert d.format_hand(d.sort_hand(h)) == "JK AS KS 2S TH 3C"
    assert d.parse_hand("") == () and d.format_hand(()) == ""
    dbf = DECKS["da_bai_fen"]
    assert dbf.format_hand(dbf.sort_hand(dbf.parse_hand("2S BJ AS RJ"))) == "RJ BJ AS 2S"


# ---- deal strings -------------------------------------------------------------------------
def test_deal_string_example():
    text = "gonin_kan dealer=0 | AS KS 2S | 3C | kitty: 3D 4D"
    g = deck("gonin_kan")
    d = parse_deal(text, g)
    assert d == Deal(
        "gonin_kan",
        (("dealer", "0"),),
        ((51, 50, 39), (1,)),
        (("kitty", (g.card("3D"), g.card("4D"))),),
    )
    assert d.field("dealer") == "0" and d.field("nope", "x") == "x"
    assert d.section("kitty") == (14, 15) and d.section("stock") is None
    assert format_deal(d, g) == text
    assert deal_header(text) == Deal("gonin_kan", (("dealer", "0"),))


def test_deal_cards_are_read_with_the_deck_given():
    five_c = DECKS["yonin_kan_5c"]
    d = parse_deal("yonin_kan yonin_removed_five=C | 5S 6C", five_c)
    assert d.hands == ((five_c.card("5S"), 4),)
    assert parse_deal(format_deal(d, five_c), five_c) == d
    with pytest.raises(CardError, match="'5C'"):
        parse_deal("yonin_kan | 5C", five_c)
    with pytest.raises(CardError, match="'5S'"):
        parse_deal("yonin_kan | 5S", DECKS["yonin_kan"])


def test_KAN_49_the_header_names_the_yonin_deck_for_deal_env():
    env = kanjax.deal_env("yonin_kan yonin_removed_five=C | 5S 6C")
    assert env.config.yonin_removed_five == "C" and env.card_deck is DECKS["yonin_kan_5c"]
    assert kanjax.deal_env("yonin_kan | 5S").config.yonin_removed_five == "S"
    with pytest.raises(ValueError, match="yonin_removed_five"):
        kanjax.deal_env("yonin_kan yonin_removed_five=H | AS")
    with pytest.raises(ValueError, match="unknown game 'nope'"):
        kanjax.deal_env("  nope dealer=0 | AS")


@pytest.mark.parametrize(
    "text, bad, pos",
    [
        ("gonin_kan dealer=0 | AS KS XX", "XX", 27),
        ("gonin_kan dealer=0 | AS 2C", "2C", 24),
        ("gonin_kan | AS | kitty: 3C ZZ", "ZZ", 27),
        ("gonin_kan | AS | kitty:3C 3C", "3C", 26),
        ("gonin_kan dealer | AS", "dealer", 10),
        ("gonin_kan =0 | AS", "=0", 10),
        ("gonin_kan dealer= | AS", "dealer=", 10),
        ("gonin_kan | AS | AS KS: QS", "AS KS", 17),
        ("gonin_kan | AS |  : QS", "", 18),
        ("da_bai_fen | BJ RJ | JK", "JK", 21),
    ],
)
def test_malformed_deal_names_token_and_position(text, bad, pos):
    assert text[pos:].startswith(bad)
    with pytest.raises(CardError) as err:
        parse_deal(text, DECKS[text.split()[0]])
    msg = str(err.value)
    assert repr(bad) in msg and f"character {pos}" in msg


@pytest.mark.parametrize("text", ["", "   ", " | AS KS"])
def test_deal_without_game_raises(text):
    with pytest.raises(CardError, match="game name"):
        deal_header(text)
    with pytest.raises(CardError, match="game name"):
        parse_deal(text, DECKS["whist"])


def test_hand_after_section_raises():
    with pytest.raises(CardError, match="character 23"):
        parse_deal("gonin_kan | kitty: 3C | AS", DECKS["gonin_kan"])


# ---- properties ---------------------------------------------------------------------------
DECK_GAMES = [  # (game name in deal strings, header fields, deck)
    (name, (("yonin_removed_five", "C"),) if name == "yonin_kan_5c" else (), DECKS[name])
    for name in DECKS
]


@st.composite
def deals(draw):
    name, flags, d = draw(st.sampled_from(DECK_GAMES))
    game = "yonin_kan" if name == "yonin_kan_5c" else name
    cards = draw(st.permutations([i for i in d.ids for _ in range(d.copies)]))
    cards = cards[: draw(st.integers(0, len(cards)))]
    cuts = sorted(draw(st.lists(st.integers(0, len(cards)), max_size=7)))
    bounds = [0, *cuts, len(cards)]
    parts = [tuple(cards[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
    n_sections = draw(st.integers(0, min(3, len(parts))))
    names = draw(
        st.lists(
            st.sampled_from(["kitty", "stock", "discard", "table"]),
            min_size=n_sections,
            max_size=n_sections,
        )
    )
    hands = tuple(parts[: len(parts) - n_sections])
    sections = tuple(zip(names, parts[len(parts) - n_sections :], strict=True))
    fields = flags + tuple(
        draw(
            st.lists(
                st.tuples(
                    st.sampled_from(["dealer", "round", "seats"]),
                    st.from_regex(r"[0-9a-z,]{1,6}", fullmatch=True),
                ),
                max_size=3,
            )
        )
    )
    return Deal(game, fields, hands, sections), d


@given(deals())
def test_parse_deal_inverts_format_deal(deal_and_deck):
    d, the_deck = deal_and_deck
    text = format_deal(d, the_deck)
    assert parse_deal(text, the_deck) == d
    assert format_deal(parse_deal(text, the_deck), the_deck) == text


@st.composite
def hands(draw):
    d = draw(st.sampled_from(sorted(DECKS.values(), key=lambda x: x.name)))
    cards = draw(st.permutations([i for i in d.ids for _ in range(d.copies)]))
    return d, tuple(cards[: draw(st.integers(0, min(len(cards), 20)))])


@given(hands())
def test_parse_hand_inverts_format_hand(dh):
    d, h = dh
    assert d.parse_hand(d.format_hand(h)) == h
    s = d.sort_hand(h)
    assert sorted(s) == sorted(h) and d.sort_hand(s) == s
