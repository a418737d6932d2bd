"""``bookgen.book.format.blocks``: a sealed ply in blocks, read back exactly or not at all.

Every ply of the shipped book and synthetic plies of every shape read back
equal, block by block; damage to a block, its index or its dictionary raises
``CorruptBookError`` naming the ply (and the block): never a wrong answer.
Synthetic plies hold random keys, not positions: they are written in version 1,
which keeps every entry; real plies in version 2, which leaves out what the
positions' stones say (``test_implied``).
"""

import itertools
import random
import subprocess
import sys
import zlib
from dataclasses import replace

import numpy as np
import pytest
from conftest import SHIPPED

from bookgen import Book, CorruptBookError
from bookgen.book.format import block_index, blocks
from bookgen.book.format.block_index import (
    CRC,
    HEADER,
    MAGIC,
    VERSION,
    decode_index,
    encode_index,
    find_block,
)
from bookgen.book.format.blocks import (
    BLOCK_SIZE,
    EncodedPly,
    decode_block,
    decode_ply,
    ply_decoder,
)
from bookgen.book.format.database import make_engine
from bookgen.book.format.implied import implied
from bookgen.book.format.leb128 import leb128
from bookgen.book.format.sealed import read_sealed, sealed_plies
from bookgen.book.format.segment import Segment
from bookgen.book.format.wide_keys import ints_of, key_ints, rows_of
from solver.bitboard import STANDARD, Board
from solver.position import random_position

WIDE = Board(9, 6)  # best moves in two bytes
BIG = Board(8, 7)  # keys of 64 bits


def random_segment(
    count: int, seed: int, *, best: bool = True, board: Board = STANDARD, low: int = 1, top=None
) -> Segment:
    """``count`` distinct sorted keys in ``[low, top)`` with scores and best-move bits."""
    rng = np.random.default_rng(seed)
    top = (1 << board.key_bits) - 1 if top is None else top
    keys = np.unique(rng.integers(low, top, size=2 * count + 16, dtype=np.uint64, endpoint=False))
    keys = np.sort(rng.choice(keys, size=count, replace=False))
    scores = rng.integers(-board.max_score, board.max_score + 1, size=count).astype(np.int8)
    bits = rng.integers(1, 1 << board.width, size=count).astype(board.column_set_type)
    return Segment(keys, scores, bits if best else None)


def encode_ply(segment: Segment, ply: int, board: Board = STANDARD, **options) -> EncodedPly:
    """``blocks.encode_ply``, in version 1 unless told: random keys are not positions."""
    return blocks.encode_ply(segment, ply, board, **{"version": 1, **options})


def same(a: Segment, b: Segment) -> bool:
    return (
        b.keys.dtype == np.uint64
        and b.scores.dtype == np.int8
        and np.array_equal(a.keys, b.keys)
        and np.array_equal(a.scores, b.scores)
        and (a.best is None) == (b.best is None)
        and (a.best is None or (b.best is not None and np.array_equal(a.best, b.best)))
    )


def round_trip(segment: Segment, ply: int, board: Board = STANDARD, **options) -> EncodedPly:
    """``segment`` encoded, its index through its bytes, and every block decoded back."""
    encoded = encode_ply(segment, ply, board, **options)
    index = decode_index(encode_index(encoded.index), ply)
    assert np.array_equal(index.first_keys, encoded.index.first_keys)
    assert np.array_equal(index.ends, encoded.index.ends)
    assert index[:3] == encoded.index[:3] and index[5:] == encoded.index[5:]
    at = 0
    for no, block in enumerate(encoded.blocks):  # each block's place in the ply's blocks
        assert index.span(no) == (at, len(block))
        at += len(block)
    back = decode_ply(replace(encoded, index=index), ply, board)
    assert same(segment, back)
    if segment.best is not None:
        assert back.best is not None and back.best.dtype == np.dtype(board.column_set_type)
    return encoded


