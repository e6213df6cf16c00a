"""The GADDAG's language, membership and minimality, for both builders (the native one and
its pure-Python twin); tests/lexicon/test_build_native.py checks that they agree entry for entry."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver_cli.engine.alphabet import LETTERS
from solver_cli.engine.gaddag import FINAL
from solver_cli.lexicon.build import NATIVE_BUILT, build_gaddag

BUILDERS = [
    "python",
    pytest.param("native", marks=pytest.mark.skipif(not NATIVE_BUILT, reason="the native builder is not built")),
]


def language(g):
    """Every string the GADDAG spells ('>' for the separator), from the root."""
    out = set()
    nodes = g.nodes

    def walk(state, acc):
        mask = nodes[state]
        # Just after a separator the state is the DAWG state of the left part; its FINAL bit
        # is not part of the language (the right part is never empty).
        if mask & FINAL and not acc.endswith(">"):
            out.add(acc)
        k = 0
        for code in range(27):
            if mask >> code & 1:
                walk(nodes[state + 1 + k], acc + (">" if code == 0 else LETTERS[code - 1]))
                k += 1

    walk(g.root, "")
    return out


def gordon_language(words):
    strings = set()
    for w in words:
        strings.add(w[::-1])
        for k in range(1, len(w)):
            strings.add(w[:k][::-1] + ">" + w[k:])
    return strings


def states(g):
    """(offset, node tuple) of every state, walking the flat array."""
    nodes, at, found = g.nodes, 0, []
    while at < len(nodes):
        width = 1 + bin(nodes[at] & ((1 << 27) - 1)).count("1")
        found.append((at, tuple(nodes[at : at + width])))
        at += width
    return found


words_strategy = st.lists(st.text(alphabet="ABCDE", min_size=2, max_size=7), min_size=1, max_size=40).map(
    lambda ws: sorted(set(ws))
)


@pytest.mark.parametrize("builder", BUILDERS)
@settings(max_examples=300, deadline=None)
@given(words=words_strategy)
def test_gaddag_spells_exactly_gordons_language(builder, words):
    g = build_gaddag(words, builder=builder)
    assert language(g) == gordon_language(words)


@pytest.mark.parametrize("builder", BUILDERS)
@settings(max_examples=200, deadline=None)
@given(words=words_strategy, probe=st.text(alphabet="ABCDEF", min_size=0, max_size=8))
def test_membership_through_the_shared_dawg(builder, words, probe):
    g = build_gaddag(words, builder=builder)
    assert g.contains(probe) == (probe in words)
    for w in words:
        assert g.contains(w) and g.contains(w.lower())


@pytest.mark.parametrize("builder", BUILDERS)
@settings(max_examples=150, deadline=None)
@given(words=words_strategy)
def test_no_two_states_are_equal(builder, words):
    # Children are registered before parents, so two equal (mask, children) nodes would
    # mean two states with the same right language: the automaton would not be minimal.
    g = build_gaddag(words, builder=builder)
    nodes = [node for _, node in states(g)]
    assert len(nodes) == len(set(nodes)) == g.state_count
    assert sum(len(n) - 1 for n in nodes) == g.arc_count


@pytest.mark.parametrize("builder", BUILDERS)
def test_real_lexicon_sizes_and_sharing(builder, small_words):
    g = build_gaddag(small_words, builder=builder)
    assert g.state_count + g.arc_count == len(g.nodes)
    # Minimization shares a lot: far fewer arcs than letters in all GADDAG strings.
    letters = sum(len(w) * (len(w) + 1) for w in small_words)
    assert g.arc_count < letters / 4
    assert all(g.contains(w) for w in small_words[::50])
    # FINAL is each header's highest bit (the move generator tests it as header >= FINAL).
    assert all(node[0] < FINAL << 1 for _, node in states(g))
    assert not g.contains("QX") and not g.contains("")
