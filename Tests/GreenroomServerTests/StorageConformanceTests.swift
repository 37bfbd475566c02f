import Foundation
@testable import GreenroomServer
import Testing

/// Every storage operation, run against SQLite and PostgreSQL alike.
@Suite("Storage conformance", .wholeRun)
struct StorageConformanceTests {
    static func user(_ id: String, _ nickname: String, extra: [String: RawJSON] = [:]) -> User {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        return User(id: id, nickname: nickname, profileURL: nil, extraData: extra, createdAt: now, updatedAt: now)
    }

    @Test("users: insert, get, update atomically, list with filters in id order, delete", arguments: Backend.allCases)
    func users(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            try await storage.insertUser(Self.user("b", "Bea", extra: ["n": 1, "tags": ["x", "y"]]))
            try await storage.insertUser(Self.user("a", "Al"))
            try await storage.insertUser(Self.user("C", "carl"))
            do {
                try await storage.insertUser(Self.user("a", "again"))
                Issue.record("a duplicate id was stored")
            } catch let error as GreenroomError {
                #expect(error.is(.alreadyExists))
            }
            let stored = try await storage.user(id: "b")
            #expect(stored?.extraData == ["n": 1, "tags": ["x", "y"]])
            #expect(stored?.createdAt == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(try await storage.user(id: "zzz") == nil)

            let kept = try await storage.insertUserIfMissing(Self.user("b", "other"))
            #expect(kept.nickname == "Bea")
            let made = try await storage.insertUserIfMissing(Self.user("d", "Dee"))
            #expect(made.nickname == "Dee")

            // Concurrent read-modify-write: no increment is lost.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        _ = try await storage.updateUser(id: "b") { user in
                            user.extraData["n"] = .number((user.extraData["n"]?.numberValue ?? 0) + 1)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await storage.user(id: "b")?.extraData["n"] == 21)
            #expect(try await storage.updateUser(id: "nobody") { $0.nickname = "x" } == nil)
            struct Refused: Error {}
            await #expect(throws: Refused.self) { _ = try await storage.updateUser(id: "a") { _ in throw Refused() } }
            #expect(try await storage.user(id: "a")?.nickname == "Al")

            let all = try await storage.listUsers(ids: nil, nicknamePrefix: nil, afterId: nil, limit: 10)
            #expect(all.map(\.id) == ["C", "a", "b", "d"])
            let page = try await storage.listUsers(ids: nil, nicknamePrefix: nil, afterId: "a", limit: 1)
            #expect(page.map(\.id) == ["b"])
            let prefixed = try await storage.listUsers(ids: nil, nicknamePrefix: "C", afterId: nil, limit: 10)
            #expect(prefixed.map(\.id) == ["C"])
            let chosen = try await storage.listUsers(ids: ["d", "a", "missing"], nicknamePrefix: nil, afterId: nil, limit: 10)
            #expect(chosen.map(\.id) == ["a", "d"])
            #expect(try await storage.listUsers(ids: [], nicknamePrefix: nil, afterId: nil, limit: 10).isEmpty)

