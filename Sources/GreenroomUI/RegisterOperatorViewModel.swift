import Foundation
import Greenroom
import Observation

/// Told when members became operators, on the main actor.
@MainActor
public protocol RegisterOperatorViewModelDelegate: BaseSelectedUserViewModelDelegate {
    /// The members with these ids became operators.
    func registerOperatorViewModel(_ viewModel: RegisterOperatorViewModel, didRegisterOperatorIds userIds: [String])
}

/// The register-operators screen: the channel's members that are not operators (20 a page),
/// a selection, and ``registerAsOperators()``.
@MainActor
public final class RegisterOperatorViewModel: SelectUserViewModel {
    /// Told of the list, the selection, loading, errors and registrations. Held weakly.
    public weak var delegate: (any RegisterOperatorViewModelDelegate)? {
        didSet { baseDelegate = delegate }
    }

    /// Makes the view model for a channel, as the vendor's screen does.
    public static func createViewModel(client: ChatClient, channel: ChatChannel? = nil, channelUrl: String? = nil, channelType: ChannelType = .group,
                                       users: [ChatUser]? = nil, delegate: (any RegisterOperatorViewModelDelegate)? = nil) -> RegisterOperatorViewModel {
        let viewModel = RegisterOperatorViewModel(client: client, channel: channel, channelUrl: channelUrl, channelType: channelType, users: users)
        viewModel.delegate = delegate
        return viewModel
    }

    /// Makes the selected members operators (nothing happens when none is selected).
    public func registerAsOperators() async {
        await registerAsOperators(userIds: selectedUserList.map(\.id))
    }

    /// Makes these members operators, then tells the delegate and drops them from the list.
    /// A refusal (the caller is not an operator, say) reaches `didReceiveError` and the
    /// lists stay as they were.
    public func registerAsOperators(userIds: [String]) async {
        guard !userIds.isEmpty else { return }
        do {
            try await channelController.addOperators(userIds: userIds)
            delegate?.registerOperatorViewModel(self, didRegisterOperatorIds: userIds)
            remove(userIds)
        } catch {
            report(error)
        }
    }

    override func fetchPage(cursor: String?) async throws -> ([ChatUser], String?) {
        let page = try await channelController.loadMembers(filter: .nonOperators, limit: Self.pageSize, cursor: cursor)
        let ids = page.items.map(\.userId)
        guard !ids.isEmpty else { return ([], page.next) }
        let users = try await client.users(UserListArgs(ids: ids, limit: ids.count)).items
        let byId = Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0) })
        return (ids.compactMap { byId[$0] }.filter(matchesPrefix), page.next)
    }
}
