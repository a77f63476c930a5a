# Shaped on crossbar-examples containers/failures/container/working/myapp.py
# (written for Junction's tests).

import txaio
txaio.use_twisted()

from txaio import make_logger
from twisted.internet import reactor
from autobahn.twisted.wamp import ApplicationSession


class MySession(ApplicationSession):

    log = make_logger()

    def __init__(self, config):
        self.log.info('MySession.__init__(config={config})', config=config)
        ApplicationSession.__init__(self, config)

    def onJoin(self, details):
        self.log.info('MySession.onJoin(details={details})', details=details)
        self.log.info('leaving in a moment ..')
        reactor.callLater(0.1, self.leave)
