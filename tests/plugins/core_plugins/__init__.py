"""Plugins written to mixseek-core 0.1.0a15's documented API, as its users write them."""
