"""Each game declares its options as data (card_envs.core.options): every constructor keyword
but the seat count, with a description, and choices or a range the constructor accepts."""

from __future__ import annotations

import pytest

from card_envs.core.game import Game
from card_envs.core.options import Option, declared_options, game_title, option_table
from card_envs.registry import env_module, env_names, make


@pytest.mark.parametrize("name", env_names())
def test_every_option_is_declared_and_its_bounds_are_the_constructors(name):
    game_class = env_module(name).raw_env.game_class
    table = option_table(game_class)
    assert "num_players" not in table and table["reward_mode"]["default"] == "win"
    assert game_title(game_class) and all(entry["description"] for entry in table.values())
    for option in declared_options(game_class):
        entry = table[option.name]
        if option.kind in ("choice", "boolean"):
            for value in option.choices:  # every listed value makes a game
                make(name, **{option.name: value})
            assert entry["default"] in option.choices
        if option.kind == "integer":
            make(name, **{option.name: option.low})
            with pytest.raises(ValueError, match=option.name):
                make(name, **{option.name: option.low - 1})
            if option.high is not None:
                with pytest.raises(ValueError, match=option.name):
                    make(name, **{option.name: option.high + 1})
    settable = option_table(game_class, settable_only=True)
    assert all(entry["kind"] != "path" for entry in settable.values())


def test_an_undeclared_option_is_found():
    class Toy(Game):
        name = "toy"
        options = (Option("rounds", "how many", low=1),)

        def __init__(self, num_players: int = 2, rounds: int = 3, colour: str = "red"):
            super().__init__(num_players)

    with pytest.raises(TypeError, match="constructor takes"):
        declared_options(Toy)
    assert game_title(Toy) == "toy"
