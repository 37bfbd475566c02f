import Foundation
import GreenroomProtocol
import GreenroomStorage

extension LiveEventService {
    // MARK: Custom items

    /// Adds or replaces items. Hosts only, while `ongoing`; an update that would break a
    /// limit is refused whole.
    package func updateCustomItems(_ args: LiveEventCustomItemsArgs, by userId: String) async throws -> CustomItemsResult {
        guard !args.customItems.isEmpty else { throw GreenroomError(.invalidParameterValue, "customItems is empty") }
        return try await changeItems(args.liveEventId, by: userId, type: LiveEventEventType.customItemsUpdated) { items in
            items.merge(args.customItems) { _, new in new }
            return args.customItems.keys.sorted()
        }
    }

    /// Deletes the items with these keys (keys that are not there are ignored). Hosts only, while `ongoing`.
    package func deleteCustomItems(_ args: LiveEventCustomItemKeysArgs, by userId: String) async throws -> CustomItemsResult {
        guard !args.customItemKeys.isEmpty else { throw GreenroomError(.invalidParameterValue, "customItemKeys is empty") }
        return try await changeItems(args.liveEventId, by: userId, type: LiveEventEventType.customItemsDeleted) { items in
            let gone = Set(args.customItemKeys).filter { items[$0] != nil }.sorted()
            for key in gone { items[key] = nil }
            return gone
        }
    }

    /// Deletes every item. Hosts only, while `ongoing`.
    package func deleteAllCustomItems(_ id: String, by userId: String) async throws -> CustomItemsResult {
        try await changeItems(id, by: userId, type: LiveEventEventType.customItemsDeleted) { items in
            defer { items = [:] }
            return items.keys.sorted()
        }
    }

    /// Changes the items atomically and announces them (full items and the changed keys)
    /// to everyone in the event. Nothing is announced when no key changed.
    private func changeItems(_ id: String, by userId: String, type: String,
                             _ body: @escaping @Sendable (inout [String: String]) -> [String]) async throws -> CustomItemsResult {
        try await events.transact { transaction in
            var record = try await Self.load(transaction, id)
            guard record.event.userIdsForHost.contains(userId) else {
                throw GreenroomError(.actionNotAllowedForParticipant, "only the event's hosts may change custom items")
            }
            guard record.event.state == .ongoing else { throw Self.wrongState(record.event, "change custom items") }
            var items = record.event.customItems
            let keys = body(&items)
            try Self.checkItems(items)
            guard !keys.isEmpty else { return CustomItemsResult(customItems: items, keys: []) }
            record.event.customItems = items
            try await transaction.save(record)
            _ = try await transaction.append([try Self.event(type, record.event, LiveEventEvent(type: type, customItems: items, keys: keys, actorId: userId))])
            return CustomItemsResult(customItems: items, keys: keys)
        }
    }

    package static func checkItems(_ items: [String: String]) throws {
        guard items.count <= Limits.maxCustomItems else {
            throw GreenroomError(.invalidParameterValue, "a live event holds at most \(Limits.maxCustomItems) custom items; this would make \(items.count)")
        }
        for (key, value) in items {
            guard (1...Limits.maxCustomItemKeyLength).contains(key.count) else {
                throw GreenroomError(.invalidParameterValue, "a custom item key must be 1–\(Limits.maxCustomItemKeyLength) characters")
            }
            guard value.count <= Limits.maxCustomItemValueLength else {
                throw GreenroomError(.invalidParameterValue, "the value of \(key) is over \(Limits.maxCustomItemValueLength) characters")
            }
        }
    }

    // MARK: Reactions and counts

    /// Counts one reaction of someone inside the event; announced by the next flush.
    package func increaseReactionCount(_ args: LiveEventReactionArgs, by userId: String) async throws {
        let id = args.liveEventId
        try await events.transact { transaction in
            var record = try await Self.load(transaction, id)
            guard record.event.reactionKeys.contains(args.key) else {
                throw GreenroomError(.invalidParameterValue, "\(args.key) is not one of the event's reaction keys")
            }
            guard record.event.state == .ongoing else { throw Self.wrongState(record.event, "react") }
            record.event.reactionCounts[args.key, default: 0] += 1
            try await transaction.save(record)
        }
        markPending(id)
    }

    /// Announces the counts of the events that changed since the last flush: one event per
    /// live event and kind at most, whatever happened in between.
    package func flush() async throws {
        for id in pending.take() {
            try await events.transact { transaction in
                guard var record = try await transaction.load(LiveEventRecord.self, id: id) else { return }
                let inside = try await Self.inside(record, in: transaction)
                var appends: [EventAppend] = []
                record.event.participantCount = inside
                record.event.peakParticipantCount = max(record.event.peakParticipantCount, inside)
                if record.event.participantCountInfo != record.announcedCounts {
                    record.announcedCounts = record.event.participantCountInfo
                    appends.append(try Self.event(LiveEventEventType.participantCountChanged, record.event,
                                                  LiveEventEvent(type: "", participantCountInfo: record.event.participantCountInfo)))
                }
                let changed = record.event.reactionCounts.filter { record.announcedReactionCounts[$0.key] != $0.value }
                if !changed.isEmpty {
                    record.announcedReactionCounts = record.event.reactionCounts
                    appends.append(try Self.event(LiveEventEventType.reactionCountsUpdated, record.event,
                                                  LiveEventEvent(type: "", reactionCounts: changed)))
                }
                guard !appends.isEmpty else { return }
                try await transaction.save(record)
                _ = try await transaction.append(appends)
            }
        }
    }
}
