import Foundation
import GreenroomProtocol
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the programs Greenroom runs (Janus, ffmpeg; servers and browsers in tests) so that
/// they can be stopped and so that one never holds on to another's descriptors.
///
/// Two faults of Foundation's `Process` on Linux, both seen in this project's test runs:
/// - **Descriptors leak between children started at once.** `run()` makes a socket pair
///   (without close-on-exec) whose other end the child holds, and learns of the child's exit
///   when every copy of that end is closed; it closes the parent's other descriptors in the
///   child by listing them just before it spawns. A socket pair or `Pipe` made on another
///   thread in between is inherited by the wrong child: a killed server's exit then went
///   unnoticed for as long as a Janus started beside it lived, and its pipes never reached
///   end of file. Every spawn and every pipe for a child is therefore made under one lock.
/// - **Signals stay blocked in the child.** The child inherits the spawning thread's signal
///   mask, and the threads that run Swift concurrency's tasks block nearly every signal, so
///   `terminate()` (SIGTERM) was ignored: Janus outlived its server. The mask is cleared on
///   the spawning thread for the spawn alone and restored at once.
package enum ChildProcesses {
    private static let lock = Locked(())

    /// A pipe for a child's standard input, output or error.
    package static func pipe() -> Pipe {
        lock.withLock { _ in Pipe() }
    }

    /// Starts `process` (as `process.run()` does) with no signal blocked.
    package static func run(_ process: Process) throws {
        try lock.withLock { _ in
            var none = sigset_t()
            var previous = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            try process.run()
        }
    }
}
