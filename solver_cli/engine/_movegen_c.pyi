"""Type stub of the optional native engine (``native/*.c``, one extension)."""

from collections.abc import Callable, Sequence
from typing import overload

from typing_extensions import Buffer

RECORD_SIZE: int
LEAVE_TABLE_SIZE: int
MAX_LEAVE: int
MAX_SIDE: int
MAX_RACK: int
MAX_VALUE: int
MAX_MULT: int
MAX_BINGO: int
MAX_BAG: int
MAX_RECORDS: int
MAX_TILE_COUNT: int

class Lexicon:
    def __init__(self, nodes: Buffer, root: int, dawg_root: int) -> None: ...

class Layout:
    def __init__(
        self,
        rows: int,
        cols: int,
        letter_mult: bytes,
        word_mult: bytes,
        values: Sequence[int],
        rack_size: int,
        bingo: int,
        centre: int,
        out_gain: int = 1,
        out_loss: int = 1,
    ) -> None: ...

class Leaves:
    def __init__(self, values: Buffer) -> None: ...

def generate(
    lexicon: Lexicon,
    layout: Layout,
    squares: bytes,
    rack: bytes,
    keep: int = 0,
    sort: bool = False,
    leaves: Leaves | None = None,
    bag: int = 1,
    opponent: int = 0,
    exchange: int = 0,
    passes: bool = False,
) -> tuple[int, bytes]: ...
@overload
def endgame(
    lexicon: Lexicon,
    layout: Layout,
    squares: bytes,
    mover: bytes,
    opponent: bytes,
    scoreless: int,
    scoreless_limit: int,
    out_gain: int,
    out_loss: int,
    stuck_loss: int,
    plies: int,
    top: int,
    seconds: float,
    tt_mb: int,
    progress: Callable[[int, int, int, bytes | None], object] | None,
    threshold: None = None,
) -> tuple[int, int, int, list[tuple[int, bytes]], bytes]: ...
@overload
def endgame(
    lexicon: Lexicon,
    layout: Layout,
    squares: bytes,
    mover: bytes,
    opponent: bytes,
    scoreless: int,
    scoreless_limit: int,
    out_gain: int,
    out_loss: int,
    stuck_loss: int,
    plies: int,
    top: int,
    seconds: float,
    tt_mb: int,
    progress: Callable[[int, int, int, bytes | None], object] | None,
    threshold: int,
) -> tuple[int, int, int, int]: ...
def rollout(
    lexicon: Lexicon,
    layout: Layout,
    leaves: Leaves | None,
    squares: bytes,
    rack: bytes,
    candidates: bytes,
    live: Sequence[int],
    opponent: bytes,
    bag: bytes,
    seed: int,
    plies: int,
    scoreless: int,
    scoreless_limit: int,
    exchange_min_bag: int,
    exchange_max: int,
    out_gain: int,
    out_loss: int,
    stuck_loss: int,
    /,
) -> list[tuple[int, int, int, int, int]]: ...
def possible_words(lexicon: Lexicon, squares: bytes, rows: int, cols: int, tiles: bytes, /) -> bytes | None: ...
def leave_index(counts: bytes) -> int: ...
def leave_sums(
    ranks: Buffer, sums: Buffer, counts: Buffer, tile_counts: Sequence[int], rack_size: int, /
) -> tuple[bytes, bytes, bytes, float]: ...
def leave_table(
    num: Buffer,
    den: Buffer,
    support: Buffer,
    overall: float,
    tile_counts: Sequence[int],
    rack_size: int,
    smoothing: float,
    /,
) -> bytes: ...
