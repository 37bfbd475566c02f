import Foundation
import Greenroom
import Observation

/// Told of a channel list's changes, on the main actor. Every method is optional.
@MainActor
public protocol ChannelListViewModelDelegate: AnyObject {
    /// The rows changed (a channel added, removed or moved; a row's badge, last message or
    /// typists changed).
    func channelListViewModel(_ viewModel: ChannelListViewModel, didChangeRows rows: [ChannelListViewModel.Row])
    /// A call failed; `isBlocker` when the screen has nothing to show.
    func channelListViewModel(_ viewModel: ChannelListViewModel, didReceiveError error: GreenroomError, isBlocker: Bool)
}

extension ChannelListViewModelDelegate {
    /// Does nothing by default.
    public func channelListViewModel(_ viewModel: ChannelListViewModel, didChangeRows rows: [ChannelListViewModel.Row]) {}
    /// Does nothing by default.
    public func channelListViewModel(_ viewModel: ChannelListViewModel, didReceiveError error: GreenroomError, isBlocker: Bool) {}
}

/// The channel list of a chat app (Stream's `ChatChannelListController` with its rows,
/// Sendbird's group channel list): the connected user's channels, latest activity first,
/// each with its unread badge, its last message and who is typing, kept current by each
/// channel's events; channels joined, invited to or deleted elsewhere come and go as the
/// user's own stream tells.
///
/// ```swift
/// List(viewModel.rows) { row in
///     HStack {
///         VStack(alignment: .leading) {
///             Text(row.channel.name)
///             Text(row.typingUserIds.isEmpty ? row.lastMessage?.text ?? "" : "typing…")
///         }
///         if row.unreadCount > 0 { Text("\(row.unreadCount)").badge() }
///     }
///     .task { await viewModel.loadNextIfNeeded(currentRow: row) }
/// }
/// ```
///
/// **Customizing**: subclass it and override ``loadChannelPage(cursor:)`` (the query, one
/// page at a time), ``filterChannels(_:)`` (which channels are listed) or
/// ``sortRows(_:)`` (their order). Each joined channel listed is followed through its own
/// `ChatChannelController` (one subscription each), and the user's own stream too; a
/// client follows a stream once, so one list runs per client at a time.
/// ``stopWatching()`` ends them.
@MainActor
@Observable
open class ChannelListViewModel: ChatChannelControllerDelegate {
    /// One channel as the list shows it.
    public struct Row: Sendable, Hashable, Identifiable {
        /// The channel, with the reader's membership.
        public var channel: ChatChannel
        /// Its newest message that is not deleted, among those loaded.
        public var lastMessage: ChatMessage?
        /// The reader's unread messages in it (0 for an invitation).
        public var unreadCount: Int
        /// The members typing in it (the reader excluded).
        public var typingUserIds: Set<String>

        /// The channel's id.
        public var id: ChannelId { channel.id }
        /// Whether the reader is invited and has not joined.
        public var isInvitation: Bool { channel.membership?.state == .invited }
        /// When the channel was last active: its last message, or its creation.
        public var lastActivity: Date { lastMessage?.createdAt ?? channel.lastMessageAt ?? channel.createdAt }
    }

    /// The page size of every query.
    public static let pageSize = 20

    /// The client the list is read through; setting it (re)loads the first page.
    @ObservationIgnored public var client: ChatClient? {
        didSet {
            if client !== oldValue, client != nil { Task { await loadNextChannelList(reset: true) } }
        }
    }
    /// The channels, in ``sortRows(_:)`` order.
    public private(set) var rows: [Row] = []
    /// Whether a page is loading.
    public private(set) var isLoading = false
    /// Whether more channels may follow.
    public private(set) var hasNext = true
    /// Told of changes. Held weakly.
    @ObservationIgnored public weak var delegate: (any ChannelListViewModelDelegate)?

    /// The reader's unread messages over the rows listed.
    public var totalUnreadCount: Int { rows.reduce(0) { $0 + $1.unreadCount } }

    @ObservationIgnored private var controllers: [ChannelId: ChatChannelController] = [:]
    @ObservationIgnored private var cursor: String?
    @ObservationIgnored private var following: Task<Void, Never>?
    @ObservationIgnored private var userStream: StreamSubscription?
    @ObservationIgnored private var loading: Task<Void, Never>?
    /// With a local store, what waits for the client to connect to follow the user's stream.
    @ObservationIgnored private var reconnecting: Task<Void, Never>?

    /// Makes the list; with a `client` the first page starts loading at once, without one
    /// when ``client`` is set.
    public init(client: ChatClient? = nil) {
        self.client = client
        if client != nil { Task { await loadNextChannelList(reset: true) } }
    }

    // MARK: Override points

    /// One page of the channels to list. By default the connected user's channels and
    /// invitations, latest activity first, ``pageSize`` at a time.
    open func loadChannelPage(cursor: String?) async throws -> Page<ChatChannel> {
        guard let client else { throw GreenroomError(.notConnected, "the view model has no client yet") }
        return try await client.channels(limit: Self.pageSize, cursor: cursor)
    }

    /// The channels of a page that are listed. By default all.
    open func filterChannels(_ channels: [ChatChannel]) -> [ChatChannel] { channels }

    /// The rows in the order shown. By default the latest activity first.
    open func sortRows(_ rows: [Row]) -> [Row] {
        rows.sorted { ($0.lastActivity, $0.id.rawValue) > ($1.lastActivity, $1.id.rawValue) }
    }

    // MARK: Loading

