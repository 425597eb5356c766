"""E-mail notifications (docs/notifications.md): which message for which change, the outbox and the feed.

Modules, each importing only those listed before it: ``kinds`` (the kinds of message), ``compose`` (a kind
and its facts → subject, text and HTML from templates/email), ``outbox`` (queue a mail once per key,
deliver it with retries, staff retry), ``preferences`` (a user's address and the kinds turned off),
``triggers`` (``scan``: what changed or is due → mails), ``calendar`` (a team's iCalendar feed).
"""
