import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import Logging

/// What the owner of a room (a meeting, a live event) lets the caller do with media.
package struct MediaRights: Sendable {
    /// How the caller is named in the room: its participant id in a meeting, its user id in
    /// a live event.
    package var participantId: String
    /// Why the caller may not publish, or `nil` when it may.
    package var publishRefusal: GreenroomError?
    /// Why the caller may not receive, or `nil` when it may.
    package var receiveRefusal: GreenroomError?

    /// The caller named `participantId`, refused publishing or receiving for the reasons given.
    package init(participantId: String, publishRefusal: GreenroomError?, receiveRefusal: GreenroomError?) {
        self.participantId = participantId
        self.publishRefusal = publishRefusal
        self.receiveRefusal = receiveRefusal
    }
}

/// The owner of a kind of media room: it decides who may publish and receive, from its own
/// state (a meeting participant's mode, a live event's state and hosts).
package protocol MediaRoomRules: Sendable {
    /// The caller's rights in the room of `roomId`; throws when the caller is not in it.
    func mediaRights(_ caller: Caller, roomId: String) async throws -> MediaRights
    /// The SFU reports that a feed's audio or video started or stopped arriving (a track
    /// stopped, replaced by none, or back): the owner's media state follows it.
    func mediaFlowChanged(_ feed: MediaFeed, roomId: String, kind: MediaKind, flowing: Bool) async
}

/// A room on the SFU, as stored: the Janus that holds it, its room number there and the
/// secret that manages it. Every node routes the room's signalling to that Janus.
package struct MediaRoomRecord: StoredRecord {
    package static let recordKind = "media-room"
    package var stream: String
    package var room: UInt64
    package var secret: String
    /// The URL of the Janus that holds the room; `nil` in rooms stored before several Janus
    /// servers were supported, which are on the first configured one.
    package var janus: String?

    package var recordId: String { stream }
}

/// A feed published in a room, stored with the `media.published` event that announced it
/// and removed with the `media.unpublished` one.
package struct MediaFeedRecord: StoredRecord {
    package static let recordKind = "media-feed"
    package var stream: String
    package var feed: MediaFeed

    package var recordScope: String { stream }
    package var recordId: String { String(feed.feedId) }
}

