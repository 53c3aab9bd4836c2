"""live log: a kept game's actions and events, one row each (appended, never rewritten)

Revision ID: 6d1f0b3e7a25
Revises: 2b7e4d1c9a60
Create Date: 2026-11-30 05:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "6d1f0b3e7a25"
down_revision: str | None = "2b7e4d1c9a60"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "live_log",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "kind", "n", name=op.f("pk_live_log")),
    )


def downgrade() -> None:
    op.drop_table("live_log")
