import Foundation
import GreenroomServer
import Testing

/// The tests skipped for want of an external program or service, said once, all together,
/// when the test process exits: which tests, and why. Under `GREENROOM_REQUIRE_ALL=1` (as CI
/// sets) a skip is a failure instead.
enum Skips {
    private static let skipped = Locked<[String: [String]]>([:])
    private static let summary: Void = { atexit { Skips.printSummary() } }()

    /// Reports that `what` cannot run because `reason`: a recorded issue under
    /// `GREENROOM_REQUIRE_ALL=1`, otherwise a line of the summary at exit.
    static func skip(_ what: String, because reason: String) {
        if TestEnvironment.requireAll {
            Issue.record("\(what) cannot run: \(reason); GREENROOM_REQUIRE_ALL=1 forbids skipping")
            return
        }
        _ = summary
        skipped.withLock { $0[reason, default: []].append(what) }
    }

    private static func printSummary() {
        let all = skipped.withLock { $0 }
        guard !all.isEmpty else { return }
        var text = "\nSkipped (GREENROOM_REQUIRE_ALL=1 makes these failures):\n"
        for (reason, tests) in all.sorted(by: { $0.key < $1.key }) {
            let counted = Dictionary(tests.map { ($0, 1) }, uniquingKeysWith: +).sorted { $0.key < $1.key }
            text += "- \(reason):\n"
            for (test, count) in counted { text += "    \(test)\(count > 1 ? " (\(count) tests)" : "")\n" }
        }
        // After what the test library has buffered, so that it is the last thing said.
        fflush(nil)
        print(text, terminator: "")
        fflush(nil)
    }
}
