"""The service of one tenant, run on each tenant's realm."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class TenantService(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        tenant = self.config.extra["tenant"]
        yield self.register(lambda: {"tenant": tenant, "realm": details.realm}, "com.example.tenant")
