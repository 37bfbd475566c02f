import Foundation
import GreenroomProtocol

/// The live events and meetings the user is in, kept in the local store: an app started
/// again, with or without a network, learns where its user was and can enter or join again.
extension GreenroomClient {
    /// The live events the user entered (as a participant or a host) and has not exited,
    /// as they were last seen, oldest first. When connected, each is read again first and
    /// one that ended or is gone is forgotten. Empty without a local store.
    ///
    /// The server lets a participant go when its connection stays lost: enter again to be
    /// inside.
    public func enteredLiveEvents() async throws -> [LiveEvent] {
        let kept = try await storedRooms(Self.enteredPrefix, id: \LiveEventData.liveEventId) { data in
            do {
                let fresh: LiveEventData = try await self.send(LiveEventOperation.get, args: LiveEventRef(liveEventId: data.liveEventId))
                return fresh.state == .ended ? nil : fresh
            } catch let error as GreenroomError where error.is(.liveEventIdNotFound) {
                return nil
            }
        }
        return kept.sorted { $0.createdAt < $1.createdAt }.map { LiveEvent($0, client: self) }
    }

    /// The meetings the user joined and has not left, as they were at the join, oldest
    /// first. When connected, each is read again first and one that ended, is gone or no
    /// longer counts the user in is forgotten. Empty without a local store.
    ///
    /// The server lets a participant go when its connection stays lost past the grace
    /// period: ``initMeeting(meetingId:participantId:participantName:micEnabled:webcamEnabled:mode:metaData:)``
    /// and ``Meeting/join()`` join again.
    public func joinedMeetings() async throws -> [MeetingData] {
        let kept = try await storedRooms(Self.joinedPrefix, id: \MeetingData.meetingId) { data in
            do {
                let fresh: MeetingData = try await self.send(MeetingOperation.get, args: MeetingRef(meetingId: data.meetingId))
                return fresh.state == .ended ? nil : fresh
            } catch let error as GreenroomError where error.is(.meetingNotFound) || error.is(.meetingEnded) || error.is(.meetingNotJoined) {
                return nil
            }
        }
        return kept.sorted { $0.createdAt < $1.createdAt }
    }

    /// The store's document keys of live events entered and of meetings joined: a prefix,
    /// then the id.
    private static let enteredPrefix = "room:live:"
    private static let joinedPrefix = "room:meeting:"

    /// The rooms kept under `prefix`; when connected, each is replaced by what `refresh`
    /// reads, or forgotten when it answers `nil`.
    private func storedRooms<Room: Codable & Sendable>(_ prefix: String, id: KeyPath<Room, String>,
                                                      refresh: @Sendable (Room) async throws -> Room?) async throws -> [Room] {
        guard let store = await offline?.store() else { return [] }
        let kept = try await store.documents(prefix: prefix, as: Room.self)
        guard connectionState.isConnected else { return kept }
        var current: [Room] = []
        for room in kept {
            let key = prefix + room[keyPath: id]
            if let fresh = try await refresh(room) {
                try await store.setDocument(key, fresh)
                current.append(fresh)
            } else {
                try await store.removeDocument(key)
            }
        }
        return current
    }

    /// Keeps a live event the user is inside, or forgets it (`nil`).
    func keepEntered(_ liveEventId: String, _ data: LiveEventData?) async {
        await keepRoom(Self.enteredPrefix + liveEventId, data)
    }

    /// Keeps a meeting the user joined, or forgets it (`nil`).
    func keepJoined(_ meetingId: String, _ data: MeetingData?) async {
        await keepRoom(Self.joinedPrefix + meetingId, data)
    }

    private func keepRoom(_ key: String, _ data: (some Codable & Sendable)?) async {
        guard let store = await offline?.store() else { return }
        do {
            if let data { try await store.setDocument(key, data) } else { try await store.removeDocument(key) }
        } catch {
            logger.error("the local store could not keep \(key): \(error)")
        }
    }
}
