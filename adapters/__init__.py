"""Every use of a private discord.py or SQLAlchemy API, in one place, each checked by a test.

discord.py and SQLAlchemy are pinned to the minor release the tests ran on (pyproject.toml);
tests/adapters fails naming the API when the shape of one below changes (the class, attribute
or method, the parameters passed). This package imports nothing of the bot (``bot``, ``cogs``,
``games``, ``db``); its ``sqlalchemy_*`` modules and :mod:`adapters.switch` import no discord.

The bypasses, turned off by ``[internals] bypasses`` (adapters/switch.py), each kept because
the bench measured it (docs/performance.md, "The bypasses"):

- ``own_callbacks`` (discord_callback.py): a text answer's callback over connections of the
  bot's own, without the created message read back. ``interaction._state`` (``http.proxy``,
  ``http.user_agent``, ``allowed_mentions``), ``discord.http.Route.BASE``,
  ``discord.webhook.async_.interaction_message_response_params`` and
  ``InteractionResponse._response_type``.
- ``direct_votes`` (db/direct.py, on the drivers' public APIs; sqlalchemy_asyncpg.py): the vote
  batch straight through ``sqlite3`` or asyncpg. asyncpg's arguments from SQLAlchemy's
  ``Dialect.create_connect_args``, less its adapter's own options.

Always on, not shortcuts (the bot needs them, and no public API does it):

- discord_state.py's ``GatedState``: ``discord.state.AutoShardedConnectionState`` (an
  undocumented module) subclassed, its ``parse_interaction_create`` overridden, so that a
  stopping bot takes no new interaction and counts the tasks of those it took
  (bot/stopping.py); made in ``Client._get_state``, overridden, with the client's
  ``_handlers`` and ``_hooks``.

- discord_endpoints.py: ``discord.http.Route.BASE`` and
  ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``, where discord.py connects (the
  ``[discord] api_base`` and ``gateway_url`` keys, the sandbox).
- discord_webhook.py: ``discord.webhook.async_.AsyncWebhookAdapter`` subclassed and set in
  ``async_context``: each callback discord.py sends timed (the acknowledgement metric).
- discord_commands.py: ``app_commands.Command._params``: a parameter's choices and description
  set once the registry is known (/stats's game).
- sqlalchemy_sqlite.py: ``Dialect.do_commit`` and ``do_rollback`` wrapped on one engine's
  dialect: SQLite's writer gate (db/engine.py) opens once the driver's COMMIT returned.
"""
