"""Saved layouts over REST: save, list, update, export, delete; per user; problems listed."""

from __future__ import annotations

import base64

from fastapi.testclient import TestClient

import engine
from tests.server.conftest import register


def test_layout_crud(client: TestClient) -> None:
    auth = {"Authorization": f"Bearer {register(client, 'erin')}"}
    text = engine.format_layout(engine.auto_layout("siguo", 0, 3))
    saved = client.post(
        "/api/layouts", json={"name": "左旗", "variant": "siguo", "text": text}, headers=auth
    )
    assert saved.status_code == 201 and saved.json()["problems"] == []
    layout_id = saved.json()["id"]
    again = client.post(
        "/api/layouts", json={"name": "左旗", "variant": "siguo", "text": text}, headers=auth
    )
    assert again.status_code == 409
    lines = text.splitlines()
    lines[1] = "雷 ＋ 炸 ＋ 旗"
    bad = client.post(
        "/api/layouts",
        json={"name": "bad", "variant": "siguo", "text": "\n".join(lines)},
        headers=auth,
    )
    assert bad.status_code == 201
    assert {"landmine_outside_back_rows", "flag_not_in_hq"} <= set(bad.json()["problems"])
    assert bad.json()["text"] == "\n".join(lines)  # kept as written
    listed = client.get("/api/layouts", headers=auth).json()
    assert [row["name"] for row in listed] == ["bad", "左旗"]
    exported = client.get(f"/api/layouts/{layout_id}/file", headers=auth)
    assert exported.status_code == 200
    assert engine.parse_layout(exported.text, 2) == engine.parse_layout(text, 2)
    renamed = client.put(
        f"/api/layouts/{layout_id}",
        json={"name": "右旗", "variant": "siguo", "text": text},
        headers=auth,
    )
    assert renamed.json()["name"] == "右旗"
    assert client.delete(f"/api/layouts/{layout_id}", headers=auth).status_code == 204
    assert client.get(f"/api/layouts/{layout_id}/file", headers=auth).status_code == 404


def test_layouts_are_private_and_checked(client: TestClient) -> None:
    erin = {"Authorization": f"Bearer {register(client, 'erin')}"}
    fred = {"Authorization": f"Bearer {register(client, 'fred')}"}
    text = engine.format_layout(engine.auto_layout("siguo", 0, 1))
    layout_id = client.post(
        "/api/layouts", json={"name": "a", "variant": "siguo", "text": text}, headers=erin
    ).json()["id"]
    assert client.get("/api/layouts", headers=fred).json() == []
    assert client.get(f"/api/layouts/{layout_id}/file", headers=fred).status_code == 404
    assert client.delete(f"/api/layouts/{layout_id}", headers=fred).status_code == 404
    assert client.get("/api/layouts").status_code == 401
    garbage = client.post(
        "/api/layouts", json={"name": "g", "variant": "siguo", "text": "hello"}, headers=erin
    )
    assert garbage.status_code == 422 and "line 1" in garbage.json()["detail"]
    chess = client.post(
        "/api/layouts", json={"name": "c", "variant": "chess", "text": text}, headers=erin
    )
    assert chess.status_code == 422


def test_qq_layout_files_go_out_and_back_in(client: TestClient) -> None:
    layout = {sid: str(rank) for sid, rank in engine.auto_layout("siguo", 3, 5).items()}
    exported = client.post(
        "/api/layouts/jql", json={"variant": "siguo", "seat": 3, "layout": layout}
    )
    assert exported.status_code == 200
    assert exported.headers["content-type"] == "application/octet-stream"
    assert len(exported.content) == 50 and exported.content.startswith(b"QQGame JQL File")
    data = base64.b64encode(exported.content).decode()
    back = client.post("/api/layouts/parse-jql?seat=3", json={"data": data}).json()
    assert back == {"layout": layout, "error": None}
    elsewhere = client.post("/api/layouts/parse-jql?seat=1", json={"data": data}).json()
    assert elsewhere["layout"] == {f"1:{sid[2:]}": rank for sid, rank in layout.items()}
    for junk in ("aGVsbG8=", "not base64!", "\x80 not even ascii"):
        refused = client.post("/api/layouts/parse-jql", json={"data": junk}).json()
        assert refused["layout"] is None and refused["error"].startswith("not a QQ layout file")
    specials = client.post(
        "/api/layouts/jql", json={"variant": "sandayi", "seat": 0, "layout": {"0:11": "missile"}}
    )
    assert specials.status_code == 422
