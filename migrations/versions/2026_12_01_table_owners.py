"""table owners: a cluster's leases and epochs in the database, beside the kept games they fence

Revision ID: 8f2a6c4e0b17
Revises: 3c9e5b7a1d42
Create Date: 2026-12-01 20:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8f2a6c4e0b17"
down_revision: str | None = "3c9e5b7a1d42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_owners",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("node", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("expires", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_owners")),
    )
    op.create_index("ix_table_owners_node", "table_owners", ["node"])


def downgrade() -> None:
    op.drop_index("ix_table_owners_node", table_name="table_owners")
    op.drop_table("table_owners")
