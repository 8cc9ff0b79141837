import SystemThreads

/// Threads of their own for DevicePairing's blocking loops (the device and peer links, the
/// control servers, a running peer's readers): the package's one thread starter, which
/// Wormhole's journal follower and MQTTClient's network loop use too, under the name this
/// module's files use without importing SystemThreads.
typealias SystemThread = SystemThreads.SystemThread
