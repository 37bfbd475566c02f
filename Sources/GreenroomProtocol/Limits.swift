import Foundation

/// The platform's limits and validation rules shared by server and SDK.
public enum Limits {
    /// The largest frame a client may send: 64 KiB. A larger one closes the connection with 1009.
    public static let maxClientFrameBytes = 64 * 1024
    /// The most bytes of extra data (as compact JSON) on a user, channel or message: 5 KB.
    public static let maxExtraDataBytes = 5 * 1024
    /// The longest id (users, channels, …).
    public static let maxIdLength = 128
    /// The longest nickname.
    public static let maxNicknameLength = 256
    /// The most items a list page returns.
    public static let maxPageSize = 100
    /// The page size when none is asked for.
    public static let defaultPageSize = 20
    /// The longest chat message text, in characters.
    public static let maxMessageTextLength = 10_000
    /// The longest reaction type and idempotency key.
    public static let maxKeyLength = 128
    /// The most members one message may mention.
    public static let maxMentions = 25
    /// How many members a group channel may have unless the server is set otherwise.
    public static let defaultChannelMemberLimit = 100

    /// Keys that extra data may never use, because the platform's own fields carry those names.
    public static let reservedExtraDataKeys: Set<String> = [
        "id", "name", "nickname", "image", "profileURL", "profile_url", "role", "type",
        "created_at", "updated_at", "deleted_at", "createdAt", "updatedAt", "deletedAt",
        "extraData", "extra_data", "user", "user_id", "userId", "members", "cid",
        "text", "html", "attachments", "online", "last_active", "banned",
    ]

    /// Checks extra data against the size limit and the reserved keys.
    ///
    /// - Returns: `nil` when it is acceptable, otherwise the error to report.
    public static func checkExtraData(_ extraData: [String: RawJSON], field: String = "extraData") -> GreenroomError? {
        let reserved = extraData.keys.filter { reservedExtraDataKeys.contains($0) }.sorted()
        if !reserved.isEmpty {
            return GreenroomError(.reservedKey, "\(field) may not use the reserved key(s) \(reserved.joined(separator: ", "))")
        }
        guard let data = try? RawJSON.dictionary(extraData).jsonData() else {
            return GreenroomError(.invalidParameterValue, "\(field) is not valid JSON (numbers must be finite)")
        }
        if data.count > maxExtraDataBytes {
            return GreenroomError(.payloadTooLarge, "\(field) is \(data.count) bytes; the limit is \(maxExtraDataBytes)")
        }
        return nil
    }

    /// Whether an id is well formed: 1–128 characters of letters, digits and `_-.@`.
    public static func isValidId(_ id: String) -> Bool {
        guard (1...maxIdLength).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
                 UInt8(ascii: "."), UInt8(ascii: "@"):
                return true
            default:
                return false
            }
        }
    }
}
