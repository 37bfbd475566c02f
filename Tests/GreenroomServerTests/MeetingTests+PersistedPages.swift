import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension MeetingTests {
    @Test("a topic keeps its newest persisted messages only; they are read a page at a time, a sendOnly message only by its audience, and the SDK reads every page")
    func persistedMessagesArePagedAndCapped() async throws {
        try await withServer({ $0.pubSubPersistedPerTopic = 250 }) { server in
            let (host, one, _) = try await server.joined("u1", meeting: "p", as: "one", mode: .SEND_AND_RECV)
            let (reader, _, _) = try await server.joined("u2", meeting: "p", as: "two", mode: .SEND_AND_RECV)
            for index in 0..<300 {
                let options: PubSubPublishOptions = index % 50 == 7 ? ["persist": true, "sendOnly": ["one"]] : ["persist": true]
                try await one.pubsub.publish(topic: "log", message: "m\(index)", options: options)
            }
            // The oldest 50 are gone; of the newest 250, five went to "one" only.
            func page(_ client: GreenroomClient, after: String?, limit: Int? = nil) async throws -> [PubSubMessage] {
                try await client.send(MeetingOperation.messages, args: PubSubTopicArgs(meetingId: "p", topic: "log", after: after, limit: limit))
            }
            let first = try await page(reader, after: nil)
            #expect(first.count == 100 && first.first?.message == "m50", "\(first.first?.message ?? "none")")
            var all = first
            while let last = all.last?.id {
                let next = try await page(reader, after: last)
                all += next
                if next.count < 100 { break }
            }
            let expected = (50..<300).filter { $0 % 50 != 7 }.map { "m\($0)" }
            #expect(all.map(\.message) == expected)
            let everything = try await one.pubsub.getMessagesForTopic("log")
            #expect(everything.map(\.message) == (50..<300).map { "m\($0)" })
            #expect(try await page(host, after: nil, limit: 3).map(\.message) == ["m50", "m51", "m52"])
            #expect(await refusal { _ = try await page(reader, after: nil, limit: 101) } == .invalidParameterValue)
            #expect(await refusal { _ = try await page(reader, after: "nope") } == .notFound)
            let stored = try await server.server.core.storage.countRecords(RecordQuery(kind: "pubsub", scope: "p|log"))
            #expect(stored == 250)
        }
    }
}
