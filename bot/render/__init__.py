"""The rendering layer: what the games say, as pure functions.

Each game's module turns the rules' state, its events and a language (and, where a message needs
them, a few values the service read: a deadline, a channel, counts) into texts and embeds. No
database, no Discord call, no service: services decide and record, renderers write, the
dispatcher sends. ``python -m bot deck check`` and the tests call the renderers directly.
"""
