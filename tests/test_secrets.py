"""Nothing that looks like an API key may be committed: notebooks, cassettes, saved runs, anything."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).parent.parent
# An Anthropic key, or any "api_key"/"x-api-key"/"authorization" field carrying a long token.
LOOKS_LIKE_A_KEY = re.compile(
    r"sk-ant-[A-Za-z0-9_-]{20,}"
    r"|(?:api[_-]?key|authorization)[\"']?\s*[:=]\s*[\"']?(?:Bearer\s+)?[A-Za-z0-9_\-]{24,}",
    re.IGNORECASE,
)
SCANNED = ("*.ipynb", "*.jsonl", "*.json", "*.md", "*.py", "*.yml", "*.toml", "*.cfg")


def files_to_scan() -> list[Path]:
    """The files git tracks plus any untracked ones it does not ignore, of the kinds that could hold a key."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", *SCANNED],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    if listed.returncode != 0:  # not a git checkout: scan the tree
        return [p for pattern in SCANNED for p in ROOT.rglob(pattern) if ".git" not in p.parts]
    return [ROOT / line for line in listed.stdout.splitlines() if (ROOT / line).is_file()]


def leaks(text: str) -> list[str]:
    return [match[:12] + "…" for match in LOOKS_LIKE_A_KEY.findall(text)]


def test_the_detector_finds_keys_in_every_form():
    fake = "sk-ant-api03-" + "A" * 30
    assert leaks(f'"key": "{fake}"')
    assert leaks('"x-api-key": "' + "b" * 32 + '"')
    assert leaks("Authorization: Bearer " + "c" * 40)
    assert not leaks('api_key="test-key"') and not leaks("ANTHROPIC_API_KEY=...")


def test_no_file_in_the_repository_holds_an_api_key():
    scanned = files_to_scan()
    assert any(p.suffix == ".ipynb" for p in scanned), "the scan found no notebooks: it is looking in the wrong place"
    found = {str(p.relative_to(ROOT)): leaks(p.read_text(encoding="utf-8", errors="replace")) for p in scanned}
    assert not {path: hits for path, hits in found.items() if hits}
