import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomMedia
@testable import GreenroomServer
import Testing

/// Media across firewalls: the STUN and TURN servers Greenroom hands clients, with TURN
/// credentials it issues for a real coturn, used by real browsers.
@Suite("Media across firewalls: STUN, TURN and NAT settings", .serialized, .wholeRun)
struct MediaNetworkTests {
    @Test("the media network settings from the environment: TURN URLs with coturn's secret, STUN URLs, the lifetime, Janus's public address and STUN server; what is malformed or half set up is refused")
    func settingsFromEnvironment() throws {
        let config = try ServerConfiguration.fromEnvironment([
            "GREENROOM_TURN_URLS": "turn:turn.example.com:3478?transport=udp, turns:turn.example.com:443?transport=tcp",
            "GREENROOM_TURN_SECRET": "sixteen-characters-at-least", "GREENROOM_TURN_TTL_SECONDS": "900",
            "GREENROOM_STUN_URLS": "stun:stun.example.com:3478", "GREENROOM_MEDIA_PUBLIC_IP": "203.0.113.7",
            "GREENROOM_MEDIA_STUN_SERVER": "stun.example.com:3478",
            // The other lists read the same way: commas, spaces trimmed, empty items left out.
            "GREENROOM_JANUS_URL": "ws://10.0.0.5:8188, ws://10.0.0.6:8188,", "GREENROOM_FILE_TYPES": " Image/PNG ,video/mp4",
        ])
        #expect(config.janusURLs == ["ws://10.0.0.5:8188", "ws://10.0.0.6:8188"] && config.fileTypes == ["image/png", "video/mp4"])
        let network = config.mediaNetwork
        #expect(network.turnURLs == ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"])
        #expect(network.issuesTURN && network.turnCredentialLifetime == 900 && network.stunURLs == ["stun:stun.example.com:3478"])
        let lines = JanusConfiguration(port: 8188, directory: "/tmp/unused", libraries: "/tmp/unused", iceInterfaces: "eth0", network: network).natLines
        #expect(lines == ["stun_server = \"stun.example.com\"", "stun_port = 3478", "nat_1_1_mapping = \"203.0.113.7\"", "ice_enforce_list = \"eth0\""])
        let refused: [[String: String]] = [
            ["GREENROOM_TURN_URLS": "turn:turn.example.com:3478"],
            ["GREENROOM_TURN_SECRET": "sixteen-characters-at-least"],
            ["GREENROOM_TURN_URLS": "http://turn.example.com", "GREENROOM_TURN_SECRET": "sixteen-characters-at-least"],
            ["GREENROOM_TURN_URLS": "turn:turn.example.com:3478", "GREENROOM_TURN_SECRET": "short"],
            ["GREENROOM_TURN_URLS": "turn:turn.example.com:3478", "GREENROOM_TURN_SECRET": "sixteen-characters-at-least", "GREENROOM_TURN_TTL_SECONDS": "5"],
            ["GREENROOM_STUN_URLS": "turn:stun.example.com"],
            ["GREENROOM_MEDIA_PUBLIC_IP": "203.0.113.999"],
            ["GREENROOM_MEDIA_STUN_SERVER": "stun.example.com"],
        ]
        for environment in refused {
            #expect(throws: (any Error).self, "\(environment)") { try ServerConfiguration.fromEnvironment(environment) }
        }
    }

    @Test("media.iceServers: STUN, then TURN with a credential of coturn's REST scheme for the caller's user, only to participants allowed media")
    func iceServersByRights() async throws {
        guard let programs = MediaPrograms.find(for: "the media network tests", browsers: false) else { return }
        try await withMediaServer(programs, { config in
            config.mediaNetwork.stunURLs = ["stun:stun.example.com:3478"]
            config.mediaNetwork.turnURLs = ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"]
            config.mediaNetwork.turnSecret = "a-secret-of-sixteen-or-more"
            config.mediaNetwork.turnCredentialLifetime = 600
        }) { server in
            let (alice, _, _) = try await server.joined("alice", meeting: "m", as: "alice-p", mode: .SEND_AND_RECV)
            let asked = Date()
            let answer = try await alice.send(MediaOperation.iceServers, args: MediaRoomRef(stream: "meeting:m"))
            #expect(answer.iceServers.map(\.urls) == [["stun:stun.example.com:3478"], ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"]])
            #expect(answer.iceServers[0].username == nil && answer.iceServers[0].credential == nil)
            let turn = answer.iceServers[1]
            let fields = try #require(turn.username?.split(separator: ":", maxSplits: 1))
            let expiry = try #require(fields.first.flatMap { Int($0) })
            #expect(fields.last == "alice")
            #expect(abs(Double(expiry) - (asked.timeIntervalSince1970 + 600)) < 5)
            #expect(answer.expiresAt == Date(timeIntervalSince1970: Double(expiry)))
            #expect(turn.credential?.isEmpty == false)

            // A viewer may receive, so it gets them too; a participant with no media, a user
            // not in the meeting, and a stream that is no room do not.
            let (viewer, _, _) = try await server.joined("vic", meeting: "m", as: "vic-p", mode: .RECV_ONLY)
            #expect(try await viewer.send(MediaOperation.iceServers, args: MediaRoomRef(stream: "meeting:m")).iceServers.count == 2)
            let (signalling, _, _) = try await server.joined("sam", meeting: "m", as: "sam-p", mode: .SIGNALLING_ONLY)
            #expect(await refusal { _ = try await signalling.send(MediaOperation.iceServers, args: MediaRoomRef(stream: "meeting:m")) } == .mediaNotAllowedInMode)
            let stranger = try await server.client("mallory")
            #expect(await refusal { _ = try await stranger.send(MediaOperation.iceServers, args: MediaRoomRef(stream: "meeting:m")) } != nil)
            #expect(await refusal { _ = try await alice.send(MediaOperation.iceServers, args: MediaRoomRef(stream: "chat:general")) } == .invalidParameterValue)
        }
    }