# -- round trips ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped_plies():
    """``(plies, read)``: the shipped book's sealed plies, and a ply's ``Segment`` read when
    asked (a ply-14 book holds 58 M positions; most tests want a few plies)."""
    if not SHIPPED.exists():
        pytest.skip("no book.db at the top level")
    engine = make_engine(str(SHIPPED), readonly=True)
    with engine.connect() as conn:
        sealed = sealed_plies(conn, STANDARD, str(SHIPPED))

    def read(ply: int) -> Segment:
        with engine.connect() as conn:
            return read_sealed(conn, sealed[ply], STANDARD, str(SHIPPED))

    yield sorted(sealed), read
    engine.dispose()


def test_the_shipped_books_plies_read_back(shipped_plies):
    # Every ply to 10 whole (a dictionary from ply 7), and 200 blocks of the last, with
    # its best moves: the whole book is the slow test below.
    plies, read = shipped_plies
    for ply in range(11):
        round_trip(read(ply), ply, version=VERSION)
    last = max(plies)
    with Book.open(SHIPPED) as book:  # the last ply's middle 200 blocks, not all of it
        middle = book.count_by_ply()[last] // 2
        keys, scores, best, _ = book.slice_of(last, middle, middle + 200 * BLOCK_SIZE)
    assert best is not None
    part = Segment(keys, scores, best)
    encoded = round_trip(part, last, version=VERSION)
    assert len(encoded.blocks) == 200 and encoded.dictionary
    assert encoded.index.best_bytes == 1 and encoded.index.version == 2
    # What the stones say left out: the same ply in version 1 takes a fifth more.
    kept = sum(map(len, encoded.blocks))
    assert sum(map(len, encode_ply(part, last).blocks)) > 1.15 * kept


@pytest.mark.slow  # about 2 minutes: ply 14 alone takes most
def test_the_whole_shipped_book_reads_back(shipped_plies):
    plies, read = shipped_plies
    for ply in plies:
        round_trip(read(ply), ply, version=VERSION)


@pytest.mark.parametrize("best", [True, False], ids=["best", "scores only"])
def test_an_empty_ply(best):
    board_best = np.empty(0, np.uint8) if best else None
    encoded = round_trip(Segment(np.empty(0, np.uint64), np.empty(0, np.int8), board_best), 0)
    assert encoded.blocks == [] and encoded.dictionary == b""
    assert len(encode_index(encoded.index)) == HEADER.size + CRC.size
    assert find_block(encoded.index.first_keys.tolist(), 5) == -1


def test_a_ply_of_one_position():
    one = Segment(np.array([7], np.uint64), np.array([-3], np.int8), np.array([0b100], np.uint8))
    encoded = round_trip(one, 1)
    (block,) = encoded.blocks
    assert block[4] == 0  # no gaps: a keys frame of no bytes


@pytest.mark.parametrize("blocks", [1, 3])
def test_a_ply_of_whole_blocks(blocks):
    encoded = round_trip(random_segment(16 * blocks, seed=blocks, top=1 << 30), 9, block_size=16)
    assert len(encoded.blocks) == blocks
    assert [encoded.index.count_of(no) for no in range(blocks)] == [16] * blocks
    short = round_trip(random_segment(16 * blocks + 1, seed=blocks, top=1 << 30), 9, block_size=16)
    assert [short.index.count_of(no) for no in range(blocks + 1)] == [16] * blocks + [1]


@pytest.mark.parametrize("best", [True, False], ids=["best", "scores only"])
def test_a_wide_board_keeps_two_byte_best_moves(best):
    segment = random_segment(3000, seed=2, best=best, board=WIDE)
    assert segment.best is None or int(segment.best.max()) > 255
    encoded = round_trip(segment, 14, WIDE, block_size=512)
    assert encoded.index.best_bytes == (2 if best else 0)


@pytest.mark.parametrize(
    "low, top",
    [(1 << 63, (1 << 64) - 1), (1, (1 << 64) - 1), ((1 << 64) - 5000, (1 << 64) - 1)],
    ids=["above 2**63", "gaps of any length", "dense at the top"],
)
def test_keys_of_64_bits(low, top):
    segment = random_segment(700, seed=3, board=BIG, low=low, top=top)
    round_trip(segment, 20, BIG, block_size=100)