/// The media control plane: Greenroom's side of the SFU. It makes a Janus VideoRoom for each
/// meeting and live event that uses media, holds the Janus handles of this node's clients
/// (one to publish, one to receive, per client and room), relays their signalling after the
/// room's owner has checked their rights, and announces feeds on the room's stream.
///
/// With several Janus servers, a new room is placed on the connected one this node has placed
/// fewest rooms on (ties broken at random, so that nodes spread theirs too), and stays there:
/// its record names the Janus, and every node sends the room's signalling to it. While that
/// Janus is away the room's media answers `unavailable`; when it is back the room is made
/// again on it. Rooms on the other servers go on.
///
/// Rights are enforced here, at the SFU: a client never holds a Janus handle or room secret,
/// so a refused publish never reaches Janus, and a participant that loses the right has its
/// publisher removed by Greenroom.
package final class MediaPlane: Sendable {
    /// The SFUs, in configured order; none when the server runs without media.
    package let gateways: [JanusGateway]
    package let storage: any GreenroomStorage
    package let events: EventLog
    package let logger: Logger
    /// The video bitrate cap of the rooms it makes, in kbps (``MediaNetworkSettings/maxPublisherBitrate``).
    package let maxPublisherBitrate: Int?
    /// The rules of each kind of room.
    private let rules = Locked<[StreamKind: any MediaRoomRules]>([:])

    package struct MemberKey: Hashable, Sendable {
        package let clientId: String
        package let stream: String

        /// The member that `clientId`'s connection is in the room of `stream`.
        package init(clientId: String, stream: String) {
            self.clientId = clientId
            self.stream = stream
        }
    }

    /// One client's handles in one room, on the room's Janus.
    package struct Member: Sendable {
        /// The URL of the Janus the handles are on.
        var janus = ""
        var publisher: UInt64?
        var feed: MediaFeed?
        /// Whether its feed was announced (its media is up).
        var announced = false
        var subscriber: UInt64?
        /// The video received, by feed: its `mid` in the receiving session.
        var receivedVideo: [UInt64: String] = [:]
        /// The simulcast layer (0–2) of each feed received with `auto`, as chosen now.
        var autoLayers: [UInt64: Int] = [:]
        /// When Janus last said the receiving session loses packets.
        var slowSince: Date?
        /// Whether a task moves its `auto` feeds back up.
        var raising = false
        /// Who the member is in the room, once it reported.
        var who: (participantId: String, userId: String)?
        /// Its last `media.reportStats`, and when it came.
        var report: MediaStatsArgs?
        var reportedAt: Date?
        /// When Janus last said one of its handles drops packets.
        var slowlinkAt: Date?
        /// The connection quality announced last, and when.
        var announcedQuality: ConnectionQuality?
        var announcedAt: Date?
    }

    private struct State {
        /// The rooms made on their SFU in its current session, by stream.
        var rooms: [String: MediaRoomRecord] = [:]
        var members: [MemberKey: Member] = [:]
        /// A handle for room management on each SFU, by URL, attached on first use.
        var managers: [String: UInt64] = [:]
        /// The feeds talking now, by room, as last announced.
        var talking: [String: Set<UInt64>] = [:]
        /// The feeds announced quiet because their audio stopped while Janus held them
        /// talking, by room.
        var silenced: [String: Set<UInt64>] = [:]
        /// Whether a task looks at the connection quality of reporting members.
        var qualitySweeping = false
    }

    private let state = Locked(State())

    /// The media rooms this node holds, each with members.
    package var roomCount: Int { state.withLock { $0.rooms.count } }

    package init(gateways: [JanusGateway], storage: any GreenroomStorage, events: EventLog, logger: Logger, maxPublisherBitrate: Int? = nil) {
        self.gateways = gateways
        self.maxPublisherBitrate = maxPublisherBitrate
        self.storage = storage
        self.events = events
        self.logger = logger
        for gateway in gateways {
            let url = gateway.url
            gateway.onSessionLost { [weak self] in
                guard let self else { return }
                Task { await self.sessionLost(url) }
            }
        }
    }

    /// Registers the rules of a kind of room.
    package func register(_ kind: StreamKind, rules: any MediaRoomRules) {
        self.rules.withLock { $0[kind] = rules }
    }

    package static let disabled = GreenroomError(
        .unavailable, "media is not enabled on this server: run `greenroom serve --media` (Janus on PATH) or `--janus-url ws://…`")

    /// Throws `unavailable` when the server runs without media.
    package func requireEnabled() throws {
        guard !gateways.isEmpty else { throw Self.disabled }
    }

    /// The connected gateway to the Janus at `url` (the first configured one for `nil`).
    package func gateway(_ url: String?) throws -> JanusGateway {
        try requireEnabled()
        let found = if let url { gateways.first { $0.url == url } } else { gateways.first }
        guard let gateway = found else {
            throw GreenroomError(.unavailable, "this media room is on the Janus at \(url ?? "?"), which this node does not use: give every node the same Janus URLs")
        }
        guard gateway.isReady else { throw JanusGateway.unavailable }
        return gateway
    }

    /// The rules of the room of `stream` and the room's id (a meeting's, a live event's),
    /// or `nil` when no registered kind of room owns `stream`.
    package func owner(of stream: String) -> (rules: any MediaRoomRules, roomId: String)? {
        let kind = StreamKind(of: stream)
        guard let id = kind.id(in: stream), let rules = rules.withLock({ $0[kind] }) else { return nil }
        return (rules, id)
    }

    /// The caller's rights in the room of `stream`.
    package func rights(_ caller: Caller, stream: String) async throws -> MediaRights {
        guard let owner = owner(of: stream) else {
            throw GreenroomError(.invalidParameterValue, "\(stream) is not a meeting's or live event's stream")
        }
        return try await owner.rules.mediaRights(caller, roomId: owner.roomId)
    }

    package func member(_ key: MemberKey) -> Member? { state.withLock { $0.members[key] } }

    package func update(_ key: MemberKey, _ body: (inout Member) -> Void) {
        state.withLock { state in
            var member = state.members[key] ?? Member()
            body(&member)
            state.members[key] = member.publisher == nil && member.subscriber == nil ? nil : member
        }
    }

    /// The members of this node in `stream`, or of `clientId` in any room.
    package func members(stream: String? = nil, clientId: String? = nil) -> [(MemberKey, Member)] {
        state.withLock { state in
            state.members.filter { key, _ in (stream == nil || key.stream == stream) && (clientId == nil || key.clientId == clientId) }
                .map { ($0.key, $0.value) }
        }
    }

    /// Claims the connection quality sweep: `true` when none ran.
    package func claimQualitySweep() -> Bool {
        state.withLock { state in
            defer { state.qualitySweeping = true }
            return !state.qualitySweeping
        }
    }

    /// Ends the connection quality sweep when no member reports: `true` when it ended.
    package func releaseQualitySweep() -> Bool {
        state.withLock { state in
            guard !state.members.values.contains(where: { $0.reportedAt != nil }) else { return false }
            state.qualitySweeping = false
            return true
        }
    }

    /// Notes whether a feed talks; returns whether that is a change.
    package func markTalking(stream: String, feedId: UInt64, _ talking: Bool) -> Bool {
        state.withLock { state in
            talking ? state.talking[stream, default: []].insert(feedId).inserted : state.talking[stream]?.remove(feedId) != nil
        }
    }

    /// Notes that a talking feed's audio stopped (`true`: returns whether it was talking) or
    /// came back (`false`: returns whether it had been silenced so).
    package func markSilenced(stream: String, feedId: UInt64, _ silenced: Bool) -> Bool {
        state.withLock { state in
            if silenced {
                guard state.talking[stream]?.contains(feedId) == true else { return false }
                state.silenced[stream, default: []].insert(feedId)
                return true
            }
            return state.silenced[stream]?.remove(feedId) != nil
        }
    }

    // MARK: Rooms

    /// The room of `stream` and the gateway to its Janus; a new room is placed, stored and
    /// made on first use, one known from storage is made again on its Janus when needed.
    package func room(_ stream: String) async throws -> (record: MediaRoomRecord, gateway: JanusGateway) {
        try requireEnabled()
        if let known = state.withLock({ $0.rooms[stream] }) { return (known, try gateway(known.janus)) }
        let placement = place()
        let record = try await events.transact { transaction in
            if let existing = try await transaction.load(MediaRoomRecord.self, id: stream) { return existing }
            guard let placement else { throw JanusGateway.unavailable }
            let record = MediaRoomRecord(stream: stream, room: Self.randomId(), secret: RandomHex.string(bytes: 16), janus: placement.url)
            _ = try await transaction.insert(try record.asRecord())
            return try await transaction.load(MediaRoomRecord.self, id: stream) ?? record
        }
        let gateway = try gateway(record.janus)
        try await create(record, gateway: gateway)
        state.withLock { $0.rooms[stream] = record }
        return (record, gateway)
    }

    /// The connected gateway this node has placed fewest of its current rooms on, ties
    /// broken at random; `nil` when none is connected.
    private func place() -> JanusGateway? {
        let load = state.withLock { state in
            Dictionary(grouping: state.rooms.values, by: { $0.janus ?? gateways.first?.url ?? "" }).mapValues(\.count)
        }
        let ready = gateways.filter(\.isReady).shuffled()
        return ready.min { load[$0.url, default: 0] < load[$1.url, default: 0] }
    }

    /// Makes the room on the SFU (again, after Janus restarted); one that exists is fine.
    package func create(_ record: MediaRoomRecord, gateway: JanusGateway) async throws {
        let manager = try await managerHandle(gateway)
        var create: [String: RawJSON] = [
            "request": "create", "room": .number(Double(record.room)), "secret": .string(record.secret),
            "description": .string(record.stream), "publishers": 16, "is_private": true,
            "audiolevel_event": true, "notify_joining": false, "permanent": false,
        ]
        if let kbps = maxPublisherBitrate {
            create["bitrate"] = .number(Double(kbps * 1_000))
            create["bitrate_cap"] = true
        }
        do {
            _ = try await gateway.plugin(manager, create)
        } catch let error as JanusError where error.code == JanusError.roomExists {}
    }

    /// Forgets the room of `stream` and destroys it on the SFU: the meeting or live event
    /// ended. This node's clients lose their handles; the stored feeds go.
    package func roomEnded(_ stream: String) async {
        let local = members(stream: stream)
        state.withLock { state in
            for (key, _) in local { state.members[key] = nil }
            state.rooms[stream] = nil
            state.talking[stream] = nil
            state.silenced[stream] = nil
        }
        for (_, member) in local {
            guard let gateway = try? gateway(member.janus) else { continue }
            for handle in [member.publisher, member.subscriber].compactMap({ $0 }) { await gateway.detach(handle) }
        }
        do {
            let record = try await events.transact { transaction -> MediaRoomRecord? in
                _ = try await transaction.deleteRecords(kind: MediaFeedRecord.recordKind, scope: stream)
                let record = try await transaction.load(MediaRoomRecord.self, id: stream)
                if record != nil { try await transaction.remove(MediaRoomRecord.self, id: stream) }
                return record
            }
            if let record, let gateway = try? gateway(record.janus), let manager = try? await managerHandle(gateway) {
                _ = try? await gateway.plugin(manager, ["request": "destroy", "room": .number(Double(record.room)), "secret": .string(record.secret)])
            }
        } catch {
            logger.error("cannot forget the media room of \(stream): \(error)")
        }
    }

    /// The ids of the feeds Janus itself has in the room of `stream` (none when the room was
    /// never made there): what the SFU forwards, whatever Greenroom's records say.
    package func publishersOnSFU(_ stream: String) async throws -> [UInt64] {
        try requireEnabled()
        guard let record = try await storage.load(MediaRoomRecord.self, id: stream) else { return [] }
        let gateway = try gateway(record.janus)
        let manager = try await managerHandle(gateway)
        do {
            let listed = try await gateway.plugin(manager, ["request": "listparticipants", "room": .number(Double(record.room))])
            return (listed.data["participants"]?.arrayValue ?? []).compactMap { participant in
                participant["publisher"]?.boolValue == true ? participant["id"]?.numberValue.flatMap(UInt64.init(exactly:)) : nil
            }
        } catch let error as JanusError where error.code == JanusError.noSuchRoom {
            return []
        }
    }

    package func managerHandle(_ gateway: JanusGateway) async throws -> UInt64 {
        if let handle = state.withLock({ $0.managers[gateway.url] }) { return handle }
        let handle = try await gateway.attach { _ in }
        let kept = state.withLock { state -> UInt64 in
            if let other = state.managers[gateway.url] { return other }
            state.managers[gateway.url] = handle
            return handle
        }
        if kept != handle { await gateway.detach(handle) }
        return kept
    }

    /// An SFU's session is gone (Janus died or the connection dropped): every handle of this
    /// node on it is gone with it, so their feeds are announced gone; its rooms are made again
    /// on next use, on the same Janus.
    package func sessionLost(_ url: String) async {
        let first = gateways.first?.url
        let lost = state.withLock { state -> [(MemberKey, Member)] in
            let lost = state.members.filter { $0.value.janus == url }
            let rooms = state.rooms.filter { ($0.value.janus ?? first) == url }.keys
            for key in lost.keys { state.members[key] = nil }
            for stream in rooms {
                state.rooms[stream] = nil
                state.talking[stream] = nil
                state.silenced[stream] = nil
            }
            state.managers[url] = nil
            return lost.map { ($0.key, $0.value) }
        }
        for (key, member) in lost {
            guard let feed = member.feed else { continue }
            await announceGone(feed, stream: key.stream, reason: "mediaServerLost")
        }
    }

    /// Removes a feed's record and announces it gone, in one transaction.
    package func announceGone(_ feed: MediaFeed, stream: String, reason: String) async {
        do {
            try await events.transact { transaction in
                guard try await transaction.remove(MediaFeedRecord.self, scope: stream, id: String(feed.feedId)) else { return }
                _ = try await transaction.append([try Self.event(stream, MediaEvent(type: MediaEventType.unpublished, feed: feed, reason: reason))])
            }
        } catch {
            logger.error("cannot announce that feed \(feed.feedId) in \(stream) is gone: \(error)")
        }
    }

    package static func event(_ stream: String, _ event: MediaEvent) throws -> EventAppend {
        EventAppend(stream: stream, type: event.type, data: try RawJSON(encoding: event))
    }

    /// A random id below 2^53, exact in JSON and JavaScript.
    package static func randomId() -> UInt64 { UInt64.random(in: 1..<(1 << 53)) }
}
