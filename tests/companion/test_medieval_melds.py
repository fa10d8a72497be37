"""Families and communes of Medieval Mastery (rules/medieval-mastery.txt section 4), judged
one group at a time and as a whole tableau; the best arrangement against brute force."""

import random

import pytest

from companion.games.medieval_mastery.rules import (
    ALL_CARDS,
    COMMUNE,
    FAMILY,
    JUNIOR,
    NOTHING,
    RELIGIOUS,
    ROYAL,
    best_arrangement,
    check_arrangement,
    check_group,
    lay_xenocrats,
    proposals,
    value,
)


def group(*cards):
    return check_group(list(cards))


def test_face_values_follow_the_ideal_table():
    # "IDEAL cards": 25 King, 24 Queen, 23 Princess, ... 1 Zany, 0 Xenocrat, in every suit.
    ranks = "KQPFJESIACOUBMRHGYDLWVTNZX"
    for s in "SCTPW":
        assert [value(r + s) for r in ranks] == list(range(25, -1, -1))
    assert len(ALL_CARDS) == 130


# --- families -------------------------------------------------------------------

def test_families_start_with_a_marriage_of_king_and_queen_or_jack_and_princess():
    # 4: "Families are started with a 'marriage' of K and Q or J and P."
    assert group("KS", "QC").kind == FAMILY and group("KS", "QC").legal
    assert group("JS", "PC").kind == JUNIOR and group("JS", "PC").legal
    lone = group("KS", "ES")
    assert not lone.legal and "King of Swords has no partner" in lone.problems[0]
    assert not group("ES", "SS").legal


def test_royal_marriage_is_king_and_queen_of_one_suit_and_counts_double():
    # 4: "If K and Q belong to the same suit it is known as a 'Royal marriage' and is worth
    # more points"; 7: "All cards in a Royal family ... have their face value doubled."
    royal = group("KC", "QC", "MC")
    assert royal.kind == ROYAL and royal.title == "Royal family of Cups"
    assert royal.points == 2 * (25 + 24 + 12)
    assert group("KC", "QS", "MC").points == 25 + 24 + 12


def test_jack_and_princess_of_one_suit_cannot_marry():
    # 4: "J and P may not belong to the same suit, however: that would be incest."
    check = group("JC", "PC")
    assert not check.legal
    assert check.problems == ("Jack and Princess of Cups cannot marry: same suit",)


def test_members_belong_to_the_suits_of_the_partners():
    # 4: "augmented (in any order) by further cards belonging to the same suit(s) as the
    # marriage partners"
    assert group("KS", "QC", "ES", "MC", "GS").legal
    alien = group("KS", "QC", "MW")
    assert not alien.legal
    assert "Mason of Wands does not belong: the family's suits are Swords and Cups" in alien.problems
    royal_alien = group("KS", "QS", "MC")
    assert "a Royal family of Swords holds only that suit" in royal_alien.problems[0]


def test_a_family_holds_one_king_and_one_queen():
    # 4 (i): "A family may contain only one K and Q"
    check = group("KS", "QS", "KC")
    assert not check.legal
    assert "a family may contain only one King: King of Swords and King of Cups" in check.problems
    assert not group("KS", "QS", "QC").legal


def test_junior_family_has_one_jack_one_princess_and_no_king_or_queen():
    # 4 (ii): "a junior family may contain only one J and P and no K or Q"
    assert group("JS", "PC", "MS", "GC").legal
    assert "a junior family has only one Jack" in group("JS", "PC", "JC").problems[0]
    assert "no King or Queen" in group("JS", "PC", "QS").problems[0]
    assert "no King or Queen" in group("JS", "PC", "KC").problems[0]


def test_king_queen_family_may_take_jacks_and_princesses_of_its_suits():
    # RULINGS: "A King-Queen family may also take a Jack and a Princess as members".
    check = group("KS", "QC", "JS", "PC")
    assert check.legal and check.kind == FAMILY
    assert group("KS", "QS", "JS", "PS").legal  # members, not a marriage: one suit is fine
    assert not group("KS", "QS", "JC").legal  # but only of the family's suits


def test_no_xenocrat_in_a_family():
    # 4 (iii): "Families may not contain X"
    check = group("KS", "QC", "XC")
    assert not check.legal
    assert any("cannot join a family" in p for p in check.problems)


