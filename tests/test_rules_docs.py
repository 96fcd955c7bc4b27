"""The rules in `docs/rules/` against what the repository cites, and no machine paths.

- Every rule id (KAN-12, DBF-V8, KON-E11, CQ-23, ...) cited in the tracked code, tests and docs,
  and every id a test function's name carries (`test_KAN_18_...`, `test_cq13_...`), is defined
  in a rules page: a line there starts with the id in bold (`**KAN-12** ...`). The rules pages
  are `docs/rules/*.md` and, for a game that only the tests register, its test folder's
  `rules.md` (`tests/toy_game/rules.md`: docs/adding_a_game.md). A game's id prefix (KAN,
  TOY, ...) is checked once a rules page defines an id with it.
- No tracked text file names an absolute path of a build machine (a user's home folder, the
  root's, a work folder), which would mean nothing on anyone else's machine.

Plain Python: no JAX. The tracked files come from `git ls-files`; outside a git checkout the
tests are skipped.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"


def rule_pages() -> list[Path]:
    """The rules pages: docs/rules/*.md, then the test-only games' (tests/<folder>/rules.md)."""
    return sorted(RULES.glob("*.md")) + sorted(ROOT.glob("tests/*/rules.md"))


# A rule's definition: the id in bold at the start of a line of a rules page (`**KAN-12** ...`,
# or `**KAN-12 Title.** ...`): a game prefix of capitals, a dash, an optional V (variant) or E
# (engine id), a number.
DEFINITION = re.compile(r"^\*\*([A-Z]{2,5}-[VE]?\d+)\b", re.MULTILINE)
# The games' id prefixes: those the rules pages define ids with.
PREFIXES = sorted({rule_id.split("-")[0] for page in rule_pages()
                   for rule_id in DEFINITION.findall(page.read_text(encoding="utf-8"))})
# A cited id: a game prefix, a dash, an optional V or E, a number, and an optional lower-case
# letter naming a lettered part of the rule (DBF-26a: DBF-26 (a)). A range `KON-1..38` or
# `KON-E1..E16` is matched by its first id; `KAN-n` (no number) is no citation.
ID = re.compile(rf"\b({'|'.join(PREFIXES)})-([VE]?)(\d+)([a-z]?)\b")
# An id in a test function's name: `test_KAN_1_KAN_3_...`, `test_cq13_...`, `test_dbf_v6_...`,
# `test_kon_e11_...`, `test_dbf_26b_...` (a name part of its own between underscores).
TEST_NAME = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w+)", re.MULTILINE)
NAME_ID = re.compile(rf"(?:^|_)({'|'.join(PREFIXES)})_?([ve]?)_?(\d+)([ab]?)(?=_|$)",
                     re.IGNORECASE)

# Where ids are cited: these folders and files, these kinds of text (docs/rules itself defines).
CITING_DIRS = ("kanjax/", "solvers/", "tournaments/", "tests/", "scripts/", "examples/",
               "configs/", "docs/")
CITING_FILES = ("README.md", "BENCHMARKS.md")
CITING_SUFFIXES = (".py", ".md", ".toml")

# Absolute paths of a build machine: a work folder or the root's home (`/` + `work` + `/`),
# a user's home on Linux or macOS, a Windows user folder. Not after a word character, a dot,
# `~` or `-`, so relative paths (`docs/work/`) and URLs (`https://host/root/`) do not count.
MACHINE_PATH = re.compile(
    r"(?<![\w.~-])(?:/(?:work|root)/|/(?:home|Users)/[A-Za-z_][\w.-]*|[A-Za-z]:\\Users\\)")


def _tracked_files() -> list[str]:
    """The repository's tracked files (paths relative to ROOT); skip outside a git checkout."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    run = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if run.returncode != 0 or not run.stdout:
        pytest.skip("not a git checkout")
    return [p for p in run.stdout.decode().split("\0") if p and (ROOT / p).is_file()]


def _text(path: str) -> str | None:
    """The file's text, or None for a binary file (a NUL byte, or not UTF-8)."""
    data = (ROOT / path).read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _citing_files() -> list[str]:
    return [p for p in _tracked_files()
            if (p in CITING_FILES or p.startswith(CITING_DIRS)) and p.endswith(CITING_SUFFIXES)
            and not p.startswith("docs/rules/")]


def defined_ids() -> set[str]:
    """Every id defined in the rules pages."""
    ids: set[str] = set()
    for md in rule_pages():
        ids.update(DEFINITION.findall(md.read_text(encoding="utf-8")))
    return ids


def _resolve(prefix: str, kind: str, number: str, part: str, defined: set[str]) -> bool:
    """Whether the cited id (or, for a lettered part, its rule) is defined."""
    rule = f"{prefix.upper()}-{kind.upper()}{int(number)}"
    return rule in defined or (rule + part.lower()) in defined


