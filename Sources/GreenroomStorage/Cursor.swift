import Foundation
import GreenroomProtocol

/// Opaque list cursors: the last id of a page, base64url-encoded.
package enum Cursor {
    /// The cursor of the page after the one ending at `id`.
    package static func encode(_ id: String) -> String { Base64URL.encode(Data(id.utf8)) }

    /// The id a cursor names; `invalidParameterValue` for a cursor this server did not give.
    package static func decode(_ cursor: String) throws -> String {
        guard let data = Base64URL.decode(cursor), let id = String(data: data, encoding: .utf8), !id.isEmpty else {
            throw GreenroomError(.invalidParameterValue, "cursor is not one this server gave")
        }
        return id
    }
}
