import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// The media control plane over the SDK's WebSocket: rights are checked by Greenroom before
/// anything reaches Janus (a real Janus, run by the server as `serve --media` runs it).
@Suite("Media: rights and availability", .wholeRun)
struct MediaTests {
    @Test("without a media server, media operations answer unavailable and say how to enable media; the rest works")
    func withoutMedia() async throws {
        try await withServer { server in
            let (client, meeting, _) = try await server.joined("alice", meeting: "m", as: "alice", mode: .SEND_AND_RECV)
            let error = try await #require(throws: GreenroomError.self) {
                try await client.send(MediaOperation.publish, args: MediaPublishArgs(stream: "meeting:m", jsep: notAnOffer))
            }
            #expect(error.errorCode == .unavailable)
            #expect(error.message.contains("--media"))
            #expect(await refusal { _ = try await client.send(MediaOperation.subscribe, args: MediaSubscribeArgs(stream: "meeting:m")) } == .unavailable)
            try await meeting.enableWebcam()
            #expect(try await client.send(MeetingOperation.get, args: MeetingRef(meetingId: "m")).participants.first?.webcamOn == true)
        }
    }

    @Test("a meeting's RECV_ONLY and SIGNALLING_ONLY participants, an outsider, a live event's participant and a host before ready are refused; nothing reaches Janus")
    func refusals() async throws {
        guard let programs = MediaPrograms.find(for: "the media refusal tests", browsers: false) else { return }
        try await withMediaServer(programs) { server in
            let stream = "meeting:stage"
            let (alice, _, _) = try await server.joined("alice", meeting: "stage", as: "alice", mode: .SEND_AND_RECV)
            let (bob, _, _) = try await server.joined("bob", meeting: "stage", as: "bob", mode: .RECV_ONLY)
            let (carol, _, _) = try await server.joined("carol", meeting: "stage", as: "carol", mode: .SIGNALLING_ONLY)
            let dave = try await server.client("dave")
            func publish(_ client: GreenroomClient, _ stream: String) async -> ErrorCode? {
                await refusal { _ = try await client.send(MediaOperation.publish, args: MediaPublishArgs(stream: stream, jsep: notAnOffer)) }
            }
            #expect(await publish(bob, stream) == .mediaNotAllowedInMode)
            #expect(await publish(carol, stream) == .mediaNotAllowedInMode)
            #expect(await refusal { _ = try await carol.send(MediaOperation.subscribe, args: MediaSubscribeArgs(stream: stream)) } == .mediaNotAllowedInMode)
            #expect(await publish(dave, stream) == .meetingNotJoined)
            #expect(await publish(dave, "app:scores") == .invalidParameterValue)
            // The one allowed reaches Janus, which refuses what is not SDP.
            #expect(await publish(alice, stream) == .invalidParameterValue)
            #expect(try await server.publishersOnSFU(stream).isEmpty)
            #expect(try await bob.send(MediaOperation.feeds, args: MediaRoomRef(stream: stream)).feeds.isEmpty)

            let host = try await server.client("host")
            let created = try await host.send(LiveEventOperation.create, args: LiveEventCreateArgs(userIdsForHost: ["host"]))
            let live = created.stream
            _ = try await host.send(LiveEventOperation.enterAsHost, args: LiveEventHostArgs(liveEventId: created.liveEventId))
            #expect(await publish(host, live) == .actionNotAllowedInCurrentState)
            _ = try await host.send(LiveEventOperation.setReady, args: LiveEventRef(liveEventId: created.liveEventId))
            let viewer = try await server.client("viewer")
            #expect(await publish(viewer, live) == .actionNotAllowedInCurrentState)
            _ = try await viewer.send(LiveEventOperation.enter, args: LiveEventRef(liveEventId: created.liveEventId))
            #expect(await publish(viewer, live) == .actionNotAllowedForParticipant)
            #expect(await publish(host, live) == .invalidParameterValue)
            #expect(try await server.publishersOnSFU(live).isEmpty)
        }
    }
}
