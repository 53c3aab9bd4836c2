"""live tables: running games kept for a restart

Revision ID: 2b7e4d1c9a60
Revises: 8c3f1a9d2e47
Create Date: 2026-11-30 02:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2b7e4d1c9a60"
down_revision: str | None = "8c3f1a9d2e47"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "live_tables",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_live_tables")),
    )


def downgrade() -> None:
    op.drop_table("live_tables")
