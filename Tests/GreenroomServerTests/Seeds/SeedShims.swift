import Foundation

#if !canImport(Combine)
// Linux has no Combine. Just enough of `ObservableObject` and `@Published` for the seeds'
// SwiftUI controllers to compile unchanged; on Apple platforms the real ones are used.

/// An object a SwiftUI view observes (a stand-in for Combine's, on Linux).
protocol ObservableObject: AnyObject {}

/// A property a SwiftUI view observes (a stand-in for Combine's, on Linux).
@propertyWrapper
struct Published<Value> {
    var wrappedValue: Value

    init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }
}
#endif
