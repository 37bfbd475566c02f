// Seed 004 (VideoKit, "Realtime Notifications"): the page's handlers, verbatim but for the
// vendor prefix (`.VKVideo…` → `.GRVideo…`, `VKVideo` → `GRVideo`).
// Change beyond the prefix, marked `// Port:` below: Linux has no Objective-C runtime, so no
// `#selector` / `@objc`; the observers are registered with the block form of
// `addObserver`, which calls the same handlers. On Apple platforms the page's form works.
import Foundation
import Greenroom

@MainActor
final class Seed004Feed {
    // Not in the seed: what the test reads.
    var created: [String] = []
    var updated: [String: [String]] = [:]
    var deleted: [String] = []
    private var center = NotificationCenter.default
    private var tokens: [any NSObjectProtocol] = []

    func observe(_ center: NotificationCenter = .default) {
        // Port: the page's `addObserver(self, selector: #selector(handleVideosCreated(_:)), name: .GRVideoCreated, object: nil)`.
        for (name, handler) in [(Notification.Name.GRVideoCreated, handleVideosCreated), (.GRVideoUpdated, handleVideosUpdated), (.GRVideoDeleted, handleVideosDeleted)] {
            tokens.append(center.addObserver(forName: name, object: nil, queue: nil) { notification in
                // Handed to the main actor and used there alone.
                nonisolated(unsafe) let notification = notification
                Task { @MainActor in handler(notification) }
            })
        }
        self.center = center
    }

    func stop() {
        for token in tokens { center.removeObserver(token) }
        tokens = []
    }

func handleVideosCreated(_ notification: Notification) {
if let userInfo = notification.userInfo as? [String : Any], let video = userInfo["video"] as? GRVideo {
// Do something with the video (e.g. add to your playlist, insert into your feed)
created.append(video.id)
}
}

func handleVideosUpdated(_ notification: Notification) {
if let userInfo = notification.userInfo as? [String : Any],
let videoID = userInfo["videoID"] as? String,
let changes = userInfo["changes"] as? [String : Any] {
// Do something with the video (e.g. update your playlist)
updated[videoID, default: []] += changes.keys.sorted()
}
}

func handleVideosDeleted(_ notification: Notification) {
if let userInfo = notification.userInfo as? [String : Any], let videoID = userInfo["videoID"] as? String {
// Do something with the video (e.g. delete video from your playlist, remove video from feed)
deleted.append(videoID)
}
}
}
