"""Plain-Python reference rules of whist: the card play of bridge (DESIGN.md, the `whist` game).

Slow, obvious and independent of the JAX engine (`kanjax.games.whist.engine`): differential tests
replay the engine's games through `WhistRef` and compare every step. The deal is supplied from
outside (the hands by seat).

The rules (standard bridge card play):
- 4 players in seats 0=N 1=E 2=S 3=W; play goes clockwise, the next player after p is p+1 mod 4.
  Partnerships N-S (side 0) and E-W (side 1).
- 52 cards, card id = 13*suit + rank, suits S H D C = 0..3, ranks 2..A = 0..12
  (`DECK`); 13 cards to each player.
- The configured leader leads trick 1. A follower must follow the led suit if he can;
  otherwise he may play any card.
- Trump is one suit or none (NT). The highest trump in the trick wins it; with no trump in
  it, the highest card of the led suit. The winner leads the next trick.
- After 13 tricks the game ends; each player's reward is the number of tricks his
  partnership won.
"""

from __future__ import annotations

import operator

from kanjax.core.cards import RANK_CHARS, Deck, suited_tokens
from kanjax.core.reference_helpers import hand_owner

SEATS = "NESW"  # seat index -> name
STRAINS = ("S", "H", "D", "C", "NT")  # the trump configs; a suit's position is its index
NO_TRUMP = -1
NUM_PLAYERS = 4
NUM_CARDS = 52
NUM_TRICKS = 13
HAND_SIZE = 13
DECK = Deck("whist", tuple(suited_tokens("SHDC", RANK_CHARS)))
WHIST_DECK = frozenset(DECK.ids)
NS, EW = 0, 1  # partnership (side) indices


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    """0..12 for 2..A: the card's strength within its suit."""
    return card % 13


def side_of(player: int) -> int:
    """N (0) and S (2) are side NS = 0; E (1) and W (3) are side EW = 1."""
    return player % 2


def next_player(player: int) -> int:
    """Clockwise: N -> E -> S -> W -> N."""
    return (player + 1) % NUM_PLAYERS


def trump_suit(trump: str) -> int:
    """The suit index of a trump config ("S" -> 0 ... "C" -> 3), NO_TRUMP for "NT"."""
    if trump not in STRAINS:
        raise ValueError(f"trump must be one of {', '.join(STRAINS)}, not {trump!r}")
    return NO_TRUMP if trump == "NT" else STRAINS.index(trump)


def seat_index(seat: str) -> int:
    if seat not in tuple(SEATS):
        raise ValueError(f"leader must be one of {', '.join(SEATS)}, not {seat!r}")
    return SEATS.index(seat)


def legal_plays(hand, led_suit: int | None) -> list[int]:
    """The cards of `hand` that may be played, sorted: any card when leading (`led_suit` None);
    else the cards of the led suit if there are any, else any card."""
    if led_suit is None:
        return sorted(hand)
    follow = [c for c in hand if suit_of(c) == led_suit]
    return sorted(follow if follow else hand)


def trick_winner(plays: list[tuple[int, int]], trump: int) -> int:
    """The player who wins the trick `plays` = [(player, card)] in play order: the highest
    trump if any was played, else the highest card of the led suit (the first card's suit)."""
    led = suit_of(plays[0][1])
    trumps = [(rank_of(card), player) for player, card in plays if suit_of(card) == trump]
    if trumps:
        return max(trumps)[1]
    return max((rank_of(card), player) for player, card in plays if suit_of(card) == led)[1]


def check_hands(hands: list[list[int]]) -> None:
    """Four hands (by seat) of 13 distinct whist cards, all 52 dealt."""
    if len(hands) != NUM_PLAYERS:
        raise ValueError(f"need {NUM_PLAYERS} hands (N E S W), got {len(hands)}")
    seen: set[int] = set()
    for p, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            raise ValueError(f"seat {SEATS[p]} must get {HAND_SIZE} cards, got {len(hand)}")
        for c in hand:
            try:
                card = operator.index(c)
            except TypeError:
                card = None
            if card not in WHIST_DECK:
                raise ValueError(f"card {c!r} (seat {SEATS[p]}) is not a whist card id 0..51")
            if card in seen:
                raise ValueError(f"card {card} dealt twice")
            seen.add(card)


