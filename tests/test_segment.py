"""``bookgen.book.format.segment``: one ply packed into a blob, read back exactly or not at all.

A damaged blob must raise ``CorruptBookError`` naming its ply: never a wrong
answer.  Damage is real bytes changed, in memory and in a real book file.
"""

import random
import struct
import zlib

import numpy as np
import pytest
from conftest import SMALL_PLY, book_keys

from bookgen import CorruptBookError
from bookgen.book.format.segment import HEADER, MAGIC, Segment, merge, pack, unpack
from bookgen.book.format.wide_keys import ints_of, rows_of
from solver.bitboard import Board

PAST_64 = Board(8, 8)  # keys of 72 bits, two words


def random_segment(count: int, seed: int, best: bool = True, top: int = 1 << 49) -> Segment:
    """``count`` distinct sorted keys below ``top`` with scores and best-move bits."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(1, top, size=count * 2, dtype=np.uint64))
    keys = np.sort(rng.choice(keys, size=min(count, len(keys)), replace=False))
    scores = rng.integers(-21, 22, size=len(keys)).astype(np.int8)
    bits = rng.integers(1, 128, size=len(keys)).astype(np.uint8) if best else None
    return Segment(keys, scores, bits)


def same(a: Segment, b: Segment) -> bool:
    return (
        a.keys.dtype == b.keys.dtype == np.uint64
        and a.scores.dtype == b.scores.dtype == np.int8
        and np.array_equal(a.keys, b.keys)
        and np.array_equal(a.scores, b.scores)
        and (a.best is None) == (b.best is None)
        and (
            a.best is None
            or (b.best is not None and b.best.dtype == np.uint8 and np.array_equal(a.best, b.best))
        )
    )


# -- round trips -----------------------------------------------------------------


@pytest.mark.parametrize("count", [1, 2, 3, 255, 256, 5000])
@pytest.mark.parametrize("best", [True, False], ids=["best", "scores only"])
def test_a_segment_reads_back_exactly(count, best):
    segment = random_segment(count, seed=count, best=best)
    assert len(segment.keys) == count
    blob = pack(segment)
    assert blob[:4] == MAGIC and struct.unpack_from("<I", blob, 8)[0] == count
    assert same(unpack(blob, 12), segment)


def test_real_keys_take_about_a_byte_a_position(small_book_path):
    # The small book's ply 12: 574 keys close together, as a ply's canonical keys are.
    keys = np.array(book_keys(small_book_path, SMALL_PLY), dtype=np.uint64)
    segment = Segment(keys, np.zeros(len(keys), np.int8), np.ones(len(keys), np.uint8))
    blob = pack(segment)
    assert same(unpack(blob, SMALL_PLY), segment)
    assert len(blob) < 3 * len(keys)


@pytest.mark.parametrize(
    "keys",
    [[0], [0, 1], [(1 << 64) - 1], [1, (1 << 64) - 1], [5, 1 << 56, (1 << 56) + 1, (1 << 63) + 7]],
    ids=["zero", "zero and one", "largest", "widest gap", "eight planes"],
)
def test_keys_of_any_width_read_back(keys):
    segment = Segment(
        np.array(keys, np.uint64),
        np.arange(len(keys), dtype=np.int8),
        np.full(len(keys), 0b1000001, np.uint8),
    )
    assert same(unpack(pack(segment), 3), segment)


@pytest.mark.parametrize("best", [np.empty(0, np.uint8), None], ids=["best", "scores only"])
def test_an_empty_segment(best):
    empty = Segment(np.empty(0, np.uint64), np.empty(0, np.int8), best)
    blob = pack(empty)
    assert len(blob) > HEADER.size and struct.unpack_from("<I", blob, 8)[0] == 0
    assert same(unpack(blob, 0), empty)


@pytest.mark.parametrize("keys", [[3, 2], [2, 2], [1, 5, 4]])
def test_keys_out_of_order_are_refused(keys):
    with pytest.raises(ValueError, match="strictly increasing"):
        pack(Segment(np.array(keys, np.uint64), np.zeros(len(keys), np.int8), None))


def test_pack_accepts_other_integer_types_and_is_deterministic():
    segment = random_segment(300, seed=4)
    loose = Segment(
        segment.keys.astype(np.int64),
        segment.scores.astype(np.int64),
        segment.best.astype(np.int32),
    )
    assert pack(loose) == pack(segment) == pack(segment)


# -- merge -----------------------------------------------------------------------


def test_merge_joins_parts_in_key_order():
    whole = random_segment(1000, seed=5)
    order = np.random.default_rng(6).permutation(len(whole.keys))
    cuts = [order[:300], order[300:301], order[301:]]
    parts = [
        Segment(whole.keys[np.sort(c)], whole.scores[np.sort(c)], whole.best[np.sort(c)])
        for c in cuts
    ]
    assert same(merge(parts, 9), whole)
    assert same(merge(parts[::-1], 9), whole)
    assert merge(parts[:1], 9) is parts[0]
    # best moves only if every part keeps them
    scores_only = parts[1]._replace(best=None)
    merged = merge([parts[0], scores_only, parts[2]], 9)
    assert merged.best is None and same(merged, whole._replace(best=None))
    empty = Segment(np.empty(0, np.uint64), np.empty(0, np.int8), np.empty(0, np.uint8))
    assert same(merge([empty, whole], 9), whole)


def test_merge_refuses_a_key_in_two_parts_as_a_damaged_ply():
    part = random_segment(10, seed=7)
    with pytest.raises(
        CorruptBookError, match=r"ply 9 is damaged: two of its parts .* hold the same key"
    ):
        merge([part, Segment(part.keys[3:4], part.scores[3:4], part.best[3:4])], 9)


# -- damage ------------------------------------------------------------------------


def damaged(ply: int, blob) -> str:
    with pytest.raises(CorruptBookError) as info:
        unpack(blob, ply)
    message = str(info.value)
    assert message.startswith(f"the book's ply {ply} is damaged: ")
    assert isinstance(info.value, ValueError)
    return message


@pytest.mark.parametrize("best", [True, False], ids=["best", "scores only"])
def test_every_changed_byte_is_caught_or_changes_nothing(best):
    segment = random_segment(400, seed=8, best=best)
    blob = pack(segment)
    caught = []
    for at in range(len(blob)):
        changed = bytearray(blob)
        changed[at] ^= 0xFF
        try:
            got = unpack(bytes(changed), 9)
        except CorruptBookError as error:
            assert "ply 9" in str(error)  # noqa: PT017 - some flips still read: both outcomes count
            caught.append(at)
        else:
            assert same(got, segment), at  # never a wrong answer
    assert caught == [at for at in range(len(blob)) if at != 7]  # 7: the reserved byte


def test_a_flipped_bit_in_the_frame_is_caught():
    segment = random_segment(2000, seed=9)
    blob = pack(segment)
    rng = np.random.default_rng(10)
    for at in rng.integers(HEADER.size, len(blob), size=200).tolist():
        changed = bytearray(blob)
        changed[at] ^= 1 << int(rng.integers(8))
        damaged(11, bytes(changed))


def test_a_truncated_blob_is_caught():
    segment = random_segment(500, seed=11)
    blob = pack(segment)
    assert "truncated" in damaged(12, blob[: HEADER.size - 1])
    assert "truncated" in damaged(12, b"")
    assert "truncated" in damaged(12, None)
    for size in (HEADER.size, HEADER.size + 1, 40, len(blob) // 2, len(blob) - 1):
        damaged(12, blob[:size])
    # Bytes after the frame are never read: still the exact segment, not a wrong one.
    assert same(unpack(blob + b"\x00" * 9, 12), segment)


def test_a_wrong_magic_or_version_is_caught():
    blob = pack(random_segment(50, seed=12))
    assert "unknown header" in damaged(4, b"C4SH" + blob[4:])
    assert "unknown header" in damaged(4, blob[:4] + b"\x02" + blob[5:])  # format version 2
    assert "unknown header" in damaged(4, blob[:6] + b"\x09" + blob[7:])  # 9 key planes


def test_a_bad_checksum_is_caught():
    blob = pack(random_segment(50, seed=13))
    crc = struct.unpack_from("<I", blob, 12)[0]
    assert "fails its checksum" in damaged(5, blob[:12] + struct.pack("<I", crc ^ 1) + blob[16:])
    # a payload that decompresses but is not the one the header's CRC covers
    header = HEADER.unpack_from(blob)
    other = pack(random_segment(50, seed=14))
    assert "fails its checksum" in damaged(5, HEADER.pack(*header) + other[HEADER.size :])
    assert zlib.crc32(b"") == 0


def test_a_score_no_position_can_have_is_caught():
    segment = random_segment(50, seed=15)
    for score in (22, -22, 127, -128):
        scores = segment.scores.copy()
        scores[7] = score
        assert "outside -21..21" in damaged(6, pack(Segment(segment.keys, scores, segment.best)))


# -- keys past 64 bits ---------------------------------------------------------------


def two_word_segment(count: int, seed: int, best: bool = True) -> Segment:
    """``count`` sorted 72-bit keys in runs of a few high words (gaps past 64 bits)."""
    rng = random.Random(seed)
    keys = sorted(
        {
            rng.getrandbits(rng.choice((16, 64))) | rng.choice((0, 1, 9, 255)) << 64
            for _ in range(count)
        }
    )
    scores = np.array([rng.randint(-28, 28) for _ in keys], np.int8)
    bits = np.array([rng.randint(1, 255) for _ in keys], np.uint8) if best else None
    return Segment(rows_of(keys), scores, bits)


@pytest.mark.parametrize("best", [True, False], ids=["best", "scores only"])
def test_keys_past_64_bits_round_trip(best):
    segment = two_word_segment(2000, seed=3, best=best)
    blob = pack(segment)
    assert blob[6] == 9  # key planes: the largest gap is 9 bytes (its high word: 1 byte)
    back = unpack(blob, 30, PAST_64)
    assert np.array_equal(back.keys, segment.keys) and np.array_equal(back.scores, segment.scores)
    assert (back.best is None) == (not best) and (
        not best or np.array_equal(back.best, segment.best)
    )
    # Parts of it merged back in key order.
    parts = [
        segment._replace(keys=segment.keys[i::3], scores=segment.scores[i::3], best=None)
        for i in range(3)
    ]
    merged = merge(parts, 30)
    assert np.array_equal(merged.keys, segment.keys) and np.array_equal(
        merged.scores, segment.scores
    )
    with pytest.raises(CorruptBookError, match="hold the same key"):
        merge([parts[0], parts[0]], 30)


def test_a_segment_past_64_bits_whose_header_claims_too_many_planes_is_refused():
    blob = bytearray(pack(two_word_segment(50, seed=4)))
    blob[6] = 17
    with pytest.raises(CorruptBookError, match="unknown header"):
        unpack(bytes(blob), 30, PAST_64)
    blob[6] = 9  # more than one word's 8 planes: refused on a board of one word
    with pytest.raises(CorruptBookError, match="unknown header"):
        unpack(bytes(blob), 30)


def test_keys_past_64_bits_differing_in_the_high_word_alone():
    keys = [5, 5 | 1 << 64, 5 | 2 << 64, 4 | 3 << 64]  # equal low words; one that borrows
    segment = Segment(rows_of(keys), np.zeros(4, np.int8), None)
    assert ints_of(unpack(pack(segment), 30, PAST_64).keys) == keys
    with pytest.raises(ValueError, match="strictly increasing"):
        pack(Segment(rows_of(keys[::-1]), np.zeros(4, np.int8), None))
