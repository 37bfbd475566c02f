import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing

@Suite("Live events: custom items, counts and hosts' connections", .wholeRun)
struct LiveEventItemsTests {
    @Test("custom items: upsert, delete some, delete all; refusals by role, state and limits; 50 participants see each change; late entrants see the items")
    func customItems() async throws {
        try await HeavyTests.run {
            try await withServer { server in
                let host = try await server.client("host")
                let params = LiveEvent.CreateParams()
                params.customItems = ["sku": "A-1"]
                let event = try await host.createLiveEvent(config: params)
                let id = event.liveEventId
                try await event.enterAsHost()
                #expect(await refusal { try await event.updateCustomItems(customItems: ["a": "1"]) } == .actionNotAllowedInCurrentState)
                try await event.setEventReady()
                let names = (1...50).map { "p\($0)" }
                let participants = try await server.clients(names)
                var events: [LiveEvent] = []
                var recorders: [LiveEventRecorder] = []
                for name in names {
                    let live = try await participants[name]!.getLiveEvent(id: id)
                    try await live.enter()
                    recorders.append(await LiveEventRecorder.attached(to: live))
                    events.append(live)
                }
                #expect(await refusal { try await event.updateCustomItems(customItems: ["a": "1"]) } == .actionNotAllowedInCurrentState)
                try await event.startEvent()

                // The seed's calls, with their completion handlers.
                let done = Locked<[String]>([])
                event.updateCustomItems(customItems: ["price": "20", "sku": "A-2"]) { customItems, updatedKeys, error in
                    #expect(error == nil && customItems == ["price": "20", "sku": "A-2"])
                    done.withLock { $0.append("updated:\(updatedKeys ?? [])") }
                }
                try await eventually("the update completed") { done.value.count == 1 }
                event.deleteCustomItems(customItemKeys: ["sku", "missing"]) { customItems, deletedKeys, error in
                    #expect(error == nil && customItems == ["price": "20"])
                    done.withLock { $0.append("deleted:\(deletedKeys ?? [])") }
                }
                try await eventually("the delete completed") { done.value.count == 2 }
                try await event.updateCustomItems(customItems: ["color": "red"])
                event.deleteAllCustomItems { error in
                    #expect(error == nil)
                    done.withLock { $0.append("all") }
                }
                try await eventually("the delete of all completed") { done.value.count == 3 }
                #expect(done.value == [#"updated:["price", "sku"]"#, #"deleted:["sku"]"#, "all"])

                let expected = ["itemsUpdated:price,sku", "itemsDeleted:sku", "itemsUpdated:color", "itemsDeleted:color,price"]
                for recorder in recorders {
                    try await recorder.wait("every participant saw the four changes") { $0.filter { $0.hasPrefix("items") }.count == 4 }
                    #expect(await recorder.snapshot.filter { $0.hasPrefix("items") } == expected)
                    #expect(await MainActor.run { recorder.customItems } == [["price": "20", "sku": "A-2"], ["price": "20"], ["color": "red", "price": "20"], [:]])
                }
                #expect(events.allSatisfy { $0.customItems.isEmpty })

                // Refusals: a participant, a user who is no host; limits (refused whole).
                #expect(await refusal { try await events[0].updateCustomItems(customItems: ["x": "1"]) } == .actionNotAllowedForParticipant)
                let outsider = try await server.client("outsider").getLiveEvent(id: id)
                #expect(await refusal { try await outsider.deleteAllCustomItems() } == .actionNotAllowedForParticipant)
                let fifty = Dictionary(uniqueKeysWithValues: (1...50).map { ("k\($0)", "v") })
                try await event.updateCustomItems(customItems: fifty)
                #expect(await refusal { try await event.updateCustomItems(customItems: ["k51": "v", "k1": "changed"]) } == .invalidParameterValue)
                #expect(await refusal { try await event.updateCustomItems(customItems: [String(repeating: "k", count: 129): "v"]) } == .invalidParameterValue)
                #expect(await refusal { try await event.updateCustomItems(customItems: ["k1": String(repeating: "v", count: 1025)]) } == .invalidParameterValue)
                #expect(try await host.getLiveEvent(id: id).customItems == fifty)

                // A late participant sees the current items at once.
                let late = try await server.client("late").getLiveEvent(id: id)
                try await late.enter()
                #expect(late.customItems == fifty)

                try await event.endEvent()
                // No custom item event before `ongoing`: in the stream's log, every one follows `live.started`.
                let reader = try await server.client("host")
                let log = try await reader.subscribe(to: "live:\(id)", since: StreamPosition(offset: 0, epoch: nil))
                let types = try await withTimeout(.seconds(30), "the log up to the end") {
                    var types: [String] = []
                    for await stored in log.events {
                        types.append(stored.type)
                        if stored.type == LiveEventEventType.ended { break }
                    }
                    return types
                }
                let started = try #require(types.firstIndex(of: LiveEventEventType.started))
                let itemEvents = types.indices.filter { types[$0].hasPrefix("live.customItems") }
                #expect(itemEvents.count == 5 && itemEvents.allSatisfy { $0 > started })
                #expect(await refusal { try await event.updateCustomItems(customItems: ["k1": "after"]) } == .actionNotAllowedInCurrentState)
            }
        }
    }

