"""Waits for the first message event with the official client's event loop.

stdin: {"site": ..., "email": ..., "api_key": ..., "narrow": [...] (optional)}
stderr: "registered <queue_id>" once the event queue exists, so that a test
knows when to send the message it expects (events from before it are not
delivered), and the client's own diagnostics.
stdout: the first event of type "message" as one line of JSON; then it
deletes its queue and exits 0.

Client.call_on_each_event registers a queue (POST /register with
event_types=["message"]), long-polls GET /events with queue_id and
last_event_id, skips heartbeats and calls back once per event; it never returns
by itself, and it calls the callback outside of its error handling, so an
exception raised there ends the loop.
"""

import json
import sys

import zulip


class Done(Exception):
    pass


config = json.load(sys.stdin)
# Only the event goes to stdout: what the library prints (it prints its
# diagnostics, with verbose=True, to stdout) goes to stderr.
out = sys.stdout
sys.stdout = sys.stderr

client = zulip.Client(email=config["email"], api_key=config["api_key"], site=config["site"], verbose=True)

register = client.register
queue = {}


def register_and_announce(*args, **kwargs):
    reply = register(*args, **kwargs)
    if reply.get("result") == "success":
        queue["id"] = reply["queue_id"]
        print(f"registered {reply['queue_id']}", file=sys.stderr, flush=True)
    return reply


# call_on_each_event calls self.register (again after BAD_EVENT_QUEUE_ID).
client.register = register_and_announce


def on_event(event):
    if event["type"] != "message":
        return
    out.write(json.dumps(event) + "\n")
    out.flush()
    raise Done


try:
    client.call_on_each_event(on_event, event_types=["message"], narrow=config.get("narrow", []))
except Done:
    # Leave no queue behind; the event is out whatever the server says to this.
    try:
        print(json.dumps(client.deregister(queue["id"], timeout=5)), file=sys.stderr)
    except Exception as error:
        print(f"deregister failed: {error!r}", file=sys.stderr)
    sys.exit(0)
