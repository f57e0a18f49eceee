"""Statistics for judging: agreement between judges, pairwise strengths, paired tests, calibration. Pure
functions over plain numbers (standard library only), so every layer that reports on judging — the evaluator,
the pairwise stage, `mixseek bench`, `mixseek judges calibrate` — uses the same definitions, and each is
checked against hand computations in the tests."""
