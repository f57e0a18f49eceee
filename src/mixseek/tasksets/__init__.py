"""`mixseek bench`: a task set run N times over the workspace's teams (each run an ordinary execution through
`mixseek.api`), and the evidence of which set-up is better."""
