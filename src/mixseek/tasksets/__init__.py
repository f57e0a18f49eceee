"""`mixseek bench`: a task set run N times over the workspace's teams, and the evidence of which set-up
is better; each run is an ordinary execution through `mixseek.api`.
"""
