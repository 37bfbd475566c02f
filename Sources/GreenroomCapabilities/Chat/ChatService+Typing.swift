import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// Relays that a member started or stopped typing to the channel's subscribers on
    /// every node, as a signal: nothing is written (not the log, not the channel's
    /// activity), and only the membership is read. Members only.
    package func typing(_ args: TypingArgs, by userId: String) async throws {
        let id = args.channelId
        _ = try await Self.channel(storage, id)
        try await Self.requireJoined(storage, id, userId)
        let data = try RawJSON(encoding: TypingIndicator(channelId: id, userId: userId))
        events.signal(StreamSignal(stream: id.stream, type: args.typing ? ChatEventType.typingStart : ChatEventType.typingStop,
                                   data: data, at: Date.wireNow))
    }
}
