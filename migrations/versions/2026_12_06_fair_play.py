"""fair play: who played a game together and whether it was rated, whom a configured owner
names, and the addresses a ban covers

Revision ID: 4c8e1a7d2b93
Revises: 1b5d9e3f7c20
Create Date: 2026-12-06 12:00:00

- ``games.players_key`` (the game's people, their ids sorted) and ``games.rated``: points
  between the same accounts diminish within a day (``server.store``); empty for older games.
- ``rooms.owner_named`` and ``rooms.owner_named_at``: the owner's name as the configuration
  gave it, and since when; an account registered after that is never made the owner
  (``server.lobby.load_rooms``).
- ``ban_addresses``: every address a banned user signed in, or tried to, from while banned;
  no account signs in from any of them while the ban lasts (``server.accounts``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "4c8e1a7d2b93"
down_revision: str | None = "1b5d9e3f7c20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("players_key", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("rated", sa.Boolean(), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_players_key"), ["players_key"], unique=False)
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.add_column(sa.Column("owner_named", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("owner_named_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "ban_addresses",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_ban_addresses_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "address", name=op.f("pk_ban_addresses")),
    )
    with op.batch_alter_table("ban_addresses", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ban_addresses_address"), ["address"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("ban_addresses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ban_addresses_address"))
    op.drop_table("ban_addresses")
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.drop_column("owner_named_at")
        batch_op.drop_column("owner_named")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_players_key"))
        batch_op.drop_column("rated")
        batch_op.drop_column("players_key")
