import Foundation
import Greenroom
import Observation

/// Told when members became operators, on the main actor.
@MainActor
public protocol RegisterOperatorViewModelDelegate: BaseSelectedUserViewModelDelegate {
    /// The members with these ids became operators.
    func registerOperatorViewModel(_ viewModel: RegisterOperatorViewModel, didRegisterOperatorIds userIds: [String])
}

/// The register-operators screen: the channel's members that are not operators (20 a page),
/// a selection, and ``registerAsOperators()``. A custom `users:` list is filtered the same
/// way: users who are not members, or already operators, are not shown.
///
/// Made as the vendor's screen makes it, with the client and delegate set by the screen:
/// ```swift
/// let viewModel = RegisterOperatorViewModel(channelUrl: "club", users: nil)
/// viewModel.client = client          // the first page starts loading
/// viewModel.delegate = self
/// viewModel.registerAsOperators()    // → registerOperatorViewModel(_:didRegisterOperatorIds:)
/// ```
/// or awaited: `try await viewModel.registerOperators()`. Subclass it to change the list,
/// the filter or the action (see ``SelectUserViewModel``).
@MainActor
open class RegisterOperatorViewModel: SelectUserViewModel {
    /// Told of the list, the selection, loading, errors and registrations. Held weakly.
    public weak var delegate: (any RegisterOperatorViewModelDelegate)? {
        didSet { baseDelegate = delegate }
    }

    /// Makes the view model for a channel with its client and delegate in one call.
    public static func createViewModel(client: ChatClient, channel: ChatChannel? = nil, channelUrl: String? = nil, channelType: ChannelType = .group,
                                       users: [ChatUser]? = nil, delegate: (any RegisterOperatorViewModelDelegate)? = nil) -> RegisterOperatorViewModel {
        let viewModel = RegisterOperatorViewModel(client: client, channel: channel, channelUrl: channelUrl, channelType: channelType, users: users)
        viewModel.delegate = delegate
        return viewModel
    }

    /// Makes the selected members operators (nothing happens when none is selected), as a
    /// button's action does: returns at once; the delegate hears
    /// `registerOperatorViewModel(_:didRegisterOperatorIds:)` (and they leave the list) or
    /// `didReceiveError` (the caller is not an operator, say; the lists stay as they were).
    public func registerAsOperators() {
        startAction(on: nil)
    }

    /// Makes these members operators, as ``registerAsOperators()`` does the selected ones.
    public func registerAsOperators(userIds: [String]) {
        startAction(on: userIds)
    }

    /// Makes `userIds` (the selected members when `nil`) operators and returns when they
    /// are: the delegate has been told and they left the list. Throws the server's refusal,
    /// leaving the lists as they were (the delegate's `didReceiveError` is not called).
    public func registerOperators(userIds: [String]? = nil) async throws {
        try await act(on: userIds)
    }

    /// The action: makes the members operators. Override it to act differently (call
    /// `super` to register them as well).
    open override func perform(userIds: [String]) async throws {
        try await channelController().addOperators(userIds: userIds)
    }

    /// The list query: the channel's non-operator members, ``SelectUserViewModel/pageSize``
    /// a page, as users.
    open override func loadUserPage(cursor: String?) async throws -> Page<ChatUser> {
        let page = try await channelController().loadMembers(filter: .nonOperators, limit: Self.pageSize, cursor: cursor)
        return try await users(of: Page(items: page.items.map(\.userId), next: page.next))
    }

    /// Shows only non-operator members matching the nickname prefix. Pages of the query are
    /// such members already; a custom `users:` list is checked against the channel.
    open override func filterUsers(_ users: [ChatUser]) async throws -> [ChatUser] {
        let shown = try await super.filterUsers(users)
        guard customUsers != nil else { return shown }
        let eligible = try await nonOperatorMemberIds(among: Set(shown.map(\.id)))
        return shown.filter { eligible.contains($0.id) }
    }

    override func didPerform(userIds: [String]) {
        delegate?.registerOperatorViewModel(self, didRegisterOperatorIds: userIds)
    }

    /// Which of `ids` are members of the channel and not operators.
    private func nonOperatorMemberIds(among ids: Set<String>) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let controller = try channelController()
        var found = Set<String>()
        var cursor: String?
        repeat {
            let page = try await controller.loadMembers(filter: .nonOperators, limit: 100, cursor: cursor)
            found.formUnion(page.items.map(\.userId).filter(ids.contains))
            cursor = page.next
        } while cursor != nil
        return found
    }
}
