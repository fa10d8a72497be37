"""Club night (issue 21, docs/club.md): many tables, one scoreboard, through Mosquitto.

    topics.py     the topic names and the wire format of every message, checked
    outbox.py     the table side's outbox and confirmations, in the table's own SQLite
    publisher.py  a table's MQTT client: drains the outbox at QoS 1, live state, last will
    hubstore.py   the hub's SQLite: messages de-duplicated by (table, seq), results, corrections
    hub.py        the hub's MQTT client: stores, acknowledges after the commit, publishes marks
    web.py        the scoreboard, the JSON API and the director's page (Starlette)
    broker.py     Mosquitto's config, passwords and ACLs; a local broker process
    simulate.py   simulated tables (club demo, tests, benchmark)

Each table's SQLite stays the source of truth; the hub only ever holds copies.
"""
