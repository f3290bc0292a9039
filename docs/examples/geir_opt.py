"""This project's ``ge-opt``: ge-opt's command line with the set-block-dim pass
registered, as MLIR projects write their own ``*-opt`` around ``MlirOptMain``.

    python docs/examples/geir_opt.py model.mlir --set-block-dim='op=ge.conv2d block-dim=4'
"""

import sys

import geir
from set_block_dim import SetBlockDim  # this script's folder is on sys.path

geir.register_pass(SetBlockDim)
sys.exit(geir.opt_main())
