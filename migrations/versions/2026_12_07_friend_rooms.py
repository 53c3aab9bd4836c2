"""friend rooms: whether a room's friend rooms (好友房) are rated

Revision ID: 4f7b2c9e1d53
Revises: 9a4d2f6b8e31
Create Date: 2026-12-07 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "4f7b2c9e1d53"
down_revision: str | None = "5c0e7a1d3f92"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch_op:
        batch_op.add_column(
            sa.Column("rated_friend_rooms", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch_op:
        batch_op.drop_column("rated_friend_rooms")
