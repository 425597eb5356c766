"""argon2id at its lowest cost for the tests of this process (``cheap_password_hashes`` in tests/conftest.py).

The product hashes with argon2-cffi's recommended parameters (RFC 9106's low-memory profile: 64 MiB, three
passes, four lanes), which cost a tenth of a second or more per hash or login on purpose. Tests log in
thousands of times and test what a login does, not what it costs, so in the test process the hasher is
one pass over 8 KiB; hashes made with either verify with either (argon2 reads the parameters from the
hash). ``PRODUCTION_HASHER`` is the product's own, kept here before the swap so that
tests/unit/test_auth.py checks the parameters the product uses. Processes the tests start (a worker, a
served app, the demo) hash with the product's parameters.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from argon2 import PasswordHasher

from orchestrator.services.accounts import users

PRODUCTION_HASHER: PasswordHasher = users._hasher
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@contextmanager
def cheap_hashes() -> Iterator[None]:
    """Swap the product's hasher, and the hash a login of an unknown user verifies against, for cheap ones."""
    hasher, dummy = users._hasher, users._DUMMY_HASH
    users._hasher = CHEAP_HASHER
    users._DUMMY_HASH = CHEAP_HASHER.hash("not a password of anyone")
    try:
        yield
    finally:
        users._hasher, users._DUMMY_HASH = hasher, dummy
