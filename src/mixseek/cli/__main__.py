"""`python -m mixseek.cli`, the same as the `mixseek` command."""

from mixseek.cli.entry import main

main()
