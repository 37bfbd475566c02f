import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The app's blocklist, ready to match: its words folded (case and accents) into a set.
package struct BlocklistMatcher: Sendable {
    let words: Set<String>
    let action: BlocklistAction

    init(_ blocklist: Blocklist) {
        words = Set(blocklist.words.map(Self.fold))
        action = blocklist.action
    }

    static func fold(_ word: some StringProtocol) -> String {
        String(word).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// `text` with each blocklisted word masked, or unchanged. - Throws: `messageBlocked`
    /// when the action is to refuse and a word matches.
    func apply(to text: String) throws -> String {
        guard !words.isEmpty else { return text }
        var result = ""
        var changed = false
        var rest = Substring(text)
        while let start = rest.firstIndex(where: Self.isWordCharacter) {
            result += rest[..<start]
            let end = rest[start...].firstIndex(where: { !Self.isWordCharacter($0) }) ?? rest.endIndex
            let word = rest[start..<end]
            if words.contains(Self.fold(word)) {
                if action == .refuse { throw GreenroomError(.messageBlocked, "the text holds a word this app does not allow") }
                result += String(repeating: "*", count: word.count)
                changed = true
            } else {
                result += word
            }
            rest = rest[end...]
        }
        return changed ? result + rest : text
    }

    static func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }
}

extension ChatService {
    /// Replaces the app's blocklist (the app's backend): words are trimmed, folded to
    /// lower case and deduplicated. - Throws: `invalidParameterValue` for too many words,
    /// or one that is empty, too long or not one word.
    package func setBlocklist(_ blocklist: Blocklist) async throws -> Blocklist {
        var words: [String] = []
        var seen = Set<String>()
        for raw in blocklist.words {
            let word = raw.trimmingCharacters(in: .whitespaces).lowercased()
            guard (1...Limits.maxBlocklistWordLength).contains(word.count), word.allSatisfy(BlocklistMatcher.isWordCharacter) else {
                throw GreenroomError(.invalidParameterValue, "blocklist words are 1–\(Limits.maxBlocklistWordLength) letters or digits, not \"\(raw.prefix(80))\"")
            }
            if seen.insert(BlocklistMatcher.fold(word)).inserted { words.append(word) }
        }
        guard words.count <= Limits.maxBlocklistWords else {
            throw GreenroomError(.invalidParameterValue, "a blocklist holds at most \(Limits.maxBlocklistWords) words")
        }
        let stored = Blocklist(words: words, action: blocklist.action)
        try await events.transact { transaction in try await transaction.save(BlocklistRecord(blocklist: stored)) }
        return stored
    }

    /// The app's blocklist (empty, refusing, until one is set).
    package func blocklist() async throws -> Blocklist {
        try await storage.load(BlocklistRecord.self, id: BlocklistRecord.id)?.blocklist ?? Blocklist(words: [], action: .refuse)
    }

    /// `text` as the blocklist in `reader` lets it be stored (``BlocklistMatcher/apply(to:)``).
    func screen(_ text: String, _ reader: any RecordReading) async throws -> String {
        guard !text.isEmpty, let record = try await reader.load(BlocklistRecord.self, id: BlocklistRecord.id),
              !record.blocklist.words.isEmpty else { return text }
        return try blocklists.matcher(for: record.blocklist).apply(to: text)
    }
}

/// The last blocklist's matcher, so that a send does not fold every word again: rebuilt
/// when the stored list differs.
package final class BlocklistCache: Sendable {
    private let last = Locked<(Blocklist, BlocklistMatcher)?>(nil)

    package init() {}

    func matcher(for blocklist: Blocklist) -> BlocklistMatcher {
        if let (list, matcher) = last.withLock({ $0 }), list == blocklist { return matcher }
        let matcher = BlocklistMatcher(blocklist)
        last.withLock { $0 = (blocklist, matcher) }
        return matcher
    }
}
