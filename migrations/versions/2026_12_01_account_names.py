"""account names: a casefolded key and a look-alike skeleton, both unique; the sign-in address

Revision ID: 3c9e5b7a1d42
Revises: 6d1f0b3e7a25
Create Date: 2026-12-01 12:00:00

Existing users get their keys from their names (``server.names``). Where two existing names
already collide (``alice`` and ``ALICE``, or a look-alike), the older user keeps the plain key
and each later one gets ``<key>#<id>``: no name can hold ``#``, so the key stays unique and
free, and those users still sign in by their exact name.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from server.names import name_key, skeleton

revision: str = "3c9e5b7a1d42"
down_revision: str | None = "6d1f0b3e7a25"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_key", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("name_skeleton", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("address", sa.String(length=64), nullable=True))

    users = sa.table(
        "users",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
        sa.column("name_skeleton", sa.String),
    )
    connection = op.get_bind()
    rows = connection.execute(sa.select(users.c.id, users.c.name).order_by(users.c.id)).all()
    keys: set[str] = set()
    skeletons: set[str] = set()
    for user_id, name in rows:
        key, look = name_key(name), skeleton(name)
        if key in keys:
            key = f"{key}#{user_id}"
        if look in skeletons:
            look = f"{look}#{user_id}"
        keys.add(key)
        skeletons.add(look)
        connection.execute(
            users.update().where(users.c.id == user_id).values(name_key=key, name_skeleton=look)
        )

    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.alter_column("name_key", existing_type=sa.String(length=255), nullable=False)
        batch_op.alter_column("name_skeleton", existing_type=sa.String(length=255), nullable=False)
        batch_op.create_index(batch_op.f("ix_users_name_key"), ["name_key"], unique=True)
        batch_op.create_index(batch_op.f("ix_users_name_skeleton"), ["name_skeleton"], unique=True)
        batch_op.create_index(batch_op.f("ix_users_address"), ["address"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_users_address"))
        batch_op.drop_index(batch_op.f("ix_users_name_skeleton"))
        batch_op.drop_index(batch_op.f("ix_users_name_key"))
        batch_op.drop_column("address")
        batch_op.drop_column("name_skeleton")
        batch_op.drop_column("name_key")
