"""Re-check the surviving mutants of a ``bench/mutation.sh`` run against new tests, in one process
(docs/mutation.md): each mutant is switched on with ``MUTANT_UNDER_TEST``, which mutmut's trampolines read
at every call, and the test module's ``test_*`` functions (plain ones, without fixtures or parameters) run
until one fails. Prints ``1 <mutant> <test>`` for a mutant killed, ``0 <mutant>`` for one that survives.

    cd bench/out/mutation/trf/swiss_read/mutants
    cp ../../../../../../tests/unit/test_trf_swiss_read_rounds.py tests/unit/
    ../../../../../../.venv/bin/python ../../../../../mutation_recheck.py \
        tests.unit.test_trf_swiss_read_rounds ../survivors.txt
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest


def main(module: str, survivors: str) -> None:
    sys.path.insert(0, os.getcwd())
    tests = importlib.import_module(module)
    functions = [getattr(tests, name) for name in dir(tests) if name.startswith("test_")]
    for mutant in Path(survivors).read_text().split():
        os.environ["MUTANT_UNDER_TEST"] = mutant
        killer = ""
        for function in functions:
            try:
                function()
            except (Exception, pytest.fail.Exception) as error:  # any failure kills the mutant, as in pytest
                # (``pytest.raises`` that sees no exception raises ``Failed``, which is not an Exception)
                killer = f"{function.__name__}: {type(error).__name__}"
                break
        print(f"1 {mutant} {killer}" if killer else f"0 {mutant}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
