import Foundation
import Greenroom
import GreenroomServer
import GreenroomUI
import Testing

/// Records a select-user view model's delegate calls.
@MainActor
final class SelectUserRecorder: InviteUserViewModelDelegate, RegisterOperatorViewModelDelegate {
    var listChanges = 0
    var selections: [[String]] = []
    var loading: [Bool] = []
    var errors: [GreenroomError] = []
    var invited: [[String]] = []
    var registered: [[String]] = []

    func baseSelectedUserViewModel(_ viewModel: SelectUserViewModel, didChangeUserList users: [ChatUser], needsToReload: Bool) { listChanges += 1 }
    func baseSelectedUserViewModel(_ viewModel: SelectUserViewModel, didUpdateSelectedUsers selectedUsers: [ChatUser]) { selections.append(selectedUsers.map(\.id)) }
    func shouldUpdateLoadingState(_ isLoading: Bool) { loading.append(isLoading) }
    func didReceiveError(_ error: GreenroomError, isBlocker: Bool) { errors.append(error) }
    func inviteUserViewModel(_ viewModel: InviteUserViewModel, didInviteUserIds userIds: [String]) { invited.append(userIds) }
    func registerOperatorViewModel(_ viewModel: RegisterOperatorViewModel, didRegisterOperatorIds userIds: [String]) { registered.append(userIds) }
}

@Suite("GreenroomUI: the view models behind the seeds' screens", .wholeRun)
struct ViewModelTests {
    @Test("invite: 75 users, 30 members; the list pages to exactly the 45 others, skipping a page of members; selection toggles; inviting 3")
    @MainActor
    func inviteUsers() async throws {
        try await withServerOnMain { server in
            // Ids sort so that the first page of 20 holds only members.
            let everyone = (1...75).map { String(format: "user%02d", $0) }
            let members = Array(everyone.prefix(30))
            try await server.createUsers(Array(everyone.dropFirst()))
            let owner = try await server.client(everyone[0])
            let channel = try await owner.createChannel(id: "club", members: Array(members.dropFirst()))
            #expect(channel.memberCount == 30)

            let recorder = SelectUserRecorder()
            let viewModel = InviteUserViewModel.createViewModel(client: owner, channel: channel, delegate: recorder)
            await viewModel.loadNextUserList()
            // Page 1 (user01–20) is all members and skipped; page 2 gives user31–40.
            #expect(viewModel.userList.map(\.id) == (31...40).map { String(format: "user%02d", $0) })
            while viewModel.hasNext, let last = viewModel.userList.last { await viewModel.loadNextIfNeeded(currentUser: last) }
            #expect(viewModel.userList.map(\.id) == Array(everyone.dropFirst(30)))
            #expect(viewModel.userList.count == 45 && !viewModel.isLoading)
            #expect(recorder.loading.first == true && recorder.loading.last == false)

            let picks = Array(viewModel.userList.prefix(4))
            for user in picks { viewModel.selectUser(user: user) }
            viewModel.selectUser(user: picks[1])
            #expect(viewModel.selectedUserList.map(\.id) == [picks[0].id, picks[2].id, picks[3].id])
            #expect(viewModel.isSelected(picks[0]) && !viewModel.isSelected(picks[1]))
            try await viewModel.invite()
            #expect(recorder.invited == [[picks[0].id, picks[2].id, picks[3].id]])
            #expect(viewModel.userList.count == 42 && viewModel.selectedUserList.isEmpty)
            #expect(try await owner.channel("club").memberCount == 33)
            try await viewModel.invite()
            #expect(recorder.invited.count == 1)

            // Search by nickname prefix; a caller's own list.
            await viewModel.search(nicknamePrefix: "user7")
            #expect(viewModel.userList.map(\.id) == (70...75).map { String(format: "user%02d", $0) })
            let own = InviteUserViewModel.createViewModel(client: owner, channelUrl: "club", users: [try await owner.user(id: "user02"), try await owner.user(id: "user50")])
            await own.loadNextUserList()
            #expect(own.userList.map(\.id) == ["user50"] && !own.hasNext)
        }
    }

