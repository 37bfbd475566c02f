import Foundation
@testable import GreenroomServer
import Testing

extension StorageConformanceTests {
    @Test("retiring a stream removes its whole log, the batch's own appends too, and renews its epoch; offsets go on; a failed step's retirement is undone", arguments: Backend.allCases)
    func retireStream(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            _ = try await storage.appendEvents((1...3).map { EventAppend(stream: "channel:x", type: "t", data: .number(Double($0)), idempotencyKey: "k\($0)") },
                                               retentionCount: 100)
            let before = try await storage.streamInfo("channel:x")
            struct Refused: Error {}
            let outcomes = try await storage.write([
                WriteStep { transaction in
                    _ = try await transaction.append([EventAppend(stream: "channel:x", type: "gone", data: "bye")])
                    try await transaction.retire(stream: "channel:x")
                    throw Refused()
                },
            ], retentionCount: 100)
            #expect(outcomes.count == 1)
            #expect(try await storage.streamInfo("channel:x") == before)
            #expect(try await storage.readEvents(stream: "channel:x", after: 0, limit: 10).count == 3)

            let published = try await storage.write([
                WriteStep { transaction in
                    _ = try await transaction.append([EventAppend(stream: "channel:x", type: "gone", data: "bye")])
                    try await transaction.retire(stream: "channel:x")
                },
                WriteStep { transaction in
                    _ = try await transaction.append([EventAppend(stream: "channel:x", type: "anew", data: "hi", idempotencyKey: "k1")])
                },
            ], retentionCount: 100)
            let gone = try #require(try published.first?.get().first)
            #expect(gone.type == "gone" && gone.offset == 4 && gone.epoch == before.epoch)
            let anew = try #require(try published.last?.get().first)
            #expect(anew.type == "anew" && anew.offset == 5 && anew.epoch != before.epoch)
            let after = try await storage.streamInfo("channel:x")
            #expect(after.epoch == anew.epoch && after.head == 5 && after.trimmed == 4)
            // Only what came after the retirement is read; an old idempotency key is new again.
            #expect(try await storage.readEvents(stream: "channel:x", after: 0, limit: 10).map(\.type) == ["anew"])
        }
    }

    @Test("rewriting events changes the stored data of the events it picks, the batch's own appends too, and no other", arguments: Backend.allCases)
    func rewriteEvents(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            _ = try await storage.appendEvents([
                EventAppend(stream: "channel:y", type: "t", data: ["message": ["id": "m1", "text": "secret"]]),
                EventAppend(stream: "channel:y", type: "t", data: ["message": ["id": "m2", "text": "kept"]]),
                EventAppend(stream: "channel:z", type: "t", data: ["message": ["id": "m1", "text": "other stream"]]),
            ], retentionCount: 100)
            let changed = try await storage.transact(retentionCount: 100) { transaction -> Int in
                _ = try await transaction.append([EventAppend(stream: "channel:y", type: "t", data: ["message": ["id": "m1", "text": "secret again"]])])
                return try await transaction.rewriteEvents(stream: "channel:y", containing: "\"m1\"") { event in
                    guard event.data["message"]?["id"]?.stringValue == "m1" else { return nil }
                    return ["message": ["id": "m1", "text": ""]]
                }
            }
            #expect(changed == 2)
            let y = try await storage.readEvents(stream: "channel:y", after: 0, limit: 10)
            #expect(y.map { $0.data["message"]?["text"]?.stringValue } == ["", "kept", ""])
            #expect(y.map(\.offset) == [1, 2, 3])
            let z = try await storage.readEvents(stream: "channel:z", after: 0, limit: 10)
            #expect(z.first?.data["message"]?["text"]?.stringValue == "other stream")
        }
    }
}
