"""Each part of the universal transport with the serializers it is given:
RawSocket with MessagePack and CBOR (JSON refused), WebSocket at ws with
JSON, at ws-cbor with CBOR; the web part's json document."""

import json
import urllib.request

from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread

from corpusclient import call, equal, events, expect, join, main, note  # first: it selects Twisted for txaio
from autobahn.wamp.serializer import CBORSerializer, JsonSerializer, MsgPackSerializer  # noqa: E402


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.status, resp.headers.get("Content-Type"), json.loads(resp.read())


@inlineCallbacks
def check(addr):
    rs = yield join("rs://%s" % addr, "realm1", serializers=[MsgPackSerializer()])
    rs2 = yield join("rs://%s" % addr, "realm1", serializers=[CBORSerializer()])
    ws = yield join("ws://%s/ws" % addr, "realm1", serializers=[JsonSerializer()])
    wsc = yield join("ws://%s/ws-cbor" % addr, "realm1", serializers=[CBORSerializer()])
    yield rs.register(lambda b: b[::-1], "com.example.reverse")
    equal((yield call(ws, "com.example.reverse", "abc")), "cba", "json caller, msgpack callee")
    equal((yield call(wsc, "com.example.reverse", b"\x01\x02")), b"\x02\x01", "cbor caller (bytes), msgpack callee")
    sub, q = events(rs2, "com.example.topic")
    yield sub
    ws.publish("com.example.topic", {"n": 1})
    equal((yield q.get()), ([{"n": 1}], {}), "the cbor rawsocket subscriber's event")
    try:
        s = yield join("rs://%s" % addr, "realm1", serializers=[JsonSerializer()])
    except Exception as e:
        note("a JSON rawsocket client is refused as it should be: %s", e)
    else:
        yield s.leave()
        expect(False, "a JSON rawsocket client joined, but the rawsocket part has msgpack and cbor only")
    status, ctype, doc = yield deferToThread(get_json, "http://%s/config" % addr)
    equal((status, ctype.split(";")[0], doc), (200, "application/json",
          {"realm": "realm1", "transports": ["rawsocket", "websocket"]}), "GET /config")
    for s in (rs, rs2, ws, wsc):
        yield s.leave()


main(check)
