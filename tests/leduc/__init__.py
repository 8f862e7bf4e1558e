"""Leduc Hold'em: two players, six cards, two betting rounds (a sixth game living under tests/)."""
