import Foundation

extension ChatOperation {
    /// ``MessageRef`` → ``ChatMessage``: operators only; pins a message of the channel (at
    /// most ``Limits/maxPinnedMessages`` at once); the channel hears `message.updated`.
    public static let pinMessage = WireOperation<MessageRef, ChatMessage>("message.pin")
    /// ``MessageRef`` → ``ChatMessage``: operators only; unpins it.
    public static let unpinMessage = WireOperation<MessageRef, ChatMessage>("message.unpin")
    /// ``PinnedMessagesArgs`` → ``Page`` of ``ChatMessage``: members only; the pinned
    /// messages, the latest pinned first.
    public static let pinnedMessages = WireOperation<PinnedMessagesArgs, Page<ChatMessage>>("channel.pinnedMessages")
}

extension Limits {
    /// The most messages a channel may have pinned at once.
    public static let maxPinnedMessages = 100
}

/// The arguments of `channel.pinnedMessages`: a page of one channel's pins.
public typealias PinnedMessagesArgs = ChannelPageArgs
