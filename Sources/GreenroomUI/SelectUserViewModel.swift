import Foundation
import Greenroom
import Observation

/// Told of a select-user list's changes, on the main actor. Every method is optional.
@MainActor
public protocol BaseSelectedUserViewModelDelegate: AnyObject {
    /// The list of users to choose from changed.
    func baseSelectedUserViewModel(_ viewModel: SelectUserViewModel, didChangeUserList users: [ChatUser], needsToReload: Bool)
    /// The selection changed.
    func baseSelectedUserViewModel(_ viewModel: SelectUserViewModel, didUpdateSelectedUsers selectedUsers: [ChatUser])
    /// A page started (`true`) or finished (`false`) loading.
    func shouldUpdateLoadingState(_ isLoading: Bool)
    /// A call failed; `isBlocker` when the screen has nothing to show.
    func didReceiveError(_ error: GreenroomError, isBlocker: Bool)
}

extension BaseSelectedUserViewModelDelegate {
    /// Does nothing by default.
    public func baseSelectedUserViewModel(_ viewModel: SelectUserViewModel, didChangeUserList users: [ChatUser], needsToReload: Bool) {}
    /// Does nothing by default.
    public func baseSelectedUserViewModel(_ viewModel: SelectUserViewModel, didUpdateSelectedUsers selectedUsers: [ChatUser]) {}
    /// Does nothing by default.
    public func shouldUpdateLoadingState(_ isLoading: Bool) {}
    /// Does nothing by default.
    public func didReceiveError(_ error: GreenroomError, isBlocker: Bool) {}
}

/// The kind of channel a view model works on (group channels only, for now).
public enum ChannelType: Sendable, Hashable {
    /// A group channel.
    case group
}

/// The shared base of the invite-users and register-operators screens: a paged list of
/// users to choose from (filtered by the subclass), a selection, loading state, errors and
/// the screen's action on the chosen users.
///
/// **The first page loads by itself** once the view model has a client (at creation, or
/// when the owning screen sets ``client``), as the vendor's view models do; the delegate
/// hears of it through `baseSelectedUserViewModel(_:didChangeUserList:needsToReload:)`, so a
/// delegate set right after creation misses nothing. ``loadNextUserList(reset:)`` reloads.
///
/// **Customizing** (the seed's "custom view model"): subclass ``InviteUserViewModel`` or
/// ``RegisterOperatorViewModel`` (or this class, for a screen of your own) and override
/// - ``loadUserPage(cursor:)``: the list query, one page at a time;
/// - ``filterUsers(_:)``: which of a page (or of a custom `users:` list) are shown;
/// - ``excludedUserIds()``: the ids never shown (used by the default filter);
/// - ``perform(userIds:)``: the action on the chosen users.
///
/// A SwiftUI view binds to it in a few lines:
/// ```swift
/// List(viewModel.userList) { user in
///     Button(user.nickname) { viewModel.selectUser(user: user) }
///         .task { await viewModel.loadNextIfNeeded(currentUser: user) }
/// }
/// ```
@MainActor
@Observable
open class SelectUserViewModel {
    /// The page size of every query.
    public static let pageSize = 20

    /// The client the lists are read through. A screen that makes the view model before it
    /// has a client sets it later; setting it loads the first page.
    @ObservationIgnored public var client: ChatClient? {
        didSet {
            if client !== oldValue, client != nil { startLoading(reset: true) }
        }
    }
    /// The channel the screen is for.
    public let channelId: ChannelId
    /// The caller's own list of users, if one was given: shown (filtered) instead of the query.
    public let customUsers: [ChatUser]?
    /// The users to choose from, in list order.
    public private(set) var userList: [ChatUser] = []
    /// The users chosen, in the order they were chosen.
    public private(set) var selectedUserList: [ChatUser] = []
    /// Whether a page is loading.
    public private(set) var isLoading = false
    /// Whether more users may follow.
    public private(set) var hasNext = true
    /// The nickname prefix the list is filtered by, if any.
    public private(set) var nicknamePrefix: String?
    /// Told of changes. Held weakly.
    @ObservationIgnored public weak var baseDelegate: (any BaseSelectedUserViewModelDelegate)?

