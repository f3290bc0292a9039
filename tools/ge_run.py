"""``ge-run``: run a module (reference interpreter or Ascend emulator)."""

from __future__ import annotations

import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    sys.stderr.write("ge-run: not built yet\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
