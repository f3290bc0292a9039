# -*- Python -*-
# The user guide's lit tests: the project's lit configuration (tools, filecheck,
# substitutions), with this folder as the test root and the outputs in a
# temporary folder, so the docs tree stays clean.
import os
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
lit_config.load_config(config, os.path.join(here, "..", "..", "lit_tests", "lit.cfg.py"))
config.name = "geir-docs"
config.test_source_root = here
config.test_exec_root = os.path.join(tempfile.gettempdir(), "geir-docs-lit")
config.excludes = ["lit.cfg.py"]