    @Test("register operators: exactly the non-operator members; a non-operator's attempt surfaces the server's error and changes nothing")
    @MainActor
    func registerOperators() async throws {
        try await withServerOnMain { server in
            let names = (1...25).map { String(format: "m%02d", $0) }
            try await server.createUsers(Array(names.dropFirst()))
            let owner = try await server.client(names[0])
            _ = try await owner.createChannel(id: "ops", members: Array(names.dropFirst()), operators: ["m02", "m03"])
            let recorder = SelectUserRecorder()
            let viewModel = RegisterOperatorViewModel.createViewModel(client: owner, channelUrl: "ops", delegate: recorder)
            await viewModel.loadNextUserList()
            await viewModel.loadNextUserList()
            #expect(viewModel.userList.map(\.id) == Array(names.dropFirst(3)) && !viewModel.hasNext)

            let member = try await server.client("m10")
            let refused = RegisterOperatorViewModel.createViewModel(client: member, channelUrl: "ops", delegate: recorder)
            await refused.loadNextUserList()
            let before = refused.userList
            refused.selectUser(user: before[0])
            let error = await #expect(throws: GreenroomError.self) { try await refused.registerOperators() }
            #expect(error?.name == "operatorRequired" && recorder.errors.isEmpty)
            refused.registerAsOperators()
            try await eventuallyOnMain("the plain call's refusal reaches the delegate") { !recorder.errors.isEmpty }
            #expect(recorder.errors.map(\.name) == ["operatorRequired"])
            #expect(refused.userList == before && refused.selectedUserList.map(\.id) == [before[0].id])
            #expect(recorder.registered.isEmpty)

            viewModel.selectUser(user: viewModel.userList[0])
            viewModel.selectUser(user: viewModel.userList[1])
            try await viewModel.registerOperators()
            #expect(recorder.registered == [["m04", "m05"]])
            #expect(viewModel.userList.count == 20 && !viewModel.userList.contains { $0.id == "m04" })
            #expect(try await owner.channelController(for: "ops").loadMembers(filter: .operators).items.map(\.userId) == ["m01", "m02", "m03", "m04", "m05"])
            try await viewModel.registerOperators(userIds: [])
            #expect(recorder.registered.count == 1)
        }
    }

