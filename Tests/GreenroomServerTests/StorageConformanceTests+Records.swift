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

    @Test("write batches with text records: a failing step's words are never found; an entry added, changed and removed in one batch is found as the batch left it", arguments: Backend.allCases)
    func textBatches(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            struct Refused: Error {}
            @Sendable func text(_ id: String, _ words: String) -> Record {
                Record(kind: TextSearch.kind, scope: "c", id: id, sort: 1, tag: "ann", data: words)
            }
            func found(_ term: String) async throws -> [String] {
                try await storage.searchTexts(TextSearch(terms: [term])).map(\.id).sorted()
            }
            let outcomes = try await storage.write([
                WriteStep { tx in try await tx.put(text("m1", "apples pears")) },
                WriteStep { tx in
                    try await tx.put(text("m2", "apples plums"))
                    try await tx.put(text("m1", "figs"))
                    throw Refused()
                },
                WriteStep { tx in
                    try await tx.put(text("m3", "apples"))
                    try await tx.put(text("m3", "cherries"))
                    try await tx.put(text("m4", "apples kiwis"))
                    _ = try await tx.deleteRecord(kind: TextSearch.kind, scope: "c", id: "m4")
                },
            ], retentionCount: 100)
            #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true])
            #expect(try await found("apples") == ["m1"])
            #expect(try await found("pears") == ["m1"])
            for gone in ["figs", "plums", "kiwis"] { #expect(try await found(gone).isEmpty, "\(gone)") }
            #expect(try await found("cherries") == ["m3"])

            // A later batch changes and removes what the first wrote.
            _ = try await storage.write([WriteStep { tx in
                try await tx.put(text("m1", "figs"))
                _ = try await tx.deleteRecord(kind: TextSearch.kind, scope: "c", id: "m3")
            }], retentionCount: 100)
            #expect(try await found("apples").isEmpty)
            #expect(try await found("cherries").isEmpty)
            #expect(try await found("figs") == ["m1"])
            if let sqlite = storage as? SQLiteStorage {
                // FTS5 checks its index against the words in text_entries, and fails if they differ.
                try await sqlite.read { _ = try $0.query("INSERT INTO texts (texts, rank) VALUES ('integrity-check', 1)") }
            }
        }
    }

    @Test("write batches: a step sees what earlier steps wrote (read, listed, counted); a step that failed after its writes were sent leaves them unsent and the earlier ones stored; a record put and deleted in one batch is gone", arguments: Backend.allCases)
    func writesSeenAndUndone(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            struct Refused: Error {}
            let list = RecordQuery(kind: "k", scope: "s", limit: 10)
            let outcomes = try await storage.write([
                WriteStep { tx in
                    try await tx.put(Record(kind: "k", scope: "s", id: "a", sort: 1, data: "a1"))
                    _ = try await tx.append([EventAppend(stream: "app:d", type: "t", data: 1)])
                },
                WriteStep { tx in
                    #expect(try await tx.record(kind: "k", scope: "s", id: "a")?.data == "a1")
                    try await tx.put(Record(kind: "k", scope: "s", id: "a", sort: 1, data: "a2"))
                    try await tx.put(Record(kind: "k", scope: "s", id: "b", sort: 2, data: "b2"))
                    _ = try await tx.append([EventAppend(stream: "app:d", type: "t", data: 2)])
                    // A list sees the writes before it (on PostgreSQL it sends them first).
                    #expect(try await tx.records(list).map(\.data) == ["a2", "b2"])
                    #expect(try await tx.countRecords(list) == 2)
                    throw Refused()
                },
                WriteStep { tx in
                    #expect(try await tx.record(kind: "k", scope: "s", id: "a")?.data == "a1")
                    #expect(try await tx.record(kind: "k", scope: "s", id: "b") == nil)
                    #expect(try await tx.records(list).map(\.data) == ["a1"])
                    try await tx.put(Record(kind: "k", scope: "s", id: "c", sort: 3, data: "c3"))
                    #expect(try await tx.deleteRecord(kind: "k", scope: "s", id: "c"), "a record put in the batch existed")
                    #expect(try await !tx.insert(Record(kind: "k", scope: "s", id: "a", data: "again")))
                    _ = try await tx.append([EventAppend(stream: "app:d", type: "t", data: 3)])
                },
            ], retentionCount: 100)
            if case .failure(let error) = outcomes[1] { #expect(error is Refused) } else { Issue.record("the failing step succeeded") }
            #expect((try? outcomes[2].get())?.map(\.offset) == [2])
            #expect(try await storage.records(list).map(\.data) == ["a1"])
            #expect(try await storage.readEvents(stream: "app:d", after: 0, limit: 10).map(\.data) == [1, 3])
            #expect(try await storage.streamInfo("app:d").head == 2)
        }
    }

    @Test("write batches: a step that deleted what earlier steps wrote, then failed, leaves it written; one that read a record then failed leaves it as it was", arguments: Backend.allCases)
    func deletionsUndone(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            struct Refused: Error {}
            let outcomes = try await storage.write([
                WriteStep { tx in
                    try await tx.put(Record(kind: "k", scope: "u", id: "x", data: "x1"))
                    try await tx.put(Record(kind: "k", scope: "u", id: "y", data: "y1"))
                },
                WriteStep { tx in
                    #expect(try await tx.deleteRecord(kind: "k", scope: "u", id: "x"))
                    #expect(try await tx.deleteRecords(kind: "k", scope: "u") == 1)
                    #expect(try await tx.record(kind: "k", scope: "u", id: "y") == nil)
                    throw Refused()
                },
                WriteStep { tx in
                    #expect(try await tx.record(kind: "k", scope: "u", id: "x")?.data == "x1")
                    #expect(try await tx.record(kind: "k", scope: "u", id: "y")?.data == "y1")
                    #expect(try await tx.record(kind: "k", scope: "u", id: "z") == nil)
                    throw Refused()
                },
                WriteStep { tx in
                    #expect(try await tx.record(kind: "k", scope: "u", id: "z") == nil)
                    try await tx.put(Record(kind: "k", scope: "u", id: "z", data: "z1"))
                },
            ], retentionCount: 100)
            #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, false, true])
            let stored = try await storage.records(RecordQuery(kind: "k", scope: "u", limit: 10))
            #expect(stored.map(\.data) == ["x1", "y1", "z1"])
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

    @Test("prefetched reads: records a step names are read for the batch beforehand, locked like its own reads (40 read-modify-writes on 2 nodes lose nothing); one found missing can be inserted and is then seen; streams named beforehand are locked as appends lock them", arguments: Backend.allCases)
    func prefetchedReads(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, database in
            let second = try await database.open()
            let nodes = [storage, second]
            try await storage.transact(retentionCount: 100) { tx in try await tx.put(Record(kind: "counter", id: "p", data: "0")) }
            let counter = RecordKey(kind: "counter", id: "p")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let node = nodes[index % 2]
                    let marker = RecordKey(kind: "marker", scope: "p", id: "m\(index)")
                    group.addTask {
                        let outcomes = try await node.write([WriteStep(prefetch: [counter, marker], streams: ["app:prefetched"]) { tx in
                            let value = Int(try await tx.record(kind: "counter", scope: "", id: "p")?.data ?? "0") ?? 0
                            try await tx.put(Record(kind: "counter", id: "p", data: String(value + 1)))
                            #expect(try await tx.record(kind: "marker", scope: "p", id: marker.id) == nil)
                            #expect(try await tx.insert(Record(kind: "marker", scope: "p", id: marker.id, data: "\(value + 1)")))
                            #expect(try await tx.record(kind: "marker", scope: "p", id: marker.id)?.data == "\(value + 1)")
                            _ = try await tx.append([EventAppend(stream: "app:prefetched", type: "t", data: .number(Double(value + 1)))])
                        }], retentionCount: 100)
                        _ = try outcomes[0].get()
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await storage.record(kind: "counter", scope: "", id: "p")?.data == "40")
            let markers = try await storage.records(RecordQuery(kind: "marker", scope: "p", limit: 100))
            #expect(Set(markers.map(\.data)) == Set((1...40).map(String.init)))
            let events = try await storage.readEvents(stream: "app:prefetched", after: 0, limit: 100)
            #expect(events.map(\.offset) == Array(1...40) && events.map { $0.data.numberValue ?? 0 } == (1...40).map(Double.init),
                    "streams locked beforehand: offsets gapless, in the order of the counter")
            try await second.close()
        }
    }

    @Test("a batch that prefetches more records than one statement reads (2,100 keys, 600 of them missing) finds each record in every part, knows the missing ones are missing, and appends to the streams it named, an existing one after its head in its epoch and a new one from 1", arguments: Backend.allCases)
    func prefetchedReadsInParts(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let id: @Sendable (Int) -> String = { "b" + String($0 + 10_000) }
            try await storage.transact(retentionCount: 100) { tx in
                for index in 0..<1_500 { try await tx.put(Record(kind: "bulk", id: id(index), data: "\(index)")) }
                _ = try await tx.append([EventAppend(stream: "app:old", type: "t", data: .number(1))])
            }
            let before = try await storage.readEvents(stream: "app:old", after: 0, limit: 10)
            let keys = (0..<2_100).map { RecordKey(kind: "bulk", id: id($0)) }
            if let postgres = storage as? PostgresStorage {
                // What the prefetch itself leaves the transaction knowing, before any step
                // reads: every record of both statements, each missing key, both streams.
                try await postgres.writeTransaction { connection in
                    let tx = PostgresTransaction(storage: postgres, connection: connection)
                    try await tx.prefetch(Set(keys), lockingStreams: ["app:old", "app:new"])
                    let read = keys.filter { if case .read = tx.deferred.known($0) { true } else { false } }
                    let absent = keys.filter { if case .absent = tx.deferred.known($0) { true } else { false } }
                    #expect(read == Array(keys[..<1_500]) && absent == Array(keys[1_500...]))
                    #expect(tx.batch.info("app:old") == StreamInfo(epoch: before.first?.epoch ?? "", head: 1, trimmed: 0))
                    #expect(tx.batch.info("app:new")?.head == 0)
                }
            }
            let outcomes = try await storage.write([WriteStep(prefetch: keys, streams: ["app:old", "app:new"]) { tx in
                for index in [0, 999, 1_000, 1_499] {
                    #expect(try await tx.record(kind: "bulk", scope: "", id: id(index))?.data == "\(index)")
                }
                for index in [1_500, 2_099] {
                    #expect(try await tx.record(kind: "bulk", scope: "", id: id(index)) == nil)
                }
                try await tx.put(Record(kind: "bulk", id: id(2_099), data: "new"))
                _ = try await tx.append([EventAppend(stream: "app:old", type: "t", data: .number(2)),
                                         EventAppend(stream: "app:new", type: "t", data: .number(1))])
            }], retentionCount: 100)
            _ = try outcomes[0].get()
            let old = try await storage.readEvents(stream: "app:old", after: 0, limit: 10)
            #expect(old.map(\.offset) == [1, 2])
            #expect(Set(old.map(\.epoch)) == Set(before.map(\.epoch)) && before.count == 1)
            let new = try await storage.readEvents(stream: "app:new", after: 0, limit: 10)
            #expect(new.map(\.offset) == [1])
            #expect(try await storage.record(kind: "bulk", scope: "", id: id(2_099))?.data == "new")
            #expect(try await storage.countRecords(RecordQuery(kind: "bulk", scope: "", limit: 3_000)) == 1_501)
        }
    }
}