    @Test("--media-public-ip: the Janus the server runs announces the public address of its one-to-one NAT in its candidates")
    func publicAddressMapping() async throws {
        guard let programs = MediaPrograms.find(for: "the NAT mapping test", browsers: true) else { return }
        try await withMediaServer(programs, { config in
            config.mediaNetwork.publicAddress = "203.0.113.7"
        }) { server in
            let jcfg = try String(contentsOfFile: server.dataDirectory + "/janus/janus.jcfg", encoding: .utf8)
            #expect(jcfg.contains("nat_1_1_mapping = \"203.0.113.7\""), "\(jcfg)")
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (client, _, _) = try await server.joined("pat", meeting: "mapped", as: "pat", mode: .SEND_AND_RECV)
            let offer = try await engine.makePublishOffer()
            let answer = try await client.send(MediaOperation.publish, args: MediaPublishArgs(stream: "meeting:mapped", jsep: offer))
            // The mapping is of IPv4 addresses: each IPv4 candidate is the public address.
            let candidates = answer.jsep.sdp.split(separator: "\r\n").filter { $0.hasPrefix("a=candidate:") }
            let ipv4 = candidates.filter { line in line.split(separator: " ").dropFirst(4).first?.contains(".") == true }
            #expect(!ipv4.isEmpty && ipv4.allSatisfy { $0.contains(" 203.0.113.7 ") }, "\(candidates)")
            await engine.stopPublishing()
            await page.close()
        }
    }

    @Test("a browser in a network namespace behind a NAT (masquerade) whose UDP to the media server is all dropped publishes and receives through TURN over TCP, or TLS: frames decode on both sides and its selected candidate pairs are relays; coturn refuses an expired credential",
          arguments: ["tcp", "tls"])
    func behindUDPFirewall(transport: String) async throws {
        try await Self.withFirewall("the TURN firewall test (\(transport))", transport: transport) { firewall in
            let outside = try await firewall.here.open(secureOrigins: [firewall.origin])
            // coturn's certificate is the test's own.
            let inside = try await firewall.there.open(secureOrigins: [firewall.origin], acceptingAnyCertificate: transport == "tls")
            try await outside.go(try await firewall.demoURL("olivia", participant: "outside"))
            try await inside.go(try await firewall.demoURL("ivan", participant: "inside"))
            try await outside.waitForMedia(from: "inside", what: "the browser outside decodes the one behind the firewall")
            try await inside.waitForMedia(from: "outside", what: "the browser behind the firewall decodes the one outside")

            let paths = try await inside.run("return window.demo.paths()")
            for direction in ["publish", "receive"] {
                #expect(paths[direction]?["local"]?.stringValue == "relay", "\(direction): \(paths)")
                #expect(paths[direction]?["relayProtocol"]?.stringValue == transport, "\(direction): \(paths)")
            }
            let direct = try await outside.run("return window.demo.paths()")
            #expect(direct["publish"]?["local"]?.stringValue == "host", "the browser outside needs no relay: \(direct)")
            #expect(try await firewall.namespace.droppedPackets() > 0, "the browser inside tried UDP, and it was dropped")
            // Behind the NAT: its own address is private, and coturn saw the router's.
            let own = try #require(firewall.namespace.privateAddress)
            let log = firewall.turn.log
            #expect(log.contains(firewall.namespace.address) && !log.contains(own), "coturn sees the NAT's address, never the private one")

            // A credential whose expiry has passed: coturn answers 401 and no relay is
            // gathered; the one the server issues now gathers one.
            let expired = "\(Int(Date().timeIntervalSince1970) - 60):ivan"
            let stale = try await Self.gather(in: inside, url: firewall.turnURL, username: expired,
                                              credential: ICEServerIssuer.password(expired, secret: firewall.turn.secret))
            #expect(stale["relay"]?.numberValue == 0, "\(stale)")
            #expect(stale["errors"]?.arrayValue?.contains { $0.numberValue == 401 } == true, "\(stale)")
            let issued = try await inside.run("return window.demo.send('media.iceServers', { stream: 'meeting:firewalled' })")
            let fresh = try await Self.gather(in: inside, url: firewall.turnURL, username: issued["iceServers"]?[0]?["username"]?.stringValue ?? "",
                                              credential: issued["iceServers"]?[0]?["credential"]?.stringValue ?? "")
            #expect(fresh["relay"]?.numberValue ?? 0 >= 1, "\(fresh)")
            for browser in [outside, inside] { await browser.close() }
        }
    }

