import Foundation
import Greenroom
@testable import GreenroomServer
import Testing

@Suite("Live events: states, roles, custom items, counts", .wholeRun)
struct LiveEventTests {
    @Test("the state machine; every refused transition and role with its code")
    func stateMachine() async throws {
        try await withServer { server in
            let users = try await server.clients(["host", "cohost", "viewer", "late"])
            let params = LiveEvent.CreateParams()
            params.title = "Launch"
            params.userIdsForHost = ["host", "cohost"]
            params.reactionKeys = ["like"]
            let hostEvent = try await users["host"]!.createLiveEvent(config: params)
            #expect(hostEvent.state == .created && hostEvent.customItems.isEmpty && hostEvent.createdBy == "host")
            let id = hostEvent.liveEventId
            let viewerEvent = try await users["viewer"]!.getLiveEvent(id: id)
            let cohostEvent = try await users["cohost"]!.getLiveEvent(id: id)

            #expect(await refusal { try await viewerEvent.enter() } == .actionNotAllowedInCurrentState)
            #expect(await refusal { try await viewerEvent.setEventReady() } == .actionNotAllowedForParticipant)
            #expect(await refusal { try await viewerEvent.enterAsHost() } == .actionNotAllowedForParticipant)
            #expect(await refusal { try await viewerEvent.updateLiveEventInfo(title: "Mine") } == .actionNotAllowedForParticipant)
            #expect(await refusal { try await hostEvent.startEvent() } == .actionNotAllowedInCurrentState)
            #expect(await refusal { try await hostEvent.endEvent() } == .actionNotAllowedInCurrentState)
            #expect(await refusal { _ = try await users["viewer"]!.getLiveEvent(id: "nope") } == .liveEventIdNotFound)

            try await hostEvent.enterAsHost(options: MediaOptions(turnVideoOn: false, turnAudioOn: true))
            #expect(hostEvent.hosts.map(\.userId) == ["host"] && hostEvent.hosts.first?.isVideoOn == false)
            try await hostEvent.setEventReady()
            #expect(hostEvent.state == .ready && hostEvent.setReadyAt != nil)
            #expect(await refusal { try await hostEvent.setEventReady() } == .actionNotAllowedInCurrentState)

            try await viewerEvent.enter()
            let viewer = await LiveEventRecorder.attached(to: viewerEvent)
            #expect(viewerEvent.state == .ready && viewerEvent.isEntered && viewerEvent.participantCount == 1)
            // A host may enter as a participant instead.
            #expect(await refusal { try await viewerEvent.startEvent() } == .actionNotAllowedForParticipant)
            try await cohostEvent.enterAsHost()
            try await hostEvent.startEvent(mediaOptions: MediaOptions(turnVideoOn: true, turnAudioOn: false))
            #expect(hostEvent.state == .ongoing)
            #expect(await refusal { try await hostEvent.startEvent() } == .actionNotAllowedInCurrentState)
            try await hostEvent.updateLiveEventInfo(title: "Launch, live")
            try await hostEvent.stopVideo()
            try await cohostEvent.exitAsHost()
            try await viewer.wait("the viewer heard the host changes") { $0.contains("hostExit:cohost") }
            #expect(viewerEvent.title == "Launch, live")
            #expect(viewerEvent.hosts.map(\.userId) == ["host"] && viewerEvent.hosts.first?.isVideoOn == false)

            try await hostEvent.endEvent()
            try await viewer.wait("the viewer heard the end") { $0.contains("end") }
            #expect(await viewer.snapshot.filter { !$0.hasPrefix("count") } == [
                "hostEnter:cohost", "start", "hostMute:host", "hostVideoOn:host", "info", "hostVideoOff:host", "hostExit:cohost", "end",
            ])
            #expect(!viewerEvent.isEntered && viewerEvent.state == .ended)
            #expect(hostEvent.state == .ended && hostEvent.endedBy == "host" && hostEvent.endedAt != nil && hostEvent.duration > 0)
            let after = try await users["late"]!.getLiveEvent(id: id)
            #expect(after.hosts.isEmpty && after.participantCount == 0 && after.peakParticipantCount == 1 && after.cumulativeParticipantCount == 1)
            #expect(await refusal { try await after.enter() } == .actionNotAllowedInCurrentState)
            #expect(await refusal { try await hostEvent.enterAsHost() } == .actionNotAllowedInCurrentState)
            #expect(await refusal { try await hostEvent.endEvent() } == .actionNotAllowedInCurrentState)
            #expect(await refusal { try await hostEvent.setEventReady() } == .actionNotAllowedInCurrentState)

