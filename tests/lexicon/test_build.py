from hypothesis import given, settings
from hypothesis import strategies as st

from solver_cli.alphabet import LETTERS
from solver_cli.gaddag import FINAL, build_gaddag


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


@settings(max_examples=300, deadline=None)
@given(words_strategy)
def test_gaddag_spells_exactly_gordons_language(words):
    g = build_gaddag(words)
    assert language(g) == gordon_language(words)


@settings(max_examples=200, deadline=None)
@given(words_strategy, st.text(alphabet="ABCDEF", min_size=0, max_size=8))
def test_membership_through_the_shared_dawg(words, probe):
    g = build_gaddag(words)
    assert g.contains(probe) == (probe in words)
    for w in words:
        assert g.contains(w) and g.contains(w.lower())


@settings(max_examples=150, deadline=None)
@given(words_strategy)
def test_no_two_states_are_equal(words):
    # Children are registered before parents, so two equal (mask, children) nodes would
    # mean two states with the same right language: the automaton would not be minimal.
    g = build_gaddag(words)
    nodes = [node for _, node in states(g)]
    assert len(nodes) == len(set(nodes)) == g.state_count
    assert sum(len(n) - 1 for n in nodes) == g.arc_count


def test_real_lexicon_sizes_and_sharing(small_words, small_gaddag):
    g = small_gaddag
    assert g.state_count + g.arc_count == len(g.nodes)
    # Minimization shares a lot: far fewer arcs than letters in all GADDAG strings.
    letters = sum(len(w) * (len(w) + 1) for w in small_words)
    assert g.arc_count < letters / 4
    assert all(g.contains(w) for w in small_words[::50])
    # FINAL is each header's highest bit (the move generator tests it as header >= FINAL).
    assert all(node[0] < FINAL << 1 for _, node in states(g))
    assert not g.contains("QX") and not g.contains("")
