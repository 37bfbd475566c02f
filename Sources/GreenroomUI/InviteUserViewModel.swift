import Foundation
import Greenroom
import Observation

/// Told when users were invited, on the main actor.
@MainActor
public protocol InviteUserViewModelDelegate: BaseSelectedUserViewModelDelegate {
    /// The users with these ids were invited.
    func inviteUserViewModel(_ viewModel: InviteUserViewModel, didInviteUserIds userIds: [String])
}

/// The invite-users screen: the app's users (20 a page) without the channel's members and
/// invitees, a selection, and ``inviteUsers()``.
@MainActor
public final class InviteUserViewModel: SelectUserViewModel {
    /// Told of the list, the selection, loading, errors and invitations. Held weakly.
    public weak var delegate: (any InviteUserViewModelDelegate)? {
        didSet { baseDelegate = delegate }
    }

    /// Makes the view model for a channel, as the vendor's screen does.
    public static func createViewModel(client: ChatClient, channel: ChatChannel? = nil, channelUrl: String? = nil, channelType: ChannelType = .group,
                                       users: [ChatUser]? = nil, delegate: (any InviteUserViewModelDelegate)? = nil) -> InviteUserViewModel {
        let viewModel = InviteUserViewModel(client: client, channel: channel, channelUrl: channelUrl, channelType: channelType, users: users)
        viewModel.delegate = delegate
        return viewModel
    }

    /// Invites the selected users (nothing happens when none is selected), then tells the
    /// delegate and drops them from the list. A refusal reaches `didReceiveError` and the
    /// lists stay as they were.
    public func inviteUsers() async {
        let ids = selectedUserList.map(\.id)
        guard !ids.isEmpty else { return }
        do {
            try await channelController.inviteUserIds(ids)
            delegate?.inviteUserViewModel(self, didInviteUserIds: ids)
            remove(ids)
        } catch {
            report(error)
        }
    }

    override func excludedIds() async throws -> Set<String> {
        if let excluded { return excluded }
        var ids = Set<String>()
        for filter in [MemberFilter.all, .invited] {
            var cursor: String?
            repeat {
                let page = try await channelController.loadMembers(filter: filter, limit: 100, cursor: cursor)
                ids.formUnion(page.items.map(\.userId))
                cursor = page.next
            } while cursor != nil
        }
        excluded = ids
        return ids
    }

    override func fetchPage(cursor: String?) async throws -> ([ChatUser], String?) {
        let page = try await client.users(UserListArgs(nicknamePrefix: nicknamePrefix, limit: Self.pageSize, cursor: cursor))
        return (page.items, page.next)
    }
}