    @ObservationIgnored var cursor: String?
    @ObservationIgnored var excluded: Set<String>?
    /// The last load started, until it ends; loads run one after another.
    @ObservationIgnored private var loading: Task<Void, Never>?
    @ObservationIgnored private var loads = 0

    /// Makes a view model for a channel, given as the channel or its id (`channelUrl`), as
    /// the vendor's `init(channel:users:)` / `init(channelUrl:users:)` do. `users` replaces
    /// the query with the caller's own list (still filtered: see ``filterUsers(_:)``). With a
    /// `client` the first page starts loading at once; without one, when ``client`` is set.
    public init(client: ChatClient? = nil, channel: ChatChannel? = nil, channelUrl: String? = nil, channelType: ChannelType = .group, users: [ChatUser]? = nil) {
        self.client = client
        self.channelId = channel?.id ?? ChannelId(channelUrl ?? "")
        self.customUsers = users
        if client != nil { startLoading(reset: false) }
    }

    /// The channel's controller, or `notConnected` while the view model has no client.
    public func channelController() throws -> ChatChannelController {
        try requireClient().channelController(for: channelId)
    }

    /// The client, or `notConnected` while the view model has none.
    func requireClient() throws -> ChatClient {
        guard let client else { throw Self.noClient }
        return client
    }

    // MARK: Loading

    /// Loads the next page of users (from the start with `reset`), skipping by itself any
    /// page whose users are all filtered out. Returns once the page is in ``userList``; a
    /// call while a page is loading waits for that page (and, with `reset`, then reloads).
    public func loadNextUserList(reset: Bool = false) async {
        if !reset, let loading {
            await loading.value
            return
        }
        await startLoading(reset: reset).value
    }

    /// Loads the next page when `currentUser` is among the last few of the list.
    public func loadNextIfNeeded(currentUser: ChatUser) async {
        guard let index = userList.firstIndex(of: currentUser), index >= userList.count - 5 else { return }
        await loadNextUserList()
    }

    /// Lists only users whose nickname starts with `prefix` (all users when empty).
    public func search(nicknamePrefix prefix: String) async {
        nicknamePrefix = prefix.isEmpty ? nil : prefix
        await loadNextUserList(reset: true)
    }

    @discardableResult
    private func startLoading(reset: Bool) -> Task<Void, Never> {
        let previous = loading
        loads += 1
        let number = loads
        let task = Task {
            await previous?.value
            await self.loadPage(reset: reset)
            if self.loads == number { self.loading = nil }
        }
        loading = task
        return task
    }

    private func loadPage(reset: Bool) async {
        if reset {
            userList = []
            cursor = nil
            hasNext = true
            excluded = nil
        }
        guard hasNext else { return }
        setLoading(true)
        defer { setLoading(false) }
        do {
            _ = try requireClient()
            var added: [ChatUser] = []
            if let customUsers {
                added = try await filterUsers(customUsers)
                hasNext = false
            } else {
                repeat {
                    let page = try await loadUserPage(cursor: cursor)
                    cursor = page.next
                    hasNext = page.next != nil
                    added = try await filterUsers(page.items).filter { !userList.contains($0) }
                } while added.isEmpty && hasNext
            }
            userList += added
            baseDelegate?.baseSelectedUserViewModel(self, didChangeUserList: userList, needsToReload: true)
        } catch {
            baseDelegate?.didReceiveError(Self.greenroomError(error), isBlocker: userList.isEmpty)
        }
    }

    // MARK: Selection

