"""The computer player: probability estimates, strategies, placements, the analysis.

Pure (a seeded generator is passed in); imports only ``game``.
"""