    @Test("200 participants enter within a second: a handful of count events, exact final counts")
    func coalescedCounts() async throws {
        try await HeavyTests.run {
            try await withServer { server in
                let host = try await server.client("host")
                let params = LiveEvent.CreateParams()
                params.reactionKeys = ["clap"]
                let event = try await host.createLiveEvent(config: params)
                try await event.enterAsHost()
                let recorder = await LiveEventRecorder.attached(to: event)
                try await event.setEventReady()
                try await event.startEvent()
                var clients: [GreenroomClient] = []
                for index in 1...200 { clients.append(try await server.client("v\(index)")) }
                let entered = try await withThrowingTaskGroup(of: LiveEvent.self) { group in
                    for client in clients {
                        group.addTask {
                            let live = try await client.getLiveEvent(id: event.liveEventId)
                            try await live.enter()
                            try await live.increaseReactionCount(key: "clap")
                            return live
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                try await eventually("the host heard 200 participants") { event.participantCount == 200 }
                try await recorder.wait("the clap count reached 200") { $0.contains("reaction:clap=200") }
                let counts = await MainActor.run { recorder.counts }
                #expect(counts.count >= 1 && counts.count <= 6, "\(counts.count) count events for 200 entries")
                #expect(counts.last == ParticipantCountInfo(participantCount: 200, peakParticipantCount: 200, cumulativeParticipantCount: 200))
                #expect(await recorder.named("reaction:").count <= 6)
                #expect(event.reactionCounts == ["clap": 200])
                #expect(await refusal { try await entered[0].increaseReactionCount(key: "boo") } == .invalidParameterValue)

                // 50 exit, one of them comes back: the cumulative count does not grow.
                for live in entered.prefix(50) { try await live.exit() }
                try await entered[0].enter()
                try await eventually("the host heard the exits") { event.participantCount == 151 }
                let stored = try await host.getLiveEvent(id: event.liveEventId)
                #expect(stored.participantCount == 151 && stored.peakParticipantCount == 200 && stored.cumulativeParticipantCount == 200)
                #expect(event.peakParticipantCount == 200 && event.cumulativeParticipantCount == 200)
            }
        }
    }

    @Test("a host's connection cut and resumed within the grace period: disconnected, then connected, no exit; gone for good: exited after it")
    func hostGrace() async throws {
        // Cut and back within the grace period: a grace no reconnect on a loaded machine comes
        // near, so a come-back cannot turn into an exit and an entry.
        try await withServer({ $0.reconnectGrace = 120 }) { server in
            let (_, event, viewerClient, watching, viewer) = try await Self.hostAndViewer(server)
            let hostSide = await LiveEventRecorder.attached(to: event)

            #expect(server.server.disconnectClients(userId: "host") == 1)
            try await viewer.wait("the host came back") { $0.contains("hostConnect:host") }
            #expect(await viewer.named("host") == ["hostDisconnect:host", "hostConnect:host"])
            try await hostSide.wait("the host's SDK re-entered") { $0.contains("reconnect") }
            #expect(await hostSide.named("disconnect") == ["disconnect"])
            #expect(watching.hosts.map(\.state) == [.connected])
            // The host can still act as a host.
            try await event.startEvent()
            try await viewer.wait("the viewer saw the start") { $0.contains("start") }

            // The viewer's own connection cut: it re-enters by itself and keeps following.
            #expect(server.server.disconnectClients(userId: "viewer") == 1)
            try await viewer.wait("the viewer is back") { $0.contains("reconnect") }
            try await event.updateCustomItems(customItems: ["after": "cut"])
            try await viewer.wait("the viewer follows again") { $0.contains("itemsUpdated:after") }
            #expect(await viewer.named("host") == ["hostDisconnect:host", "hostConnect:host"])
            #expect(try await viewerClient.getLiveEvent(id: event.liveEventId).hosts.map(\.userId) == ["host"])
        }
        // Gone for good: disconnected first, then exited once the grace period has passed.
        try await withServer({ $0.reconnectGrace = 3; $0.presenceTTL = 3 }) { server in
            let (hostClient, event, viewerClient, watching, viewer) = try await Self.hostAndViewer(server)
            await hostClient.disconnect()
            try await viewer.wait("the host's exit after the grace period", timeout: .seconds(30)) { $0.contains("hostExit:host") }
            #expect(await viewer.named("host") == ["hostDisconnect:host", "hostExit:host"])
            #expect(watching.hosts.isEmpty)
            #expect(try await viewerClient.getLiveEvent(id: event.liveEventId).hosts.isEmpty)
        }
    }

    /// A ready live event entered by its host, and a viewer in it with its recorder.
    private static func hostAndViewer(_ server: TestServer) async throws -> (GreenroomClient, LiveEvent, GreenroomClient, LiveEvent, LiveEventRecorder) {
        let hostClient = try await server.client("host")
        let viewerClient = try await server.client("viewer")
        let event = try await hostClient.createLiveEvent(config: LiveEvent.CreateParams())
        try await event.enterAsHost()
        try await event.setEventReady()
        let watching = try await viewerClient.getLiveEvent(id: event.liveEventId)
        try await watching.enter()
        let viewer = await LiveEventRecorder.attached(to: watching)
        return (hostClient, event, viewerClient, watching, viewer)
    }

    @Test("a live event's events stream gives the changes its delegates are told, the same and in the same order")
    func eventsStream() async throws {
        try await withServer { server in
            let hostClient = try await server.client("host")
            let viewerClient = try await server.client("viewer")
            let event = try await hostClient.createLiveEvent(config: LiveEvent.CreateParams())
            try await event.enterAsHost()
            try await event.setEventReady()
            // Attached before the viewer enters: every change it hears comes after.
            let watching = try await viewerClient.getLiveEvent(id: event.liveEventId)
            let viewer = await LiveEventRecorder.attached(to: watching)
            try await watching.enter()
            try await event.stopVideo()
            try await event.startEvent()
            _ = try await event.updateCustomItems(customItems: ["a": "1"])
            _ = try await event.deleteCustomItems(customItemKeys: ["a"])
            try await event.updateLiveEventInfo(title: "Renamed")
            try await event.endEvent()
            try await viewer.wait("the viewer saw the end") { $0.contains("end") }
            let seen = await viewer.snapshot
            #expect(["hostVideoOff:host", "start", "itemsUpdated:a", "itemsDeleted:a", "info", "end"].allSatisfy(seen.contains), "\(seen)")
            try await viewer.expectEventsStreamMatches()
        }
    }
}
