"""marks: a player's private marks (标记) on hidden enemy pieces

Revision ID: 9a4d2f6b8e31
Revises: 6d1f3b8a9c42
Create Date: 2026-12-07 12:00:00

- ``marks``: one row per change of a seat's mark in a game (a rank key or a short label, or
  None: cleared), with the replay step and the station where the piece stood then; the server
  follows the piece from there (``server.marks``). Served only to the player of that seat.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "9a4d2f6b8e31"
down_revision: str | None = "6d1f3b8a9c42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "marks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("station", sa.String(length=16), nullable=False),
        sa.Column("mark", sa.String(length=32), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_marks_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_marks_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_marks")),
    )
    with op.batch_alter_table("marks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_marks_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("marks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_marks_game_id"))
    op.drop_table("marks")