def test_gaps_of_every_leb128_length():
    # Gaps of 1 to 10 bytes, in one block and spread over blocks: both ways of reading them.
    gaps = [1 << (7 * k) for k in range(10)] + [(1 << 7 * k) - 1 for k in range(1, 9)]
    keys = np.cumsum(np.array([0, *gaps], dtype=np.uint64))
    assert (keys[1:] > keys[:-1]).all()  # no sum past 2**64
    segment = Segment(keys, np.zeros(len(keys), np.int8), None)
    for size in (1, 2, 5, len(keys)):
        round_trip(segment, 3, BIG, block_size=size)


def test_small_plies_have_no_dictionary_big_ones_do():
    small = encode_ply(random_segment(500, seed=4, top=1 << 40), 5)
    assert small.dictionary == b"" and small.index.dictionary_size == 0
    steady = np.cumsum(np.random.default_rng(5).integers(1, 300, 60_000)).astype(np.uint64)
    big = encode_ply(Segment(steady, np.zeros(len(steady), np.int8), None), 9, block_size=256)
    assert 1024 <= len(big.dictionary) <= 1 << 16
    assert big.index.dictionary_size == len(big.dictionary)
    assert same(Segment(steady, np.zeros(len(steady), np.int8), None), decode_ply(big, 9))


def test_encoding_is_deterministic_and_takes_other_integer_types():
    segment = random_segment(5000, seed=6, top=1 << 45)
    assert segment.best is not None
    loose = Segment(
        segment.keys.astype(np.uint64),
        segment.scores.astype(np.int64),
        segment.best.astype(np.int32),
    )
    first, second = encode_ply(segment, 9, block_size=256), encode_ply(loose, 9, block_size=256)
    assert first.blocks == second.blocks and first.dictionary == second.dictionary
    assert encode_index(first.index) == encode_index(second.index)


@pytest.mark.parametrize(
    "segment, why",
    [
        (Segment(np.array([3, 2], np.uint64), np.zeros(2, np.int8), None), "strictly increasing"),
        (Segment(np.array([2, 2], np.uint64), np.zeros(2, np.int8), None), "strictly increasing"),
        (Segment(np.array([2], np.uint64), np.array([22], np.int8), None), "score is outside"),
        (Segment(np.array([2], np.uint64), np.zeros(1, np.int8), np.array([128])), "best moves"),
        (Segment(np.array([2], np.uint64), np.zeros(2, np.int8), None), "2 scores"),
    ],
    ids=["descending", "repeated", "score", "best move", "lengths"],
)
def test_what_cannot_be_a_ply_is_refused(segment, why):
    with pytest.raises(ValueError, match=why):
        encode_ply(segment, 4)


