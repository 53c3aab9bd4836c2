"""social: friend requests, friendships, follows and blocks (好友, 关注, 屏蔽)

Revision ID: 5c0e7a1d3f92
Revises: 9a4d2f6b8e31
Create Date: 2026-12-07 18:00:00

- ``friend_requests``: a request of one user to another, until answered or withdrawn;
- ``friendships``: two friends, one row (the lower user id first);
- ``follows``: one user follows another, one way;
- ``blocks``: one user blocks another (``server.social``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5c0e7a1d3f92"
down_revision: str | None = "9a4d2f6b8e31"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# each table: (name, first user column, second user column, time column)
_PAIRS = (
    ("friend_requests", "asker_id", "asked_id", "at"),
    ("friendships", "low_id", "high_id", "since"),
    ("follows", "follower_id", "followed_id", "at"),
    ("blocks", "blocker_id", "blocked_id", "at"),
)


def upgrade() -> None:
    for table, first, second, at in _PAIRS:
        op.create_table(
            table,
            sa.Column(first, sa.Integer(), nullable=False),
            sa.Column(second, sa.Integer(), nullable=False),
            sa.Column(at, sa.DateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(
                [first], ["users.id"], name=op.f(f"fk_{table}_{first}_users"), ondelete="CASCADE"
            ),
            sa.ForeignKeyConstraint(
                [second], ["users.id"], name=op.f(f"fk_{table}_{second}_users"), ondelete="CASCADE"
            ),
            sa.PrimaryKeyConstraint(first, second, name=op.f(f"pk_{table}")),
        )
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(batch_op.f(f"ix_{table}_{second}"), [second], unique=False)


def downgrade() -> None:
    for table, _first, second, _at in reversed(_PAIRS):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f"ix_{table}_{second}"))
        op.drop_table(table)
