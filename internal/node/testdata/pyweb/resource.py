# A Twisted Web resource for the node's tests of the "resource" path
# type: it answers with the "extra" it was made with and what it was
# asked.
import json

from twisted.web.resource import Resource


class Echo(Resource):
    isLeaf = True

    def __init__(self, extra):
        Resource.__init__(self)
        self.extra = extra

    def render(self, request):
        request.setHeader(b"content-type", b"application/json")
        return json.dumps({
            "extra": self.extra,
            "method": request.method.decode(),
            "prepath": [p.decode() for p in request.prepath],
            "postpath": [p.decode() for p in request.postpath],
            "host": request.getRequestHostname().decode(),
            "client": request.getClientAddress().host,
            "secure": request.isSecure(),
            "body": request.content.read().decode(),
        }).encode()


class Broken(Resource):
    def __init__(self, extra):
        raise ValueError("no database: %s" % extra.get("db"))
