import Foundation

extension LiveEvent {
    /// Takes in what entering returned and follows the event's stream from the position
    /// that state includes; after a reconnect, resumes following where it left off.
    func adoptEntry(_ entry: LiveEventEntry, as role: Role) async throws {
        adopt(entry.liveEvent, countsIncluded: true)
        let (following, position) = store.withLock { state -> (Bool, StreamPosition?) in
            state.role = role
            return (state.pump != nil && client.hasSubscription(entry.liveEvent.stream), state.position)
        }
        if !following {
            let subscription = try await client.subscribe(to: entry.liveEvent.stream, since: position ?? entry.position)
            follow(subscription)
        }
        startWatchingConnection()
        await client.keepEntered(liveEventId, entry.liveEvent)
    }

    /// Stops following after an exit.
    func leave() async {
        let (pump, media) = store.withLock { state in
            defer {
                state.role = nil
                state.pump = nil
                state.media = nil
            }
            return (state.pump, state.media)
        }
        await media?.stop()
        await pump?.stop(client)
    }

    /// Follows the event's stream. A gap it could not replay needs nothing more here: after
    /// a reconnect the event is entered again, which reads its state anew.
    private func follow(_ subscription: StreamSubscription) {
        let pump = EventPump(following: subscription, for: self) { event, next in
            event.store.withLock { $0.position = next.position }
            if let media = MediaSession.mediaEvent(next) {
                await event.store.withLock({ $0.media })?.handle(media)
            } else if let live = try? next.data.decode(as: LiveEventEvent.self) {
                await event.apply(live, type: next.type)
            }
        } signal: { event, signal in
            await event.connectionQualitySignal(signal)
        }
        let earlier = store.withLock { state in
            defer { state.pump = pump }
            return state.pump
        }
        earlier?.cancel()
    }

    /// After a reconnect, enters again (a host within the grace period is connected
    /// again, not entered twice) and tells the delegates.
    private func startWatchingConnection() {
        guard store.withLock({ $0.watcher == nil }) else { return }
        let watcher = ReconnectWatcher(client, for: self, active: { $0.isEntered }, dropped: { event in
            await event.notify(.disconnected)
        }, back: { event in
            await event.reenter()
        })
        store.withLock { $0.watcher = watcher }
    }

    private func reenter() async {
        guard let role = store.withLock({ $0.role }) else { return }
        do {
            switch role {
            case .participant: try await enter()
            case .host(let options): try await enterAsHost(options: options)
            }
            // The old connection's media sessions ended with it: start over.
            await store.withLock({ $0.media })?.start()
            await notify(.reconnected)
        } catch {
            await leave()
            await notify(.exited(error: error))
        }
    }

    /// Updates the event from one of its events, then tells the delegates.
    func apply(_ event: LiveEventEvent, type: String) async {
        if let live = event.liveEvent { adopt(live, countsIncluded: false) }
        store.withLock { state in
            if let info = event.participantCountInfo {
                state.data.participantCount = info.participantCount
                state.data.peakParticipantCount = info.peakParticipantCount
                state.data.cumulativeParticipantCount = info.cumulativeParticipantCount
            }
            if let items = event.customItems { state.data.customItems = items }
            if event.liveEvent == nil, let host = event.host, let index = state.data.hosts.firstIndex(where: { $0.userId == host.userId }) {
                state.data.hosts[index] = host
            }
            if let counts = event.reactionCounts { state.data.reactionCounts.merge(counts) { _, new in new } }
            if let livestream = event.livestream { state.data.livestream = livestream }
            if let recording = event.recording { state.data.recording = recording }
        }
        if type == LiveEventEventType.ready || type == LiveEventEventType.started {
            await store.withLock({ $0.media })?.allow(publish: mayPublish, receive: true)
        }
        switch type {
        case LiveEventEventType.ready: await notify(.ready)
        case LiveEventEventType.started: await notify(.started)
        case LiveEventEventType.ended:
            await leave()
            await client.keepEntered(liveEventId, nil)
            await notify(.ended)
        case LiveEventEventType.infoUpdated: await notify(.infoUpdated)
        case LiveEventEventType.participantCountChanged:
            if let info = event.participantCountInfo { await notify(.participantCountChanged(info)) }
        case LiveEventEventType.customItemsUpdated:
            let items = event.customItems ?? [:], keys = event.keys ?? []
            await notify(.customItemsUpdated(customItems: items, updatedKeys: keys))
        case LiveEventEventType.customItemsDeleted:
            let items = event.customItems ?? [:], keys = event.keys ?? []
            await notify(.customItemsDeleted(customItems: items, deletedKeys: keys))
        case LiveEventEventType.reactionCountsUpdated:
            for (key, value) in (event.reactionCounts ?? [:]).sorted(by: { $0.key < $1.key }) {
                await notify(.reactionCountUpdated(key: key, value: value))
            }
        default:
            guard let host = event.host else { return }
            await notifyHost(type, host)
        }
    }

    /// A user's connection quality changed: kept, and told.
    func connectionQualitySignal(_ signal: StreamSignal) async {
        guard signal.type == MediaEventType.connectionQuality,
              let quality = try? signal.data.decode(as: MediaConnectionQualityEvent.self) else { return }
        let changed = store.withLock { state in
            defer { state.qualities[quality.userId] = quality.quality }
            return state.qualities[quality.userId] != quality.quality
        }
        if changed { await notify(.connectionQualityChanged(userId: quality.userId, quality: quality.quality)) }
    }

    private func notifyHost(_ type: String, _ host: LiveEventHost) async {
        switch type {
        case LiveEventEventType.hostEntered: await notify(.hostEntered(host))
        case LiveEventEventType.hostExited: await notify(.hostExited(host))
        case LiveEventEventType.hostConnected: await notify(.hostConnected(host))
        case LiveEventEventType.hostDisconnected: await notify(.hostDisconnected(host))
        case LiveEventEventType.hostMutedAudio: await notify(.hostMutedAudioInput(host))
        case LiveEventEventType.hostUnmutedAudio: await notify(.hostUnmutedAudioInput(host))
        case LiveEventEventType.hostStartedVideo: await notify(.hostStartedVideo(host))
        case LiveEventEventType.hostStoppedVideo: await notify(.hostStoppedVideo(host))
        default: break
        }
    }
}
