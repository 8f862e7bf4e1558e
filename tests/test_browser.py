"""The browser table in a real browser: Debian's chromium, driven by Playwright, plays a whole
game of each kind through the page (clicking legal moves; agents fill the other seats), checks
the scores and the record download, and steps the downloaded record in the replay viewer.

Without chromium or Playwright the tests skip, saying why, unless CARD_ENVS_REQUIRE_BROWSER=1
(.ci/run sets it), when they fail instead. CARD_ENVS_SCREENSHOTS=DIR writes each game's table
to DIR/<game>.png (``CARD_ENVS_SCREENSHOTS=docs/images`` refreshes the docs' pictures); by
default they go to a temporary folder, so a test run never rewrites a shipped file.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
MAX_CLICKS = 400  # far above the longest of these short games
SCREENSHOT_AT = 6  # the table is pictured after this many of the person's moves
REPLAY_PICTURE = "seamless_v0"  # the game whose replay is pictured too (replay.png)
# Short games: (players, options typed into the page); a person in seat 0, the game's
# heuristic (or random) agents in the others.
GAMES = {
    "seamless_v0": (4, {"max_rounds": "1"}),
    "seers_catalog_v0": (2, {"num_rounds": "1"}),
    "seals_v0": (2, {}),
    "unfortunate_events_v0": (2, {}),
    "sequitur_v0": (1, {}),
}


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    for module in ("playwright", "uvicorn", "starlette"):
        if importlib.util.find_spec(module) is None:
            extras = "pip install -e '.[serve,dev]'"
            return f"{module} is not installed (the serve and dev extras: {extras})"
    if not Path(CHROMIUM).exists():
        return "chromium is not installed (apt-get install chromium; make test installs it)"
    return None


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """``card-envs serve``'s app on a free local port, in a thread."""
    reason = missing()
    if reason is not None:
        if os.environ.get("CARD_ENVS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"CARD_ENVS_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    import uvicorn

    from card_envs.server.app import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(base_url: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    asked = os.environ.get("CARD_ENVS_SCREENSHOTS")
    folder = Path(asked) if asked else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def deal(page: Any, game: str) -> None:
    """Choose the game, its player count and options in the lobby, and deal."""
    players, options = GAMES[game]
    page.select_option("#game", game)
    page.select_option("#players", str(players))
    for name, value in options.items():
        page.fill(f"#opt-{name}", value)
    page.fill("#seed", "7")
    page.click("#start")
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function("document.body.dataset.draws >= 1")


def play_out(page: Any, game: str, pictures: Path) -> int:
    """Click legal moves until the game ends (the first by its key, 1); how many were played."""
    for clicks in range(MAX_CLICKS):
        if page.is_visible("#result"):
            return clicks
        if clicks == SCREENSHOT_AT:
            picture = str(pictures / f"{game}.png")
            page.screenshot(path=picture, full_page=True, animations="disabled")
        moves = page.locator("button.move")
        count = moves.count()
        assert count > 0, page.text_content("#status")
        assert page.text_content("#status").endswith("your move")
        draws = page.evaluate("document.body.dataset.draws")
        if clicks == 0:
            page.keyboard.press("1")
        else:
            moves.nth(clicks * 7 % count).click()
        page.wait_for_function(f"document.body.dataset.draws != '{draws}'")
        assert page.text_content("#act-error") == ""
    raise AssertionError(f"{game}: not over after {MAX_CLICKS} moves")


def replay(page: Any, record: Path, picture: Path | None) -> None:
    """Open the record in the viewer and step it forward, back, and from a seat's view."""
    page.click("nav button[data-show='replay']")
    page.set_input_files("#record-file", str(record))
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert page.text_content("#replay-position").startswith("step 0 of ")
    first = page.text_content("#replay-text")
    page.click("#replay-forward")
    assert page.text_content("#replay-position").startswith("step 1 of ")
    titles = page.locator("#replay-groups .group-title")
    page.keyboard.press("End")
    assert page.text_content("#replay-move").startswith("the end of the game: finished")
    assert page.text_content("#replay-text") != first
    whole = titles.all_text_contents()  # the whole table: hands by seat, shared cards once
    page.click("#replay-first")
    assert page.text_content("#replay-text") == first
    whole += titles.all_text_contents()
    assert not any(t.startswith("your") for t in whole) and any("player_" in t for t in whole)
    assert len(titles.all_text_contents()) == len(set(titles.all_text_contents()))
    page.select_option("#replay-seat", "0")
    own = titles.all_text_contents()
    assert own and not any("player_0" in t for t in own)  # seat 0's own view names it "you"
    assert page.locator("#replay-groups .card").count() > 0
    if picture is not None:
        page.click("#replay-forward")
        page.screenshot(path=str(picture), full_page=True, animations="disabled")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_game_in_the_browser(browser, base_url, pictures, game, tmp_path):
    """A whole game through the page, then its record in the replay viewer (keys included)."""
    page = browser.new_page(viewport={"width": 1100, "height": 900}, accept_downloads=True)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base_url}/?pause=0")
    page.wait_for_selector("body[data-ready='1']")
    assert page.is_hidden("#loading") and page.is_visible("#new-table")
    deal(page, game)
    assert page.locator("#groups .card").count() > 0  # cards drawn, each a labelled chip
    clicks = play_out(page, game, pictures)
    assert clicks > 0
    assert page.text_content("#result-text").startswith("Game over.")
    assert "Scores:" in page.text_content("#result-text")
    assert page.locator("#log li").count() >= clicks
    with page.expect_download() as download:
        page.click("#download")
    record = tmp_path / "game.jsonl"
    download.value.save_as(record)
    assert record.read_text().count("\n") == 1
    replay(page, record, pictures / "replay.png" if game == REPLAY_PICTURE else None)
    assert errors == []
    page.close()


def test_a_table_of_agents_offers_its_record(browser, base_url, tmp_path):
    page = browser.new_page(accept_downloads=True)
    page.goto(base_url)
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#game", "seals_v0")
    page.select_option("#players", "2")
    page.select_option("#seat-0", "random")
    assert page.locator("#opt-empty_pile option").all_text_contents() == ["play_out", "end_round"]
    assert page.get_attribute("#opt-tie_rounds", "type") == "number"
    page.select_option("#opt-empty_pile", "end_round")
    page.click("#start")
    page.wait_for_selector("#result:not([hidden])")
    assert "watching" in page.text_content("#table-title")  # the spectator's view
    assert page.locator("#log li").count() > 10 and page.locator("#groups .card").count() > 0
    assert page.text_content("#result-text").startswith("Game over. Winner")
    with page.expect_download() as download:
        page.click("#download")
    download.value.save_as(tmp_path / "agents.jsonl")
    assert '"agents":["random","heuristic"]' in (tmp_path / "agents.jsonl").read_text()
    page.close()
