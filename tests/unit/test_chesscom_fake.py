"""The fake Chess.com PubAPI of tests/support/chesscom_fake.py, and the checks that the hand-written fixtures
keep the documented shape."""

from __future__ import annotations

import httpx

from tests.support.chesscom_fake import BASE, FIXTURES, FakeChessCom, fixture


def test_unknown_paths_answer_404_like_the_pubapi() -> None:
    fake = FakeChessCom()
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as http:
        assert http.get(f"{BASE}/pub/match/1").status_code == 404


def test_every_fixture_game_names_both_players_with_a_result_code_when_it_has_ended() -> None:
    names = sorted(p.name for p in FIXTURES.glob("*.json"))
    assert len(names) == 9
    for name in names:
        data = fixture(name)
        for game in data.get("games", []):
            for colour in ("white", "black"):
                assert game[colour]["username"], name
                assert ("end_time" in game) == ("result" in game[colour]), name
            assert game["time_class"] in {"rapid", "blitz", "bullet", "daily"}, name
