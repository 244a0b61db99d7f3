"""Reads messages with the official client.

stdin: {"site": ..., "email": ..., "api_key": ..., "request": {...}}, where
request is what Client.get_messages takes, e.g.
{"anchor": "newest", "num_before": 10, "num_after": 0,
 "narrow": [{"operator": "channel", "operand": "Denmark"}, {"operator": "topic", "operand": "..."}]}.
stdout: the server's reply as one line of JSON.
"""

import json
import sys

import zulip

config = json.load(sys.stdin)
client = zulip.Client(email=config["email"], api_key=config["api_key"], site=config["site"])
print(json.dumps(client.get_messages(config["request"])))
