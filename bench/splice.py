"""Puts the tables `bench/all` measured into BENCHMARKS.md: the text between
`<!-- bench:NAME -->` and `<!-- /bench:NAME -->` becomes the file NAME.md of the run's folder
(`stamp` is the commit, CPU and date of the run). Markers whose file the run did not write are
left as they were.

    python3 bench/splice.py BENCHMARKS.md target/bench-run
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def splice(text: str, run: Path) -> tuple[str, list[str]]:
    done: list[str] = []

    def replace(m: re.Match[str]) -> str:
        name = m.group(1)
        part = run / f"{name}.md"
        if not part.is_file():
            return m.group(0)
        done.append(name)
        body = part.read_text(encoding="utf-8").strip()
        inline = "\n" not in body and name == "stamp"
        sep = "" if inline else "\n"
        return f"<!-- bench:{name} -->{sep}{body}{sep}<!-- /bench:{name} -->"

    pattern = re.compile(r"<!-- bench:([a-z_]+) -->.*?<!-- /bench:\1 -->", re.S)
    return pattern.sub(replace, text), done


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: splice.py BENCHMARKS.md RUN_FOLDER")
    doc, run = Path(sys.argv[1]), Path(sys.argv[2])
    text, done = splice(doc.read_text(encoding="utf-8"), run)
    doc.write_text(text, encoding="utf-8")
    print(f"splice: {', '.join(done) or 'nothing'} written into {doc}", file=sys.stderr)


if __name__ == "__main__":
    main()
