"""The browser client as the server serves it: compressed, and revalidated by ETag."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_the_client_is_served_compressed_and_revalidated(sqlite_client: TestClient) -> None:
    client = sqlite_client
    for path in ("/", "/js/table.js", "/style.css", "/vendor/lit-html/lit-html.js"):
        first = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert first.status_code == 200, path
        if path != "/":  # the page itself is too small to gain from it
            assert first.headers["content-encoding"] == "gzip", path
        assert first.headers["cache-control"] == "no-cache", path  # asked again each load
        again = client.get(path, headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304, path  # ... and not sent again while unchanged
    plain = client.get("/js/table.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.headers["content-type"].startswith("text/javascript")
    lobby = client.get("/api/lobby", headers={"Accept-Encoding": "gzip"})
    assert lobby.headers["content-encoding"] == "gzip"  # the API's JSON too
