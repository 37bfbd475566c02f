import Foundation
import Greenroom
@testable import GreenroomServer
import Testing

/// Every change is stored in one transaction with the checks that allow it and the events
/// that announce it: limits hold under concurrent requests, on one node and on two.
@Suite("Changes and their events, in one transaction", .wholeRun)
struct TransactionalChangeTests {
    /// Connects `users` to the servers (round robin), then has every one join meeting
    /// `meetingId` at once; returns how many got in and the codes of those refused.
    func joinAtOnce(_ servers: [TestServer], _ users: [String], meetingId: String) async throws -> (joined: Int, refused: [ErrorCode]) {
        var meetings: [Meeting] = []
        for (index, user) in users.enumerated() {
            let client = try await servers[index % servers.count].client(user)
            meetings.append(client.initMeeting(meetingId: meetingId, participantId: user, participantName: user,
                                               micEnabled: false, webcamEnabled: false, mode: .SIGNALLING_ONLY))
        }
        let refused = await refusalsAtOnce(meetings.map { meeting in { try await meeting.join() } })
        return (users.count - refused.count, refused)
    }

    /// Runs every call at the same time; returns the codes of those refused.
    func refusalsAtOnce(_ calls: [@Sendable () async throws -> Void]) async -> [ErrorCode] {
        await withTaskGroup(of: ErrorCode?.self) { group in
            for call in calls { group.addTask { await refusal(call) } }
            var refused: [ErrorCode] = []
            for await outcome in group { if let outcome { refused.append(outcome) } }
            return refused
        }
    }

    /// The participants the server holds for a meeting, over REST.
    func participantCount(_ server: TestServer, _ meetingId: String) async throws -> Int? {
        let (status, body) = try await server.rest("GET", "/v1/meetings/\(meetingId)")
        #expect(status == 200)
        return body["participants"]?.arrayValue?.count
    }

    @Test("20 clients join a meeting limited to 5 at the same moment: exactly 5 are inside, 15 are refused with maxParticipantsReached")
    func meetingLimitOnOneNode() async throws {
        try await withServer({ $0.meetingParticipantLimit = 5 }) { server in
            _ = try await server.rest("POST", "/v1/meetings", body: ["meetingId": "crowd"])
            for round in 1...3 {
                let users = (1...20).map { "r\(round)u\($0)" }
                let (joined, refused) = try await joinAtOnce([server], users, meetingId: "crowd-\(round)")
                #expect(joined == 5)
                #expect(refused.count == 15 && refused.allSatisfy { $0 == .maxParticipantsReached })
                #expect(try await participantCount(server, "crowd-\(round)") == 5)
                await server.disconnectClients()
            }
        }
    }

    @Test("20 clients on two PostgreSQL nodes join a meeting limited to 5 at once: exactly 5 are inside")
    func meetingLimitOnTwoNodes() async throws {
        guard let admin = await TestEnvironment.postgres(for: "the two-node participant limit test") else { return }
        let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
        defer { Task { await TestEnvironment.dropPostgresDatabase(url, adminURL: admin) } }
        let directory = TestServer.makeDataDirectory()
        let configure: (inout ServerConfiguration) -> Void = { $0.databaseURL = url; $0.meetingParticipantLimit = 5 }
        let one = try await TestServer.start(dataDirectory: directory, configure)
        let two = try await TestServer.start(dataDirectory: directory, configure)
        do {
            for round in 1...2 {
                let users = (1...20).map { "r\(round)u\($0)" }
                let (joined, refused) = try await joinAtOnce([one, two], users, meetingId: "crowd-\(round)")
                #expect(joined == 5)
                #expect(refused.count == 15 && refused.allSatisfy { $0 == .maxParticipantsReached })
                #expect(try await participantCount(one, "crowd-\(round)") == 5)
                #expect(try await participantCount(two, "crowd-\(round)") == 5)
            }
        } catch {
            Issue.record("two-node limit test failed: \(error)")
        }
        await one.disconnectClients()
        await two.disconnectClients()
        try await one.shutdown()
        try await two.shutdown()
    }

