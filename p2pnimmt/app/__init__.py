"""Use cases, above net/ and ui/: host, join (watch, bot), resume, games and play, with their printing and input.

Each wires a node (or an in-memory table) to a front: the full-screen
screens or lines of text. cli.py parses the command line and runs them.
"""