# --- communes -------------------------------------------------------------------

def test_a_commune_goes_in_strict_alphabetic_order_in_any_suit():
    # 4: "A commune started with A must be augmented in strict alphabetic order only, but
    # these additional cards may be of any suit."  RULINGS: no gaps; a lone A is a commune.
    assert group("AS").legal and group("AS").kind == COMMUNE and group("AS").points == 17
    check = group("AS", "BC", "CT", "DP", "EW")
    assert check.legal and check.points == 17 + 13 + 16 + 7 + 20
    gap = group("AS", "CT")
    assert not gap.legal
    assert gap.problems == ("no B card (Blacksmith) before Constable of Staffs: an A-commune goes "
                            "in strict alphabetic order with no gaps",)
    assert not group("BS", "CT").legal  # no leader
    assert "one card for the letter B" in group("AS", "BS", "BC").problems[0]
    assert "one leader" in group("AS", "AC").problems[0]


def test_an_a_commune_runs_only_as_far_as_w():
    # 4: "X cannot be added to an existing family or commune. (This means, incidentally, that
    # communes started with A may only ever run as far as W.)"
    letters = "ABCDEFGHIJKLMNOPQRSTUVW"
    suits = "SCTPW"
    full = [letter + suits[i % 5] for i, letter in enumerate(letters)]
    check = check_group(full)
    assert check.legal and check.kind == COMMUNE and check.points == sum(value(c) for c in full)
    with_x = check_group([*full, "XC"])
    assert not with_x.legal
    assert any("cannot join an A-commune" in p for p in with_x.problems)
    beyond = check_group([*full, "YC"])
    assert any("only as far as W" in p for p in beyond.problems)


def test_religious_commune_is_a_xenocrat_and_cards_of_its_suit_doubled():
    # 4: "A commune started with X may be augmented in any order, but these additional cards
    # must be of the same suit as X: this is known as a 'Religious commune' and is worth more"
    check = group("XW", "MW", "KW", "AW")
    assert check.legal and check.kind == RELIGIOUS and check.title == "Religious commune of Wands"
    assert check.points == 2 * (12 + 25 + 17)
    assert group("XW").legal and group("XW").points == 0
    other = group("XW", "MC")
    assert other.problems == ("Mason of Cups cannot join the Religious commune of Wands: it holds "
                              "only Wands",)
    assert "one Xenocrat" in group("XW", "XC").problems[0]


def test_group_legal_as_two_kinds_counts_as_the_better_one():
    # A..Q of one suit is a Royal family (K and Q of Swords) and an A-commune at once.
    cards = [letter + "S" for letter in "ABCDEFGHIJKLMNOPQ"]
    check = check_group(cards)
    assert check.legal and check.kind == ROYAL
    assert check.points == 2 * sum(value(c) for c in cards)


def test_cards_that_start_nothing_are_explained():
    check = group("MS", "GS")
    assert check.kind == NOTHING and not check.legal and "none here" in check.problems[0]
    assert "twice" in check_group(["KS", "KS"]).problems[0]
    assert "not an IDEAL card" in check_group(["KS", "5S"]).problems[0]


# --- a whole tableau --------------------------------------------------------------

def test_swapping_partners_to_a_royal_marriage_rejects_homeless_members():
    # 4: "swapping marriage partners in order to upgrade to a Royal marriage ... If as a
    # result of these changes a family contains members belonging to an alien suit (e.g. the
    # suit of a dumped spouse) then these must be removed. If they cannot be found a legitimate
    # home in another family or commune these cards must be discarded as 'rejects'."
    before = ["KS", "QC", "MC", "ES"]
    report = check_arrangement([["KS", "QS", "ES"]], before=before, hand=["QS"])
    assert report.legal, report.problems
    assert report.rejects == ("QC", "MC") and report.from_hand == ("QS",)
    assert report.points == 2 * (25 + 24 + 20)


