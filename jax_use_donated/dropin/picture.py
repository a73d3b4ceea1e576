"""stub"""
from __future__ import annotations

import re

_TOKEN = re.compile(r"\[[^\]]*\]|\.[^.\[\]]+|[^.\[\]]+")


def path_tokens(path: str) -> list[str]:
    return _TOKEN.findall(path) or [path]


def group_paths(paths: list[str], max_groups: int) -> dict[str, str]:
    toks = {p: path_tokens(p) for p in paths}
    deepest = max((len(t) for t in toks.values()), default=1)
    chosen = 1
    for d in range(1, deepest + 1):
        if len({"".join(t[:d]) for t in toks.values()}) <= max_groups:
            chosen = d
        else:
            break
    return {p: "".join(t[:chosen]) for p, t in toks.items()}
