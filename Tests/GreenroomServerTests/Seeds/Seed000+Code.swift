// Seed 000 (Sendbird Live, "Manage custom items"): the page's code, verbatim but for the
// vendor prefix (none: `LiveEvent` is the same name). Its snippets are wrapped in functions
// that record what their completion handlers were given, so that a test can run them.
import Foundation
import Greenroom

func seed000Params(customItems: [String: String]) -> LiveEvent.CreateParams {
let params = LiveEvent.CreateParams()
params.customItems = customItems
return params
}

@MainActor
final class Seed000Calls {
    var updated: [String] = []
    var deleted: [String] = []
    var deletedAll = false

    func update(_ liveEvent: LiveEvent, newDictionary: [String: String]) {
liveEvent.updateCustomItems(customItems: newDictionary) { customItems, updatedKeys, error in
    guard error == nil else { return }
    // Custom items successfully updated with newDictionary.
    // `updatedKeys` contains custom item keys that have been updated.
    self.updated = updatedKeys ?? []
}
    }

    func delete(_ liveEvent: LiveEvent, deleteKeys: [String]) {
liveEvent.deleteCustomItems(customItemKeys: deleteKeys) { customItems, deletedKeys, error in
    guard error == nil else { return }
    // Custom items successfully deleted.
    // `deletedKeys` contains custom item keys that have been deleted.
    self.deleted = deletedKeys ?? []
}
    }

    func deleteAll(_ liveEvent: LiveEvent) {
liveEvent.deleteAllCustomItems { error in
    guard error == nil else { return }
    // All custom items have been deleted from the live event.
    self.deletedAll = true
}
    }
}

class MyClass: LiveEventDelegate {
    // Not in the seed: what the test reads.
    var events: [String] = []

    func didUpdateCustomItems(_ liveEvent: LiveEvent, customItems: [String : String], updatedKeys: [String]) {
        // Custom items have been updated.
        events.append("updated \(updatedKeys.sorted()) → \(customItems.keys.sorted())")
    }

    func didDeleteCustomItems(_ liveEvent: LiveEvent, customItems: [String : String], deletedKeys: [String]) {
        // Custom items have been deleted.
        events.append("deleted \(deletedKeys.sorted()) → \(customItems.keys.sorted())")
    }
}
