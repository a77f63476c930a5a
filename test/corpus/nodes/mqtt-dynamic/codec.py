"""The payload codec of the MQTT bridge: MQTT payloads are "KEY=VALUE"
lines, decoded to WAMP kwargs, and events are encoded back to such lines
(the args joined by commas under "args")."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class MyCodec(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def decode(wamp_topic, mqtt_topic, payload):
            if isinstance(payload, bytes):
                payload = payload.decode("utf8")
            kwargs = dict(line.split("=", 1) for line in payload.splitlines() if "=" in line)
            return {"args": [mqtt_topic], "kwargs": kwargs}

        def encode(mqtt_topic, wamp_topic, args, kwargs):
            lines = ["topic=%s" % wamp_topic]
            if args:
                lines.append("args=%s" % ",".join(str(a) for a in args))
            for k in sorted(kwargs or {}):
                lines.append("%s=%s" % (k, kwargs[k]))
            return "\n".join(lines).encode("utf8")

        yield self.register(decode, "com.example.mqtt.decode")
        yield self.register(encode, "com.example.mqtt.encode")
        print("mqtt codec ready")
