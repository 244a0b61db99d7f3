"""Runs a list of the official client's high-level methods, as a bot would.

stdin: {"site": ..., "email": ..., "api_key": ..., "calls": [{"method": name,
"args": [...], "kwargs": {...}}, ...]}. An argument {"$file": {"name": ...,
"content": ...}} becomes an open file of that name and content (for
upload_file); {"$result": [i, "key", ...]} becomes a value of the i-th call's
result (a message id sent earlier).
stdout: one line of JSON, the list of the results, in order; a call that
raised is {"exception": "<repr>"}.
"""

import json
import os
import sys
import tempfile

import zulip

config = json.load(sys.stdin)
client = zulip.Client(email=config["email"], api_key=config["api_key"], site=config["site"])
results = []
folder = tempfile.mkdtemp()


def resolve(value):
    if isinstance(value, dict) and "$file" in value:
        path = os.path.join(folder, value["$file"]["name"])
        with open(path, "w") as f:
            f.write(value["$file"]["content"])
        return open(path, "rb")
    if isinstance(value, dict) and "$result" in value:
        index, *keys = value["$result"]
        found = results[index]
        for key in keys:
            found = found[key]
        return found
    if isinstance(value, dict):
        return {k: resolve(v) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v) for v in value]
    return value


for call in config["calls"]:
    try:
        method = getattr(client, call["method"])
        results.append(method(*resolve(call.get("args", [])), **resolve(call.get("kwargs", {}))))
    except Exception as error:
        results.append({"exception": repr(error)})

print(json.dumps(results))
