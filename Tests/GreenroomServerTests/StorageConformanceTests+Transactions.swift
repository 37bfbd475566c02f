import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension StorageConformanceTests {
    static func presence(_ client: String, stream: String = "meeting:t", user: String? = nil) -> PresenceEntry {
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        return PresenceEntry(stream: stream, clientId: client, userId: user ?? "u-\(client)", data: ["n": 1], joinedAt: now,
                             expiresAt: now.addingTimeInterval(60), node: "n1")
    }

    @Test("transactions: users and presence change inside a step, are seen by it, and are undone with it", arguments: Backend.allCases)
    func usersAndPresenceInTransactions(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            struct Refused: Error {}
            let outcomes = try await storage.write([
                WriteStep { tx async throws in
                    #expect(try await tx.insertUser(Self.user("u1", "One")))
                    #expect(try await !tx.insertUser(Self.user("u1", "Again")))
                    #expect(try await tx.putPresence(Self.presence("p1", user: "u1")))
                    #expect(try await tx.presenceCount(stream: "meeting:t", clientIdPrefix: "p") == 1)
                    #expect(try await tx.user(id: "u1")?.nickname == "One")
                    _ = try await tx.append([EventAppend(stream: "meeting:t", type: "joined", data: 1)])
                },
                WriteStep { tx async throws in
                    var user = try #require(try await tx.user(id: "u1"))
                    user.nickname = "Changed"
                    try await tx.saveUser(user)
                    #expect(try await tx.putPresence(Self.presence("p2")))
                    #expect(try await tx.removePresence(stream: "meeting:t", clientId: "p1")?.userId == "u1")
                    #expect(try await tx.deleteUser(id: "u1"))
                    _ = try await tx.append([EventAppend(stream: "meeting:t", type: "lost", data: 2)])
                    throw Refused()
                },
                WriteStep { tx async throws in
                    #expect(try await tx.user(id: "u1")?.nickname == "One")
                    #expect(try await tx.presence(stream: "meeting:t").map(\.clientId) == ["p1"])
                    #expect(try await tx.presenceEntry(stream: "meeting:t", clientId: "p2") == nil)
                },
            ], retentionCount: 100)
            if case .failure(let error) = outcomes[1] { #expect(error is Refused) } else { Issue.record("the failing step succeeded") }
            #expect(try await storage.user(id: "u1")?.nickname == "One")
            #expect(try await storage.presence(stream: "meeting:t").map(\.clientId) == ["p1"])
            #expect(try await storage.readEvents(stream: "meeting:t", after: 0, limit: 10).map(\.type) == ["joined"])

            // The storage's own calls are transactions of their own.
            var changed = try #require(try await storage.updateUser(id: "u1") { $0.nickname = "Uno" })
            #expect(changed.nickname == "Uno" && changed.createdAt == Date(timeIntervalSince1970: 1_800_000_000))
            changed = try #require(try await storage.user(id: "u1"))
            #expect(changed.nickname == "Uno")
            #expect(try await storage.removePresence(stream: "meeting:t", clientId: "p1") != nil)
            #expect(try await storage.deleteUser(id: "u1"))
        }
    }

    @Test("transactions: a user's presence entries on every stream are found by its id, its own writes included", arguments: Backend.allCases)
    func presenceOfUser(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            try await storage.putPresence(Self.presence("a", stream: "meeting:x", user: "dave"))
            try await storage.putPresence(Self.presence("b", stream: "app:lobby", user: "dave"))
            try await storage.putPresence(Self.presence("c", stream: "app:lobby", user: "erin"))
            let outcomes = try await storage.write([
                WriteStep { tx async throws in
                    try await tx.putPresence(Self.presence("d", stream: "live:e", user: "dave"))
                    let found = try await tx.presence(userId: "dave")
                    #expect(found.map { "\($0.stream)/\($0.clientId)" } == ["app:lobby/b", "live:e/d", "meeting:x/a"])
                    for entry in found { try await tx.removePresence(stream: entry.stream, clientId: entry.clientId) }
                    #expect(try await tx.presence(userId: "dave").isEmpty)
                    #expect(try await tx.presence(userId: "erin").map(\.clientId) == ["c"])
                },
            ], retentionCount: 100)
            if case .failure(let error) = outcomes[0] { Issue.record("the step failed: \(error)") }
            #expect(try await storage.presence(stream: "app:lobby").map(\.userId) == ["erin"])
            #expect(try await storage.presence(stream: "meeting:x").isEmpty)
        }
    }

    @Test("presence pages: by join time then client id, after a position, a page at a time", arguments: Backend.allCases)
    func presencePages(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let base = Date(timeIntervalSince1970: 1_900_000_000.125)
            // Two pairs joined at the same instant: the client id breaks the tie.
            for (client, offset) in [("d", 0.0), ("b", 1.0), ("a", 1.0), ("c", 2.0), ("e", 2.0)] {
                var entry = Self.presence(client, stream: "app:lobby")
                entry.joinedAt = base.addingTimeInterval(offset)
                try await storage.putPresence(entry)
            }
            try await storage.putPresence(Self.presence("z", stream: "app:other"))
            var seen: [String] = []
            var after: PresencePosition?
            while true {
                let page = try await storage.presence(stream: "app:lobby", after: after, limit: 2)
                seen += page.map(\.clientId)
                guard page.count == 2, let last = page.last else { break }
                after = PresencePosition(last)
            }
            #expect(seen == ["d", "a", "b", "c", "e"])
            #expect(try await storage.presence(stream: "app:lobby", after: nil, limit: 10).map(\.clientId) == seen)
        }
    }

    @Test("lock: 20 transactions on 2 nodes each add an entry while fewer than 5 are present: exactly 5 are", arguments: Backend.allCases)
    func lockedCheck(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, database in
            let second = try await database.open()
            let nodes = [storage, second]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    let node = nodes[index % 2]
                    group.addTask {
                        try await node.transact(retentionCount: 100) { tx in
                            try await tx.lock(stream: "meeting:limited")
                            guard try await tx.presenceCount(stream: "meeting:limited", clientIdPrefix: "") < 5 else { return }
                            // Widens the window between the check and the write, where an
                            // unlocked check lets others in.
                            try await Task.sleep(for: .milliseconds(10))
                            try await tx.putPresence(Self.presence("c\(index)", stream: "meeting:limited"))
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await storage.presenceCount(stream: "meeting:limited", clientIdPrefix: "") == 5)
            try await second.close()
        }
    }

    @Test("events keep their routing: an audience (empty too) and what they revoke, stored beside them, never in their data", arguments: Backend.allCases)
    func eventRouting(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            var secret = EventAppend(stream: "channel:r", type: "t", data: ["text": "psst"], idempotencyKey: "k")
            secret.audience = ["ann", "bo"]
            var nobody = EventAppend(stream: "channel:r", type: "t", data: 2)
            nobody.audience = []
            var left = EventAppend(stream: "channel:r", type: "member.left", data: 3)
            left.revokes = .users(["cy"])
            var gone = EventAppend(stream: "channel:r", type: "channel.deleted", data: 4)
            gone.revokes = .everyone
            let stored = try await storage.appendEvents([secret, nobody, left, gone, EventAppend(stream: "channel:r", type: "t", data: 5)], retentionCount: 100)
            let read = try await storage.readEvents(stream: "channel:r", after: 0, limit: 10)
            #expect(read.map(\.audience) == [["ann", "bo"], [], nil, nil, nil])
            #expect(read.map(\.revokes) == [nil, nil, .users(["cy"]), .everyone, nil])
            #expect(read.map(\.audience) == stored.map(\.event.audience))
            #expect(read.first?.data == ["text": "psst"])
            let again = try await storage.appendEvents([EventAppend(stream: "channel:r", type: "t", data: 0, idempotencyKey: "k")], retentionCount: 100)
            #expect(again.first?.duplicate == true && again.first?.event.audience == ["ann", "bo"])
        }
    }
}

