import Foundation
import Greenroom
import GreenroomProtocol

/// A ``MediaEngine`` whose peer connections are a real browser's: each call runs in a
/// headless Chromium page (fake camera and microphone) over WebDriver. It is how the
/// SDK's signalling is tested against real WebRTC on Linux, where Swift has no WebRTC stack.
struct BrowserEngine: MediaEngine {
    let browser: Browser

    private static let gathered = """
        const gathered = (pc) => new Promise((resolve) => {
          if (pc.iceGatheringState === 'complete') return resolve();
          const timer = setTimeout(resolve, 3000);
          pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); } });
        });
        const watched = (pc, role) => {
          pc.addEventListener('iceconnectionstatechange', () => (window.iceHistory = window.iceHistory || []).push([role, pc.iceConnectionState, Math.round(performance.now())]));
          return pc;
        };
        """

    private func literal(_ text: String) throws -> String { try RawJSON.string(text).jsonString() }

    private func sdp(_ script: String) async throws -> String {
        guard let sdp = try await browser.run("return (async () => { \(Self.gathered)\n\(script) })()").stringValue else {
            throw TestTimeout(what: "the browser returned no SDP")
        }
        return sdp
    }

    func makePublishOffer() async throws -> SessionDescription {
        SessionDescription(type: "offer", sdp: try await sdp("""
            if (window.pub) window.pub.close();
            window.local = window.local || await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 320, height: 240 } });
            window.pub = watched(new RTCPeerConnection(window.iceConfiguration || {}), 'publisher');
            for (const track of window.local.getTracks()) window.pub.addTransceiver(track, { direction: 'sendonly' });
            await window.pub.setLocalDescription(await window.pub.createOffer());
            await gathered(window.pub);
            return window.pub.localDescription.sdp;
            """))
    }

    /// Keeps the servers for the connections made from now on, and counts the calls.
    func useICEServers(_ servers: MediaICEServers) async {
        _ = try? await browser.run("""
            window.iceConfiguration = { iceServers: \((try? RawJSON(encoding: servers.iceServers).jsonString()) ?? "[]") };
            for (const pc of [window.pub, window.sub]) if (pc) pc.setConfiguration(Object.assign(pc.getConfiguration(), window.iceConfiguration));
            window.iceServerCalls = (window.iceServerCalls || 0) + 1;
            return true
            """)
    }

    /// The selected candidate pair's local candidate on the sending (`pub`) or receiving
    /// (`sub`) connection: its type (`local`: `host`, `relay`, …), relay protocol and port,
    /// and the connection's ICE username fragment (`ufrag`); `nil` JSON before there is one.
    func path(of connection: String) async throws -> RawJSON {
        try await browser.run("""
            return (async () => {
              const pc = window.\(connection);
              if (!pc) return null;
              const report = await pc.getStats();
              let pair = null;
              report.forEach((entry) => { if (entry.type === 'transport' && entry.selectedCandidatePairId) pair = report.get(entry.selectedCandidatePairId); });
              const local = pair && report.get(pair.localCandidateId);
              const ufrag = (/a=ice-ufrag:(\\S+)/.exec(pc.localDescription.sdp) || [])[1];
              return local ? { local: local.candidateType, relayProtocol: local.relayProtocol || null, port: local.port, ufrag } : null;
            })()
            """)
    }

    func makeICERestartOffer() async throws -> SessionDescription {
        SessionDescription(type: "offer", sdp: try await sdp("""
            window.pub.restartIce();
            await window.pub.setLocalDescription(await window.pub.createOffer({ iceRestart: true }));
            await gathered(window.pub);
            return window.pub.localDescription.sdp;
            """))
    }

    /// What both connections counted, from `getStats()`, read by the demo page's
    /// `measure` (every engine here runs in a demo page).
    func transportStats() async -> MediaTransportStats? {
        guard let totals = try? await browser.run("return window.demo.measure([window.pub, window.sub])"),
              let received = totals["received"]?.numberValue, let lost = totals["lost"]?.numberValue else { return nil }
        return MediaTransportStats(packetsReceived: Int(received), packetsLost: Int(lost), sentFractionLost: totals["sentLoss"]?.numberValue,
                                   roundTrip: totals["roundTrip"]?.numberValue, jitter: totals["jitter"]?.numberValue)
    }

