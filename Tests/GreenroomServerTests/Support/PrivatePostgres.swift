import Foundation
import NIOCore
import NIOPosix

/// A PostgreSQL server of the test process's own, for a machine that has PostgreSQL
/// installed but names none in `GREENROOM_TEST_POSTGRES_URL`: so that a newcomer's
/// `swift test` runs the PostgreSQL and many-node tests instead of skipping them.
///
/// It is made once, on first use, as `.ci/run` makes its own: `initdb` into a temporary
/// folder (as the `postgres` user when the tests run as root, since PostgreSQL refuses
/// root), then `pg_ctl start` on a free loopback port with `fsync=off`. A watcher process
/// stops it and removes the folder when the test process is gone, however it ends.
enum PrivatePostgres {
    /// The admin URL of the private server, or why there is none. The start (seconds of
    /// `initdb` and `pg_ctl`, waited for with blocking calls) runs on a thread of its own:
    /// on one of Swift concurrency's few threads it would hold up every other test's tasks
    /// meanwhile (a short-lived token expired before its upgrade could run).
    static let started: Task<Result<String, Failure>, Never> = Task {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: start()) }.start()
        }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The folder of `initdb` and `pg_ctl`: `GREENROOM_TEST_POSTGRES_BIN`, the newest
    /// `/usr/lib/postgresql/*/bin` (Debian), or the folder of `initdb` on `PATH`.
    static func binaries() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment["GREENROOM_TEST_POSTGRES_BIN"], !folder.isEmpty { return folder }
        let debian = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debian)) ?? []
        if let newest = versions.compactMap(Int.init).max(),
           FileManager.default.isExecutableFile(atPath: "\(debian)/\(newest)/bin/initdb") {
            return "\(debian)/\(newest)/bin"
        }
        return TestEnvironment.program("GREENROOM_TEST_INITDB", "initdb").map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
    }

    private static func start() -> Result<String, Failure> {
        guard let bin = binaries() else {
            return .failure(Failure(description: "PostgreSQL is not installed (Debian: apt-get install postgresql), and GREENROOM_TEST_POSTGRES_BIN names no folder of initdb and pg_ctl"))
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-test-pg-\(UUID().uuidString.prefix(8))").path
        let asRoot = getuid() == 0
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            if asRoot {
                // PostgreSQL will not run as root: the folder goes to the postgres user.
                try run("/bin/chown", ["postgres", root], log: "/dev/null")
            }
            let port = try freePort()
            try run("\(bin)/initdb", ["-D", "\(root)/db", "--auth=trust", "-U", "postgres"], asPostgres: asRoot, log: "\(root)/initdb.log")
            try run("\(bin)/pg_ctl", ["-D", "\(root)/db", "-l", "\(root)/server.log", "-w", "-o",
                                      "-p \(port) -k \(root) -c listen_addresses=127.0.0.1 -c max_connections=1000 -c fsync=off", "start"],
                    asPostgres: asRoot, log: "\(root)/pg_ctl.log")
            try watch(pid: getpid(), stop: "\(bin)/pg_ctl -D \(root)/db -m immediate stop", folder: root, asPostgres: asRoot)
            return .success("postgres://postgres@127.0.0.1:\(port)/postgres")
        } catch {
            return .failure(Failure(description: "the tests' own PostgreSQL did not start (\(error); logs in \(root))"))
        }
    }

    /// Runs `program` to its end (as the postgres user when asked), its output to `log`;
    /// throws unless it exits 0.
    private static func run(_ program: String, _ arguments: [String], asPostgres: Bool = false, log: String) throws {
        let argv = (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] : [program]) + arguments
        let status = try spawn(argv, output: log, wait: true)
        guard status == 0 else {
            throw Failure(description: "\(URL(fileURLWithPath: program).lastPathComponent) exited with \(status)")
        }
    }

    /// A detached shell that waits for process `pid` to end, then stops the server and
    /// removes its folder.
    private static func watch(pid: Int32, stop: String, folder: String, asPostgres: Bool) throws {
        let stopCommand = asPostgres ? "runuser -u postgres -- \(stop)" : stop
        let script = "while kill -0 \(pid) 2>/dev/null; do sleep 1; done; \(stopCommand); rm -rf \(folder)"
        // In a session of its own, so that a signal to the tests' process group spares it.
        let setsid = "/usr/bin/setsid"
        let shell = ["/bin/sh", "-c", script]
        _ = try spawn(FileManager.default.isExecutableFile(atPath: setsid) ? [setsid] + shell : shell, output: "/dev/null", wait: false)
    }

    /// Starts `argv` with `posix_spawn`, not Foundation's `Process`: `Process` learns of a
    /// child's exit when every copy of a socket it hands the child is closed, and `pg_ctl`
    /// leaves the server it starts holding that copy, so `pg_ctl`'s exit would never be
    /// seen. The child gets no descriptor of this process but its output (another test's
    /// socket held by the server would never close) and no blocked signal. Returns the
    /// exit status when `wait`, else 0.
    private static func spawn(_ argv: [String], output: String, wait: Bool) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard let closeFrom = closeFrom else {
            throw Failure(description: "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has)")
        }
        _ = closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = argv.map { strdup($0) }
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = (arguments + [nil]).withUnsafeBufferPointer { pointer in
            posix_spawn(&pid, argv[0], &actions, &attributes, pointer.baseAddress!, environ)
        }
        guard spawned == 0 else { throw Failure(description: "\(argv[0]) could not be started (error \(spawned))") }
        guard wait else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid failed for \(argv[0])") }
        }
        // WIFEXITED / WEXITSTATUS: the low 7 bits are the signal that ended it, if any.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does
    /// not declare (it is a GNU extension).
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// A loopback port nothing listens on now (bound and let go, as
    /// ``WebhookReceiver/freePort()`` does, here outside any task).
    private static func freePort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).wait()
        defer { try? channel.close().wait() }
        guard let port = channel.localAddress?.port else { throw Failure(description: "no free port") }
        return port
    }
}
