"""Training: a single-agent adapter for Stable-Baselines3 and MaskablePPO self-play."""
