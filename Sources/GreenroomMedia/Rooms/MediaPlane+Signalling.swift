import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension MediaPlane {
    // MARK: Publishing

    /// Publishes the caller's offer in the room of `args.stream` (or renegotiates its feed),
    /// once the room's owner allows it; announces the feed with `media.published`.
    package func publish(_ args: MediaPublishArgs, caller: Caller) async throws -> MediaPublishResult {
        try requireEnabled()
        guard args.jsep.type == "offer" else { throw GreenroomError(.invalidParameterValue, "jsep must be an offer") }
        let rights = try await rights(caller, stream: args.stream)
        if let refusal = rights.publishRefusal { throw refusal }
        let key = MemberKey(clientId: caller.clientId, stream: args.stream)
        let shares = Set(args.shares ?? [])
        let videoMids = Set(Self.tracks(nil, offer: args.jsep.sdp).filter { $0.kind == "video" }.map(\.mid))
        if let stray = shares.subtracting(videoMids).first {
            throw GreenroomError(.invalidParameterValue, "shares names \(stray.prefix(64)), which is no video track of the offer")
        }
        if let current = member(key), let handle = current.publisher, var feed = current.feed {
            let gateway = try gateway(current.janus)
            let (data, jsep) = try await relay { try await gateway.plugin(handle, ["request": "configure"], jsep: args.jsep) }
            let answer = try Self.require(jsep, "answer")
            // A track added (a screen share) or taken away: the feed is stored again and
            // `media.updated` says so, so that receivers and the livestream see its tracks.
            let tracks = Self.tracks(data["streams"], offer: args.jsep.sdp, shares: shares)
            if tracks != feed.tracks {
                feed.tracks = tracks
                var announced = false
                update(key) { member in
                    guard member.feed?.feedId == feed.feedId else { return }
                    member.feed = feed
                    announced = member.announced
                }
                if announced {
                    await announceUpdated(feed, stream: args.stream)
                    // Stopped while it was being stored: announce it gone (again).
                    if member(key)?.feed?.feedId != feed.feedId { await announceGone(feed, stream: args.stream, reason: "unpublished") }
                }
            }
            return MediaPublishResult(jsep: answer, feed: feed)
        }
        let (room, gateway) = try await room(args.stream)
        let stream = args.stream
        let handle = try await gateway.attach { [weak self] message in
            self?.publisherEvent(message, key: key)
        }
        let feedId = Self.randomId()
        let join: [String: RawJSON] = [
            "request": "joinandconfigure", "ptype": "publisher", "room": .number(Double(room.room)),
            "id": .number(Double(feedId)), "display": .string(rights.participantId),
        ]
        let answer: (data: RawJSON, jsep: SessionDescription?)
        do {
            answer = try await relay {
                do {
                    return try await gateway.plugin(handle, join, jsep: args.jsep)
                } catch let error as JanusError where error.code == JanusError.noSuchRoom {
                    try await self.create(room, gateway: gateway)
                    return try await gateway.plugin(handle, join, jsep: args.jsep)
                }
            }
        } catch {
            await gateway.detach(handle)
            throw error
        }
        let feed = MediaFeed(feedId: feedId, userId: caller.userId, participantId: rights.participantId, clientId: caller.clientId,
                             tracks: Self.tracks(answer.data["streams"], offer: args.jsep.sdp, shares: shares))
        update(key) { member in
            member.janus = gateway.url
            member.publisher = handle
            member.feed = feed
            member.announced = false
        }
        // The right may have gone while Janus answered (a mode change that found no feed yet).
        if let refusal = try? await self.rights(caller, stream: stream).publishRefusal {
            await stopPublishing(key, reason: "modeChanged")
            throw refusal
        }
        return MediaPublishResult(jsep: try Self.require(answer.jsep, "answer"), feed: feed)
    }

    /// Stores a member's feed and announces it with `media.published`, once.
    package func announcePublished(_ key: MemberKey) async {
        var feed: MediaFeed?
        update(key) { member in
            guard !member.announced else { return }
            member.announced = true
            feed = member.feed
        }
        guard let feed else { return }
        do {
            try await events.transact { transaction in
                try await transaction.save(MediaFeedRecord(stream: key.stream, feed: feed))
                _ = try await transaction.append([try Self.event(key.stream, MediaEvent(type: MediaEventType.published, feed: feed))])
            }
        } catch {
            logger.error("cannot announce feed \(feed.feedId) in \(key.stream): \(error)")
        }
        // Stopped while it was being announced: announce it gone.
        if member(key)?.feed?.feedId != feed.feedId { await announceGone(feed, stream: key.stream, reason: "unpublished") }
    }

    /// Stores a feed whose tracks changed and announces it with `media.updated`.
    package func announceUpdated(_ feed: MediaFeed, stream: String) async {
        do {
            try await events.transact { transaction in
                try await transaction.save(MediaFeedRecord(stream: stream, feed: feed))
                _ = try await transaction.append([try Self.event(stream, MediaEvent(type: MediaEventType.updated, feed: feed))])
            }
        } catch {
            logger.error("cannot announce the new tracks of feed \(feed.feedId) in \(stream): \(error)")
        }
    }

    /// Tells the room's owner that a feed's audio or video started or stopped arriving.
    ///
    /// A feed whose audio stopped (a muted sender sends nothing) no longer talks, though Janus
    /// never says so: it measures levels only in the packets it gets, so it still holds the
    /// feed as talking. When the audio comes back the feed is announced talking again, which
    /// is Janus's view, and Janus says `stopped-talking` if it is quiet.
    package func mediaFlowChanged(_ key: MemberKey, kind: MediaKind, flowing: Bool) async {
        guard let feed = member(key)?.feed, let owner = owner(of: key.stream) else { return }
        await owner.rules.mediaFlowChanged(feed, roomId: owner.roomId, kind: kind, flowing: flowing)
        guard kind == .audio else { return }
        if !flowing, markSilenced(stream: key.stream, feedId: feed.feedId, true) {
            await talkingChanged(stream: key.stream, feedId: feed.feedId, talking: false)
        } else if flowing, markSilenced(stream: key.stream, feedId: feed.feedId, false) {
            await talkingChanged(stream: key.stream, feedId: feed.feedId, talking: true)
        }
    }

    /// Stops the caller's feed in a room.
    package func unpublish(_ ref: MediaRoomRef, caller: Caller) async throws {
        try requireEnabled()
        let key = MemberKey(clientId: caller.clientId, stream: ref.stream)
        guard member(key)?.publisher != nil else { throw GreenroomError(.notFound, "not publishing in \(ref.stream)") }
        await stopPublishing(key, reason: "unpublished")
    }

    /// Removes a member's publisher from the room and announces its feed gone.
    package func stopPublishing(_ key: MemberKey, reason: String) async {
        var removed: (String, UInt64, MediaFeed?)?
        update(key) { member in
            if let handle = member.publisher { removed = (member.janus, handle, member.feed) }
            member.publisher = nil
            member.feed = nil
        }
        guard let (janus, handle, feed) = removed else { return }
        await gateways.first { $0.url == janus }?.detach(handle)
        if let feed { await announceGone(feed, stream: key.stream, reason: reason) }
    }

    /// Janus's notifications to a publisher's handle: once its media is up (`webrtcup`) the
    /// feed is announced, since Janus lets nobody subscribe before; when it hangs up (the
    /// client's peer connection closed or failed) or is kicked, its feed is gone.
    package func publisherEvent(_ message: RawJSON, key: MemberKey) {
        let kind = message["janus"]?.stringValue
        if kind == "webrtcup" {
            Task { await announcePublished(key) }
            return
        }
        if kind == "slowlink" {
            linkSlow(key)
            return
        }
        if kind == "media", let type = message["type"]?.stringValue.flatMap(MediaKind.init(rawValue:)), let flowing = message["receiving"]?.boolValue {
            Task { await mediaFlowChanged(key, kind: type, flowing: flowing) }
            return
        }
        let data = message["plugindata"]?["data"]
        if let kind = data?["videoroom"]?.stringValue, kind == "talking" || kind == "stopped-talking",
           let feedId = data?["id"]?.numberValue.flatMap(UInt64.init(exactly:)) {
            // Janus tells every publisher in the room, on whichever node it is; only the
            // talker's own handle announces it, so that each change is stored once.
            if member(key)?.feed?.feedId == feedId {
                _ = markSilenced(stream: key.stream, feedId: feedId, false)   // Janus's own word wins
                Task { await talkingChanged(stream: key.stream, feedId: feedId, talking: kind == "talking") }
            }
            return
        }
        let gone = kind == "hangup" || kind == "detached" || data?["leaving"]?.stringValue == "ok" || data?["videoroom"]?.stringValue == "destroyed"
        guard gone else { return }
        Task { await stopPublishing(key, reason: "unpublished") }
    }

    /// The talker's publisher heard it start or stop talking: announced once per change.
    package func talkingChanged(stream: String, feedId: UInt64, talking: Bool) async {
        guard markTalking(stream: stream, feedId: feedId, talking) else { return }
        do {
            guard let record = try await storage.load(MediaFeedRecord.self, scope: stream, id: String(feedId)) else { return }
            let event = MediaTalkingEvent(feedId: feedId, participantId: record.feed.participantId, talking: talking)
            _ = try await events.append(EventAppend(stream: stream, type: event.type, data: try RawJSON(encoding: event)))
        } catch {
            logger.warning("cannot announce who talks in \(stream): \(error)")
        }
    }

    // MARK: Receiving

    /// Adds feeds to the caller's receiving session (every other feed in the room when
    /// `args.feeds` is `nil`); answers with the SFU's offer.
    package func subscribe(_ args: MediaSubscribeArgs, caller: Caller) async throws -> MediaSubscribeResult {
        try requireEnabled()
        if let refusal = try await rights(caller, stream: args.stream).receiveRefusal { throw refusal }
        let (room, gateway) = try await room(args.stream)
        let key = MemberKey(clientId: caller.clientId, stream: args.stream)
        let published = try await storage.list(MediaFeedRecord.self, RecordQuery(kind: MediaFeedRecord.recordKind, scope: args.stream, limit: 1_000))
        let wanted = args.feeds.map(Set.init)
        let feeds = published.map(\.feed).filter { feed in wanted?.contains(feed.feedId) ?? (feed.clientId != caller.clientId) }
        if let wanted, let missing = wanted.subtracting(feeds.map(\.feedId)).first {
            throw GreenroomError(.notFound, "no feed \(missing) in \(args.stream)")
        }
        let streams: [RawJSON] = feeds.map { ["feed": .number(Double($0.feedId))] }
        if let handle = member(key)?.subscriber {
            guard !streams.isEmpty else { return MediaSubscribeResult(jsep: nil, streams: []) }
            let answer = try await relay { try await gateway.plugin(handle, ["request": "subscribe", "streams": .array(streams)]) }
            let subscribed = Self.subscribed(answer.data["streams"])
            noteReceived(key, subscribed)
            return MediaSubscribeResult(jsep: answer.jsep, streams: subscribed)
        }
        guard !streams.isEmpty else { return MediaSubscribeResult(jsep: nil, streams: []) }
        let handle = try await gateway.attach { [weak self] message in
            self?.subscriberEvent(message, key: key)
        }
        do {
            let answer = try await relay {
                try await gateway.plugin(handle, [
                    "request": "join", "ptype": "subscriber", "room": .number(Double(room.room)),
                    "streams": .array(streams), "autoupdate": false, "use_msid": true,
                ])
            }
            update(key) { member in
                member.janus = gateway.url
                member.subscriber = handle
            }
            let subscribed = Self.subscribed(answer.data["streams"])
            noteReceived(key, subscribed)
            return MediaSubscribeResult(jsep: try Self.require(answer.jsep, "offer"), streams: subscribed)
        } catch {
            await gateway.detach(handle)
            throw error
        }
    }

    /// Removes feeds from the caller's receiving session; answers with the SFU's new offer.
    package func unsubscribe(_ args: MediaSubscribeArgs, caller: Caller) async throws -> MediaSubscribeResult {
        try requireEnabled()
        let (member, handle) = try receivingSession(MemberKey(clientId: caller.clientId, stream: args.stream))
        let gateway = try gateway(member.janus)
        let feeds = args.feeds ?? []
        guard !feeds.isEmpty else { throw GreenroomError(.invalidParameterValue, "name the feeds to stop receiving") }
        let answer = try await relay {
            try await gateway.plugin(handle, ["request": "unsubscribe", "streams": .array(feeds.map { ["feed": .number(Double($0))] })])
        }
        update(MemberKey(clientId: caller.clientId, stream: args.stream)) { member in
            for feed in feeds {
                member.receivedVideo[feed] = nil
                member.autoLayers[feed] = nil
            }
        }
        return MediaSubscribeResult(jsep: answer.jsep, streams: Self.subscribed(answer.data["streams"]))
    }

    /// Restarts ICE on the caller's receiving session: Janus answers with an offer with fresh
    /// ICE credentials (a `configure` with `restart`), to be answered with `media.answer`.
    package func iceRestart(_ ref: MediaRoomRef, caller: Caller) async throws -> MediaSubscribeResult {
        try requireEnabled()
        if let refusal = try await rights(caller, stream: ref.stream).receiveRefusal { throw refusal }
        let (member, handle) = try receivingSession(MemberKey(clientId: caller.clientId, stream: ref.stream))
        let gateway = try gateway(member.janus)
        let answer = try await relay { try await gateway.plugin(handle, ["request": "configure", "restart": true]) }
        return MediaSubscribeResult(jsep: try Self.require(answer.jsep, "offer"), streams: Self.subscribed(answer.data["streams"]))
    }

    /// The caller's answer to its receiving session's last offer.
    package func answer(_ args: MediaAnswerArgs, caller: Caller) async throws {
        try requireEnabled()
        guard args.jsep.type == "answer" else { throw GreenroomError(.invalidParameterValue, "jsep must be an answer") }
        let (member, handle) = try receivingSession(MemberKey(clientId: caller.clientId, stream: args.stream))
        let gateway = try gateway(member.janus)
        _ = try await relay { try await gateway.plugin(handle, ["request": "start"], jsep: args.jsep) }
    }

    /// One of the caller's ICE candidates for its publishing or receiving session.
    package func trickle(_ args: MediaTrickleArgs, caller: Caller) async throws {
        try requireEnabled()
        let member = member(MemberKey(clientId: caller.clientId, stream: args.stream))
        let handle: UInt64?
        switch args.target {
        case "publisher": handle = member?.publisher
        case "subscriber": handle = member?.subscriber
        default: throw GreenroomError(.invalidParameterValue, "target must be publisher or subscriber")
        }
        guard let handle, let member else { throw GreenroomError(.notFound, "no \(args.target) session in \(args.stream)") }
        let gateway = try gateway(member.janus)
        try await relay { try await gateway.trickle(handle, candidate: args.candidate) }
    }

    /// The room's feeds, for a caller that may receive them.
    package func feeds(_ ref: MediaRoomRef, caller: Caller) async throws -> MediaRoomState {
        if let refusal = try await rights(caller, stream: ref.stream).receiveRefusal { throw refusal }
        return MediaRoomState(feeds: try await feeds(in: ref.stream))
    }

    // MARK: Leaving and losing rights

    /// Stops publishing and receiving in a room.
    package func leave(_ ref: MediaRoomRef, caller: Caller) async {
        await leave(MemberKey(clientId: caller.clientId, stream: ref.stream), reason: "left")
    }

    package func leave(_ key: MemberKey, reason: String) async {
        await stopPublishing(key, reason: reason)
        var subscriber: (String, UInt64)?
        update(key) { member in
            subscriber = member.subscriber.map { (member.janus, $0) }
            member.subscriber = nil
            member.receivedVideo = [:]
            member.autoLayers = [:]
        }
        if let (janus, handle) = subscriber { await gateways.first { $0.url == janus }?.detach(handle) }
    }

    /// A connection closed: its handles in every room go.
    package func connectionEnded(clientId: String) async {
        for (key, _) in members(clientId: clientId) { await leave(key, reason: "left") }
    }

    /// The room's owner took rights away from a client (a mode change, an exit): what it
    /// may no longer do is undone at once.
    package func revoke(stream: String, clientId: String, publish: Bool, receive: Bool, reason: String) async {
        let key = MemberKey(clientId: clientId, stream: stream)
        if receive {
            await leave(key, reason: reason)
        } else if publish {
            await stopPublishing(key, reason: reason)
        }
    }

    // MARK: Helpers

    /// A member's receiving session: the member and its subscriber handle.
    /// - Throws: `notFound` when it receives nothing in the room.
    package func receivingSession(_ key: MemberKey) throws -> (member: Member, handle: UInt64) {
        guard let member = member(key), let handle = member.subscriber else {
            throw GreenroomError(.notFound, "not receiving in \(key.stream): media.subscribe first")
        }
        return (member, handle)
    }

    /// Runs a request to the SFU; a refusal of Janus's becomes an `invalidParameterValue`
    /// (the client's SDP or feed list), its absence `unavailable`.
    @discardableResult
    package func relay<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as JanusError {
            throw GreenroomError(.invalidParameterValue, "the media server refused: \(error.reason) (\(error.code))")
        }
    }

    package static func require(_ jsep: SessionDescription?, _ type: String) throws -> SessionDescription {
        guard let jsep, jsep.type == type else { throw GreenroomError(.internalError, "the media server sent no \(type)") }
        return jsep
    }

    /// A publisher's tracks from Janus's `streams` list, or from the m-lines of its offer;
    /// the video tracks whose `mid` is in `shares` are marked as screen shares.
    package static func tracks(_ streams: RawJSON?, offer: String, shares: Set<String> = []) -> [MediaTrack] {
        func track(_ mid: String, _ kind: String, _ codec: String?) -> MediaTrack {
            MediaTrack(mid: mid, kind: kind, codec: codec, share: kind == "video" && shares.contains(mid) ? true : nil)
        }
        if let streams = streams?.arrayValue, !streams.isEmpty {
            return streams.compactMap { stream in
                guard let mid = stream["mid"]?.stringValue, let kind = stream["type"]?.stringValue, kind != "data",
                      stream["disabled"]?.boolValue != true else { return nil }
                return track(mid, kind, stream["codec"]?.stringValue)
            }
        }
        var tracks: [MediaTrack] = []
        var kind: String?
        for line in offer.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") { kind = line.dropFirst(2).split(separator: " ").first.map(String.init) }
            if line.hasPrefix("a=mid:"), let current = kind, current == "audio" || current == "video" {
                tracks.append(track(String(line.dropFirst(6)).trimmingCharacters(in: .whitespaces), current, nil))
            }
        }
        return tracks
    }

    /// The active tracks of a subscriber's `streams` list.
    package static func subscribed(_ streams: RawJSON?) -> [MediaSubscribedTrack] {
        (streams?.arrayValue ?? []).compactMap { stream in
            guard stream["active"]?.boolValue != false, let mid = stream["mid"]?.stringValue,
                  let feed = stream["feed_id"]?.numberValue.flatMap(UInt64.init(exactly:)),
                  let kind = stream["type"]?.stringValue, kind != "data" else { return nil }
            return MediaSubscribedTrack(mid: mid, feedId: feed, kind: kind)
        }
    }
}