            // Lists, with filters.
            let other = try await users["late"]!.createLiveEvent(config: LiveEvent.CreateParams())
            let ended = try await users["viewer"]!.createLiveEventListQuery(states: [.ended]).next()
            #expect(ended.map(\.liveEventId) == [id])
            let byLate = try await users["viewer"]!.createLiveEventListQuery(createdBy: "late").next()
            #expect(byLate.map(\.liveEventId) == [other.liveEventId] && byLate.first?.userIdsForHost == ["late"])
            let query = users["viewer"]!.createLiveEventListQuery(limit: 1)
            let first = try await query.next(), second = try await query.next()
            #expect(first.map(\.liveEventId) == [other.liveEventId] && second.map(\.liveEventId) == [id] && !query.hasNext)
        }
    }

    @Test("at most 6 hosts inside at once")
    func hostLimit() async throws {
        try await withServer { server in
            let hosts = (1...7).map { "h\($0)" }
            let clients = try await server.clients(hosts)
            let params = LiveEvent.CreateParams()
            params.userIdsForHost = hosts
            let id = try await clients["h1"]!.createLiveEvent(config: params).liveEventId
            for host in hosts.prefix(6) { try await clients[host]!.getLiveEvent(id: id).enterAsHost() }
            let seventh = try await clients["h7"]!.getLiveEvent(id: id)
            #expect(await refusal { try await seventh.enterAsHost() } == .actionNotAllowedInCurrentState)
            let first = try await clients["h1"]!.getLiveEvent(id: id)
            try await first.exitAsHost()
            try await seventh.enterAsHost()
            #expect(try await clients["h1"]!.getLiveEvent(id: id).hosts.count == 6)
        }
    }

    @Test("the participant count the event keeps follows every way in and out: a user on two connections counts once, a closed connection that no longer holds the entry changes nothing, the one that holds it does, exit, enter again, the end; every reading agrees with the roster")
    func keptCount() async throws {
        try await withServer { server in
            let host = try await server.client("host")
            let event = try await host.createLiveEvent(config: LiveEvent.CreateParams())
            try await event.setEventReady()
            let id = event.liveEventId
            func count() async throws -> Int { try await host.getLiveEvent(id: id).participantCount }
            func roster() async throws -> Int {
                try await server.server.core.storage.presence(stream: "live:\(id)").filter { $0.clientId.hasPrefix("participant:") }.count
            }
            func expect(_ inside: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                try await eventually(what) { try await count() == inside }
                #expect(try await roster() == inside, "\(what): the roster", sourceLocation: sourceLocation)
            }

            let annFirst = try await server.client("ann")
            try await annFirst.getLiveEvent(id: id).enter()
            let annSecond = try await server.client("ann")
            try await annSecond.getLiveEvent(id: id).enter()
            let bob = try await server.client("bob")
            let bobs = try await bob.getLiveEvent(id: id)
            try await bobs.enter()
            try await expect(2, "ann twice and bob")

            // Ann's first connection no longer holds her entry: closing it changes nothing.
            await annFirst.disconnect()
            try await Task.sleep(for: .milliseconds(300))
            try await expect(2, "ann's older connection closed")
            await annSecond.disconnect()
            try await expect(1, "ann's connection that held the entry closed")

            try await bobs.exit()
            try await expect(0, "bob exited")
            try await bobs.enter()
            try await expect(1, "bob entered again")
            let carol = try await server.client("carol")
            try await carol.getLiveEvent(id: id).enter()
            try await expect(2, "carol entered")
            let stored = try await host.getLiveEvent(id: id)
            #expect(stored.peakParticipantCount == 2 && stored.cumulativeParticipantCount == 3)

            try await event.endEvent()
            try await expect(0, "the end")
            let listed = try await host.createLiveEventListQuery(limit: 10).next()
            #expect(listed.first { $0.liveEventId == id }?.participantCount == 0)
        }
    }
}
