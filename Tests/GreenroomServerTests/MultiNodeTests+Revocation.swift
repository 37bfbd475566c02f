import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension MultiNodeTests {
    @Test("a user deleted on one node is out on both: its connections on each close with 4101, its old token is refused by each, its memberships are gone; revoked tokens alike")
    func deletionAndRevocationAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice")
            let daveOnOne = try await one.client("dave")
            let daveOnTwo = try await two.client("dave")
            let oldToken = try await one.token("dave")
            _ = try await alice.createChannel(id: "club", name: "Club", members: ["dave"], isPublic: false)

            #expect(try await one.rest("DELETE", "/v1/users/dave").0 == 204)
            try await eventually("dave's connections on both nodes are closed") {
                DeletionTests.stoppedAsForbidden(daveOnOne) && DeletionTests.stoppedAsForbidden(daveOnTwo)
            }
            for node in [one, two] {
                let (status, body) = try await node.rest("GET", "/v1/connect", key: oldToken)
                #expect(status == 401 && body["error"]?["name"]?.stringValue == "tokenRevoked", "\(body)")
            }
            #expect(try await alice.channelController(for: "club").loadMembers().items.map(\.userId) == ["alice"])

            // Revoking erin's tokens on node two closes her connection on node one.
            let erin = try await one.client("erin")
            let erinsToken = try await one.token("erin")
            #expect(try await two.rest("POST", "/v1/users/erin/revoke-tokens").0 == 200)
            try await eventually("erin's connection on node one is closed") { DeletionTests.stoppedAsForbidden(erin) }
            for node in [one, two] {
                #expect(try await node.rest("GET", "/v1/connect", key: erinsToken).0 == 401)
            }
            #expect(try await two.rest("GET", "/v1/connect", key: try await two.token("erin")).0 == 200)
            await alice.disconnect()
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}