def test_reading_needs_no_numba():
    code = (
        "import sys, numpy as np\n"
        "from bookgen.book.format.blocks import encode_ply, decode_ply\n"
        "from bookgen.book.format.segment import Segment\n"
        "from solver.position import Position\n"
        "s = Segment(np.arange(1, 3000, 7, dtype=np.uint64), np.zeros(429, np.int8), None)\n"
        "assert np.array_equal(decode_ply(encode_ply(s, 8, version=1), 8).keys, s.keys)\n"
        "keys = sorted({Position.from_moves(a + b).key for a in '1234567' for b in '1234567'})\n"
        "s = Segment(np.array(keys, np.uint64), np.ones(len(keys), np.int8), None)\n"
        "assert np.array_equal(decode_ply(encode_ply(s, 2), 2).scores, s.scores)\n"
        "assert 'numba' not in sys.modules, 'numba loaded'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- finding a key's block -------------------------------------------------------------


def test_the_index_finds_every_keys_block_and_the_block_around_any_other_key():
    segment = random_segment(2000, seed=7, top=1 << 40)
    encoded = encode_ply(segment, 10, block_size=64)
    first = encoded.index.first_keys.tolist()
    decoder = ply_decoder(encoded.dictionary, encoded.index, 10)
    blocks = [
        decode_block(blob, first[no], encoded.index.count_of(no), decoder, 10, no)
        for no, blob in enumerate(encoded.blocks)
    ]
    for at, key in enumerate(segment.keys.tolist()):
        no = find_block(first, key)
        assert no == at // 64
        inside = blocks[no].keys
        found = int(inside.searchsorted(key))
        assert int(inside[found]) == key and blocks[no].scores[found] == segment.scores[at]
    # Keys between the ply's keys: the block whose range they fall in, which lacks them.
    between = np.setdiff1d(segment.keys[:-1] + np.uint64(1), segment.keys)
    assert len(between) > 1900
    for key in between.tolist():
        no = find_block(first, key)
        assert first[no] < key and (no + 1 == len(first) or key < first[no + 1])
        inside = blocks[no].keys
        assert key not in inside and inside[0] < key
    assert find_block(first, int(segment.keys[0]) - 1) == -1
    assert find_block(first, 0) == -1
    assert find_block(first, (1 << 64) - 1) == len(first) - 1
    assert find_block(encoded.index.first_keys, int(segment.keys[-1])) == len(first) - 1


# -- damage --------------------------------------------------------------------------


def small_ply(best: bool = True) -> tuple[Segment, EncodedPly]:
    segment = random_segment(150, seed=8, best=best, top=1 << 40)
    return segment, encode_ply(segment, 11, block_size=50)


def refused(blob, first_key, count, decoder, block_no: int = 1) -> str:
    with pytest.raises(CorruptBookError) as info:
        decode_block(blob, first_key, count, decoder, 11, block_no, "book.db")
    message = str(info.value)
    assert message.startswith(f"'book.db': ply 11 is damaged: its block {block_no} "), message
    return message


@pytest.mark.parametrize("best", [True, False], ids=["best", "scores only"])
def test_every_flipped_byte_of_a_block_is_refused(best):
    _, encoded = small_ply(best)
    decoder = ply_decoder(encoded.dictionary, encoded.index, 11)
    blob, first = encoded.blocks[1], int(encoded.index.first_keys[1])
    for at in range(len(blob)):
        for bit in (0, 7):  # the lowest and the highest bit of each byte, each in turn
            changed = bytearray(blob)
            changed[at] ^= 1 << bit
            assert "fails its checksum" in refused(bytes(changed), first, 50, decoder)


def test_a_truncated_or_lengthened_block_is_refused():
    _, encoded = small_ply()
    decoder = ply_decoder(encoded.dictionary, encoded.index, 11)
    blob, first = encoded.blocks[1], int(encoded.index.first_keys[1])
    for size in range(len(blob)):
        refused(blob[:size], first, 50, decoder)
    refused(blob + b"\x00", first, 50, decoder)


def test_a_block_read_from_the_wrong_place_is_refused():
    _, encoded = small_ply()
    decoder = ply_decoder(encoded.dictionary, encoded.index, 11)
    first = encoded.index.first_keys.tolist()
    # Another block's bytes, or this block's with another count: its CRC starts from both.
    refused(encoded.blocks[0], first[1], 50, decoder)
    refused(encoded.blocks[1], first[1], 49, decoder)
    refused(encoded.blocks[1], first[1] + 1, 50, decoder)


def test_a_block_whose_ply_keeps_other_best_moves_is_refused():
    _, with_best = small_ply(best=True)
    _, without = small_ply(best=False)  # the same keys and scores
    first = int(with_best.index.first_keys[1])
    wants_none = ply_decoder(without.dictionary, without.index, 11)
    assert "do not fit" in refused(with_best.blocks[1], first, 50, wants_none)
    wants_best = ply_decoder(with_best.dictionary, with_best.index, 11)
    assert "do not fit" in refused(without.blocks[1], first, 50, wants_best)


def index_refused(data: bytes) -> str:
    with pytest.raises(CorruptBookError) as info:
        decode_index(data, 11, "book.db")
    message = str(info.value)
    assert message.startswith("'book.db': ply 11 is damaged: its block index "), message
    return message


def test_every_flipped_byte_of_an_index_is_refused():
    _, encoded = small_ply()
    data = encode_index(encoded.index)
    assert data[:4] == MAGIC and len(data) == HEADER.size + 12 * 3 + CRC.size
    for at in range(len(data)):
        for bit in (0, 7):
            changed = bytearray(data)
            changed[at] ^= 1 << bit
            assert "fails its checksum" in index_refused(bytes(changed))
    for size in range(len(data)):
        index_refused(data[:size])
    assert "truncated" in index_refused(b"")


def resealed(data: bytes) -> bytes:
    """``data`` with its last four bytes the CRC-32 of the rest, as a writer's mistake."""
    return data[: -CRC.size] + CRC.pack(zlib.crc32(data[: -CRC.size]))


def test_an_index_with_a_good_crc_but_a_bad_body_is_refused():
    _, encoded = small_ply()

    def sealed(index) -> bytes:
        return resealed(encode_index(index))

    index = encoded.index
    assert "unknown header" in index_refused(sealed(index._replace(best_bytes=3)))
    assert "unknown header" in index_refused(resealed(b"C4BY" + sealed(index)[4:]))
    assert "unknown header" in index_refused(
        resealed(sealed(index)[:4] + b"\x03" + sealed(index)[5:])
    )
    assert "unknown header" in index_refused(sealed(index._replace(block_size=0)))
    swapped = index.first_keys[::-1].copy()
    assert "out of order" in index_refused(sealed(index._replace(first_keys=swapped)))
    assert "not those of" in index_refused(sealed(index._replace(positions=151)))


def test_a_damaged_dictionary_is_refused():
    steady = np.cumsum(np.random.default_rng(9).integers(1, 300, 30_000)).astype(np.uint64)
    encoded = encode_ply(Segment(steady, np.zeros(len(steady), np.int8), None), 11, block_size=256)
    assert encoded.dictionary
    for at in range(0, len(encoded.dictionary), 97):
        changed = bytearray(encoded.dictionary)
        changed[at] ^= 0x10
        with pytest.raises(CorruptBookError, match="ply 11 is damaged: its keys dictionary"):
            ply_decoder(bytes(changed), encoded.index, 11)
    with pytest.raises(CorruptBookError, match="its keys dictionary fails its checksum"):
        ply_decoder(b"", encoded.index, 11)
    with pytest.raises(CorruptBookError, match="keep 1-byte best moves"):
        ply_decoder(b"", encode_ply(random_segment(5, seed=1), 3).index, 3, WIDE)


# -- version 2: what the stones say left out ------------------------------------------


def real_ply(count: int, ply: int, seed: int) -> Segment:
    """``count`` positions of ``ply``, sorted, with entries that agree with their stones
    (``implied``) and random elsewhere: what codec version 2 takes."""
    rng = random.Random(seed)
    keys = np.array(sorted({random_position(rng, ply).key for _ in range(count)}), np.uint64)
    said = implied(keys, ply, STANDARD)
    assert said.best_known is not None and said.best is not None  # (asked for)
    draws = np.random.default_rng(seed)
    scores = np.where(said.score_known, said.scores, draws.integers(-5, 6, len(keys)))
    best = np.where(said.best_known, said.best, draws.integers(1, 128, len(keys)))
    return Segment(keys, scores.astype(np.int8), best.astype(np.uint8))


def counts(encoded: EncodedPly) -> list[int]:
    return [encoded.index.count_of(n) for n in range(len(encoded.blocks))]


def forged(encoded: EncodedPly, number: int, gaps: bytes, scores: bytes, best: bytes) -> bytes:
    """Block ``number`` of ``encoded`` holding these frames, its CRC right: what only a
    writer's mistake could store."""
    frames = blocks._frames([gaps, scores, best], 3)
    body = blocks._varint(len(frames[0])) + blocks._varint(len(frames[1])) + b"".join(frames)
    first = key_ints(encoded.index.first_keys)[number]
    seed = zlib.crc32(block_index.ENTRY.pack(first, encoded.index.count_of(number)))
    return CRC.pack(zlib.crc32(body, seed)) + body


@pytest.mark.parametrize("version", [1, 2])
def test_a_keys_frame_whose_last_gap_never_ends_is_refused(version):
    # Its gaps as many as its index says, and one more byte that says more follow: read
    # whole, the next block's gaps would finish it, and every key after would be wrong.
    segment = real_ply(400, 9, seed=13)
    encoded = encode_ply(segment, 9, block_size=100, version=version, level=3)
    decoder = ply_decoder(encoded.dictionary, encoded.index, 9)
    frames = blocks._block_frames(memoryview(encoded.blocks[1]), 100, decoder)
    damaged = [*encoded.blocks]
    damaged[1] = forged(encoded, 1, frames[0] + b"\x81", *frames[1:])
    first_keys = key_ints(encoded.index.first_keys)
    for compiled in (False, True):
        with pytest.raises(CorruptBookError, match="its block 1 does not decode"):
            blocks.decode_blocks(
                damaged, first_keys, counts(encoded), decoder, 9, compiled=compiled
            )
    with pytest.raises(CorruptBookError, match="its block 1 does not decode"):
        decode_block(damaged[1], first_keys[1], 100, decoder, 9, 1)


def test_blocks_of_keys_of_another_ply_are_refused_not_read():
    # A ply-9 block stored as ply 10's, its CRC right: named, never a raw ValueError.
    segment = real_ply(300, 9, seed=14)
    encoded = encode_ply(segment, 9, block_size=100, version=2, level=3)
    decoder = ply_decoder(encoded.dictionary, encoded.index, 10)
    first_keys = key_ints(encoded.index.first_keys)
    for compiled in (False, True):
        with pytest.raises(CorruptBookError, match=r"ply 10 is damaged: its blocks 0-2 do not"):
            blocks.decode_blocks(
                encoded.blocks, first_keys, counts(encoded), decoder, 10, compiled=compiled
            )


def test_counts_of_kept_entries_for_blocks_of_any_sizes():
    known = np.array([True, False, False, True, False, True, True, False])
    for counts in ([3, 5], [4, 4], [5, 3], [8], [2, 2, 2, 2]):
        starts = np.cumsum([0, *counts[:-1]])
        assert blocks._unknown_per_block(known, counts, starts).tolist() == [
            int((~known[a : a + n]).sum()) for a, n in zip(starts, counts, strict=True)
        ]


def test_version_2_reads_back_what_it_left_out():
    segment = real_ply(600, 9, seed=11)
    said = implied(segment.keys, 9, STANDARD)
    assert said.score_known.any() and said.best_known.any() and not said.best_known.all()
    encoded = round_trip(segment, 9, block_size=64, version=2)
    plain = encode_ply(segment, 9, block_size=64)
    assert sum(map(len, encoded.blocks)) < sum(map(len, plain.blocks))
    block = decode_block(
        encoded.blocks[0], int(segment.keys[0]), 64, ply_decoder(b"", encoded.index, 9), 9, 0
    )
    assert not block.scores.flags.writeable  # decoded blocks are cached: read-only


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "compiled"])
def test_version_2_refuses_blocks_that_keep_the_wrong_entries(compiled):
    segment = real_ply(400, 9, seed=12)
    said = implied(segment.keys, 9, STANDARD)
    encoded = encode_ply(segment, 9, block_size=100, version=2)
    decoder = ply_decoder(encoded.dictionary, encoded.index, 9)
    first_keys = encoded.index.first_keys.tolist()

    def block(number: int, scores: np.ndarray, best: np.ndarray) -> bytes:
        """Block ``number`` as the writer makes it, with ``scores`` and ``best`` kept."""
        keys = segment.keys[number * 100 : (number + 1) * 100]
        gaps = leb128(np.diff(keys))[0].tobytes()
        return forged(encoded, number, gaps, scores.tobytes(), best.tobytes())

    def kept(number: int) -> tuple[np.ndarray, np.ndarray]:
        part = slice(number * 100, (number + 1) * 100)
        return (
            segment.scores[part][~said.score_known[part]],
            segment.best[part][~said.best_known[part]],
        )

    # One kept score moved from block 1 to block 0: as many in all, not in each.
    (scores_0, best_0), (scores_1, best_1) = kept(0), kept(1)
    moved = [
        block(0, np.append(scores_0, scores_1[0]), best_0),
        block(1, scores_1[1:], best_1),
        *encoded.blocks[2:],
    ]
    counts = [100] * 4
    with pytest.raises(CorruptBookError, match=r"ply 9 is damaged: its block 0 does not decode"):
        blocks.decode_blocks(moved, first_keys, counts, decoder, 9, compiled=compiled)
    for number in (0, 1):
        with pytest.raises(CorruptBookError, match=f"its block {number} does not decode"):
            decode_block(moved[number], first_keys[number], 100, decoder, 9, number)
    # Every entry kept (as version 1 keeps them) under a version-2 index: too many.
    everything = block(0, segment.scores[:100], segment.best[:100])
    with pytest.raises(CorruptBookError, match="its block 0 does not decode"):
        decode_block(everything, first_keys[0], 100, decoder, 9, 0)
    # Keys that are no positions of the ply's stones: refused too.
    other = ply_decoder(encoded.dictionary, encoded.index, 10)
    with pytest.raises(CorruptBookError, match="not a position of 10 stones"):
        decode_block(encoded.blocks[0], first_keys[0], 100, other, 10, 0)


