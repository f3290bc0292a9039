"""This project's ``ge-opt`` with the fork-streams strategy registered:

    python docs/examples/geir_opt_strategy.py model.mlir \
        --pass-pipeline='assign-engines,partition-streams{strategy=fork-streams}'
"""

import os
import sys

import geir

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugin"))
from fork_streams import fork_streams  # noqa: E402  (the plugin folder is on sys.path now)

geir.register_strategy("fork-streams", fork_streams)
sys.exit(geir.opt_main())
