"""``ge-translate``: convert between formats (ONNX import, task-list JSON)."""

from __future__ import annotations

import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    sys.stderr.write("ge-translate: not built yet\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
