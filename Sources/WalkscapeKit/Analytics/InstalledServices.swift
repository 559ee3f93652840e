import Foundation
import TourStore

/// Which service each installed tour came from, by tour id: an event of an installed tour carries
/// that service's ids, and goes to it.
package enum InstalledServices {
    /// Empty when nothing is installed (or the store cannot be read: its events then stay local
    /// rather than risk a service that does not know their ids).
    package static func read(_ settings: Settings) -> [String: String] {
        guard let store = try? StoreAccess.openForReading(settings), let tours = try? store.installedTours() else {
            return [:]
        }
        return Dictionary(tours.map { ($0.id, $0.service) }, uniquingKeysWith: { first, _ in first })
    }
}
