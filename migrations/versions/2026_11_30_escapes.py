"""escapes: every escape from a scored game, for the escape bans; rooms rated with bots

Revision ID: 8c3f1a9d2e47
Revises: 5a0d0e3c1b2f
Create Date: 2026-11-30 02:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8c3f1a9d2e47"
down_revision: str | None = "5a0d0e3c1b2f"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "escapes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_escapes_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_escapes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_escapes")),
    )
    op.create_index(op.f("ix_escapes_user_id"), "escapes", ["user_id"], unique=False)
    with op.batch_alter_table("rooms") as batch_op:
        batch_op.add_column(
            sa.Column("rated_with_bots", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch_op:
        batch_op.drop_column("rated_with_bots")
    op.drop_index(op.f("ix_escapes_user_id"), table_name="escapes")
    op.drop_table("escapes")
