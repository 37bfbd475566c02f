import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Simulcast: a publisher may send its camera in up to three layers; Janus forwards one to
/// each receiver, the one `media.configure` chose (a VideoRoom `configure` with the stream's
/// `substream`). With `auto`, the server chooses: the full size to begin with, a layer down
/// each time the receiving session loses packets (Janus's `slowlink`, or a receiver's report
/// of 5% lost or more), and a layer up again after ``autoUpAfter`` without.
extension MediaPlane {
    /// How long a receiving session must go without losing packets before `auto` tries the
    /// next layer up.
    static let autoUpAfter: TimeInterval = 15
    /// When a layer chosen is told to Janus again.
    static let layerRetries: [Duration] = [.milliseconds(1500), .seconds(4)]

    /// The simulcast layer of a quality: 0 the smallest.
    static func layer(_ quality: MediaQuality) -> Int {
        switch quality {
        case .low: 0
        case .medium: 1
        case .high, .auto: 2
        }
    }

    /// Chooses the layer of a feed the caller receives.
    package func configure(_ args: MediaConfigureArgs, caller: Caller) async throws -> MediaConfigureArgs {
        try requireEnabled()
        if let refusal = try await rights(caller, stream: args.stream).receiveRefusal { throw refusal }
        let key = MemberKey(clientId: caller.clientId, stream: args.stream)
        let (member, handle) = try receivingSession(key)
        guard let mid = member.receivedVideo[args.feed] else {
            throw GreenroomError(.notFound, "no video of feed \(args.feed) is received in \(args.stream)")
        }
        let layer = Self.layer(args.quality)
        update(key) { member in member.autoLayers[args.feed] = args.quality == .auto ? layer : nil }
        try await setLayer(layer, mid: mid, handle: handle, janus: member.janus)
        // Janus switches at a keyframe of the chosen layer, and asks the publisher for one
        // only when it is told a layer other than the one it sends: a request it drops (it
        // spaces them, and a new receiver's own come first) would leave the switch waiting
        // for the next keyframe, which a VP8 sender makes only when asked. Telling it again
        // asks again, and once it has switched, does nothing.
        Task {
            for delay in Self.layerRetries {
                try? await Task.sleep(for: delay)
                guard self.member(key)?.subscriber == handle else { return }
                try? await setLayer(layer, mid: mid, handle: handle, janus: member.janus)
            }
        }
        return args
    }

    private func setLayer(_ layer: Int, mid: String, handle: UInt64, janus: String) async throws {
        let gateway = try gateway(janus)
        _ = try await relay {
            try await gateway.plugin(handle, ["request": "configure", "streams": [["mid": .string(mid), "substream": .number(Double(layer))]]])
        }
    }

    /// Keeps which `mid` carries each feed's video in a member's receiving session.
    package func noteReceived(_ key: MemberKey, _ tracks: [MediaSubscribedTrack]) {
        update(key) { member in
            for track in tracks where track.kind == "video" { member.receivedVideo[track.feedId] = track.mid }
        }
    }

    /// Janus's notifications to a receiving session's handle: a `slowlink` (the session
    /// loses packets) rates the member's connection `poor` for a while and moves its `auto`
    /// feeds a layer down.
    package func subscriberEvent(_ message: RawJSON, key: MemberKey) {
        guard message["janus"]?.stringValue == "slowlink" else { return }
        linkSlow(key)
        slowSpell(key)
    }

    /// The member's receiving session loses packets (Janus's `slowlink`, or the member's own
    /// report): every `auto` feed moves a layer down, once per spell, and the way back up
    /// is scheduled.
    package func slowSpell(_ key: MemberKey) {
        let now = Date()
        var lowered: [(mid: String, layer: Int)] = []
        var target: (handle: UInt64, janus: String)?
        var startRaising = false
        update(key) { member in
            guard let handle = member.subscriber else { return }
            target = (handle, member.janus)
            // One step per slow spell: Janus may say it several times a second.
            if let since = member.slowSince, now.timeIntervalSince(since) < 2 { return }
            member.slowSince = now
            for (feed, layer) in member.autoLayers where layer > 0 {
                member.autoLayers[feed] = layer - 1
                if let mid = member.receivedVideo[feed] { lowered.append((mid, layer - 1)) }
            }
            if !lowered.isEmpty, !member.raising {
                member.raising = true
                startRaising = true
            }
        }
        guard let target, !lowered.isEmpty else { return }
        Task {
            for (mid, layer) in lowered { try? await setLayer(layer, mid: mid, handle: target.handle, janus: target.janus) }
            if startRaising { await raiseWhenSteady(key) }
        }
    }

    /// Moves the `auto` feeds of a member a layer up for each ``autoUpAfter`` without packet
    /// loss, until they are at the full size (or the session is gone).
    private func raiseWhenSteady(_ key: MemberKey) async {
        defer { update(key) { member in member.raising = false } }
        while true {
            try? await Task.sleep(for: .seconds(Self.autoUpAfter))
            let now = Date()
            var raised: [(mid: String, layer: Int)] = []
            var target: (handle: UInt64, janus: String)?
            var pending = false
            update(key) { member in
                guard let handle = member.subscriber else { return }
                target = (handle, member.janus)
                guard member.slowSince.map({ now.timeIntervalSince($0) >= Self.autoUpAfter }) ?? true else {
                    pending = true
                    return
                }
                for (feed, layer) in member.autoLayers where layer < 2 {
                    member.autoLayers[feed] = layer + 1
                    if let mid = member.receivedVideo[feed] { raised.append((mid, layer + 1)) }
                }
            }
            guard let target else { return }
            if pending { continue }
            guard !raised.isEmpty else { return }
            for (mid, layer) in raised { try? await setLayer(layer, mid: mid, handle: target.handle, janus: target.janus) }
        }
    }
}
