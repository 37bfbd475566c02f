import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Connection quality: each client with media in a room reports what its peer connections
/// measure (`media.reportStats`); the server rates it (``ConnectionQuality/rate(_:)``), makes
/// it `poor` while Janus says one of its handles drops packets (`slowlink`) and `lost` when
/// its reports stop, and announces each change to the room as a `media.connectionQuality`
/// signal, at most one per participant every
/// ``MediaConnectionQualityEvent/minimumInterval`` seconds (the last change waits its turn).
extension MediaPlane {
    /// How long a member may go without a report before it is rated `lost`.
    static let reportsStaleAfter: TimeInterval = 8
    /// How long a Janus `slowlink` keeps a member `poor`.
    static let slowlinkHolds: TimeInterval = 5
    /// The share of packets lost in a report that moves a member's `auto` layers down, as a
    /// `slowlink` does.
    static let autoStepDownLoss = 0.05

    /// Takes a member's report, and announces its quality if that changed.
    package func reportStats(_ args: MediaStatsArgs, caller: Caller) async throws {
        try requireEnabled()
        for (name, value, range) in [("packetLoss", args.packetLoss, 0.0...1), ("roundTrip", args.roundTrip, 0...600), ("jitter", args.jitter, 0...600)] {
            if let value, !range.contains(value) {
                throw GreenroomError(.invalidParameterValue, "\(name) must be within \(range.lowerBound)–\(range.upperBound)")
            }
        }
        let key = MemberKey(clientId: caller.clientId, stream: args.stream)
        guard let current = member(key) else { throw GreenroomError(.notFound, "no media session in \(args.stream)") }
        var who = current.who
        if who == nil {
            let rights = try await rights(caller, stream: args.stream)
            who = (rights.participantId, caller.userId)
        }
        let now = Date()
        update(key) { member in
            member.who = who
            member.report = args
            member.reportedAt = now
        }
        if (args.packetLoss ?? 0) >= Self.autoStepDownLoss { slowSpell(key) }
        settleQuality(key, now: now)
        startQualitySweep()
    }

    /// Janus said one of a member's handles drops packets.
    package func linkSlow(_ key: MemberKey) {
        let now = Date()
        update(key) { member in member.slowlinkAt = now }
        settleQuality(key, now: now)
    }

    /// A member's quality now: `nil` before its first report.
    static func quality(of member: Member, now: Date) -> ConnectionQuality? {
        guard let report = member.report, let reportedAt = member.reportedAt else { return nil }
        if now.timeIntervalSince(reportedAt) > reportsStaleAfter { return .lost }
        let rated = ConnectionQuality.rate(report)
        if let slow = member.slowlinkAt, now.timeIntervalSince(slow) < slowlinkHolds, rated == .excellent || rated == .good {
            return .poor
        }
        return rated
    }

    /// Announces a member's quality when it differs from the one announced last and the
    /// participant's last announcement is old enough; otherwise the sweep comes back to it.
    func settleQuality(_ key: MemberKey, now: Date) {
        var announcement: MediaConnectionQualityEvent?
        update(key) { member in
            guard let quality = Self.quality(of: member, now: now), quality != member.announcedQuality, let who = member.who else { return }
            if let last = member.announcedAt, now.timeIntervalSince(last) < MediaConnectionQualityEvent.minimumInterval { return }
            member.announcedQuality = quality
            member.announcedAt = now
            announcement = MediaConnectionQualityEvent(participantId: who.participantId, userId: who.userId, quality: quality)
        }
        guard let announcement, let data = try? RawJSON(encoding: announcement) else { return }
        events.signal(StreamSignal(stream: key.stream, type: MediaEventType.connectionQuality, data: data, at: Date.wireNow))
    }

    /// Looks at every reporting member once a second while there are any: reports gone
    /// stale, a `slowlink` that stopped holding, a change that waited its turn.
    private func startQualitySweep() {
        guard claimQualitySweep() else { return }
        Task { [weak self] in
            while true {
                try? await Task.sleep(for: .seconds(1))
                // Not held while asleep: a plane that is gone ends the sweep.
                guard let plane = self else { return }
                let now = Date()
                let reporting = plane.members().filter { $0.1.reportedAt != nil }.map(\.0)
                if reporting.isEmpty, plane.releaseQualitySweep() { return }
                for key in reporting { plane.settleQuality(key, now: now) }
            }
        }
    }
}