    @Test("the SDK hands its MediaEngine the room's TURN servers: an engine whose browser is behind the UDP firewall publishes and receives through TURN; the browser outside decodes it")
    func sdkEngineBehindFirewall() async throws {
        try await Self.withFirewall("the SDK's TURN test", transport: "tcp") { firewall in
            let outside = try await firewall.here.open(secureOrigins: [firewall.origin])
            try await outside.go(try await firewall.demoURL("olivia", participant: "outside"))
            let page = try await firewall.there.open(secureOrigins: [firewall.origin])
            try await page.go(firewall.origin + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (_, meeting, _) = try await firewall.server.joined("sam", meeting: "firewalled", as: "sam", mode: .SEND_AND_RECV, mic: true, webcam: true)
            let media = await meeting.attachMedia(engine)
            try await outside.waitForMedia(from: "sam", what: "the browser outside decodes the SDK's engine behind the firewall")
            try await eventually("the SDK's engine decodes the browser outside", timeout: .seconds(60)) {
                try await engine.framesDecoded().values.reduce(0, +) > 10
            }
            #expect(try await page.run("return window.iceServerCalls || 0").numberValue ?? 0 >= 1)
            for connection in ["pub", "sub"] {
                let path = try await engine.path(of: connection)
                #expect(path["local"]?.stringValue == "relay" && path["relayProtocol"]?.stringValue == "tcp", "\(connection): \(path)")
            }
            await media.settled()
            #expect(await media.lastError == nil)
            for browser in [outside, page] { await browser.close() }
        }
    }

    /// What a firewall test has: the namespace (its UDP to this machine dropped), coturn on
    /// its host end, the server (listening there too, Janus offering media only there),
    /// a chromedriver here and one inside.
    struct Firewall {
        let namespace: NetworkNamespace
        let turn: TURNServer
        let turnURL: String
        let server: TestServer
        let here: BrowserDriver
        let there: BrowserDriver

        /// The server's origin as browsers reach it.
        var origin: String { "http://\(namespace.hostAddress):\(server.port)" }

        /// The demo page joining the meeting `firewalled` on stage.
        func demoURL(_ user: String, participant: String) async throws -> String {
            try await server.demoURL(user, meeting: "firewalled", participant: participant, mode: "SEND_AND_RECV", host: namespace.hostAddress)
        }
    }

    /// Runs `body` with a ``Firewall`` whose clients use TURN over `transport`, and removes
    /// the namespace after it, whatever happens.
    private static func withFirewall(_ what: String, transport: String, _ body: (Firewall) async throws -> Void) async throws {
        guard let programs = MediaPrograms.find(for: what, browsers: true), let coturn = TURNServer.find(for: what),
              let tools = NetworkNamespace.tools(for: what) else { return }
        let namespace = try await NetworkNamespace(tools: tools, behindNAT: true)
        do {
            try await namespace.dropUDP()
            let turn = try await TURNServer(executable: coturn, address: namespace.hostAddress)
            defer { turn.stop() }
            let turnURL = transport == "tls" ? turn.tlsURL : turn.url
            try await withMediaServer(programs, { config in
                config.host = "0.0.0.0"
                config.mediaICEInterfaces = namespace.hostAddress
                config.mediaNetwork.turnURLs = [turnURL]
                config.mediaNetwork.turnSecret = turn.secret
            }) { server in
                let here = try await BrowserDriver(programs: programs)
                defer { here.stop() }
                let there = try await BrowserDriver(programs: programs, namespace: namespace)
                defer { there.stop() }
                try await body(Firewall(namespace: namespace, turn: turn, turnURL: turnURL, server: server, here: here, there: there))
            }
        } catch {
            await namespace.remove()
            throw error
        }
        await namespace.remove()
    }

    /// Gathers candidates in `browser` through the TURN server at `url` with a credential,
    /// relayed paths only: how many relay candidates came and the errors' codes.
    private static func gather(in browser: Browser, url: String, username: String, credential: String) async throws -> RawJSON {
        try await browser.run("""
            return (async () => {
            const pc = new RTCPeerConnection({ iceServers: [{ urls: '\(url)', username: '\(username)', credential: '\(credential)' }], iceTransportPolicy: 'relay' });
            const result = { relay: 0, errors: [] };
            pc.onicecandidate = (event) => { if (event.candidate && event.candidate.type === 'relay') result.relay++; };
            pc.onicecandidateerror = (event) => result.errors.push(event.errorCode);
            pc.createDataChannel('probe');
            await pc.setLocalDescription(await pc.createOffer());
            await new Promise((resolve) => {
              const timer = setTimeout(resolve, 10000);
              pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); } };
            });
            pc.close();
            return result;
            })();
            """)
    }
}
