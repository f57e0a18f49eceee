"""Workflow teams: fixed steps of agents and Python functions instead of a leader."""
