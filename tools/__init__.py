"""The command-line drivers: ge-opt, ge-translate, ge-run."""
