import Foundation
import GreenroomProtocol

/// What a room's peer connections have counted, in total since they were made.
public struct MediaTransportStats: Sendable, Hashable {
    /// RTP packets received, every `inbound-rtp` summed.
    public var packetsReceived: Int
    /// RTP packets lost on the way in, every `inbound-rtp`'s `packetsLost` summed.
    public var packetsLost: Int
    /// The largest `fractionLost` (0–1) of the `remote-inbound-rtp` entries: what the media
    /// server lost of what this side sends, lately; `nil` when not sending.
    public var sentFractionLost: Double?
    /// The selected candidate pair's `currentRoundTripTime`, in seconds.
    public var roundTrip: Double?
    /// The largest `jitter` of the `inbound-rtp` entries, in seconds.
    public var jitter: Double?

    /// Makes the figures.
    public init(packetsReceived: Int, packetsLost: Int, sentFractionLost: Double? = nil, roundTrip: Double? = nil, jitter: Double? = nil) {
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.sentFractionLost = sentFractionLost
        self.roundTrip = roundTrip
        self.jitter = jitter
    }
}

/// Connection quality: while the session has media in the room, it reads the engine's
/// statistics every ``statsInterval`` and reports the loss, round trip and jitter since the
/// report before to the server (`media.reportStats`), with whether its connections are up.
extension MediaSession {
    /// How often the engine's statistics are read and reported.
    public static let statsInterval: Duration = .seconds(2)

    func startReporting() {
        guard reporter == nil else { return }
        reporter = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.statsInterval)
                guard let self, await self.report() else { return }
            }
        }
    }

    func stopReporting() {
        reporter?.cancel()
        reporter = nil
        lastStats = nil
    }

    /// Reads and reports once; `false` when reporting should stop (the engine counts
    /// nothing, or the server does not take reports).
    private func report() async -> Bool {
        guard isPublishing || receiving else { return true }
        guard let stats = await engine.transportStats() else { return false }
        defer { lastStats = stats }
        let received = stats.packetsReceived - (lastStats?.packetsReceived ?? 0)
        let lost = stats.packetsLost - (lastStats?.packetsLost ?? 0)
        // New connections count from zero again: a fall is no measurement.
        let receivedLoss = received > 0 && lost >= 0 ? Double(lost) / Double(received + lost) : nil
        let loss = [receivedLoss, stats.sentFractionLost].compactMap { $0 }.max()
        // Down: a connection disconnected or failed, or being restarted (its ICE checks run
        // again, and no media flows until they succeed).
        let down: Set<MediaConnectionState> = [.disconnected, .failed]
        let connected = !connectionStates.values.contains { down.contains($0) } && restarters.isEmpty
        let args = MediaStatsArgs(stream: stream, connected: connected, packetLoss: loss.map { min(max($0, 0), 1) },
                                  roundTrip: stats.roundTrip.flatMap(Self.bounded), jitter: stats.jitter.flatMap(Self.bounded))
        do {
            let _: EmptyResult = try await client.send(MediaOperation.reportStats, args: args)
        } catch let error as GreenroomError where error.is(.unknownOperation) {
            return false
        } catch {}
        return true
    }

    /// A time in seconds the server takes: finite, 0–600.
    private static func bounded(_ seconds: Double) -> Double? {
        seconds.isFinite && seconds >= 0 ? min(seconds, 600) : nil
    }
}