# -- keys past 64 bits ---------------------------------------------------------------

PAST_64 = Board(8, 8)  # 72-bit keys
PAST_64_WIDE = Board(9, 7)  # 72-bit keys and two-byte best moves


def two_word_segment(count: int, seed: int, board: Board = PAST_64, best: bool = True) -> Segment:
    """``count`` sorted keys of two words in runs of a few high words: gaps within a run,
    gaps that borrow from the high word, and gaps past 64 bits between runs."""
    rng = random.Random(seed)
    highs = (0, 1, 2, 3, 200, (1 << (board.key_bits - 64)) - 1)
    keys = sorted(
        {rng.getrandbits(rng.choice((20, 64))) | rng.choice(highs) << 64 for _ in range(count)}
    )
    scores = [rng.randint(-board.max_score, board.max_score) for _ in keys]
    bits = [rng.randint(1, (1 << board.width) - 1) for _ in keys]
    return Segment(
        rows_of(keys),
        np.array(scores, np.int8),
        np.array(bits, board.column_set_type) if best else None,
    )


@pytest.mark.parametrize("board", [PAST_64, PAST_64_WIDE], ids=str)
@pytest.mark.parametrize("best", [True, False], ids=["best", "scores only"])
def test_keys_past_64_bits_round_trip(board, best):
    segment = two_word_segment(3000, seed=board.width, board=board, best=best)
    keys = ints_of(segment.keys)
    assert max(b - a for a, b in itertools.pairwise(keys)) >= 1 << 64
    encoded = encode_ply(segment, 20, board, block_size=100)
    index = encode_index(encoded.index)
    count = len(encoded.blocks)
    assert index[:4] == b"C4BW" and len(index) == HEADER.size + 20 * count + CRC.size
    read = decode_index(index, 20)
    assert read.wide and np.array_equal(read.first_keys, segment.keys[::100])
    back = decode_ply(replace(encoded, index=read), 20, board)
    assert back.keys.shape == segment.keys.shape and np.array_equal(back.keys, segment.keys)
    assert np.array_equal(back.scores, segment.scores)
    assert (back.best is None) == (not best) and (
        not best or np.array_equal(back.best, segment.best)
    )
    decoder = ply_decoder(encoded.dictionary, read, 20, board)
    for no in (0, 7, count - 1):
        first = key_ints(read.first_keys)[no]
        block = decode_block(encoded.blocks[no], first, read.count_of(no), decoder, 20, no)
        assert ints_of(block.keys) == keys[100 * no : 100 * no + 100]
    assert find_block(key_ints(read.first_keys), keys[250]) == 2