    /// How long reads of a page's ICE changes may fail before ``connectionChanges()`` takes
    /// the page for gone: longer than any link a test takes down.
    static let pageGone: Duration = .seconds(30)

    /// Every ICE state change of the page's connections so far, with the page's clock (ms),
    /// as text: what a failing test says of them.
    func iceHistory() async -> String {
        let history = try? await browser.run("return [window.iceHistory || [], Math.round(performance.now())]")
        return (try? history?.jsonString()) ?? "unreadable"
    }

    /// The ICE state changes the page's connections recorded (``iceHistory()``'s), those
    /// not read before read twice a second until the stream is dropped.
    ///
    /// A read that fails is tried again at the next turn, as a real engine's changes go on
    /// past a glitch: a test that takes the page's link down also takes WebDriver's path to
    /// it away (the host's route to the namespace goes with the link), and a read then may
    /// fail; ending the stream there would leave the session never told that its
    /// connections went down. Reads failing for ``pageGone`` end it: the page is gone.
    func connectionChanges() -> AsyncStream<MediaConnectionChange> {
        let browser = browser
        return AsyncStream { continuation in
            let poller = Task {
                var failingSince: ContinuousClock.Instant?
                var read = 0
                while !Task.isCancelled {
                    // A history shorter than what was read is a new page's, read from its start.
                    let script = "const h = window.iceHistory || []; return [h.length, h.slice(h.length < \(read) ? 0 : \(read))]"
                    guard let answer = try? await browser.run(script), let length = answer[0]?.numberValue,
                          let changes = answer[1]?.arrayValue else {
                        let since = failingSince ?? .now
                        if ContinuousClock.now - since > Self.pageGone { break }
                        failingSince = since
                        try? await Task.sleep(for: .milliseconds(500))
                        continue
                    }
                    failingSince = nil
                    read = Int(length)
                    for change in changes {
                        guard let role = change[0]?.stringValue.flatMap(MediaConnectionRole.init(rawValue:)),
                              let state = change[1]?.stringValue.flatMap(MediaConnectionState.init(rawValue:)) else { continue }
                        continuation.yield(MediaConnectionChange(role: role, state: state))
                    }
                    try? await Task.sleep(for: .milliseconds(500))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in poller.cancel() }
        }
    }

    /// The port of the selected pair's local candidate on a connection (`pub`, `sub`), and
    /// the connection's ICE username fragment (see ``path(of:)``).
    func selectedLocal(_ connection: String) async throws -> (port: Int, ufrag: String)? {
        let found = try await path(of: connection)
        guard let port = found["port"]?.numberValue, let ufrag = found["ufrag"]?.stringValue else { return nil }
        return (Int(port), ufrag)
    }

    func acceptPublishAnswer(_ answer: SessionDescription) async throws {
        try await browser.run("""
            window.publishAnswers = window.publishAnswers || [];
            window.publishAnswers.push((/^o=\\S+ (\\d+)/m.exec(\(try literal(answer.sdp))) || [])[1] || '');
            return window.pub.setRemoteDescription({ type: 'answer', sdp: \(try literal(answer.sdp)) }).then(() => true)
            """)
    }

    /// The SDP session id (the `o=` line's) of each publish answer the sending connection was
    /// given so far, in order. The media server keeps a handle's session id when it
    /// renegotiates, so an id seen twice is a renegotiation of the same feed.
    func publishAnswerSessions() async throws -> [String] {
        (try await browser.run("return window.publishAnswers || []").arrayValue ?? []).compactMap(\.stringValue)
    }

    func stopPublishing() async {
        _ = try? await browser.run("""
            if (window.pub) { window.pub.close(); window.pub = null; }
            if (window.local) { window.local.getTracks().forEach((track) => track.stop()); window.local = null; }
            return true
            """)
    }

    func answerReceiveOffer(_ offer: SessionDescription) async throws -> SessionDescription {
        SessionDescription(type: "answer", sdp: try await sdp("""
            window.sub = window.sub || watched(new RTCPeerConnection(window.iceConfiguration || {}), 'subscriber');
            await window.sub.setRemoteDescription({ type: 'offer', sdp: \(try literal(offer.sdp)) });
            await window.sub.setLocalDescription(await window.sub.createAnswer());
            await gathered(window.sub);
            return window.sub.localDescription.sdp;
            """))
    }

    func stopReceiving() async {
        _ = try? await browser.run("if (window.sub) { window.sub.close(); window.sub = null; } return true")
    }

    func setSending(_ kind: MediaKind, _ sending: Bool) async throws {
        try await browser.run("""
            return (async () => {
              const kind = \(try literal(kind.rawValue));
              const track = window.local && window.local.getTracks().find((candidate) => candidate.kind === kind);
              for (const transceiver of window.pub ? window.pub.getTransceivers() : []) {
                if (transceiver.receiver.track.kind === kind) await transceiver.sender.replaceTrack(\(sending) && track ? track : null);
              }
              return true;
            })()
            """)
    }

    /// What the sending connection sent, by kind, summed over its tracks: `packetsSent`,
    /// `bytesSent`, and the `timestamp` (ms) `getStats` counted them at.
    func outbound() async throws -> [String: [String: Double]] {
        let stats = try await browser.run("""
            return (async () => {
              const out = {};
              if (!window.pub) return out;
              (await window.pub.getStats()).forEach((entry) => {
                if (entry.type !== 'outbound-rtp') return;
                const kind = out[entry.kind] || (out[entry.kind] = {});
                for (const key of ['packetsSent', 'bytesSent']) kind[key] = (kind[key] || 0) + (entry[key] || 0);
                kind.timestamp = entry.timestamp;
              });
              return out;
            })()
            """)
        return (stats.dictionaryValue ?? [:]).mapValues { ($0.dictionaryValue ?? [:]).compactMapValues(\.numberValue) }
    }

    /// What the receiving connection got, by kind, summed over its tracks: `framesDecoded`,
    /// `packetsReceived`, `packetsLost`, `nackCount` (retransmissions asked for),
    /// `pliCount` (keyframes asked for), `bytesReceived`.
    func inbound() async throws -> [String: [String: Double]] {
        let stats = try await browser.run("""
            return (async () => {
              const out = {};
              if (!window.sub) return out;
              (await window.sub.getStats()).forEach((entry) => {
                if (entry.type !== 'inbound-rtp') return;
                const kind = out[entry.kind] || (out[entry.kind] = {});
                for (const key of ['framesDecoded', 'packetsReceived', 'packetsLost', 'nackCount', 'pliCount', 'bytesReceived']) {
                  kind[key] = (kind[key] || 0) + (entry[key] || 0);
                }
              });
              return out;
            })()
            """)
        return (stats.dictionaryValue ?? [:]).mapValues { ($0.dictionaryValue ?? [:]).compactMapValues(\.numberValue) }
    }

    /// The widest video frame the receiving connection decodes now (0 before any).
    func frameWidth() async throws -> Double {
        try await browser.run("""
            return (async () => {
              let widest = 0;
              if (window.sub) (await window.sub.getStats()).forEach((entry) => {
                if (entry.type === 'inbound-rtp' && entry.kind === 'video') widest = Math.max(widest, entry.frameWidth || 0);
              });
              return widest;
            })()
            """).numberValue ?? 0
    }

    /// Video frames decoded on the receiving connection, by `mid`.
    func framesDecoded() async throws -> [String: Double] {
        let stats = try await browser.run("""
            return (async () => {
              const out = {};
              if (!window.sub) return out;
              (await window.sub.getStats()).forEach((entry) => {
                if (entry.type === 'inbound-rtp' && entry.kind === 'video') out[entry.mid] = entry.framesDecoded || 0;
              });
              return out;
            })()
            """)
        return (stats.dictionaryValue ?? [:]).compactMapValues(\.numberValue)
    }
}