def test_a_laid_card_with_a_home_cannot_be_rejected():
    # 4: "(Neither can they be made available by discarding as rejects, unless they are
    # genuinely so.)"
    before = ["KS", "QC", "MC", "ES", "JC", "PT"]
    report = check_arrangement([["KS", "QS", "ES"], ["JC", "PT"]], before=before, hand=["QS"])
    assert not report.legal
    assert ("Mason of Cups is not a reject: it can join the junior family of Cups and Staffs "
            "(JC PT) (laid cards stay laid while they have a home)") in report.problems
    fixed = check_arrangement([["KS", "QS", "ES"], ["JC", "PT", "MC"]], before=before, hand=["QS"])
    assert fixed.legal and fixed.rejects == ("QC",)
    # two rejects that could marry are not genuinely rejects either
    pair = check_arrangement([["KS", "QS"]], before=["KS", "QC", "KC"], hand=["QS"])
    assert any("start a group with the" in p for p in pair.problems)
    # a lone Apothecary can always stay as a commune
    lone = check_arrangement([], before=["AS"])
    assert any("stand alone as a commune" in p for p in lone.problems)


def test_marrying_off_a_bachelor_jack():
    # 4: "marrying-off a bachelor J or spinster P": a Jack member of a King-Queen family
    # leaves it to marry a Princess from the hand.
    before = ["KS", "QC", "JS"]
    report = check_arrangement([["KS", "QC"], ["JS", "PC"]], before=before, hand=["PC"])
    assert report.legal and report.rejects == () and report.points == 49 + 44


def test_cards_come_from_the_trick_and_the_hand_only():
    # 4: "drawn both from the cards won in the trick and from the cards in his hand"
    report = check_arrangement([["KS", "QS"]], trick=["KS", "MC"], hand=["GT"])
    assert not report.legal
    assert report.problems == ("Queen of Swords is neither in the hand, in the trick nor laid "
                               "before",)
    ok = check_arrangement([["KS", "QS"]], trick=["KS", "MC"], hand=["QS"])
    assert ok.legal and ok.unused == ("MC",) and ok.from_hand == ("QS",)


def test_a_xenocrat_won_in_a_trick_must_start_a_religious_commune():
    # 4: "If, however, X is won in a trick then the trick-winner must start a Religious
    # commune with it."
    report = check_arrangement([], trick=["XC", "MS", "GT"])
    assert report.problems == ("Xenocrat of Cups was won in the trick: it must start a Religious "
                               "commune",)
    assert check_arrangement([["XC"]], trick=["XC", "MS", "GT"]).legal


def test_a_xenocrat_in_hand_is_optional():
    # 4: "If X is held in hand then the trick-winner can choose whether or not to start a
    # Religious commune with it."
    assert check_arrangement([], trick=["MS"], hand=["XC"]).legal
    assert check_arrangement([["XC"]], trick=["MS"], hand=["XC"]).legal


def test_laying_a_xenocrat_converts_its_suit_from_every_other_group():
    # 4: "once X is laid down the trick-winner must immediately 'convert' (i.e. transfer) to the
    # new Religious commune all cards of the same suit as X from every other family and
    # commune. Thenceforth, no other family or commune belonging to that player may include
    # any card of the same suit as X."
    before = ["KS", "QC", "MS", "MC"]
    unconverted = check_arrangement([["XS"], ["KS", "QC", "MS", "MC"]], before=before, hand=["XS"])
    assert ("Mason of Swords must be converted to the Religious commune of Swords: no other "
            "family or commune of this player may hold Swords") in unconverted.problems
    groups, homeless = lay_xenocrats([["KS", "QC", "MS", "MC"]], ["XS"])
    assert groups == [["XS", "KS", "MS"]] and sorted(homeless) == ["MC", "QC"]
    report = check_arrangement(groups, before=before, hand=["XS"])
    assert report.legal and sorted(report.rejects) == ["MC", "QC"]
    assert report.points == 2 * (25 + 12)
    # thenceforth: a new Swords card cannot go into a family
    later = check_arrangement([["XS", "KS", "MS"], ["KC", "QC", "ES"]], before=["XS", "KS", "MS"],
                              hand=["KC", "QC", "ES"])
    assert any("Ecclesiastic of Swords must be converted" in p for p in later.problems)


