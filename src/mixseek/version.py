"""mixseek's version, on the ground layer: what any layer may say about the code it runs."""

__version__ = "0.1.0"
