import Foundation
import GreenroomServer
import Testing

extension StorageConformanceTests {
    @Test("records: put, insert once, read, filter by tag, ids and another kind, page both ways, count, delete", arguments: Backend.allCases)
    func records(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            try await storage.transact(retentionCount: 100) { tx in
                for (index, id) in ["a", "b", "c", "d", "e"].enumerated() {
                    try await tx.put(Record(kind: "item", scope: "s1", id: id, sort: Int64(index % 3), tag: index % 2 == 0 ? "even" : "odd", data: #"{"n":\#(index)}"#))
                }
                try await tx.put(Record(kind: "item", scope: "s2", id: "a", data: "{}"))
                try await tx.put(Record(kind: "link", scope: "u1", id: "b", data: "{}"))
                try await tx.put(Record(kind: "link", scope: "u1", id: "e", tag: "x", data: "{}"))
                #expect(try await tx.insert(Record(kind: "item", scope: "s1", id: "f", sort: 9, data: "{}")))
                #expect(try await !tx.insert(Record(kind: "item", scope: "s1", id: "f", sort: 1, data: #"{"overwritten":true}"#)))
                // Replacing keeps one record.
                try await tx.put(Record(kind: "item", scope: "s1", id: "a", sort: 0, tag: "even", data: #"{"n":0,"v":2}"#))
                return true
            }
            #expect(try await storage.record(kind: "item", scope: "s1", id: "a")?.data == #"{"n":0,"v":2}"#)
            #expect(try await storage.record(kind: "item", scope: "s1", id: "f")?.sort == 9)
            #expect(try await storage.record(kind: "item", scope: "s3", id: "a") == nil)

            func ids(_ configure: (inout RecordQuery) -> Void) async throws -> [String] {
                var query = RecordQuery(kind: "item", scope: "s1")
                configure(&query)
                return try await storage.records(query).map(\.id)
            }
            // Order: sort, then id. a:0 b:1 c:2 d:0 e:1 f:9
            #expect(try await ids { _ in } == ["a", "d", "b", "e", "c", "f"])
            #expect(try await ids { $0.descending = true } == ["f", "c", "e", "b", "d", "a"])
            #expect(try await ids { $0.tags = ["odd"] } == ["d", "b"])
            #expect(try await ids { $0.tags = [] } == [])
            #expect(try await ids { $0.ids = ["c", "a", "zz"] } == ["a", "c"])
            #expect(try await ids { $0.via = ("link", "u1", nil) } == ["b", "e"])
            #expect(try await ids { $0.via = ("link", "u1", ["x"]) } == ["e"])
            #expect(try await ids { $0.sortBelow = 1 } == ["a", "d"])
            #expect(try await ids { $0.sortAbove = 1 } == ["c", "f"])
            #expect(try await ids { $0.after = RecordCursor(sort: 0, id: "d"); $0.limit = 2 } == ["b", "e"])
            #expect(try await ids { $0.after = RecordCursor(sort: 1, id: "e"); $0.descending = true } == ["b", "d", "a"])
            var all = RecordQuery(kind: "item", scope: "s1")
            #expect(try await storage.countRecords(all) == 6)
            all.tags = ["even"]
            #expect(try await storage.countRecords(all) == 3)
            let cursor = RecordCursor(sort: -3, id: "x|y")
            #expect(try RecordCursor.decode(cursor.encoded) == cursor)
            #expect(throws: GreenroomError.self) { try RecordCursor.decode("bm9wZQ") }

            let removed = try await storage.transact(retentionCount: 100) { tx in
                let one = try await tx.deleteRecord(kind: "item", scope: "s1", id: "a")
                let again = try await tx.deleteRecord(kind: "item", scope: "s1", id: "a")
                let rest = try await tx.deleteRecords(kind: "item", scope: "s1")
                return [one ? 1 : 0, again ? 1 : 0, rest]
            }
            #expect(removed == [1, 0, 5])
            #expect(try await storage.countRecords(RecordQuery(kind: "item", scope: "s1")) == 0)
            #expect(try await storage.record(kind: "item", scope: "s2", id: "a") != nil)
        }
    }

    @Test("write batches: a failing step is undone alone, its offsets reused; the rest commits with its events", arguments: Backend.allCases)
    func writeBatches(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            struct Refused: Error {}
            let outcomes = try await storage.write([
                WriteStep { tx in
                    try await tx.put(Record(kind: "k", id: "one", data: "1"))
                    _ = try await tx.append([EventAppend(stream: "app:w", type: "t", data: 1)])
                },
                WriteStep { tx in
                    try await tx.put(Record(kind: "k", id: "two", data: "2"))
                    _ = try await tx.append([EventAppend(stream: "app:w", type: "t", data: 2), EventAppend(stream: "app:v", type: "t", data: 2)])
                    throw Refused()
                },
                WriteStep { tx in
                    #expect(try await tx.record(kind: "k", scope: "", id: "two") == nil)
                    #expect(try await tx.record(kind: "k", scope: "", id: "one")?.data == "1")
                    _ = try await tx.append([EventAppend(stream: "app:w", type: "t", data: 3)])
                },
            ], retentionCount: 100)
            #expect(outcomes.count == 3)
            #expect((try? outcomes[0].get())?.map(\.offset) == [1])
            #expect((try? outcomes[2].get())?.map(\.offset) == [2])
            #expect((try? outcomes[2].get())?.first?.data == 3)
            if case .failure(let error) = outcomes[1] { #expect(error is Refused) } else { Issue.record("the failing step succeeded") }
            #expect(try await storage.readEvents(stream: "app:w", after: 0, limit: 10).map(\.data) == [1, 3])
            #expect(try await storage.streamInfo("app:w").head == 2)
            #expect(try await storage.streamInfo("app:v").head == 0)
            #expect(try await storage.record(kind: "k", scope: "", id: "two") == nil)

            // A step that is not isolated fails the whole batch: nothing of it is stored.
            await #expect(throws: Refused.self) {
                _ = try await storage.write([
                    WriteStep { tx in try await tx.put(Record(kind: "k", id: "three", data: "3")) },
                    WriteStep(isolated: false) { _ in throw Refused() },
                ], retentionCount: 100)
            }
            #expect(try await storage.record(kind: "k", scope: "", id: "three") == nil)
        }
    }

    @Test("transactions on 2 nodes: 40 concurrent read-modify-writes of one record lose nothing", arguments: Backend.allCases)
    func recordTransactions(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, database in
            let second = try await database.open()
            let nodes = [storage, second]
            try await storage.transact(retentionCount: 100) { tx in try await tx.put(Record(kind: "counter", id: "c", data: "0")) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let node = nodes[index % 2]
                    group.addTask {
                        try await node.transact(retentionCount: 100) { tx in
                            let value = Int(try await tx.record(kind: "counter", scope: "", id: "c")?.data ?? "0") ?? 0
                            try await tx.put(Record(kind: "counter", id: "c", data: String(value + 1)))
                            _ = try await tx.append([EventAppend(stream: "app:counter", type: "t", data: .number(Double(value + 1)))])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await storage.record(kind: "counter", scope: "", id: "c")?.data == "40")
            let events = try await storage.readEvents(stream: "app:counter", after: 0, limit: 100)
            #expect(events.map(\.offset) == Array(1...40))
            #expect(events.map { $0.data.numberValue ?? 0 } == (1...40).map(Double.init))
            try await second.close()
        }
    }
}
