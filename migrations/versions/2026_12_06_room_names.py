"""rooms' English names

Revision ID: 6d1f3b8a9c42
Revises: 4c8e1a7d2b93
Create Date: 2026-12-08 12:00:00

- ``rooms.name_en``: the room's name in English, shown to players who chose English (none:
  the client names the room by its variant and id).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "6d1f3b8a9c42"
down_revision: str | None = "4c8e1a7d2b93"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_en", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.drop_column("name_en")
