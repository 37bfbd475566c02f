import Foundation

/// Reads and changes the connected user, in the shape of the chat SDK's controller.
///
/// ```swift
/// client.currentUserController().updateUserData(
///     name: "John Doe", imageURL: nil,
///     userExtraData: ["email": .string("john.doe@example.com")],
///     completion: nil)
/// ```
public final class CurrentUserController: Sendable {
    /// The client this controller acts through.
    public let client: GreenroomClient

    init(client: GreenroomClient) {
        self.client = client
    }

    /// The connected user as the server has it. With a local store it is kept there, and
    /// while the client is not connected the kept copy answers at once.
    public func currentUser() async throws -> User {
        let store = await client.offline?.store()
        if let store, !client.connectionState.isConnected, let kept = try await store.document(LocalStore.currentUserKey, as: User.self) { return kept }
        let user: User = try await client.send(UserOperation.me, args: EmptyResult())
        try await store?.setDocument(LocalStore.currentUserKey, user)
        return user
    }

    /// The connected user's unread messages: in each channel it has joined, their total,
    /// and how many channels have any (`unreadCount` of the chat SDK's current user).
    public func unreadCount() async throws -> UnreadCounts {
        try await client.send(ChatOperation.unreadCounts, args: EmptyResult())
    }

    /// A page of the threads the connected user takes part in, the latest joined first,
    /// each with its parent message and the user's unread replies.
    public func loadThreads(limit: Int? = nil, cursor: String? = nil) async throws -> Page<ChatThread> {
        try await client.send(ChatOperation.threads, args: UserThreadsArgs(limit: limit, cursor: cursor))
    }

    /// Sets the name, picture and extra data keys given (`nil` leaves a field as it is;
    /// extra data keys are merged) and removes the extra data keys in `unsetProperties`.
    @discardableResult
    public func updateUserData(name: String? = nil, imageURL: URL? = nil, userExtraData: [String: RawJSON]? = nil, unsetProperties: [String] = []) async throws -> User {
        let set = UserPartialSet(nickname: name, profileURL: imageURL?.absoluteString, extraData: userExtraData)
        return try await client.send(UserOperation.partialUpdate, args: UserPartialUpdateArgs(set: set, unset: unsetProperties.isEmpty ? nil : unsetProperties))
    }

    /// The completion-handler form of ``updateUserData(name:imageURL:userExtraData:unsetProperties:)``;
    /// `completion` runs on the main actor with `nil` or the error.
    public func updateUserData(name: String?, imageURL: URL?, userExtraData: [String: RawJSON]?, unsetProperties: [String] = [], completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        Task {
            do {
                try await updateUserData(name: name, imageURL: imageURL, userExtraData: userExtraData, unsetProperties: unsetProperties)
                await MainActor.run { completion?(nil) }
            } catch {
                await MainActor.run { completion?(error) }
            }
        }
    }
}

extension GreenroomClient {
    /// A controller for the connected user.
    public func currentUserController() -> CurrentUserController {
        CurrentUserController(client: self)
    }

    /// Reads one user.
    public func user(id: String) async throws -> User {
        try await send(UserOperation.get, args: UserGetArgs(id: id))
    }

    /// Lists users in cursor pages.
    public func users(_ query: UserListArgs = UserListArgs()) async throws -> Page<User> {
        try await send(UserOperation.list, args: query)
    }
}

/// The chat SDK's name for the client: `ChatClient` and ``GreenroomClient`` are one type.
public typealias ChatClient = GreenroomClient