@pytest.mark.parametrize("version", [1, 2])
def test_a_real_ply_past_64_bits_round_trips(wide_plies, version):
    for ply, segment in wide_plies.items():
        encoded = encode_ply(segment, ply, PAST_64, block_size=16, version=version)
        assert encoded.index.version == version
        back = decode_ply(encoded, ply, PAST_64)
        assert np.array_equal(back.keys, segment.keys) and np.array_equal(
            back.scores, segment.scores
        )
        assert (back.best is None) == (segment.best is None)
        assert back.best is None or np.array_equal(back.best, segment.best)
        decoder = ply_decoder(encoded.dictionary, encoded.index, ply, PAST_64)
        last = len(encoded.blocks) - 1
        first = key_ints(encoded.index.first_keys)[last]
        block = decode_block(
            encoded.blocks[last], first, encoded.index.count_of(last), decoder, ply, last
        )
        assert np.array_equal(block.keys, segment.keys[16 * last :])
        assert np.array_equal(block.scores, segment.scores[16 * last :])


def test_version_2_past_64_bits_keeps_fewer_bytes(wide_plies):
    sizes = {
        version: sum(
            len(b"".join(encode_ply(segment, ply, PAST_64, version=version).blocks))
            for ply, segment in wide_plies.items()
        )
        for version in (1, 2)
    }
    assert sizes[2] < sizes[1]
    # A block whose entries its stones contradict is refused (``implied.leave_out``).
    ply = max(wide_plies)
    segment = wide_plies[ply]
    wrong = segment.scores.copy()
    wrong[:] = 0
    with pytest.raises(ValueError, match=f"ply {ply}: position 0x"):
        encode_ply(Segment(segment.keys, wrong, segment.best), ply, PAST_64, version=2)


