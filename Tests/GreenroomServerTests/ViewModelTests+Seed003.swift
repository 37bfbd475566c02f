import Foundation
import Greenroom
import GreenroomServer
import GreenroomUI
import Testing

/// The seed's "custom view model": lists only the caller's friends (a query of its own),
/// hides a blocked one (a filter of its own) and records what it invited (an action of its
/// own that still invites through `super`).
@MainActor
final class FriendsInviteViewModel: InviteUserViewModel {
    let friends: [String]
    let blocked: String
    var performed: [[String]] = []

    init(client: ChatClient, channel: ChatChannel, friends: [String], blocked: String) {
        self.friends = friends
        self.blocked = blocked
        super.init(client: client, channel: channel)
    }

    override func loadUserPage(cursor: String?) async throws -> Page<ChatUser> {
        guard let client else { return Page(items: [], next: nil) }
        // Two friends a page, to show that paging goes through the override.
        let start = Int(cursor ?? "0") ?? 0
        let ids = Array(friends.dropFirst(start).prefix(2))
        let users = try await client.users(UserListArgs(ids: ids, limit: ids.count)).items
        let next = start + 2 < friends.count ? String(start + 2) : nil
        return Page(items: users.sorted { $0.id < $1.id }, next: next)
    }

    override func filterUsers(_ users: [ChatUser]) async throws -> [ChatUser] {
        try await super.filterUsers(users).filter { $0.id != blocked }
    }

    override func perform(userIds: [String]) async throws {
        performed.append(userIds)
        try await super.perform(userIds: userIds)
    }
}

/// A screen's button: a plain, synchronous action, as UIKit's target-action and SwiftUI's
/// `Button` call it. The seed's calls must compile here.
@MainActor
func tapButton(_ action: () -> Void) { action() }

extension ViewModelTests {
    @Test("seed 003's shapes: made from a channel or its URL, client and delegate set by the screen; the first page loads by itself; plain calls from a button report through the delegate")
    @MainActor
    func seedShapes() async throws {
        try await withServerOnMain { server in
            try await server.createUsers(["ana", "bo", "cy", "di", "ed"])
            let owner = try await server.client("owner")
            let channel = try await owner.createChannel(id: "crew", members: ["ana"])

            // init(channel:users:), then the screen sets the client and the delegate.
            let recorder = SelectUserRecorder()
            let invite = InviteUserViewModel(channel: channel, users: nil)
            #expect(invite.userList.isEmpty && invite.client == nil)
            invite.client = owner
            invite.delegate = recorder
            try await eventuallyOnMain("the first page arrives without a load call") { recorder.listChanges > 0 }
            #expect(invite.userList.map(\.id) == ["bo", "cy", "di", "ed"])
            #expect(recorder.loading == [true, false])

            // The seed's button: a plain call, told through the delegate.
            invite.selectUser(user: invite.userList[0])
            invite.selectUser(user: invite.userList[2])
            tapButton { invite.inviteUsers() }
            try await eventuallyOnMain("the invitation reaches the delegate") { !recorder.invited.isEmpty }
            #expect(recorder.invited == [["bo", "di"]])
            #expect(invite.userList.map(\.id) == ["cy", "ed"] && invite.selectedUserList.isEmpty)
            tapButton { invite.inviteUsers(userIds: ["ed"]) }
            try await eventuallyOnMain("the second invitation") { recorder.invited.count == 2 }
            #expect(recorder.invited.last == ["ed"] && invite.userList.map(\.id) == ["cy"])
            // Invitations are accepted by default (setChannelInvitationPreference).
            let members = try await owner.channelController(for: "crew").loadMembers().items.map(\.userId)
            #expect(members.sorted() == ["ana", "bo", "di", "ed", "owner"])

            // init(channelUrl:channelType:users:) with a client: loads at once; a reset
            // right behind the first load waits for it and reloads, ending with one list.
            let register = RegisterOperatorViewModel(client: owner, channelUrl: "crew", channelType: .group, users: nil)
            await register.loadNextUserList(reset: true)
            #expect(register.userList.map(\.id).sorted() == ["ana", "bo", "di", "ed"] && !register.hasNext)

            // A channel that does not exist: the error reaches the delegate as a blocker.
            let lost = SelectUserRecorder()
            let nowhere = RegisterOperatorViewModel(channelUrl: "no-such-channel", users: nil)
            nowhere.delegate = lost
            await nowhere.loadNextUserList()
            #expect(lost.errors.map(\.name) == ["notConnected"], "no client yet")
            nowhere.client = owner
            try await eventuallyOnMain("the refusal after the client is set") { lost.errors.count == 2 }
            #expect(nowhere.userList.isEmpty)
        }
    }

    @Test("seed 003's custom view model: a subclass lists its own users, filters them and acts through super")
    @MainActor
    func customViewModel() async throws {
        try await withServerOnMain { server in
            try await server.createUsers(["f1", "f2", "f3", "f4", "f5", "stranger"])
            let owner = try await server.client("owner")
            let channel = try await owner.createChannel(id: "pals", members: ["f2"])
            let recorder = SelectUserRecorder()
            let viewModel = FriendsInviteViewModel(client: owner, channel: channel, friends: ["f1", "f2", "f3", "f4", "f5"], blocked: "f4")
            viewModel.delegate = recorder
            while viewModel.hasNext { await viewModel.loadNextUserList() }
            // f2 is a member (the default filter, kept through super), f4 blocked, and
            // "stranger" never queried.
            #expect(viewModel.userList.map(\.id) == ["f1", "f3", "f5"])
            try await viewModel.invite(userIds: ["f3"])
            #expect(viewModel.performed == [["f3"]] && recorder.invited == [["f3"]])
            #expect(try await owner.channelController(for: "pals").loadMembers().items.map(\.userId).sorted() == ["f2", "f3", "owner"])
            await viewModel.search(nicknamePrefix: "f5")
            #expect(viewModel.userList.map(\.id) == ["f5"])
        }
    }

    @Test("register operators with the caller's own users: those not members, or already operators, are not shown")
    @MainActor
    func registerCustomUsers() async throws {
        try await withServerOnMain { server in
            try await server.createUsers(["op", "member1", "member2", "outsider"])
            let owner = try await server.client("owner")
            _ = try await owner.createChannel(id: "desk", members: ["op", "member1", "member2"], operators: ["op"])
            var users: [ChatUser] = []
            for id in ["outsider", "op", "member2", "owner", "member1"] { users.append(try await owner.user(id: id)) }
            let viewModel = RegisterOperatorViewModel(client: owner, channelUrl: "desk", users: users)
            await viewModel.loadNextUserList()
            // The owner created the channel and is its operator; the custom order is kept.
            #expect(viewModel.userList.map(\.id) == ["member2", "member1"] && !viewModel.hasNext)
            try await viewModel.registerOperators(userIds: ["member2"])
            await viewModel.loadNextUserList(reset: true)
            #expect(viewModel.userList.map(\.id) == ["member1"])
        }
    }
}