    @Test("10 users enter a live event as hosts at once: 6 are hosts, 4 are refused, and the roster holds the same 6")
    func hostLimit() async throws {
        try await withServer { server in
            let users = (1...10).map { "host\($0)" }
            let clients = try await server.clients(users)
            let params = LiveEvent.CreateParams()
            params.userIdsForHost = users
            let created = try await clients["host1"]!.createLiveEvent(config: params)
            var events: [LiveEvent] = []
            for user in users { events.append(try await clients[user]!.getLiveEvent(id: created.liveEventId)) }
            let refused = await refusalsAtOnce(events.map { event in { try await event.enterAsHost() } })
            #expect(events.count - refused.count == Limits.maxLiveEventHosts)
            #expect(refused.count == 10 - Limits.maxLiveEventHosts && refused.allSatisfy { $0 == .actionNotAllowedInCurrentState })
            let stored = try await clients["host1"]!.getLiveEvent(id: created.liveEventId)
            #expect(stored.hosts.count == Limits.maxLiveEventHosts)
            let stream = StreamKind.live.stream(created.liveEventId)
            let rosterHosts = try await server.server.core.storage.presence(stream: stream).filter { $0.clientId.hasPrefix("host:") }
            #expect(Set(rosterHosts.map(\.userId)) == Set(stored.hosts.map(\.userId)))
        }
    }

    @Test("a user update and its user.updated event are one transaction: a failure between them stores neither")
    func userUpdateIsAtomic() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            let controller = alice.currentUserController()
            let inbox = try await alice.subscribe(to: StreamName.user("alice"))
            _ = try await controller.updateUserData(name: "Alice")
            #expect(try await collect(inbox, count: 1).events.map(\.type) == ["user.updated"])

            server.server.core.events.faults.failNextAppend(ofType: "user.updated")
            #expect(await refusal { _ = try await controller.updateUserData(name: "Mallory", userExtraData: ["email": "m@example.com"]) } == .internalError)
            let after = try await controller.currentUser()
            #expect(after.nickname == "Alice" && after.extraData["email"] == nil)
            let (status, body) = try await server.rest("GET", "/v1/users/alice")
            #expect(status == 200 && body["nickname"]?.stringValue == "Alice")

            // The next update goes through, and its event is the next on the stream: none
            // was announced for the change that was not stored.
            _ = try await controller.updateUserData(name: "Alicia")
            let next = try await collect(inbox, count: 1).events
            #expect(next.map(\.type) == ["user.updated"] && next.first?.offset == 2)
            #expect(next.first?.data["nickname"]?.stringValue == "Alicia")
        }
    }

    @Test("a user deletion and its user.deleted event are one transaction")
    func userDeleteIsAtomic() async throws {
        try await withServer { server in
            _ = try await server.rest("POST", "/v1/users", body: ["id": "bob", "nickname": "Bob"])
            server.server.core.events.faults.failNextAppend(ofType: "user.deleted")
            let (failed, _) = try await server.rest("DELETE", "/v1/users/bob")
            #expect(failed == 500)
            let (status, body) = try await server.rest("GET", "/v1/users/bob")
            #expect(status == 200 && body["nickname"]?.stringValue == "Bob")
            #expect(try await server.server.core.storage.readEvents(stream: StreamName.user("bob"), after: 0, limit: 10).isEmpty)
            let (deleted, _) = try await server.rest("DELETE", "/v1/users/bob")
            #expect(deleted == 204 || deleted == 200)
            #expect(try await server.server.core.storage.readEvents(stream: StreamName.user("bob"), after: 0, limit: 10).map(\.type)
                == ["user.deleted", "user.tokensRevoked"])
        }
    }
}