def _report(missing: dict[str, list[str]], what: str) -> str:
    lines = [f"{len(missing)} {what} not defined in docs/rules/ or a test-only game's "
             "rules.md (a line `**ID** ...`):"]
    for rule_id, places in sorted(missing.items()):
        shown = ", ".join(places[:5]) + (f" and {len(places) - 5} more" if len(places) > 5 else "")
        lines.append(f"  {rule_id}: {shown}")
    return "\n".join(lines)


def test_docs_rules_define_every_game_family():
    """Each family's file exists and defines its first rule (the test-only toy game's, in
    its test folder); no id is defined twice."""
    for name, first in (("kan", "KAN-1"), ("da_bai_fen", "DBF-1"), ("konkan", "KON-1"),
                        ("conquian", "CQ-1")):
        text = (RULES / f"{name}.md").read_text(encoding="utf-8")
        assert first in DEFINITION.findall(text), f"docs/rules/{name}.md does not define {first}"
    assert (RULES / "whist.md").is_file() and (RULES / "README.md").is_file()
    assert "TOY-1" in DEFINITION.findall((ROOT / "tests/toy_game/rules.md").read_text())
    assert {"KAN", "DBF", "KON", "CQ", "TOY"} <= set(PREFIXES)
    seen: dict[str, str] = {}
    twice = []
    for md in rule_pages():
        for rule_id in DEFINITION.findall(md.read_text(encoding="utf-8")):
            if rule_id in seen:
                twice.append(f"{rule_id} ({seen[rule_id]}, {md.name})")
            seen[rule_id] = md.name
    assert not twice, "ids defined more than once in the rules pages: " + ", ".join(twice)


def test_every_cited_rule_id_is_in_docs_rules():
    defined = defined_ids()
    missing: dict[str, list[str]] = defaultdict(list)
    for path in _citing_files():
        text = _text(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in ID.finditer(line):
                if not _resolve(*m.groups(), defined):
                    missing[m.group(0)].append(f"{path}:{n}")
    assert not missing, _report(missing, "cited rule ids are")


def test_every_rule_id_in_a_test_name_is_in_docs_rules():
    defined = defined_ids()
    missing: dict[str, list[str]] = defaultdict(list)
    for path in _citing_files():
        if not (path.startswith("tests/") and path.endswith(".py")):
            continue
        text = _text(path) or ""
        for m in TEST_NAME.finditer(text):
            n = text.count("\n", 0, m.start(1)) + 1
            for prefix, kind, number, part in NAME_ID.findall(m.group(1)):
                if not _resolve(prefix, kind, number, part, defined):
                    rule_id = f"{prefix.upper()}-{kind.upper()}{int(number)}{part.lower()}"
                    missing[rule_id].append(f"{path}:{n} {m.group(1)}")
    assert not missing, _report(missing, "rule ids in test names are")


def test_id_patterns_read_the_shapes_in_use():
    """The patterns above on the shapes the repository writes."""
    cited = [m.group(0) for m in ID.finditer(
        "KAN-12, DBF-V8, KON-E11, CQ-23; KON-1..38; KON-E1..E16; DBF-26a; KAN-n; KON-En.")]
    assert cited == ["KAN-12", "DBF-V8", "KON-E11", "CQ-23", "KON-1", "KON-E1", "DBF-26a"]
    names = ["test_KAN_1_KAN_3_gonin_deck_S01", "test_cq13_cq17_take", "test_dbf_v6_order",
             "test_kon_e11_taking", "test_dbf_26b_ruff", "test_konkan_engine", "test_kan29x",
             "test_TOY_3_follow", "test_toy_engine"]
    found = [["-".join((p.upper(), k.upper() + str(int(d)) + a)) for p, k, d, a in
              NAME_ID.findall(name)] for name in names]
    assert found == [["KAN-1", "KAN-3"], ["CQ-13", "CQ-17"], ["DBF-V6"], ["KON-E11"],
                     ["DBF-26b"], [], [], ["TOY-3"], []]
    assert DEFINITION.findall("**KAN-12** text\n**KON-E1 Deal.** text\nsee **KAN-13**\n") == [
        "KAN-12", "KON-E1"]


def test_no_absolute_machine_path_in_tracked_files():
    hits = []
    for path in _tracked_files():
        text = _text(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATH.search(line):
                hits.append(f"{path}:{n}: {line.strip()[:120]}")
    assert not hits, "absolute paths of a build machine in tracked files:\n" + "\n".join(hits)


def test_machine_path_pattern():
    """What counts as a machine path and what does not."""
    for bad in ("Rules: /" + "work/shared/rules/kan.md", "/" + "home/alice/kanjax",
                "/" + "Users/bob/src", "cd /" + "root/x", "C:" + "\\Users\\carol\\kanjax"):
        assert MACHINE_PATH.search(bad), bad
    for fine in ("docs/rules/kan.md", "tests/work/x", "https://example.org/root/x",
                 "XDG_CACHE_HOME=/tmp/xdg", "~/work/kanjax", "/home", "a/home/b"):
        assert not MACHINE_PATH.search(fine), fine
