import Foundation

/// A completion handler of a custom item change: the items after it, the keys changed, or the error.
public typealias CustomItemsHandler = @MainActor @Sendable ([String: String]?, [String]?, (any Error)?) -> Void
/// A completion handler that only reports an error, if any.
public typealias ErrorHandler = @MainActor @Sendable ((any Error)?) -> Void

extension LiveEvent {
    // MARK: Entering and exiting

    /// Enters as a participant (in `ready` or `ongoing`) and follows the event's changes.
    public func enter() async throws {
        let entry: LiveEventEntry = try await client.send(LiveEventOperation.enter, args: LiveEventRef(liveEventId: liveEventId))
        try await adoptEntry(entry, as: .participant)
    }

    /// Exits as a participant.
    public func exit() async throws {
        let _: EmptyResult = try await client.send(LiveEventOperation.exit, args: LiveEventRef(liveEventId: liveEventId))
        await leave()
        await client.keepEntered(liveEventId, nil)
    }

    /// Enters as a host (a user in `userIdsForHost`, at most 6 inside at once).
    public func enterAsHost(options: MediaOptions = MediaOptions()) async throws {
        let entry: LiveEventEntry = try await client.send(LiveEventOperation.enterAsHost, args: LiveEventHostArgs(
            liveEventId: liveEventId, turnAudioOn: options.turnAudioOn, turnVideoOn: options.turnVideoOn))
        try await adoptEntry(entry, as: .host(options))
    }

    /// Exits as a host.
    public func exitAsHost() async throws {
        let _: EmptyResult = try await client.send(LiveEventOperation.exitAsHost, args: LiveEventRef(liveEventId: liveEventId))
        await leave()
        await client.keepEntered(liveEventId, nil)
    }

    // MARK: The state machine (hosts only)

    /// `created → ready`: participants may enter.
    public func setEventReady() async throws {
        adopt(try await client.send(LiveEventOperation.setReady, args: LiveEventRef(liveEventId: liveEventId)), countsIncluded: true)
    }

    /// `ready → ongoing`. When the caller is inside as a host, `mediaOptions` sets its microphone and camera.
    public func startEvent(mediaOptions: MediaOptions? = nil) async throws {
        adopt(try await client.send(LiveEventOperation.start, args: LiveEventRef(liveEventId: liveEventId)), countsIncluded: true)
        if let mediaOptions, case .host = store.withLock({ $0.role }) {
            try await setMedia(audioOn: mediaOptions.turnAudioOn, videoOn: type == .video && mediaOptions.turnVideoOn)
        }
    }

    /// `ready` or `ongoing → ended`: everyone is put out.
    public func endEvent() async throws {
        adopt(try await client.send(LiveEventOperation.end, args: LiveEventRef(liveEventId: liveEventId)), countsIncluded: true)
    }

    /// Starts recording the event's livestream picture (hosts only, while it is `ongoing`);
    /// the video will be the caller's. ``recording`` follows its state as it is announced; ending the event stops
    /// it. Refusals: `actionNotAllowedForParticipant`, `actionNotAllowedInCurrentState`,
    /// `alreadyExists` (the last recording is still being made into a video), `unavailable`.
    @discardableResult
    public func startRecording() async throws -> RecordingInfo {
        try await client.send(LiveEventOperation.startRecording, args: LiveEventRef(liveEventId: liveEventId))
    }

    /// Stops the recording (hosts only): it becomes a video in the feed, owned by the host
    /// who started it (`videoId` once `RECORDING_STOPPED`).
    @discardableResult
    public func stopRecording() async throws -> RecordingInfo {
        try await client.send(LiveEventOperation.stopRecording, args: LiveEventRef(liveEventId: liveEventId))
    }

    /// Changes the title or the cover (hosts only).
    public func updateLiveEventInfo(title: String? = nil, coverURL: String? = nil) async throws {
        adopt(try await client.send(LiveEventOperation.updateInfo, args: LiveEventInfoArgs(liveEventId: liveEventId, title: title, coverURL: coverURL)),
              countsIncluded: true)
    }

    // MARK: Host media