            #expect(try await storage.deleteUser(id: "a"))
            #expect(try await !storage.deleteUser(id: "a"))
            #expect(try await storage.user(id: "a") == nil)
        }
    }

    @Test("appends: offsets from 1 per stream, batches in order, idempotency keys", arguments: Backend.allCases)
    func appends(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let info = try await storage.streamInfo("app:a")
            #expect(info.head == 0 && info.trimmed == 0 && !info.epoch.isEmpty)
            #expect(try await storage.streamInfo("app:a").epoch == info.epoch)

            let batch = try await storage.appendEvents([
                EventAppend(stream: "app:a", type: "t", data: ["i": 1]),
                EventAppend(stream: "app:b", type: "t", data: ["i": 2]),
                EventAppend(stream: "app:a", type: "u", data: ["nested": ["deep": [1, 2]]], idempotencyKey: "k1"),
                EventAppend(stream: "app:a", type: "u", data: ["other": true], idempotencyKey: "k1"),
            ], retentionCount: 100)
            #expect(batch.map(\.event.offset) == [1, 1, 2, 2])
            #expect(batch.map(\.duplicate) == [false, false, false, true])
            #expect(batch[3].event.data == ["nested": ["deep": [1, 2]]])
            #expect(batch[0].event.epoch == info.epoch)

            let again = try await storage.appendEvents([EventAppend(stream: "app:a", type: "u", data: 0, idempotencyKey: "k1")], retentionCount: 100)
            #expect(again[0].duplicate && again[0].event.offset == 2 && again[0].event.type == "u")
            let sameKeyOtherStream = try await storage.appendEvents([EventAppend(stream: "app:b", type: "u", data: 0, idempotencyKey: "k1")], retentionCount: 100)
            #expect(!sameKeyOtherStream[0].duplicate && sameKeyOtherStream[0].event.offset == 2)

            let read = try await storage.readEvents(stream: "app:a", after: 0, limit: 10)
            #expect(read.map(\.offset) == [1, 2])
            #expect(read.map(\.type) == ["t", "u"])
            #expect(read[1].data == ["nested": ["deep": [1, 2]]])
            #expect(try await storage.readEvents(stream: "app:a", after: 1, limit: 10).map(\.offset) == [2])
            #expect(try await storage.readEvents(stream: "app:a", after: 0, limit: 1).map(\.offset) == [1])
            #expect(try await storage.readEvents(stream: "app:none", after: 0, limit: 10).isEmpty)
            #expect(try await storage.streamInfo("app:a").head == 2)
        }
    }

    @Test("retention: by count on append, by age on a sweep; the trimmed mark moves", arguments: Backend.allCases)
    func retention(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            for index in 1...25 {
                _ = try await storage.appendEvents([EventAppend(stream: "app:r", type: "t", data: .number(Double(index)))], retentionCount: 10)
            }
            let info = try await storage.streamInfo("app:r")
            #expect(info.head == 25 && info.trimmed == 15)
            #expect(try await storage.readEvents(stream: "app:r", after: 0, limit: 100).map(\.offset) == Array(16...25).map(UInt64.init))
            // One batch longer than the retention keeps only its own last events.
            let long = (1...15).map { EventAppend(stream: "app:long", type: "t", data: .number(Double($0))) }
            _ = try await storage.appendEvents(long, retentionCount: 10)
            #expect(try await storage.streamInfo("app:long").trimmed == 5)
            #expect(try await storage.readEvents(stream: "app:long", after: 0, limit: 100).map(\.offset) == Array(6...15).map(UInt64.init))

            _ = try await storage.appendEvents([EventAppend(stream: "app:old", type: "t", data: 1)], retentionCount: 10)
            let removed = try await storage.trimEvents(before: Date().addingTimeInterval(60))
            #expect(removed == 21)
            #expect(try await storage.streamInfo("app:old").trimmed == 1)
            #expect(try await storage.streamInfo("app:r").trimmed == 25)
            #expect(try await storage.readEvents(stream: "app:r", after: 0, limit: 100).isEmpty)
            // Offsets continue after trimming.
            let next = try await storage.appendEvents([EventAppend(stream: "app:r", type: "t", data: 26)], retentionCount: 10)
            #expect(next[0].event.offset == 26)
            #expect(try await storage.trimEvents(before: Date().addingTimeInterval(-3600)) == 0)
        }
    }

    @Test("4 writers on 2 nodes appending to one stream: offsets gapless and unique", arguments: Backend.allCases)
    func concurrentWriters(_ backend: Backend) async throws {
        try await withStorage(backend) { first, database in
            let second = try await database.open()
            let nodes: [any GreenroomStorage] = [first, second]
            let offsets = try await withThrowingTaskGroup(of: [UInt64].self) { group in
                for writer in 0..<4 {
                    let node = nodes[writer % 2]
                    group.addTask {
                        var mine: [UInt64] = []
                        for index in 0..<50 {
                            let batch = (0..<(index % 3 + 1)).map { n in
                                EventAppend(stream: "app:shared", type: "w\(writer)", data: .number(Double(index * 10 + n)))
                            }
                            mine += try await node.appendEvents(batch, retentionCount: 100_000).map(\.event.offset)
                        }
                        return mine
                    }
                }
                var all: [UInt64] = []
                for try await part in group { all += part }
                return all
            }
            try await second.close()
            let total = 4 * (0..<50).reduce(0) { $0 + $1 % 3 + 1 }
            #expect(offsets.count == total)
            #expect(Set(offsets).count == total)
            #expect(offsets.sorted() == Array(1...UInt64(total)))
            let stored = try await first.readEvents(stream: "app:shared", after: 0, limit: 1000)
            #expect(stored.map(\.offset) == Array(1...UInt64(total)))
            #expect(try await first.streamInfo("app:shared").head == UInt64(total))
        }
    }

    @Test("presence: put, replace, list, look up, count by prefix, remove, renew by node, an expired entry removed exactly once", arguments: Backend.allCases)
    func presence(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, database in
            let now = Date(timeIntervalSince1970: 1_900_000_000)
            func entry(_ client: String, node: String, expires: TimeInterval, data: RawJSON = [:]) -> PresenceEntry {
                PresenceEntry(stream: "app:p", clientId: client, userId: "u-\(client)", data: data, joinedAt: now,
                              expiresAt: now.addingTimeInterval(expires), node: node)
            }
            #expect(try await storage.putPresence(entry("c1", node: "n1", expires: 10, data: ["mood": "ok"])))
            #expect(try await storage.putPresence(entry("c2", node: "n2", expires: 10)))
            #expect(try await !storage.putPresence(entry("c1", node: "n1", expires: 10, data: ["mood": "great"])))
            let listed = try await storage.presence(stream: "app:p")
            #expect(listed.map(\.clientId) == ["c1", "c2"])
            #expect(listed.first?.data == ["mood": "great"])
            // A replaced entry keeps its user and its join time (its place in the list).
            var later = entry("c1", node: "n3", expires: 20, data: ["mood": "late"])
            later.userId = "someone-else"
            later.joinedAt = now.addingTimeInterval(5)
            #expect(try await !storage.putPresence(later))
            let replaced = try await storage.presenceEntry(stream: "app:p", clientId: "c1")
            #expect(replaced?.userId == "u-c1" && replaced?.joinedAt == now && replaced?.node == "n3" && replaced?.data == ["mood": "late"])
            #expect(try await storage.presence(stream: "app:p").map(\.clientId) == ["c1", "c2"])
            #expect(try await storage.putPresence(entry("c1", node: "n1", expires: 10, data: ["mood": "great"])) == false)
            #expect(try await storage.presence(stream: "app:none").isEmpty)
            #expect(try await storage.presenceEntry(stream: "app:p", clientId: "c2")?.node == "n2")
            #expect(try await storage.presenceEntry(stream: "app:p", clientId: "c3") == nil)
            #expect(try await storage.putPresence(entry("x_1", node: "n1", expires: 10)))
            #expect(try await storage.presenceCount(stream: "app:p", clientIdPrefix: "c") == 2)
            #expect(try await storage.presenceCount(stream: "app:p", clientIdPrefix: "x_") == 1)
            #expect(try await storage.presenceCount(stream: "app:p", clientIdPrefix: "") == 3)
            #expect(try await storage.presenceCount(stream: "app:p", clientIdPrefix: "%") == 0)
            _ = try await storage.removePresence(stream: "app:p", clientId: "x_1")

            try await storage.renewPresence(node: "n1", until: now.addingTimeInterval(100))
            // n2 stopped renewing: its entry expires; both nodes see it, and removing it on
            // both at once yields it to one.
            let second = try await database.open()
            let seen = try await storage.expiredPresence(before: now.addingTimeInterval(50))
            #expect(seen.map(\.clientId) == ["c2"])
            #expect(try await second.expiredPresence(before: now.addingTimeInterval(50)).map(\.clientId) == ["c2"])
            async let a = storage.removePresence(stream: "app:p", clientId: "c2")
            async let b = second.removePresence(stream: "app:p", clientId: "c2")
            let expired = [try await a, try await b].compactMap { $0 }
            try await second.close()
            #expect(expired.map(\.clientId) == ["c2"])
            #expect(try await storage.expiredPresence(before: now.addingTimeInterval(50)).isEmpty)
            #expect(try await storage.presence(stream: "app:p").map(\.clientId) == ["c1"])

            let removed = try await storage.removePresence(stream: "app:p", clientId: "c1")
            #expect(removed?.userId == "u-c1")
            #expect(try await storage.removePresence(stream: "app:p", clientId: "c1") == nil)
            #expect(try await storage.presence(stream: "app:p").isEmpty)
        }
    }

    @Test("migrations: from an empty database, from an earlier version with data, and by two nodes at once", arguments: Backend.allCases)
    func migrations(_ backend: Backend) async throws {
        try await withStorage(backend, migrate: false) { storage, database in
            #expect(try await storage.schemaVersion() == 0)
            let latest = storage.latestSchemaVersion
            #expect(latest == SQLiteStorage.migrations.count, "every backend numbers its versions as the embedded schema does")
            // Version 4, the last before events kept their audience beside them, with data
            // in it, then upgraded through every later version.
            let earlier = 4
            #expect(latest > earlier)
            try await storage.migrate(upTo: earlier)
            #expect(try await storage.schemaVersion() == earlier)
            try await storage.insertUser(Self.user("kept", "Kept"))
            // Events as the previous version wrote them (its events table), one of them for
            // an audience named only in its data.
            try await backend.insertVersion4Event(storage, stream: "app:m", seq: 1, data: 1)
            try await backend.insertVersion4Event(storage, stream: "app:m", seq: 2, data: ["audience": ["ann", "bo"], "text": "psst"])
            try await storage.migrate()
            #expect(try await storage.schemaVersion() == latest)
            #expect(try await storage.user(id: "kept")?.nickname == "Kept")
            let upgraded = try await storage.readEvents(stream: "app:m", after: 0, limit: 10)
            #expect(upgraded.map(\.offset) == [1, 2])
            #expect(upgraded.first?.isVisible(to: "anyone") == true)
            #expect(upgraded.last?.isVisible(to: "ann") == true && upgraded.last?.isVisible(to: "bo") == true)
            #expect(upgraded.last?.isVisible(to: "cy") == false)
            let next = try await storage.appendEvents([EventAppend(stream: "app:m", type: "t", data: 3)], retentionCount: 10)
            #expect(next.first?.event.offset == 3)
            try await storage.migrate()
            #expect(try await storage.schemaVersion() == latest)
        }
        // Two nodes migrating one empty database at the same time.
        guard let database = try await backend.freshDatabase() else { return }
        let nodes = [try await database.open(), try await database.open(), try await database.open()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for node in nodes { group.addTask { try await node.migrate() } }
            try await group.waitForAll()
        }
        for node in nodes { #expect(try await node.schemaVersion() == node.latestSchemaVersion) }
        try await nodes[0].insertUser(Self.user("x", "X"))
        #expect(try await nodes[1].user(id: "x") != nil)
        for node in nodes { try await node.close() }
        await database.cleanup()
    }
}
