import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension AppStreamTests {
    @Test("presence.list answers a page at a time by join time; paging with the last entry reads everyone once; a connection is present on at most 512 streams")
    func presencePagesAndCap() async throws {
        try await withServer({ $0.rateLimits.presence = nil }) { server in
            var clients: [GreenroomClient] = []
            for index in 0..<7 {
                let client = try await server.client("p\(index)", grants: ["app:*"])
                let _: PresenceEntry = try await client.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:lobby", data: ["n": .number(Double(index))]))
                clients.append(client)
            }
            let watcher = clients[0]
            func page(after: PresencePosition?, limit: Int?) async throws -> [PresenceEntry] {
                try await watcher.send(StreamOperation.presenceList, args: PresenceListArgs(stream: "app:lobby", after: after, limit: limit))
            }
            var seen: [PresenceEntry] = []
            while true {
                let next = try await page(after: seen.last.map(PresencePosition.init), limit: 3)
                seen += next
                if next.count < 3 { break }
            }
            #expect(seen.map(\.userId) == (0..<7).map { "p\($0)" })
            #expect(try await page(after: nil, limit: nil).count == 7)
            #expect(await refusal { _ = try await page(after: nil, limit: 0) } == .invalidParameterValue)

            let busy = clients[1]
            for index in 0..<511 {
                let _: PresenceEntry = try await busy.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:room-\(index)"))
            }
            let refused = await refusal {
                let _: PresenceEntry = try await busy.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:one-too-many"))
            }
            #expect(refused == .rateLimited)
            // Being present again where it is already is an update, not one more stream.
            let _: PresenceEntry = try await busy.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:lobby", data: ["n": 99]))
            #expect(busy.connectionState == .connected)
        }
    }
}
