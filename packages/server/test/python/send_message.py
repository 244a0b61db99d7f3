"""Sends one message with the official client, as a bot or script would.

stdin: {"site": ..., "email": ..., "api_key": ..., "message": {...}}, where
message is what Client.send_message takes, e.g.
{"type": "stream", "to": "Denmark", "topic": "...", "content": "..."}.
stdout: the server's reply as one line of JSON.
"""

import json
import sys

import zulip

config = json.load(sys.stdin)
client = zulip.Client(email=config["email"], api_key=config["api_key"], site=config["site"])
print(json.dumps(client.send_message(config["message"])))
