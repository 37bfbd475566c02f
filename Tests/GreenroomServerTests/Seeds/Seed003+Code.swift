// Seed 003 (Sendbird UIKit, "Invite users or register as operator"): the page's view-model
// code, verbatim but for the vendor prefix (`SBU` dropped, `BaseChannel` → `ChatChannel`,
// `SBUUser` → `ChatUser`). Not here: the UIKit view controllers and module components,
// which need UIKit; a plain class stands in for the page's view controller, so its
// `override` keywords go (marked `// Port:`).
import Foundation
import Greenroom
import GreenroomUI

/// The page's "customized view model".
@MainActor
final class CustomViewModel: InviteUserViewModel {
    /// Lists only users whose nickname has a capital letter, as an example of a custom query.
    override func filterUsers(_ users: [ChatUser]) async throws -> [ChatUser] {
        try await super.filterUsers(users).filter { $0.nickname.contains { $0.isUppercase } }
    }
}

@MainActor
final class CustomViewController {
    var viewModel: InviteUserViewModel?
    // Not in the seed: what the test reads.
    var invited: [[String]] = []

    init(channel: ChatChannel? = nil, channelUrl: String? = nil, users: [ChatUser]? = nil) {
        createViewModel(channel: channel, channelURL: channelUrl, users: users)
    }

    /* Port: `override` */ func createViewModel(channel: ChatChannel? = nil,
                                  channelURL: String? = nil,
                                  channelType: ChannelType = .group,
                                  users: [ChatUser]? = nil) {
        // Set `viewModel` to the `CustomViewModel` object.
        self.viewModel = CustomViewModel()

        // Implement your code here.
        self.viewModel = CustomViewModel(channel: channel, channelUrl: channelURL, channelType: channelType, users: users)
        self.viewModel?.delegate = self
    }
}

extension CustomViewController: InviteUserViewModelDelegate {
    /* Port: `override` */ func inviteUserViewModel(
        _ viewModel: InviteUserViewModel,
        didInviteUserIds userIds: [String]
    ) {
        // Implement your code here.
        invited.append(userIds)
    }
}
