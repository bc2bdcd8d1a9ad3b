/// Every user of the event loops names connections by ``ConnectionHandle``: importing HeraldNet brings it along.
@_exported import HeraldHandle
