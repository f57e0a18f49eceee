"""The Python API: `Mixseek`, `load_workspace` and `ExecutionRun`, imported from `mixseek`."""
