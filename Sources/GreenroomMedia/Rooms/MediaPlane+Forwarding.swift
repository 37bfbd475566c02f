import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// One track of a feed sent as plain RTP to a local port (VideoRoom's `rtp_forward`).
package struct ForwardedTrack: Sendable, Hashable {
    /// The track's `mid` in the publisher's session.
    package var mid: String
    /// `audio` or `video`.
    package var kind: String
    /// The codec, as Janus negotiated it (`vp8`, `opus`, …).
    package var codec: String
    /// The UDP port on 127.0.0.1 it is sent to.
    package var port: Int
    /// The RTP payload type it is sent with.
    package var payloadType: Int
}

extension MediaPlane {
    /// The feeds published in the room of `stream`, as announced (oldest first).
    package func feeds(in stream: String) async throws -> [MediaFeed] {
        let query = RecordQuery(kind: MediaFeedRecord.recordKind, scope: stream, limit: 1_000)
        return try await storage.list(MediaFeedRecord.self, query).map(\.feed)
    }

    /// Asks the room's Janus to send `tracks` of feed `feedId` as RTP to 127.0.0.1; returns
    /// the ids of the forwarders it made (to stop them).
    package func forward(stream: String, feedId: UInt64, tracks: [ForwardedTrack]) async throws -> [UInt64] {
        let (record, gateway) = try await room(stream)
        let manager = try await managerHandle(gateway)
        let streams: [RawJSON] = tracks.map { track in
            ["mid": .string(track.mid), "port": .number(Double(track.port)), "pt": .number(Double(track.payloadType))]
        }
        let answer = try await gateway.plugin(manager, [
            "request": "rtp_forward", "room": .number(Double(record.room)), "secret": .string(record.secret),
            "publisher_id": .number(Double(feedId)), "host": "127.0.0.1", "host_family": "ipv4", "streams": .array(streams),
        ])
        return (answer.data["forwarders"]?.arrayValue ?? []).compactMap { $0["stream_id"]?.numberValue.flatMap(UInt64.init(exactly:)) }
    }

    /// Has Janus ask every publisher of the room of `stream` for a keyframe every `seconds`
    /// (VideoRoom's `fir_freq`; 0: never): a livestream's encoder starts on a keyframe and
    /// recovers from a lost packet at the next one.
    package func setKeyframeInterval(stream: String, seconds: Int) async throws {
        let (record, gateway) = try await room(stream)
        let manager = try await managerHandle(gateway)
        _ = try await gateway.plugin(manager, [
            "request": "edit", "room": .number(Double(record.room)), "secret": .string(record.secret),
            "new_fir_freq": .number(Double(seconds)),
        ])
    }

    /// Stops forwarders made by ``forward(stream:feedId:tracks:)``; ones already gone (their
    /// publisher left, Janus restarted) are fine.
    package func stopForwarding(stream: String, feedId: UInt64, forwarders: [UInt64]) async {
        guard let (record, gateway) = try? await room(stream), let manager = try? await managerHandle(gateway) else { return }
        for forwarder in forwarders {
            _ = try? await gateway.plugin(manager, [
                "request": "stop_rtp_forward", "room": .number(Double(record.room)), "secret": .string(record.secret),
                "publisher_id": .number(Double(feedId)), "stream_id": .number(Double(forwarder)),
            ])
        }
    }
}
