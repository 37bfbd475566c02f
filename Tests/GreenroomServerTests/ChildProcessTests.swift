import Foundation
import GreenroomProtocol
import GreenroomServer
import Testing

/// The programs Greenroom runs (Janus, ffmpeg; servers and browsers in tests) are started
/// through ``ChildProcess``; these are the promises the server's supervision rests on.
@Suite("Child processes")
struct ChildProcessTests {
    @Test("children started at once, beside open sockets and pipes, hold only their own descriptors")
    func descriptorsStayPrivate() async throws {
        // Descriptors this process holds meanwhile, without close-on-exec, that no child may inherit.
        var pipes: [Int32] = []
        for _ in 0..<8 {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            pipes += ends
        }
        defer { for fd in pipes { close(fd) } }
        let listings = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let run = try await ChildProcess.run("/bin/ls", ["/proc/self/fd"])
                    #expect(run.exit.succeeded)
                    return String(decoding: run.output, as: UTF8.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(listings.count == 16)
        for listing in listings {
            // Standard input, output and error, and the directory ls reads.
            let open = Set(listing.split(whereSeparator: \.isNewline).map(String.init))
            #expect(open.isSubset(of: ["0", "1", "2", "3"]), "a child held \(open.sorted())")
        }
    }

    @Test("stop: SIGTERM reaches a child started from a task (whose thread blocks signals), in a process group of its own")
    func stopSendsTerminate() async throws {
        let child = try await ChildProcess.start("/bin/sleep", arguments: ["60"])
        #expect(child.isRunning)
        let stat = try String(contentsOfFile: "/proc/\(child.pid)/stat", encoding: .utf8)
        // Field 5 of /proc/PID/stat, after the command name in parentheses, is the process group.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        #expect(fields.count > 3 && Int32(fields[2]) == child.pid, "\(stat)")
        child.stop()
        #expect(try await child.waitForExit() == .signalled(SIGTERM))
        #expect(!child.isRunning)
    }

    @Test("stop: a child that ignores SIGTERM is killed once its grace has passed")
    func stopKillsAfterGrace() async throws {
        let child = try await ChildProcess.start("/bin/sh", arguments: ["-c", "trap '' TERM; exec sleep 60"], grace: .milliseconds(300))
        // Give the shell time to set its trap before the signal.
        try await eventually("the shell became sleep") {
            (try? String(contentsOfFile: "/proc/\(child.pid)/comm", encoding: .utf8))?.hasPrefix("sleep") == true
        }
        child.stop()
        #expect(try await child.waitForExit() == .signalled(SIGKILL))
    }

    @Test("output: kept up to its limit, read to the end after the exit; a file sink appends")
    func outputs() async throws {
        let chatty = try await ChildProcess.start("/usr/bin/head", arguments: ["-c", "200000", "/dev/zero"], output: .kept(limit: 1_000))
        #expect(try await chatty.waitForExit() == .exited(0))
        #expect(chatty.output.utf8.count == 1_000)

        let echo = try await ChildProcess.run("/bin/sh", ["-c", "printf 'out'; printf 'err' >&2; exit 3"])
        #expect(echo.exit == .exited(3))
        #expect(String(decoding: echo.output, as: UTF8.self) == "out" && String(decoding: echo.errors, as: UTF8.self) == "err")

        let log = TemporaryPaths.make("-child.log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        for word in ["one", "two"] {
            let child = try await ChildProcess.start("/bin/sh", arguments: ["-c", "echo \(word) >&2"], errors: .file(log))
            #expect(try await child.waitForExit() == .exited(0))
        }
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "one\ntwo\n")
    }

    @Test("a run past its limit is stopped and says so; a program that is not there cannot start")
    func limitsAndFailures() async throws {
        do {
            _ = try await ChildProcess.run("/bin/sleep", ["60"], limit: .milliseconds(300))
            Issue.record("a run past its limit returned")
        } catch let error as GreenroomError {
            #expect(error.code == ErrorCode.invalidParameterValue.rawValue && error.message.contains("limit"), "\(error)")
        }
        await #expect(throws: GreenroomError.self) {
            _ = try await ChildProcess.start("/nonexistent/greenroom-tool", arguments: [])
        }
    }
}
