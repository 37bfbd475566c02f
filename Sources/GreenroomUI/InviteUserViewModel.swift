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
///
/// Made as the vendor's screen makes it, with the client and delegate set by the screen:
/// ```swift
/// let viewModel = InviteUserViewModel(channel: channel, users: nil)
/// viewModel.client = client          // the first page starts loading
/// viewModel.delegate = self
/// // in a button's action:
/// viewModel.inviteUsers()            // → inviteUserViewModel(_:didInviteUserIds:) or didReceiveError
/// ```
/// or awaited: `try await viewModel.invite()`. Subclass it to change the list, the filter
/// or the action (see ``SelectUserViewModel``).
@MainActor
open class InviteUserViewModel: SelectUserViewModel {
    /// Told of the list, the selection, loading, errors and invitations. Held weakly.
    public weak var delegate: (any InviteUserViewModelDelegate)? {
        didSet { baseDelegate = delegate }
    }

    /// Makes the view model for a channel with its client and delegate in one call.
    public static func createViewModel(client: ChatClient, channel: ChatChannel? = nil, channelUrl: String? = nil, channelType: ChannelType = .group,
                                       users: [ChatUser]? = nil, delegate: (any InviteUserViewModelDelegate)? = nil) -> InviteUserViewModel {
        let viewModel = InviteUserViewModel(client: client, channel: channel, channelUrl: channelUrl, channelType: channelType, users: users)
        viewModel.delegate = delegate
        return viewModel
    }

    /// Invites the selected users (nothing happens when none is selected), as a button's
    /// action does: returns at once; the delegate hears `inviteUserViewModel(_:didInviteUserIds:)`
    /// (and the users leave the list) or `didReceiveError` (and the lists stay as they were).
    public func inviteUsers() {
        startAction(on: nil)
    }

    /// Invites these users, as ``inviteUsers()`` does the selected ones.
    public func inviteUsers(userIds: [String]) {
        startAction(on: userIds)
    }

    /// Invites `userIds` (the selected users when `nil`) and returns when they are invited:
    /// the delegate has been told and they left the list. Throws the server's refusal,
    /// leaving the lists as they were (the delegate's `didReceiveError` is not called).
    public func invite(userIds: [String]? = nil) async throws {
        try await act(on: userIds)
    }

    /// The action: invites the users to the channel. Override it to act differently
    /// (call `super` to invite as well).
    open override func perform(userIds: [String]) async throws {
        _ = try await channelController().inviteUserIds(userIds)
    }

    /// The list query: the app's users, by id, ``SelectUserViewModel/pageSize`` a page,
    /// filtered by nickname prefix on the server.
    open override func loadUserPage(cursor: String?) async throws -> Page<ChatUser> {
        let client = try requireClient()
        return try await client.users(UserListArgs(nicknamePrefix: nicknamePrefix, limit: Self.pageSize, cursor: cursor))
    }

    /// Never lists the channel's members and those already invited.
    open override func excludedUserIds() async throws -> Set<String> {
        let controller = try channelController()
        var ids = Set<String>()
        for filter in [MemberFilter.all, .invited] {
            var cursor: String?
            repeat {
                let page = try await controller.loadMembers(filter: filter, limit: 100, cursor: cursor)
                ids.formUnion(page.items.map(\.userId))
                cursor = page.next
            } while cursor != nil
        }
        return ids
    }

    override func didPerform(userIds: [String]) {
        delegate?.inviteUserViewModel(self, didInviteUserIds: userIds)
    }
}
