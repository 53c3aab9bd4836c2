"""seat draws: a quick-match game's seat draw, kept with the game

Revision ID: 5e8c1a7d3f20
Revises: 4f7b2c9e1d53
Create Date: 2026-12-07 13:00:00

- ``games.seat_draw``: the draw its seats came from (JSON: seed, the players in canonical order,
  the attempt, the repeated partners), shown with the game once it is over, for 验证座位 in its
  replay (``server.match_core``, docs/protocol.md "Quick match"). Null for other games.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5e8c1a7d3f20"
down_revision: str | None = "4f7b2c9e1d53"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("seat_draw", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("seat_draw")