    @Test("the stage flow through the helper with three clients: every participant list shows the right tags and states at each step")
    @MainActor
    func stageFlow() async throws {
        let server = try await TestServer.start()
        do {
            var lists: [ParticipantListViewModel] = []
            var helpers: [StageInvitation] = []
            var meetings: [Meeting] = []
            for (user, mode) in [("host", Mode.SEND_AND_RECV), ("viewerA", .SIGNALLING_ONLY), ("viewerB", .SIGNALLING_ONLY)] {
                let client = try await server.client(user)
                let meeting = client.initMeeting(meetingId: "live", participantId: user, participantName: user.capitalized,
                                                 micEnabled: mode == .SEND_AND_RECV, webcamEnabled: mode == .SEND_AND_RECV, mode: mode)
                let list = ParticipantListViewModel(meeting: meeting)
                let helper = StageInvitation(meeting: meeting, participantList: list)
                try await meeting.join()
                await helper.start()
                meetings.append(meeting)
                lists.append(list)
                helpers.append(helper)
            }
            @MainActor func tags(_ list: ParticipantListViewModel) -> [String] {
                list.rows.map { row in "\(row.id):\(row.isRequested ? "requested" : row.isHost ? "host" : "-"):\(row.cameraOn ? "cam" : "nocam"):\(row.micOn ? "mic" : "nomic")\(row.isPinned ? ":pinned" : "")" }
            }
            // The host lists everyone; a viewer the stage and itself (not the other viewers of
            // a big meeting), and everyone counts three.
            try await eventuallyOnMain("the host lists three") { lists[0].rows.count == 3 }
            try await eventuallyOnMain("everyone counts three") { lists.allSatisfy { $0.participantCount == 3 } }
            #expect(tags(lists[0]) == ["host:host:cam:mic", "viewerA:-:nocam:nomic", "viewerB:-:nocam:nomic"])
            #expect(tags(lists[1]) == ["viewerA:-:nocam:nomic", "host:host:cam:mic"])
            #expect(tags(lists[2]) == ["viewerB:-:nocam:nomic", "host:host:cam:mic"])

            // The host asks A; only A is asked.
            let a = try #require(meetings[0].participants.first { $0.id == "viewerA" })
            try await helpers[0].request(a)
            #expect(lists[0].row("viewerA")?.isRequested == true)
            try await eventuallyOnMain("A is asked") { helpers[1].showAlert }
            #expect(helpers[1].alertTitle == "Host Request" && helpers[1].showActionButtons)
            #expect(helpers[1].alertMessage == "Host has requested to become the host. Do you accept?")
            #expect(!helpers[2].showAlert)

            // A accepts: its mode changes, everyone pins it, the host is told.
            try await helpers[1].accept()
            try await eventuallyOnMain("everyone sees A on stage, pinned") { lists.allSatisfy { $0.row("viewerA")?.isHost == true && $0.row("viewerA")?.isPinned == true } }
            try await eventuallyOnMain("the host is told") { helpers[0].alertTitle == "Host Request Accepted" }
            #expect(!helpers[0].showActionButtons && helpers[0].alertMessage.contains("Viewera"))
            // On stage, A lists everyone; B hears of A.
            try await eventuallyOnMain("A lists everyone") { lists[1].rows.count == 3 }
            #expect(tags(lists[2]) == ["viewerB:-:nocam:nomic", "host:host:cam:mic", "viewerA:host:nocam:nomic:pinned"])
            try await meetings[1].enableWebcam()
            try await eventuallyOnMain("everyone sees A's camera") { lists.allSatisfy { $0.row("viewerA")?.cameraOn == true } }

            // The host asks B, who declines.
            let b = try #require(meetings[0].participants.first { $0.id == "viewerB" })
            try await helpers[0].request(b)
            try await eventuallyOnMain("B is asked") { helpers[2].showAlert && helpers[2].showActionButtons }
            try await helpers[2].decline()
            try await eventuallyOnMain("the host is told of the decline") { helpers[0].alertTitle == "Host Request Rejected" }
            #expect(lists[0].row("viewerB")?.isRequested == false)
            #expect(tags(lists[0]) == ["host:host:cam:mic", "viewerA:host:cam:nomic:pinned", "viewerB:-:nocam:nomic"])
            #expect(tags(lists[1]) == ["viewerA:host:cam:nomic:pinned", "host:host:cam:mic", "viewerB:-:nocam:nomic"])
            #expect(!helpers[1].showActionButtons || !helpers[1].showAlert)

            // Asked again while on stage, A accepts: the mode cannot change, so the refusal is
            // thrown and no ACCEPTED goes out; A then declines, and that is the one answer the
            // host gets.
            let log = await MeetingRecorder.attached(to: meetings[0])
            await meetings[0].pubsub.subscribe(topic: StageInvitation.answerTopic, forListener: log)
            try await helpers[0].request(a)
            try await eventuallyOnMain("A is asked again") { helpers[1].showAlert && helpers[1].showActionButtons }
            await #expect { try await helpers[1].accept() } throws: { ($0 as? GreenroomError)?.errorCode == .modeUnchanged }
            try await helpers[1].decline()
            // Answers arrive in the order they were sent: had an ACCEPTED gone out, it would
            // be here before the DECLINED.
            try await log.wait("the host hears the decline") { $0.on(StageInvitation.answerTopic).count >= 1 }
            #expect(log.on(StageInvitation.answerTopic).map(\.message) == ["DECLINED"])
            try await server.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
    }
}

/// Waits until `condition` holds on the main actor; fails the test after `timeout`.
@MainActor
func eventuallyOnMain(_ what: String, timeout: Duration = .seconds(20), _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting until \(what)")
    throw TestTimeout(what: what)
}

/// ``withServer(_:_:)`` for tests on the main actor (view models live there).
@MainActor
func withServerOnMain(_ body: @MainActor (TestServer) async throws -> Void) async throws {
    let server = try await TestServer.start()
    do {
        try await body(server)
        try await server.shutdown()
    } catch {
        try? await server.shutdown()
        throw error
    }
}
