"""Training: a single-agent adapter for Stable-Baselines3 and MaskablePPO self-play."""

if __name__ != "card_envs.training":  # the folder imported by path, e.g. from the repository root
    raise ImportError(
        f"import card_envs.training, not {__name__}: the training/ folder installs as "
        "card_envs.training, and a second name would load a second copy of every module"
    )
