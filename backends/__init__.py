"""Lowering targets and executors: task lists, the Ascend emulator and its numpy kernels."""
