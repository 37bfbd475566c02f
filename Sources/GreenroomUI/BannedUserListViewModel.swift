import Foundation
import Greenroom
import Observation

/// Told when bans were lifted, on the main actor.
@MainActor
public protocol BannedUserListViewModelDelegate: BaseSelectedUserViewModelDelegate {
    /// The users with these ids were unbanned.
    func bannedUserListViewModel(_ viewModel: BannedUserListViewModel, didUnbanUserIds userIds: [String])
}

/// The operators' banned-users screen (Sendbird UIKit's banned user list): the users
/// banned from the channel now (20 a page), each ban's reason and end in ``bans``, a
/// selection, and ``unbanSelected()``.
///
/// ```swift
/// let viewModel = BannedUserListViewModel(channelUrl: "club", users: nil)
/// viewModel.client = client          // the first page starts loading
/// viewModel.delegate = self
/// viewModel.unbanSelected()          // → bannedUserListViewModel(_:didUnbanUserIds:)
/// ```
/// or awaited: `try await viewModel.unban()`. Subclass it to change the list, the filter
/// or the action (see ``SelectUserViewModel``).
@MainActor
open class BannedUserListViewModel: SelectUserViewModel {
    /// Told of the list, the selection, loading, errors and unbans. Held weakly.
    public weak var delegate: (any BannedUserListViewModelDelegate)? {
        didSet { baseDelegate = delegate }
    }

    /// The bans of the users listed, by user id: why, by whom, until when.
    public private(set) var bans: [String: ChannelBan] = [:]

    /// Makes the view model for a channel with its client and delegate in one call.
    public static func createViewModel(client: ChatClient, channel: ChatChannel? = nil, channelUrl: String? = nil,
                                       delegate: (any BannedUserListViewModelDelegate)? = nil) -> BannedUserListViewModel {
        let viewModel = BannedUserListViewModel(client: client, channel: channel, channelUrl: channelUrl)
        viewModel.delegate = delegate
        return viewModel
    }

    /// Lifts the selected users' bans, as a button's action does: returns at once; the
    /// delegate hears `bannedUserListViewModel(_:didUnbanUserIds:)` (and they leave the
    /// list) or `didReceiveError`.
    public func unbanSelected() {
        startAction(on: nil)
    }

    /// Lifts the bans of `userIds` (the selected users when `nil`) and returns when they
    /// are. Throws the server's refusal, leaving the lists as they were.
    public func unban(userIds: [String]? = nil) async throws {
        try await act(on: userIds)
    }

    /// The action: lifts the bans. Override it to act differently.
    open override func perform(userIds: [String]) async throws {
        let controller = try channelController()
        for userId in userIds { try await controller.unbanUser(userId: userId) }
    }

    /// The list query: the bans in force, ``SelectUserViewModel/pageSize`` a page, as users.
    open override func loadUserPage(cursor: String?) async throws -> Page<ChatUser> {
        let page = try await channelController().loadBannedUsers(limit: Self.pageSize, cursor: cursor)
        for ban in page.items { bans[ban.userId] = ban }
        return try await users(of: Page(items: page.items.map(\.userId), next: page.next))
    }

    override func didPerform(userIds: [String]) {
        for userId in userIds { bans[userId] = nil }
        delegate?.bannedUserListViewModel(self, didUnbanUserIds: userIds)
    }
}
