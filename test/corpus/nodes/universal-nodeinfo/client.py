"""A RawSocket client and a WebSocket client on the universal transport's
one port: each receives what the other publishes and calls what the other
registers."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, events, join, main


@inlineCallbacks
def check(addr):
    rs = yield join("rs://%s" % addr, "realm1")
    ws = yield join("ws://%s/ws" % addr, "realm1")
    yield rs.register(lambda x: "rawsocket got %s" % x, "com.example.rs.echo")
    yield ws.register(lambda x: "websocket got %s" % x, "com.example.ws.echo")
    sub, q = events(ws, "com.example.topic")
    yield sub
    sub2, q2 = events(rs, "com.example.topic")
    yield sub2
    equal((yield call(ws, "com.example.rs.echo", 1)), "rawsocket got 1", "websocket calls rawsocket")
    equal((yield call(rs, "com.example.ws.echo", 2)), "websocket got 2", "rawsocket calls websocket")
    rs.publish("com.example.topic", "from rawsocket")
    equal((yield q.get()), (["from rawsocket"], {}), "the websocket subscriber's event")
    ws.publish("com.example.topic", "from websocket")
    equal((yield q2.get()), (["from websocket"], {}), "the rawsocket subscriber's event")
    yield rs.leave()
    yield ws.leave()


main(check)
