"""Seals: take face-up cards by colour or symbol, reveal series for blasons (2-4 players)."""