def test_conversion_breaks_a_family_unless_the_spouse_is_replaced():
    # 4: "If as a result of these changes a family becomes unsustainable (because a converted
    # spouse cannot be replaced from elsewhere) then these abandoned cards must be discarded
    # as rejects."
    before = ["KS", "QC", "MC", "GC", "JC", "PT", "RT"]
    groups, homeless = lay_xenocrats([["KS", "QC", "MC", "GC"], ["JC", "PT", "RT"]], ["XS"])
    # the Cups members find a home in the junior family; the Queen cannot (no Queen there)
    assert homeless == ["QC"]
    assert sorted(map(sorted, groups)) == [["GC", "JC", "MC", "PT", "RT"], ["KS", "XS"]]
    report = check_arrangement(groups, before=before, trick=["XS"])
    assert report.legal and report.rejects == ("QC",)
    # replaced from elsewhere: the King of Cups from the hand keeps the family going
    kept = check_arrangement([["XS", "KS"], ["KC", "QC", "MC", "GC"], ["JC", "PT", "RT"]],
                             before=before, trick=["XS"], hand=["KC"])
    assert kept.legal and kept.rejects == () and kept.from_hand == ("KC",)


def test_conversion_truncates_an_a_commune_at_the_lost_letter():
    # 4: "if as a result of these changes a commune loses alphabetic order (because a
    # converted card of a particular rank cannot be replaced by another of the same rank from
    # a different suit) then the commune is truncated at that point and all later cards are
    # discarded as rejects."
    commune = ["AC", "BS", "CT", "DC", "ES", "FC"]
    groups, homeless = lay_xenocrats([commune], ["XS"])
    assert groups == [["AC"], ["XS", "BS", "ES"]]
    assert sorted(homeless) == ["CT", "DC", "FC"]
    report = check_arrangement(groups, before=commune, trick=["XS"])
    assert report.legal and sorted(report.rejects) == ["CT", "DC", "FC"]
    assert report.points == 17 + 2 * (13 + 20)
    # replaced by a Blacksmith and an Ecclesiastic of other suits, nothing is lost
    whole = check_arrangement([["XS", "BS", "ES"], ["AC", "BW", "CT", "DC", "EW", "FC"]],
                              before=commune, trick=["XS"], hand=["BW", "EW"])
    assert whole.legal and whole.rejects == ()
    # losing the leader loses the whole commune
    groups, homeless = lay_xenocrats([["AS", "BC", "CT"]], ["XS"])
    assert groups == [["XS", "AS"]] and sorted(homeless) == ["BC", "CT"]


def test_the_text_procedure_proposals_are_legal():
    before = [["KS", "QC", "MC", "GC"], ["AC", "BS", "CT"]]
    trick = ["XS", "DC", "HW"]
    hand = ["KC", "EP", "JT"]
    laid = [c for g in before for c in g]
    for tableau in proposals(before, trick, [*trick, *hand]):
        report = check_arrangement(tableau, laid, trick, hand)
        assert report.legal, (tableau, report.problems)


# --- the best arrangement --------------------------------------------------------------

def test_best_arrangement_uses_the_cards_well():
    groups = best_arrangement(hand=["KS", "QC", "JC", "MC", "AT", "BC", "QS", "KC", "CW", "XS"])
    report = check_arrangement(groups, hand=["KS", "QC", "JC", "MC", "AT", "BC", "QS", "KC", "CW",
                                             "XS"])
    assert report.legal
    # two Royal families and the A-commune (the Blacksmith of Cups bridges it to the Constable)
    assert report.points == 98 + 2 * (25 + 24 + 21 + 12) + (17 + 13 + 16)
    assert "XS" not in report.from_hand  # a Xenocrat in hand would only cost the Royal Swords


def test_best_arrangement_lays_forced_xenocrats_and_keeps_laid_cards():
    groups = best_arrangement(before=["KS", "QC", "MC"], trick=["XS", "GT"], hand=[])
    report = check_arrangement(groups, before=["KS", "QC", "MC"], trick=["XS", "GT"], hand=[])
    assert report.legal
    assert ["XS", "KS"] in groups and sorted(report.rejects) == ["MC", "QC"]


RICH = ["KS", "QS", "KC", "QC", "JS", "PC", "JT", "PS", "AS", "AC", "BS", "BT", "CC", "DW", "XS",
        "XC", "MS", "MC", "GT", "ES"]


def _partitions(cards):
    """Every way to put the cards into groups or leave them out."""
    if not cards:
        yield []
        return
    first, rest = cards[0], cards[1:]
    for part in _partitions(rest):
        yield part  # first left out
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1:]]