class WhistRef:
    """One game of whist card play from a given deal, driven by `apply`."""

    def __init__(self, hands: list[list[int]], trump: str = "NT", leader: str = "W"):
        check_hands(hands)
        self.trump_name = trump
        self.trump = trump_suit(trump)  # 0..3, or NO_TRUMP
        self.deal = [sorted(operator.index(c) for c in h) for h in hands]  # as dealt, by seat
        self.hands: list[set[int]] = [set(h) for h in self.deal]  # the cards still held
        self.first_leader = seat_index(leader)  # leads trick 1
        self.leader = self.first_leader  # the leader of the current trick
        self.trick_players: list[int] = []  # who played the cards of the current trick
        self.trick: list[int] = []  # the cards of the current trick, in play order
        self.tricks = [0, 0]  # tricks won by [NS, EW]
        self.tricks_done = 0
        self.winners: list[int] = []  # the winner of every completed trick
        self.history: list[tuple[int, int, int]] = []  # (trick index, player, card) per play

    # ---- queries ----
    @property
    def is_over(self) -> bool:
        return self.tricks_done == NUM_TRICKS

    @property
    def current_player(self) -> int:
        """The seat to play, -1 when the game is over."""
        if self.is_over:
            return -1
        return (self.leader + len(self.trick)) % NUM_PLAYERS

    @property
    def led_suit(self) -> int | None:
        return suit_of(self.trick[0]) if self.trick else None

    def legal_actions(self) -> list[int]:
        """The card ids the current player may play, sorted; [] when the game is over."""
        if self.is_over:
            return []
        return legal_plays(self.hands[self.current_player], self.led_suit)

    @property
    def rewards(self) -> list[int]:
        """Per player, the tricks his partnership won; all 0 until the game is over."""
        if not self.is_over:
            return [0] * NUM_PLAYERS
        return [self.tricks[side_of(p)] for p in range(NUM_PLAYERS)]

    def hand_owner(self) -> list[int]:
        """For every card id, the seat holding it, or -1."""
        return hand_owner(self.hands, NUM_CARDS)

    @property
    def last_winner(self) -> int:
        """The winner of the last completed trick, -1 before the first."""
        return self.winners[-1] if self.winners else -1

    def summary(self) -> dict:
        """The facts the differential test compares, as plain ints and lists, under the names
        of `kanjax.games.whist.engine.summary` (so "trick" is the number of completed tricks there,
        not the `trick` attribute's list of cards):

        current_player, legal_actions (sorted card ids; [] at the end), terminated, rewards
        (per player: the final tricks of his side at the end, else 0), hand_owner (card ->
        seat, -1 once played), played (card -> 4 * trick index + player, -1 unplayed),
        trick_cards (seat -> his card in the current trick, -1), trump (-1 NT, else the suit),
        first_leader, leader (of the current trick, the last winner at the end), trick
        (completed tricks), n_played (cards in the current trick), led (its suit, -1 before
        the lead), tricks ([NS, EW]), winners (of the 13 tricks, -1 for those not played).
        """
        played = [-1] * NUM_CARDS
        for t, p, card in self.history:
            played[card] = 4 * t + p
        trick_cards = [-1] * NUM_PLAYERS
        for p, card in zip(self.trick_players, self.trick, strict=True):
            trick_cards[p] = card
        return {
            "current_player": self.current_player,
            "legal_actions": self.legal_actions(),
            "terminated": self.is_over,
            "rewards": self.rewards,
            "hand_owner": self.hand_owner(),
            "played": played,
            "trick_cards": trick_cards,
            "trump": self.trump,
            "first_leader": self.first_leader,
            "leader": self.leader,
            "trick": self.tricks_done,
            "n_played": len(self.trick),
            "led": -1 if self.led_suit is None else self.led_suit,
            "tricks": list(self.tricks),
            "winners": self.winners + [-1] * (NUM_TRICKS - len(self.winners)),
        }

    # ---- actions ----
    def apply(self, action: int) -> None:
        """The current player plays card `action`; ValueError if it is not legal now."""
        action = operator.index(action)
        if self.is_over:
            raise ValueError(f"illegal action {action}: the game is over (13 tricks played)")
        legal = self.legal_actions()
        if action not in legal:
            name = f" ({DECK.token(action)})" if action in WHIST_DECK else " (not a card id)"
            raise ValueError(
                f"illegal action {action}{name} for seat {SEATS[self.current_player]}; "
                f"legal: {legal} ({DECK.format_hand(legal)})"
            )
        p = self.current_player
        self.hands[p].remove(action)
        self.trick.append(action)
        self.trick_players.append(p)
        self.history.append((self.tricks_done, p, action))
        if len(self.trick) == NUM_PLAYERS:
            self._finish_trick()

    def _finish_trick(self) -> None:
        """The winner's side takes the trick and the winner leads the next one."""
        winner = trick_winner(list(zip(self.trick_players, self.trick, strict=True)), self.trump)
        self.tricks[side_of(winner)] += 1
        self.tricks_done += 1
        self.winners.append(winner)
        self.leader = winner
        self.trick = []
        self.trick_players = []
