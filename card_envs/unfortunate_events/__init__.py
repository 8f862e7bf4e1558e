"""A Series of Unfortunate Events: The Catastrophic Card Game (2-6 players): collect sets,
attack with special cards, win rounds for Victory cards."""
