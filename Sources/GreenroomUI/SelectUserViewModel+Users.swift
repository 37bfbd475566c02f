import Greenroom

extension SelectUserViewModel {
    /// A page of user ids as a page of users, in the same order (ids of users that no
    /// longer exist are dropped).
    func users(of page: Page<String>) async throws -> Page<ChatUser> {
        let client = try requireClient()
        guard !page.items.isEmpty else { return Page(items: [], next: page.next) }
        let users = try await client.users(UserListArgs(ids: page.items, limit: page.items.count)).items
        let byId = Dictionary(users.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return Page(items: page.items.compactMap { byId[$0] }, next: page.next)
    }
}
