"""``wire.packed``, a packer made once and reused, gives ``msgpack.packb``'s own bytes."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from statki_net.protocol.wire import packed

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.binary(max_size=300)
    | st.text(max_size=50),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


@pytest.mark.timeout(60)
@given(VALUES)
def test_packed_is_msgpacks_own_encoding(value: Any) -> None:
    assert packed(value) == msgpack.packb(value, use_bin_type=True)


@pytest.mark.timeout(60)
def test_a_value_it_cannot_pack_leaves_the_packer_whole() -> None:
    with pytest.raises(TypeError):
        packed({"x": object()})
    assert packed([1, b"a"]) == msgpack.packb([1, b"a"], use_bin_type=True)