    /// Loads the next page (from the start with `reset`, which also stops following the
    /// channels listed before). Returns once the page is in ``rows``; a call while a page is
    /// loading waits for it first.
    public func loadNextChannelList(reset: Bool = false) async {
        let previous = loading
        let task = Task {
            await previous?.value
            await self.loadPage(reset: reset)
        }
        loading = task
        await task.value
    }

    /// Loads the next page when `currentRow` is among the last few rows.
    public func loadNextIfNeeded(currentRow: Row) async {
        guard let index = rows.firstIndex(where: { $0.id == currentRow.id }), index >= rows.count - 5 else { return }
        await loadNextChannelList()
    }

    /// Stops following every channel listed and the user's own stream.
    public func stopWatching() async {
        following?.cancel()
        following = nil
        reconnecting?.cancel()
        reconnecting = nil
        try? await userStream?.unsubscribe()
        userStream = nil
        await stopChannels()
    }

    /// Stops following the channels listed.
    private func stopChannels() async {
        let watched = Array(controllers.values)
        controllers = [:]
        for controller in watched { await controller.stopWatching() }
    }

    private func loadPage(reset: Bool) async {
        if reset {
            await stopChannels()
            rows = []
            cursor = nil
            hasNext = true
        }
        guard hasNext else { return }
        isLoading = true
        defer { isLoading = false }
        do {
            if let client, client.hasLocalStore, !client.connectionState.isConnected {
                // The first page comes from the client's local store, and each row's
                // controller catches up by itself once the client connects; the user's
                // stream is followed from then on.
                followWhenConnected(client)
            } else {
                try await followUserStream()
            }
            let page = try await loadChannelPage(cursor: cursor)
            cursor = page.next
            hasNext = page.next != nil
            var added: [Row] = []
            for channel in filterChannels(page.items) where !rows.contains(where: { $0.id == channel.id }) {
                added.append(try await row(for: channel))
            }
            rows = sortRows(rows + added)
            delegate?.channelListViewModel(self, didChangeRows: rows)
        } catch {
            delegate?.channelListViewModel(self, didReceiveError: Self.greenroomError(error), isBlocker: rows.isEmpty)
        }
    }

    /// Once `client` connects, follows the user's own stream.
    private func followWhenConnected(_ client: ChatClient) {
        guard reconnecting == nil else { return }
        reconnecting = Task { [weak self] in
            for await state in client.connectionStates where state.isConnected {
                self?.reconnecting = nil
                try? await self?.followUserStream()
                return
            }
        }
    }

    /// A row for a channel: a joined one is followed by its own controller, which loads
    /// its newest message and the reader's unread count.
    private func row(for channel: ChatChannel) async throws -> Row {
        guard channel.membership?.state == .joined, let client else {
            return Row(channel: channel, lastMessage: nil, unreadCount: 0, typingUserIds: [])
        }
        let controller = controllers[channel.id] ?? client.channelController(for: channel.id)
        controllers[channel.id] = controller
        controller.delegate = self
        try await controller.synchronize(messageLimit: 1)
        return Self.row(controller, fallback: channel)
    }

    private static func row(_ controller: ChatChannelController, fallback: ChatChannel) -> Row {
        Row(channel: controller.channel ?? fallback, lastMessage: controller.messages.last { !$0.isDeleted },
            unreadCount: controller.unreadCount, typingUserIds: controller.currentlyTypingUsers)
    }

    /// Follows the user's own stream: a channel joined, invited to or deleted elsewhere
    /// reloads the list.
    private func followUserStream() async throws {
        guard following == nil, let client, let me = client.currentUserId else { return }
        let subscription = try await client.subscribe(to: "user:\(me)")
        userStream = subscription
        following = Task { [weak self] in
            for await event in subscription.events {
                guard [ChatEventType.channelAdded, ChatEventType.channelInvited, ChatEventType.channelDeleted].contains(event.type) else { continue }
                await self?.loadNextChannelList(reset: true)
            }
        }
    }

    private func refresh(_ controller: ChatChannelController) {
        guard let index = rows.firstIndex(where: { $0.id == controller.channelId }) else { return }
        let updated = Self.row(controller, fallback: rows[index].channel)
        guard updated != rows[index] else { return }
        rows[index] = updated
        rows = sortRows(rows)
        delegate?.channelListViewModel(self, didChangeRows: rows)
    }

    private func remove(_ channelId: ChannelId) {
        guard let index = rows.firstIndex(where: { $0.id == channelId }) else { return }
        rows.remove(at: index)
        controllers[channelId] = nil
        delegate?.channelListViewModel(self, didChangeRows: rows)
    }

    static func greenroomError(_ error: any Error) -> GreenroomError {
        error as? GreenroomError ?? GreenroomError(.internalError, "\(error)")
    }

    // MARK: ChatChannelControllerDelegate

    /// Keeps the row's last message and badge current.
    public func channelController(_ controller: ChatChannelController, didUpdateMessages messages: [ChatMessage]) { refresh(controller) }

    /// Keeps the row's channel and badge current.
    public func channelController(_ controller: ChatChannelController, didUpdateChannel channel: ChatChannel) { refresh(controller) }

    /// Keeps the row's typists current.
    public func channelController(_ controller: ChatChannelController, didChangeTypingUsers typingUsers: Set<String>) { refresh(controller) }

    /// Drops a channel deleted, left or banned from.
    public func channelController(_ controller: ChatChannelController, didReceiveEvent event: ChatEvent) {
        let left = [ChatEventType.memberLeft, ChatEventType.memberBanned].contains(event.type)
            && event.member?.userId == controller.client.currentUserId
        if event.type == ChatEventType.channelDeleted || left { remove(controller.channelId) }
    }
}
