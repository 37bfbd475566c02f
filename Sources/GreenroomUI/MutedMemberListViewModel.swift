import Foundation
import Greenroom
import Observation

/// Told when members were unmuted, on the main actor.
@MainActor
public protocol MutedMemberListViewModelDelegate: BaseSelectedUserViewModelDelegate {
    /// The members with these ids were unmuted.
    func mutedMemberListViewModel(_ viewModel: MutedMemberListViewModel, didUnmuteUserIds userIds: [String])
}

/// The operators' muted-members screen (Sendbird UIKit's muted member list): the members
/// muted now (20 a page), a selection, and ``unmuteSelected()``.
///
/// ```swift
/// let viewModel = MutedMemberListViewModel(channelUrl: "club", users: nil)
/// viewModel.client = client          // the first page starts loading
/// viewModel.delegate = self
/// viewModel.unmuteSelected()         // → mutedMemberListViewModel(_:didUnmuteUserIds:)
/// ```
/// or awaited: `try await viewModel.unmute()`. Subclass it to change the list, the filter
/// or the action (see ``SelectUserViewModel``).
@MainActor
open class MutedMemberListViewModel: SelectUserViewModel {
    /// Told of the list, the selection, loading, errors and unmutes. Held weakly.
    public weak var delegate: (any MutedMemberListViewModelDelegate)? {
        didSet { baseDelegate = delegate }
    }

    /// Makes the view model for a channel with its client and delegate in one call.
    public static func createViewModel(client: ChatClient, channel: ChatChannel? = nil, channelUrl: String? = nil,
                                       delegate: (any MutedMemberListViewModelDelegate)? = nil) -> MutedMemberListViewModel {
        let viewModel = MutedMemberListViewModel(client: client, channel: channel, channelUrl: channelUrl)
        viewModel.delegate = delegate
        return viewModel
    }

    /// Unmutes the selected members, as a button's action does: returns at once; the
    /// delegate hears `mutedMemberListViewModel(_:didUnmuteUserIds:)` (and they leave the
    /// list) or `didReceiveError`.
    public func unmuteSelected() {
        startAction(on: nil)
    }

    /// Unmutes `userIds` (the selected members when `nil`) and returns when they are.
    /// Throws the server's refusal, leaving the lists as they were.
    public func unmute(userIds: [String]? = nil) async throws {
        try await act(on: userIds)
    }

    /// The action: unmutes the members. Override it to act differently.
    open override func perform(userIds: [String]) async throws {
        let controller = try channelController()
        for userId in userIds { try await controller.unmuteUser(userId: userId) }
    }

    /// The list query: the members muted now, ``SelectUserViewModel/pageSize`` a page.
    open override func loadUserPage(cursor: String?) async throws -> Page<ChatUser> {
        let page = try await channelController().loadMutedMembers(limit: Self.pageSize, cursor: cursor)
        return try await users(of: Page(items: page.items.map(\.userId), next: page.next))
    }

    override func didPerform(userIds: [String]) {
        delegate?.mutedMemberListViewModel(self, didUnmuteUserIds: userIds)
    }
}
