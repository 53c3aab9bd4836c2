"""The errors a socket's command may get, and their stable codes.

``CODES`` is the code twin of the list in docs/protocol.md, "Error codes" (a test keeps the two
equal): clients key their texts on these, so a code, once sent, keeps its name. REST refusals
carry their own codes in ``X-Error-Code`` (``server.accounts``, ``server.hardening``).
"""

from __future__ import annotations

CODES = frozenset(
    {
        # the message itself (``server.realtime``)
        "bad_json",
        "bad_message",
        "too_large",
        "rate_limited",
        # rooms and tables (``server.lobby``)
        "no_room",
        "room_full",
        "room_closed",
        "bad_option",
        "too_many_tables",
        "address_tables",
        "playing_elsewhere",
        "no_table",
        "escape_ban",
        # seats, bots and the game (``server.tables``)
        "bad_command",
        "bad_seat",
        "seat_taken",
        "game_running",
        "not_seated",
        "bad_level",
        "not_playing",
        "stale_version",
        "not_allowed",
        "not_your_seat",
        "not_your_turn",
        "stood_in",
        "paused",
        "illegal",
        "illegal_layout",
        "malformed",
        # friend rooms, invites and rematch (``server.friend_rooms``, ``server.gathering``)
        "no_code",
        "room_password",
        "seat_reserved",
        "watch_refused",
        "no_user",
        "no_rematch",
        # private marks (``server.marks``)
        "bad_mark",
        "too_many_marks",
        # chat and quick phrases (``server.realtime``)
        "too_long",
        "wrong_channel",
        "not_watching",
        "empty_chat",
        "muted",
        "unknown_phrase",
        # blocks (``server.block_rules``; invites too)
        "blocked",
        # moderation (``server.moderation``)
        "not_owner",
        "own_table",
        "unauthorized",
        # quick match (``server.matchmaking``)
        "no_quick_match",
        "already_queued",
        "not_queued",
        "bots_not_yet",
        # several processes (``server.cluster``)
        "moved",
        "unavailable",
        "internal",
    }
)


class TableError(Exception):
    """A command the server refuses; ``code`` (one of ``CODES``) is the stable key sent to the
    client, ``message`` says it in English."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
