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
/// users to choose from (filtered by the subclass), a selection, loading state and errors.
///
/// A SwiftUI view binds to it in a few lines:
/// ```swift
/// List(viewModel.userList) { user in
///     Button(user.nickname) { viewModel.selectUser(user: user) }
///         .task { await viewModel.loadNextIfNeeded(currentUser: user) }
/// }
/// .task { await viewModel.loadNextUserList(reset: true) }
/// ```
@MainActor
@Observable
public class SelectUserViewModel {
    /// The page size of every query.
    public static let pageSize = 20

    /// The client the lists are read through.
    public let client: ChatClient
    /// The channel the screen is for.
    public let channelId: ChannelId
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

    @ObservationIgnored let customUsers: [ChatUser]?
    @ObservationIgnored var cursor: String?
    @ObservationIgnored var excluded: Set<String>?

    /// Makes a view model for a channel (given as the channel or its id). `users` replaces
    /// the query with the caller's own list.
    public init(client: ChatClient, channel: ChatChannel? = nil, channelUrl: String? = nil, channelType: ChannelType = .group, users: [ChatUser]? = nil) {
        self.client = client
        self.channelId = channel?.id ?? ChannelId(channelUrl ?? "")
        self.customUsers = users
    }

    /// The channel's controller.
    var channelController: ChatChannelController { client.channelController(for: channelId) }

    /// Loads the next page of users (from the start with `reset`), skipping by itself any
    /// page whose users are all filtered out.
    public func loadNextUserList(reset: Bool = false) async {
        if reset {
            userList = []
            cursor = nil
            hasNext = true
            excluded = nil
        }
        guard !isLoading, hasNext else { return }
        setLoading(true)
        defer { setLoading(false) }
        do {
            let excluded = try await excludedIds()
            var added: [ChatUser] = []
            if let customUsers {
                added = customUsers.filter { !excluded.contains($0.id) && matchesPrefix($0) }
                hasNext = false
            } else {
                repeat {
                    let (page, next) = try await fetchPage(cursor: cursor)
                    cursor = next
                    hasNext = next != nil
                    added = page.filter { !excluded.contains($0.id) && !userList.contains($0) }
                } while added.isEmpty && hasNext
            }
            userList += added
            baseDelegate?.baseSelectedUserViewModel(self, didChangeUserList: userList, needsToReload: true)
        } catch {
            baseDelegate?.didReceiveError(Self.greenroomError(error), isBlocker: userList.isEmpty)
        }
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

    /// Drops users the screen acted on from the list and the selection.
    func remove(_ ids: [String]) {
        userList.removeAll { ids.contains($0.id) }
        selectedUserList.removeAll { ids.contains($0.id) }
        excluded?.formUnion(ids)
        baseDelegate?.baseSelectedUserViewModel(self, didChangeUserList: userList, needsToReload: true)
        baseDelegate?.baseSelectedUserViewModel(self, didUpdateSelectedUsers: selectedUserList)
    }

    func report(_ error: any Error) {
        baseDelegate?.didReceiveError(Self.greenroomError(error), isBlocker: false)
    }

    // MARK: What subclasses provide

    /// The ids never listed (for inviting: the channel's members).
    func excludedIds() async throws -> Set<String> {
        if let excluded { return excluded }
        excluded = []
        return []
    }

    /// One page of candidates and the cursor of the next.
    func fetchPage(cursor: String?) async throws -> ([ChatUser], String?) {
        ([], nil)
    }

    func matchesPrefix(_ user: ChatUser) -> Bool {
        guard let prefix = nicknamePrefix?.lowercased() else { return true }
        return user.nickname.lowercased().hasPrefix(prefix)
    }

    private func setLoading(_ loading: Bool) {
        isLoading = loading
        baseDelegate?.shouldUpdateLoadingState(loading)
    }

    static func greenroomError(_ error: any Error) -> GreenroomError {
        (error as? GreenroomError) ?? GreenroomError(.internalError, "\(error)")
    }
}
