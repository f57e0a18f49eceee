"""Statistics for judging: agreement between judges, pairwise strengths, paired tests, calibration.

Pure functions over plain numbers (standard library only), so every layer that reports on
judging — the evaluator, the pairwise stage, `mixseek bench`, `mixseek judges calibrate` — uses
the same definitions, and each is checked against hand computations in the tests.
"""

from mixseek.stats.agreement import krippendorff_alpha_interval, spread
from mixseek.stats.bradley_terry import Comparison, Strength, bradley_terry, fit_strengths
from mixseek.stats.calibration import Calibration, calibrate, mean_absolute_error, pearson, spearman
from mixseek.stats.resampling import bootstrap_mean_ci, percentile
from mixseek.stats.significance import sign_test

__all__ = [
    "Calibration",
    "Comparison",
    "Strength",
    "bootstrap_mean_ci",
    "bradley_terry",
    "calibrate",
    "fit_strengths",
    "krippendorff_alpha_interval",
    "mean_absolute_error",
    "pearson",
    "percentile",
    "sign_test",
    "spearman",
    "spread",
]