    /// Mutes the local host's microphone; with media attached, it is no longer sent.
    public func muteAudioInput() async throws { try await setMedia(audioOn: false) }
    /// Unmutes the local host's microphone; with media attached, it is sent again.
    public func unmuteAudioInput() async throws { try await setMedia(audioOn: true) }
    /// Starts the local host's camera; with media attached, it is sent again.
    public func startVideo() async throws { try await setMedia(videoOn: true) }
    /// Stops the local host's camera; with media attached, it is no longer sent.
    public func stopVideo() async throws { try await setMedia(videoOn: false) }

    private func setMedia(audioOn: Bool? = nil, videoOn: Bool? = nil) async throws {
        if let media {
            if let audioOn { await media.setSending(.audio, audioOn) }
            if let videoOn { await media.setSending(.video, videoOn) }
        }
        let _: LiveEventHost = try await client.send(LiveEventOperation.setHostMedia, args: LiveEventMediaArgs(liveEventId: liveEventId, audioOn: audioOn, videoOn: videoOn))
    }

    // MARK: Custom items (hosts, while ongoing)

    /// Adds or replaces items. - Returns: all items now and the keys updated.
    @discardableResult
    public func updateCustomItems(customItems: [String: String]) async throws -> (customItems: [String: String], updatedKeys: [String]) {
        let result: CustomItemsResult = try await client.send(LiveEventOperation.updateCustomItems, args: LiveEventCustomItemsArgs(liveEventId: liveEventId, customItems: customItems))
        setItems(result.customItems)
        return (result.customItems, result.keys)
    }

    /// Adds or replaces items; `completionHandler` runs on the main actor with the items, the updated keys, or the error.
    public func updateCustomItems(customItems: [String: String], completionHandler: CustomItemsHandler?) {
        Task {
            do {
                let (items, keys) = try await updateCustomItems(customItems: customItems)
                await MainActor.run { completionHandler?(items, keys, nil) }
            } catch {
                await MainActor.run { completionHandler?(nil, nil, error) }
            }
        }
    }

    /// Deletes the items with these keys. - Returns: all items now and the keys deleted.
    @discardableResult
    public func deleteCustomItems(customItemKeys: [String]) async throws -> (customItems: [String: String], deletedKeys: [String]) {
        let result: CustomItemsResult = try await client.send(LiveEventOperation.deleteCustomItems, args: LiveEventCustomItemKeysArgs(liveEventId: liveEventId, customItemKeys: customItemKeys))
        setItems(result.customItems)
        return (result.customItems, result.keys)
    }

    /// Deletes the items with these keys; `completionHandler` runs on the main actor with the items, the deleted keys, or the error.
    public func deleteCustomItems(customItemKeys: [String], completionHandler: CustomItemsHandler?) {
        Task {
            do {
                let (items, keys) = try await deleteCustomItems(customItemKeys: customItemKeys)
                await MainActor.run { completionHandler?(items, keys, nil) }
            } catch {
                await MainActor.run { completionHandler?(nil, nil, error) }
            }
        }
    }

    /// Deletes every item.
    public func deleteAllCustomItems() async throws {
        let result: CustomItemsResult = try await client.send(LiveEventOperation.deleteAllCustomItems, args: LiveEventRef(liveEventId: liveEventId))
        setItems(result.customItems)
    }

    /// Deletes every item; `completionHandler` runs on the main actor with `nil` or the error.
    public func deleteAllCustomItems(completionHandler: ErrorHandler?) {
        Task {
            do {
                try await deleteAllCustomItems()
                await MainActor.run { completionHandler?(nil) }
            } catch {
                await MainActor.run { completionHandler?(error) }
            }
        }
    }

    private func setItems(_ items: [String: String]) {
        store.withLock { $0.data.customItems = items }
    }

    // MARK: Reactions

    /// Sends one reaction (one of the event's `reactionKeys`); counts are announced at most once a second.
    public func increaseReactionCount(key: String) async throws {
        let _: EmptyResult = try await client.send(LiveEventOperation.increaseReactionCount, args: LiveEventReactionArgs(liveEventId: liveEventId, key: key))
    }
}
