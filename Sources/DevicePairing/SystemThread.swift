import Wormhole

/// Threads of their own for DevicePairing's blocking loops (the device and peer links, the
/// control servers, a running peer's readers): the package's one thread starter, which the
/// journal follower in Wormhole uses too, under the name this module's files use. (`Wormhole::`
/// names the module, whose class of the same name would otherwise be meant.)
typealias SystemThread = Wormhole::SystemThread
