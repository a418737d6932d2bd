"""Writing a book's meta: every change and the meta's checksum in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlalchemy import select

from ..format.checksum import META_CHECKSUM, check_meta, meta_checksum
from ..format.schema import Meta


def write_meta(
    conn,
    db: str,
    change: Mapping[str, str] | Callable[[Mapping[str, str]], Mapping[str, str]],
    *,
    first: bool = False,
) -> None:
    """Set meta values in ``conn``'s transaction, and the meta's checksum with them.

    ``change`` is the values, or makes them from the meta as stored.  The stored meta is
    checked first, so that a damaged value is never taken into the new checksum; with
    ``first``, there is no checksum yet to check (a new book, an upgrade to this version).
    """
    meta = dict(conn.execute(select(Meta.name, Meta.value)).all())
    if not first:
        check_meta(meta, db)
    values = dict(change(meta) if callable(change) else change)
    values[META_CHECKSUM] = meta_checksum({**meta, **values})
    # Loaded here: PostgreSQL's dialect is a third of SQLAlchemy's import, and a reader
    # never writes (c4book query or move would load it for nothing).
    from sqlalchemy.dialects import postgresql, sqlite

    insert = (postgresql if conn.dialect.name == "postgresql" else sqlite).insert
    for name, value in values.items():
        conn.execute(
            insert(Meta)
            .values(name=name, value=value)
            .on_conflict_do_update(index_elements=["name"], set_={"value": value})
        )
