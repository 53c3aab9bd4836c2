"""rooms for admins: when an admin last changed a room, and when it was closed

Revision ID: 1b5d9e3f7c20
Revises: 8f2a6c4e0b17
Create Date: 2026-12-02 10:00:00

Both empty for the rooms there are: as configured, and open.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "1b5d9e3f7c20"
down_revision: str | None = "8f2a6c4e0b17"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.add_column(sa.Column("changed_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.drop_column("closed_at")
        batch_op.drop_column("changed_at")
