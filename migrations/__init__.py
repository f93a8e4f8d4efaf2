"""Alembic migrations for the bot's database (see ``db.migrate`` and ``db.engine.migrate``)."""