def _brute_best(before, trick, hand):
    best = None
    for part in _partitions(list(dict.fromkeys([*before, *trick, *hand]))):
        report = check_arrangement(part, before, trick, hand)
        if report.legal and (best is None or report.points > best):
            best = report.points
    return best


@pytest.mark.parametrize("seed", range(12))
def test_best_arrangement_matches_brute_force(seed):
    rng = random.Random(seed)
    pool = rng.sample(RICH, 7) if seed % 2 else rng.sample(RICH[:14] + rng.sample(ALL_CARDS, 6), 7)
    pool = list(dict.fromkeys(pool))
    before_candidates = best_arrangement(hand=pool[:3])  # a legal earlier tableau
    before = [c for g in before_candidates for c in g]
    rest = [c for c in pool if c not in before]
    trick, hand = rest[:2], rest[2:]
    groups = best_arrangement(before, trick, hand)
    report = check_arrangement(groups, before, trick, hand)
    assert report.legal, report.problems
    assert report.points == _brute_best(before, trick, hand)


def test_best_arrangement_may_leave_a_king_unmarried_to_carry_a_long_commune():
    chain = ["AT", "BP", "CW", "DT", "EP", "FW", "GT", "HP", "IW", "JW", "KS", "LT", "MP", "NW",
             "OT"]
    groups = best_arrangement(hand=[*chain, "QC"])
    report = check_arrangement(groups, hand=[*chain, "QC"])
    assert report.legal and report.points == sum(value(c) for c in chain) == 213
    assert groups == [chain]  # marrying the King to the Queen of Cups would score 153 + 49


# A position the adversarial benchmark found slow (benchmarks/results/search.json): many
# Kings, Queens, Jacks and Princesses to marry, two Apothecaries, a Xenocrat in hand.
SLOW = {"before": ["PP", "DC", "JW", "KT", "AT", "HT", "AW", "KC", "BW", "QW", "JT", "QP", "IT",
                   "GW", "PC", "EW", "LT", "GC", "ES", "CP"],
        "trick": ["CT", "FS", "JP", "MP", "FC", "HP", "HC"],
        "hand": ["QS", "DS", "IC", "JS", "JC", "XS", "PT", "BT", "PW"]}


def _points(groups):
    return sum(check_group(g).points for g in groups)


def test_a_search_with_steps_enough_is_the_full_search():
    from companion.games.medieval_mastery.rules import best_arrangement_within

    rng = random.Random(5)
    for _ in range(30):
        cards = rng.sample(ALL_CARDS, 20)
        before, trick, hand = cards[:8], cards[8:13], cards[13:]
        found = best_arrangement_within(before, trick, hand, steps=10**9)
        assert found.exact and found.groups == best_arrangement(before, trick, hand)


def test_a_cut_search_gives_a_legal_tableau_no_better_than_the_best_and_says_so():
    from companion.games.medieval_mastery.rules import best_arrangement_within

    best = best_arrangement(**SLOW)
    full = best_arrangement_within(**SLOW, steps=10**9)
    for steps in (1, 50, 400, full.steps):
        cut = best_arrangement_within(**SLOW, steps=steps)
        assert check_arrangement(cut.groups, SLOW["before"], SLOW["trick"], SLOW["hand"]).legal
        assert 0 < _points(cut.groups) <= _points(best)
        assert cut.exact == (steps >= full.steps)
        assert cut == best_arrangement_within(**SLOW, steps=steps)  # deterministic
    assert cut.groups == best
    with pytest.raises(ValueError, match="at least 1 step"):
        best_arrangement_within(**SLOW, steps=0)


def test_a_cut_search_on_random_crowded_tables_is_always_a_legal_tableau():
    from companion.games.medieval_mastery.rules import best_arrangement_within

    rng = random.Random(11)
    royal = [c for c in ALL_CARDS if c[0] in "KQJPAX"]
    for _ in range(40):
        cards = rng.sample(royal, 14) + rng.sample(ALL_CARDS, 16)
        cards = list(dict.fromkeys(cards))
        before, trick, hand = cards[:12], cards[12:19], cards[19:28]
        for steps in (1, 20, 150):
            cut = best_arrangement_within(before, trick, hand, steps=steps)
            assert check_arrangement(cut.groups, before, trick, hand).legal, (before, trick, hand, steps)
