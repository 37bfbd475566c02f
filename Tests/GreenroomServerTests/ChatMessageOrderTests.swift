import Foundation
@testable import Greenroom
import GreenroomProtocol
import Testing

@Suite("The SDK's loaded messages", .wholeRun)
struct ChatMessageOrderTests {
    private static func message(_ sequence: Int64, _ text: String = "", id: String? = nil) -> ChatMessage {
        ChatMessage(id: id ?? "m\(sequence)", channelId: "c", senderId: "u", text: text, extraData: [:], sequence: sequence,
                    createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    @Test("messages placed in any order, twice over and edited, end ordered by sequence, each once, in its latest version")
    func placedInOrder() {
        var generator = SystemRandomNumberGenerator()
        var messages: [ChatMessage] = []
        let sequences = Array(Int64(1)...300)
        // Live arrivals at the end, older pages before them, and every message again.
        for sequence in sequences.shuffled(using: &generator) + sequences.shuffled(using: &generator) {
            ChatChannelController.place(Self.message(sequence), in: &messages)
        }
        for sequence in stride(from: Int64(3), through: 300, by: 7) {
            ChatChannelController.place(Self.message(sequence, "edited"), in: &messages)
        }
        #expect(messages.map(\.sequence) == sequences)
        #expect(messages.map(\.id) == sequences.map { "m\($0)" })
        #expect(messages.filter { $0.text == "edited" }.map(\.sequence) == Array(stride(from: Int64(3), through: 300, by: 7)))

        // Two messages of one sequence (a channel recreated under its id) are both kept,
        // and each is replaced by its own id.
        ChatChannelController.place(Self.message(5, id: "other"), in: &messages)
        ChatChannelController.place(Self.message(5, "again", id: "other"), in: &messages)
        #expect(messages.count == 301)
        #expect(messages.filter { $0.sequence == 5 }.map(\.id).sorted() == ["m5", "other"])
        #expect(messages.first { $0.id == "other" }?.text == "again")
        #expect(zip(messages, messages.dropFirst()).allSatisfy { $0.sequence <= $1.sequence })
    }
}
