/// Every user of the sync core names devices by ``DeviceHandle``: importing HeraldSync brings its module along.
@_exported import HeraldHandle

/// A live device as the server names it to the sync core: the handle of the connection it is on (event loop,
/// descriptor, and the descriptor's use count, so a reused descriptor is another device). The sync core only hashes
/// and compares it.
///
/// ``SyncCore`` is generic over its device type (tests use integers), and generic code called from another module
/// runs unspecialised: every dictionary lookup and copy of a device-keyed value went through witness tables and
/// run-time metadata lookups. Naming the server's concrete type here lets HeraldSync compile its hot entry points
/// specialised for it (`@_specialize(exported: true, where Device == DeviceHandle)`).
public typealias DeviceHandle = ConnectionHandle