extension StorageConformanceTests {
    @Test("two transactions on two nodes lock two streams in opposite orders: the deadlock's loser is run again, and nothing is lost or doubled", arguments: Backend.allCases)
    func deadlockRetried(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, database in
            let second = try await database.open()
            let nodes = [storage, second]
            let streams = ["app:left", "app:right"]
            // Both nodes connected and both streams made before the race starts.
            for (node, stream) in zip(nodes, streams) { _ = try await node.streamInfo(stream) }
            let runs = Locked(0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<2 {
                    let order = index == 0 ? streams : streams.reversed()
                    group.addTask {
                        try await nodes[index].transact(retentionCount: 100) { tx in
                            runs.withLock { $0 += 1 }
                            try await tx.lock(stream: order[0])
                            // Both hold their first lock before either asks for its second.
                            try await Task.sleep(for: .milliseconds(500))
                            try await tx.lock(stream: order[1])
                            _ = try await tx.append(order.map { EventAppend(stream: $0, type: "w\(index)", data: .number(Double(index))) })
                        }
                    }
                }
                try await group.waitForAll()
            }
            // PostgreSQL broke the deadlock by aborting one, which ran again; the others
            // serialise their writers, so there is none.
            #expect(runs.withLock { $0 } == (backend == .postgres ? 3 : 2))
            for stream in streams {
                let events = try await storage.readEvents(stream: stream, after: 0, limit: 10)
                #expect(events.map(\.offset) == [1, 2], "\(stream)")
                #expect(Set(events.map(\.type)) == ["w0", "w1"], "\(stream)")
            }
            try await second.close()
        }
    }
}
