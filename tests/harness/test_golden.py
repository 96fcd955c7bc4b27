"""Fixed random matches against their golden text files (regenerate:
python -m tests.harness.golden)."""

import difflib

import pytest

from tests.harness.golden import CASES, GOLDEN_DIR, playthrough


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough_unchanged(name):
    expected = (GOLDEN_DIR / f"{name}.txt").read_text()
    actual = playthrough(*CASES[name])
    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden", "now",
                                    lineterm="", n=2)
        pytest.fail("behaviour changed; if intended, run `python -m tests.harness.golden`:\n"
                    + "\n".join(list(diff)[:60]))
