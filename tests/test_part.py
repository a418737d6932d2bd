"""``bookgen.builder.part``: ``--part I/K`` names K runs of the frontier that cover it once."""

import numpy as np
import pytest

from bookgen.builder.part import Part, PartError


@pytest.mark.parametrize(
    "text, part", [("1/1", Part(1, 1)), ("2/8", Part(2, 8)), (" 8/8 ", Part(8, 8))]
)
def test_a_part_is_read_from_i_slash_k(text, part):
    assert Part.parse(text) == part and str(part) == text.strip()


@pytest.mark.parametrize(
    "text", ["0/2", "3/2", "2", "2/", "/2", "a/b", "1/0", "-1/2", "1/2/3", "٢/٣"]
)
def test_anything_else_is_refused_naming_it(text):
    with pytest.raises(PartError, match=f"--part {text!r} is not a part"):
        Part.parse(text)


@pytest.mark.parametrize("total", [1, 3, 7, 10])
@pytest.mark.parametrize("frontier", [0, 1, 5, 97, 1000])
def test_the_parts_cover_the_frontier_once_in_order_and_evenly(total, frontier):
    keys = np.arange(10, 10 + frontier, dtype=np.uint64)
    slices = [keys[i : i + 13] for i in range(0, frontier, 13)]  # listed in slices of 13
    parts = [
        np.concatenate([np.empty(0, np.uint64), *Part(n, total).within(iter(slices), frontier)])
        for n in range(1, total + 1)
    ]
    assert np.concatenate(parts).tolist() == keys.tolist()
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1