    /// Selects `user`, or deselects it when selected.
    public func selectUser(user: ChatUser) {
        if let index = selectedUserList.firstIndex(where: { $0.id == user.id }) {
            selectedUserList.remove(at: index)
        } else {
            selectedUserList.append(user)
        }
        baseDelegate?.baseSelectedUserViewModel(self, didUpdateSelectedUsers: selectedUserList)
    }

    /// Whether `user` is selected.
    public func isSelected(_ user: ChatUser) -> Bool { selectedUserList.contains { $0.id == user.id } }

    // MARK: The action

    /// Performs the action on `userIds` (the selection when `nil`; nothing when empty),
    /// tells the delegate and drops them from the list and the selection. Throws what the
    /// action threw, leaving the lists as they were.
    func act(on userIds: [String]?) async throws {
        let ids = userIds ?? selectedUserList.map(\.id)
        guard !ids.isEmpty else { return }
        try await perform(userIds: ids)
        didPerform(userIds: ids)
        userList.removeAll { ids.contains($0.id) }
        selectedUserList.removeAll { ids.contains($0.id) }
        excluded?.formUnion(ids)
        baseDelegate?.baseSelectedUserViewModel(self, didChangeUserList: userList, needsToReload: true)
        baseDelegate?.baseSelectedUserViewModel(self, didUpdateSelectedUsers: selectedUserList)
    }

    /// ``act(on:)`` started from a plain call (a button's action): errors reach the delegate.
    func startAction(on userIds: [String]?) {
        Task {
            do {
                try await self.act(on: userIds)
            } catch {
                self.baseDelegate?.didReceiveError(Self.greenroomError(error), isBlocker: false)
            }
        }
    }

    /// Tells the subclass's delegate that the action succeeded.
    func didPerform(userIds: [String]) {}

    // MARK: Override points

    /// The list query: one page of candidates and the cursor of the next (`nil` at the
    /// end). Not called when the view model has a custom `users:` list. The base lists
    /// nobody; the invite screen lists the app's users, the register screen the channel's
    /// non-operator members. Page size: ``pageSize``.
    open func loadUserPage(cursor: String?) async throws -> Page<ChatUser> {
        Page(items: [], next: nil)
    }

    /// The filter: which of `users` (a page, or the custom `users:` list) are shown. The
    /// base drops ``excludedUserIds()`` and nicknames that do not match ``nicknamePrefix``;
    /// call `super` to keep that.
    open func filterUsers(_ users: [ChatUser]) async throws -> [ChatUser] {
        let excluded = try await excludedForThisLoad()
        return users.filter { !excluded.contains($0.id) && matchesPrefix($0) }
    }

    /// The ids never shown (for inviting: the channel's members and invitees). Asked once
    /// per (re)load; the base excludes nobody.
    open func excludedUserIds() async throws -> Set<String> {
        []
    }

    /// The action on the chosen users (inviting, registering operators). The base does
    /// nothing; a subclass overrides it, calling `super` to keep its parent's action.
    open func perform(userIds: [String]) async throws {}

    /// Whether `user`'s nickname starts with ``nicknamePrefix`` (always, without one).
    public func matchesPrefix(_ user: ChatUser) -> Bool {
        guard let prefix = nicknamePrefix?.lowercased() else { return true }
        return user.nickname.lowercased().hasPrefix(prefix)
    }

    /// ``excludedUserIds()``, asked once per (re)load.
    private func excludedForThisLoad() async throws -> Set<String> {
        if let excluded { return excluded }
        let ids = try await excludedUserIds()
        excluded = ids
        return ids
    }

    private func setLoading(_ loading: Bool) {
        isLoading = loading
        baseDelegate?.shouldUpdateLoadingState(loading)
    }

    static let noClient = GreenroomError(.notConnected, "the view model has no client: set `client` first")

    static func greenroomError(_ error: any Error) -> GreenroomError {
        (error as? GreenroomError) ?? GreenroomError(.internalError, "\(error)")
    }
}
