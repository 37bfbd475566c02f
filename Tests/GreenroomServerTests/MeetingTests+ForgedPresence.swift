import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension MeetingTests {
    @Test("a client's own presence entry shaped like a roster entry is refused on a meeting's and an online stream, and is no participant")
    func forgedPresenceIsNoParticipant() async throws {
        try await withServer { server in
            let (_, host, _) = try await server.joined("alice", meeting: "stage", as: "alice", mode: .SEND_AND_RECV, grants: ["allow_mod"])
            let (mallory, _, _) = try await server.joined("mallory", meeting: "stage", as: "mallory", mode: .RECV_ONLY, grants: ["app:lobby"])
            let forged: RawJSON = ["role": "participant", "participant": [
                "participantId": "ghost", "userId": "mallory", "name": "Ghost", "mode": "SEND_AND_RECV", "metaData": [:], "micOn": false,
                "webcamOn": false, "isModerator": true, "state": "joined", "joinedAt": "2026-11-26T00:00:00.000Z",
            ]]
            for stream in ["meeting:stage", "online:mallory"] {
                let code = await refusal {
                    let _: PresenceEntry = try await mallory.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: stream, data: forged))
                }
                #expect(code == .permissionDenied, "\(stream): \(String(describing: code))")
            }
            let (_, participants) = try await server.rest("GET", "/v1/meetings/stage")
            let ids = participants["participants"]?.arrayValue?.compactMap { $0["participantId"]?.stringValue } ?? []
            #expect(Set(ids) == ["alice", "mallory"], "\(participants)")
            #expect(participants["participantCount"]?.numberValue == 2)
            let listed: [PresenceEntry] = try await mallory.send(StreamOperation.presenceList, args: PresenceListArgs(stream: "meeting:stage"))
            #expect(!listed.contains { $0.data["participant"]?["participantId"]?.stringValue == "ghost" })
            // App streams keep their presence as before.
            let entry: PresenceEntry = try await mallory.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:lobby", data: forged))
            #expect(entry.stream == "app:lobby")
            _ = host
        }
    }
}
