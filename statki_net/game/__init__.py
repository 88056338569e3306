"""The game itself: squares and boards, rules, fleets, answers, the replay check.

Pure; imports nothing else of statki_net (but ``statki_net.version``).
"""
