import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The shared hermetic directory of every test target.
typealias TemporaryDirectory = TestSupport.TemporaryDirectory
/// The shared collector of values from other threads.
typealias Collector<Value: Sendable> = TestSupport.Collector<Value>
