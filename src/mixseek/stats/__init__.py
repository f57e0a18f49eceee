"""Statistics for judging (agreement, pairwise strengths, paired tests, calibration): pure standard-library
functions, so every layer that reports on judging uses the same definitions."""