def test_every_flipped_bit_of_a_block_past_64_bits_is_refused():
    segment = two_word_segment(300, seed=5)
    encoded = encode_ply(segment, 11, PAST_64, block_size=50)
    decoder = ply_decoder(encoded.dictionary, encoded.index, 11, PAST_64)
    first = key_ints(encoded.index.first_keys)[1]
    blob = encoded.blocks[1]
    for at in range(len(blob)):
        for bit in (0, 7):
            changed = bytearray(blob)
            changed[at] ^= 1 << bit
            assert "fails its checksum" in refused(bytes(changed), first, 50, decoder)
    # Its CRC starts from its first key's high word too: a key that differs there alone.
    refused(blob, first ^ 1 << 64, 50, decoder)
    refused(blob, first ^ 1 << 71, 50, decoder)


def test_a_flipped_bit_of_an_index_past_64_bits_is_refused():
    encoded = encode_ply(two_word_segment(300, seed=6), 11, PAST_64, block_size=50)
    data = encode_index(encoded.index)
    for at in range(len(data)):
        changed = bytearray(data)
        changed[at] ^= 0x10
        with pytest.raises(CorruptBookError, match="ply 11 is damaged: its block index"):
            decode_index(bytes(changed), 11)


def test_keys_and_boards_of_another_width_are_refused():
    segment = two_word_segment(100, seed=7)
    with pytest.raises(ValueError, match="not a position of 11 stones"):
        blocks.encode_ply(segment, 11, PAST_64)  # version 2: random keys are no positions
    with pytest.raises(ValueError, match=r"shape \(100, 2\) are not keys of 7x6"):
        encode_ply(segment, 11)
    with pytest.raises(ValueError, match="not keys of 8x8"):
        encode_ply(random_segment(10, seed=1), 11, PAST_64)
    wide = encode_ply(segment, 11, PAST_64)
    with pytest.raises(CorruptBookError, match="holds keys of two words, not those of 7x6"):
        ply_decoder(wide.dictionary, wide.index, 11, STANDARD)
    narrow = encode_ply(random_segment(10, seed=1), 11)
    with pytest.raises(CorruptBookError, match="holds keys of one word, not those of 8x8"):
        ply_decoder(narrow.dictionary, narrow.index, 11, PAST_64)
    assert block_index.codec_version(PAST_64) == VERSION
    assert block_index.codec_version(STANDARD) == VERSION


def test_blocks_past_64_bits_keep_a_one_word_book_byte_for_byte():
    # The docs' worked example, once more beside the code past 64 bits.
    ply = Segment(
        np.array([1, 128, 16384], np.uint64),
        np.array([2, 1, 0], np.int8),
        np.array([0x0A, 0x04, 0x3C], np.uint8),
    )
    encoded = encode_ply(ply, 1, block_size=2, version=2)
    assert encoded.blocks[1].hex(" ") == "8e 7c 77 16 00 06 20 01 09 00 00 00 20 01 09 00 00 3c"
    assert encode_index(encoded.index)[-4:].hex(" ") == "87 6b 57 6e"
