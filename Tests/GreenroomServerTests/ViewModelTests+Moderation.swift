import Foundation
import Greenroom
import GreenroomUI
import Testing

/// Records the operators' list screens' delegate calls.
@MainActor
final class ModerationListRecorder: MutedMemberListViewModelDelegate, BannedUserListViewModelDelegate {
    var errors: [GreenroomError] = []
    var unmuted: [[String]] = []
    var unbanned: [[String]] = []

    func didReceiveError(_ error: GreenroomError, isBlocker: Bool) { errors.append(error) }
    func mutedMemberListViewModel(_ viewModel: MutedMemberListViewModel, didUnmuteUserIds userIds: [String]) { unmuted.append(userIds) }
    func bannedUserListViewModel(_ viewModel: BannedUserListViewModel, didUnbanUserIds userIds: [String]) { unbanned.append(userIds) }
}

extension ViewModelTests {
    @Test("operators' screens: 25 muted members over two pages, unmuting two; banned users with their reasons, unbanning one; a plain member is refused")
    @MainActor
    func mutedAndBannedLists() async throws {
        try await withServerOnMain { server in
            let names = (1...30).map { String(format: "m%02d", $0) }
            try await server.createUsers(Array(names.dropFirst()) + ["b1", "b2"])
            let owner = try await server.client(names[0])
            _ = try await owner.createChannel(id: "mod", members: Array(names.dropFirst()))
            let room = owner.channelController(for: "mod")
            let muted = Array(names[1...25])
            for userId in muted { _ = try await room.muteUser(userId: userId, seconds: 600) }
            for userId in ["b1", "b2"] { _ = try await room.banUser(userId: userId, description: "spam from \(userId)") }

            let recorder = ModerationListRecorder()
            let mutes = MutedMemberListViewModel.createViewModel(client: owner, channelUrl: "mod", delegate: recorder)
            await mutes.loadNextUserList()
            #expect(mutes.userList.count == 20 && mutes.hasNext)
            while mutes.hasNext, let last = mutes.userList.last { await mutes.loadNextIfNeeded(currentUser: last) }
            #expect(mutes.userList.map(\.id) == muted)
            for user in mutes.userList.prefix(2) { mutes.selectUser(user: user) }
            try await mutes.unmute()
            #expect(recorder.unmuted == [Array(muted.prefix(2))] && mutes.userList.count == 23)
            #expect(try await room.loadMutedMembers(limit: 100).items.map(\.userId) == Array(muted.dropFirst(2)))

            let bans = BannedUserListViewModel.createViewModel(client: owner, channelUrl: "mod", delegate: recorder)
            await bans.loadNextUserList()
            #expect(bans.userList.map(\.id) == ["b1", "b2"] && bans.bans["b2"]?.reason == "spam from b2")
            try await bans.unban(userIds: ["b1"])
            #expect(recorder.unbanned == [["b1"]] && bans.userList.map(\.id) == ["b2"] && bans.bans["b1"] == nil)
            #expect(try await room.inviteUserIds(["b1"]).map(\.userId) == ["b1"], "an unbanned user can be invited again")
            do {
                _ = try await room.inviteUserIds(["b2"])
                Issue.record("a banned user was invited")
            } catch let error as GreenroomError {
                #expect(error.is(.bannedFromChannel))
            }

            let member = try await server.client(names[29])
            let refused = BannedUserListViewModel.createViewModel(client: member, channelUrl: "mod", delegate: recorder)
            await refused.loadNextUserList()
            #expect(refused.userList.isEmpty && recorder.errors.map(\.errorCode) == [.operatorRequired])
        }
    }
}
